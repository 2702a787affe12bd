//! The host side of every GPU call: what stands between the caller's bytes and the kernels.
//!
//! Copies run at the bus rate only from page-locked (pinned) memory, and allocating pinned or
//! device memory costs far more than copying into it (and synchronises the device), so the
//! buffers here are allocated once per [`crate::Gpu`], grown when a call needs more, and reused:
//!
//! - [`Lane`]: a stream with a pinned staging buffer and a digest buffer on each side; a batch
//!   is cut into chunks rotated over the lanes, so one chunk's copies overlap another's kernel
//!   while the host packs a third straight into pinned memory.
//! - [`TreeBuffers`] and [`Feed`]: PARSHA-256's device message buffer, a copy stream and two
//!   pinned pieces: a long message (or a file) is read into one piece on every core while the
//!   other is copied, and each round of the tree is launched as soon as the bytes it reads are
//!   on the device, so reading, copying and hashing overlap.
//!
//! Device memory is never zeroed before it is overwritten; what a kernel reads past the copied
//! bytes (PARSHA-256's end padding) is zeroed alone.
//!
//! Copies name sub-slices of the pinned buffers, which cudarc treats as ordinary host slices
//! (it records no event for them): each buffer here carries its own event, recorded after the
//! last copy that uses it and waited on before the host writes it again.

use std::io;
use std::sync::Arc;

use cudarc::driver::sys::{CUdeviceptr, CUevent_flags};
use cudarc::driver::{
    CudaContext, CudaEvent, CudaSlice, CudaStream, DevicePtrMut, PinnedHostSlice,
};

use crate::GpuError;

/// Page-locked memory that is neither write-combined nor mapped: the host reads digests back from
/// it and `read(2)` fills it, and write-combined memory is slow for both.
const PINNED_FLAGS: u32 = 0;

/// Bytes of a staging buffer allocated before any call asks for more.
const FIRST_CAPACITY: usize = 1 << 20;

/// Bytes of one pinned piece of a long message (two are kept): large enough that a copy runs at
/// the bus rate, small enough that reading one piece while the other is copied keeps both busy.
pub const PIECE_BYTES: usize = 16 << 20;

/// Bytes one core reads of a piece at a time.
const READ_SHARE: usize = 1 << 20;

/// An event pair timing one stretch of a stream.
pub(crate) struct Span {
    start: CudaEvent,
    end: CudaEvent,
}

impl Span {
    pub(crate) fn begin(ctx: &Arc<CudaContext>, stream: &CudaStream) -> Result<Span, GpuError> {
        let start = ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        let end = ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))?;
        start.record(stream)?;
        Ok(Span { start, end })
    }

    pub(crate) fn end(&self, stream: &CudaStream) -> Result<(), GpuError> {
        Ok(self.end.record(stream)?)
    }

    /// Seconds between the two events (after they completed).
    pub(crate) fn seconds(&self) -> Result<f64, GpuError> {
        self.end.synchronize()?;
        Ok(f64::from(self.start.elapsed_ms(&self.end)?) / 1e3)
    }
}

/// Pinned host memory of `len` bytes.
fn pinned(ctx: &Arc<CudaContext>, len: usize) -> Result<PinnedHostSlice<u8>, GpuError> {
    // SAFETY: the memory is uninitialised; every user here writes a range (packing, reading, a
    // copy from the device) before it reads or copies that range.
    Ok(unsafe { ctx.alloc_pinned_with_flags::<u8>(len.max(1), PINNED_FLAGS) }?)
}

/// Device memory of `len` bytes, not zeroed.
fn device(stream: &Arc<CudaStream>, len: usize) -> Result<CudaSlice<u8>, GpuError> {
    // SAFETY: as for `pinned`: the kernels read only ranges copied to or zeroed on the device
    // earlier on the same stream.
    Ok(unsafe { stream.alloc::<u8>(len.max(1)) }?)
}

/// A new capacity for a buffer of `have` bytes that must hold `need`: half as much again, so a
/// run of growing calls reallocates a few times, not once per call.
fn grown(have: usize, need: usize) -> usize {
    need.max(have + have / 2)
}

/// A chunk a lane is working on: where its digests go and its timings.
pub(crate) struct Pending {
    /// Index of the chunk's first message in the batch.
    pub first: usize,
    /// Messages in the chunk.
    pub count: usize,
    /// The host-to-device copy.
    pub copy: Span,
    /// The kernel.
    pub run: Span,
}

/// One stream with its reusable buffers.
pub(crate) struct Lane {
    pub stream: Arc<CudaStream>,
    pub host_in: PinnedHostSlice<u8>,
    pub host_out: PinnedHostSlice<u8>,
    pub dev_in: CudaSlice<u8>,
    pub dev_out: CudaSlice<u8>,
    /// Recorded after the copy of the digests back: once it completes, both pinned buffers are
    /// free again.
    pub done: CudaEvent,
    pub pending: Option<Pending>,
}

impl Lane {
    pub(crate) fn new(ctx: &Arc<CudaContext>) -> Result<Lane, GpuError> {
        let stream = ctx.new_stream()?;
        Ok(Lane {
            host_in: pinned(ctx, FIRST_CAPACITY)?,
            host_out: pinned(ctx, FIRST_CAPACITY / 16)?,
            dev_in: device(&stream, FIRST_CAPACITY)?,
            dev_out: device(&stream, FIRST_CAPACITY / 16)?,
            done: ctx.new_event(None)?,
            stream,
            pending: None,
        })
    }

    /// Grows the buffers to hold `in_bytes` staged and `out_bytes` of digests. Call it before a
    /// batch's first copy: allocating synchronises the device. A chunk that a failed call left
    /// in flight is waited for and forgotten (its digests belonged to that call).
    pub(crate) fn reserve(
        &mut self,
        ctx: &Arc<CudaContext>,
        in_bytes: usize,
        out_bytes: usize,
    ) -> Result<(), GpuError> {
        // Whatever a failed call left queued (a copy from `host_in` whose chunk never became
        // pending, say) ends before the buffers are written or freed: the raw copies below are
        // invisible to cudarc's own tracking. After a call that succeeded the stream is idle.
        self.stream.synchronize()?;
        self.pending = None;
        if self.host_in.len() < in_bytes {
            let cap = grown(self.host_in.len(), in_bytes);
            self.host_in = pinned(ctx, cap)?;
            self.dev_in = device(&self.stream, cap)?;
        }
        if self.host_out.len() < out_bytes {
            let cap = grown(self.host_out.len(), out_bytes);
            self.host_out = pinned(ctx, cap)?;
            self.dev_out = device(&self.stream, cap)?;
        }
        Ok(())
    }

    /// Waits for the chunk in flight, if any; hands its digests (32 bytes each, as the kernel
    /// wrote them) to `take` with the chunk, and returns the chunk.
    pub(crate) fn harvest(
        &mut self,
        mut take: impl FnMut(&Pending, &[u8]),
    ) -> Result<Option<Pending>, GpuError> {
        let Some(p) = self.pending.take() else {
            return Ok(None);
        };
        self.done.synchronize()?;
        take(&p, &self.host_out.as_slice()?[..32 * p.count]);
        Ok(Some(p))
    }
}

/// Where a message's bytes come from: read at any offset, from several threads at once (a file,
/// or bytes already in memory).
pub trait ReadAt: Sync {
    /// Reads into `buf` from `offset`; returns how many bytes were read (0 at the end).
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize>;
}

impl ReadAt for [u8] {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        let start = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(self.len());
        let n = buf.len().min(self.len() - start);
        buf[..n].copy_from_slice(&self[start..start + n]);
        Ok(n)
    }
}

impl ReadAt for std::fs::File {
    fn read_at(&self, buf: &mut [u8], offset: u64) -> io::Result<usize> {
        #[cfg(unix)]
        {
            std::os::unix::fs::FileExt::read_at(self, buf, offset)
        }
        #[cfg(windows)]
        {
            std::os::windows::fs::FileExt::seek_read(self, buf, offset)
        }
    }
}

/// The library's error for a source that changed size while it was read (`len` bytes when its
/// length was taken; it ended at `found`, or went on past `len`): the CPU's rule and message.
fn changed_size(len: u64, found: Option<u64>) -> io::Error {
    io::Error::other(parhash::file::FileChangedSize {
        expected: len,
        found,
    })
}

/// Fills `buf` from `offset` of a source of `len` bytes; one that ends first changed size.
pub(crate) fn read_exact_at(
    source: &(impl ReadAt + ?Sized),
    buf: &mut [u8],
    offset: u64,
    len: u64,
) -> io::Result<()> {
    let mut done = 0;
    while done < buf.len() {
        match source.read_at(&mut buf[done..], offset + done as u64) {
            Ok(0) => return Err(changed_size(len, Some(offset + done as u64))),
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Fills `buf` from `offset` of a source of `len` bytes on every core, a share each (1 MiB),
/// as the GPU path reads a file: one that ends first changed size (the library's
/// [`parhash::file::FileChangedSize`]). The lab times it as the host's page-cache read rate.
///
/// # Errors
/// A read error, or the source's change of size.
pub fn read_piece(
    source: &(impl ReadAt + ?Sized),
    buf: &mut [u8],
    offset: u64,
    len: u64,
) -> io::Result<()> {
    use rayon::prelude::*;
    if buf.len() <= READ_SHARE {
        return read_exact_at(source, buf, offset, len);
    }
    buf.par_chunks_mut(READ_SHARE)
        .enumerate()
        .try_for_each(|(i, share)| {
            read_exact_at(source, share, offset + (i * READ_SHARE) as u64, len)
        })
}

/// Fails if `source` holds more than `len` bytes: it grew while it was read, and the digest of
/// its first `len` bytes would be no file's digest.
pub(crate) fn check_ends_at(source: &(impl ReadAt + ?Sized), len: u64) -> io::Result<()> {
    let mut probe = [0u8; 1];
    loop {
        match source.read_at(&mut probe, len) {
            Ok(0) => return Ok(()),
            Ok(_) => return Err(changed_size(len, None)),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

/// Copies the bytes of `window` (32 bytes from `window_at` in the message) that lie in `piece`
/// (the message's bytes from `piece_at`): PARSHA-256's final piece, kept as it streams past.
pub(crate) fn keep_window(window: &mut [u8; 32], window_at: u64, piece: &[u8], piece_at: u64) {
    let start = window_at.max(piece_at);
    let end = (window_at + 32).min(piece_at + piece.len() as u64);
    if start < end {
        let (w, p) = ((start - window_at) as usize, (start - piece_at) as usize);
        let n = (end - start) as usize;
        window[w..w + n].copy_from_slice(&piece[p..p + n]);
    }
}

/// PARSHA-256's buffers: the message on the device, the stream that copies into it, and two
/// pinned pieces, each with the event recorded after its last copy.
pub(crate) struct TreeBuffers {
    pub message: CudaSlice<u8>,
    pub copy: Arc<CudaStream>,
    pub pieces: [PinnedHostSlice<u8>; 2],
    pub copied: [CudaEvent; 2],
    /// Recorded on `copy` after the copies a launch waits for.
    pub arrived: CudaEvent,
}

impl TreeBuffers {
    pub(crate) fn new(
        ctx: &Arc<CudaContext>,
        stream: &Arc<CudaStream>,
    ) -> Result<TreeBuffers, GpuError> {
        Ok(TreeBuffers {
            message: device(stream, FIRST_CAPACITY)?,
            copy: ctx.new_stream()?,
            pieces: [pinned(ctx, PIECE_BYTES)?, pinned(ctx, PIECE_BYTES)?],
            copied: [ctx.new_event(None)?, ctx.new_event(None)?],
            arrived: ctx.new_event(None)?,
        })
    }

    /// Grows the device message buffer to `bytes` (its contents are not kept).
    pub(crate) fn reserve(
        &mut self,
        stream: &Arc<CudaStream>,
        bytes: usize,
    ) -> Result<(), GpuError> {
        if self.message.len() < bytes {
            // Freeing the old buffer is ordered on `stream` alone: the copy stream's raw copies
            // into it must have ended too.
            stream.synchronize()?;
            self.copy.synchronize()?;
            self.message = device(stream, grown(self.message.len(), bytes))?;
        }
        Ok(())
    }
}

/// A message streamed onto the device for the launches of one PARSHA-256 run: [`Feed::until`]
/// reads and copies pieces until the bytes a launch reads are queued, and makes the compute
/// stream wait for them (and for the end padding's zeros, queued first).
pub(crate) struct Feed<'a, S: ReadAt + ?Sized> {
    source: &'a S,
    len: u64,
    compute: &'a CudaStream,
    copy: &'a CudaStream,
    /// The device message buffer's address (its bounds checked in [`Feed::new`]).
    message: CUdeviceptr,
    pieces: &'a mut [PinnedHostSlice<u8>; 2],
    copied: &'a mut [CudaEvent; 2],
    arrived: &'a CudaEvent,
    /// Bytes queued for copying so far.
    queued: u64,
    /// Pieces queued so far.
    count: usize,
    /// Whether the compute stream already waits for everything queued.
    waited: bool,
    /// PARSHA-256's final piece, kept as it streams past, and where it starts.
    pub final_piece: [u8; 32],
    final_at: Option<u64>,
    /// Each piece's copy, timed.
    pub copies: Vec<Span>,
    ctx: &'a Arc<CudaContext>,
}

impl<'a, S: ReadAt + ?Sized> Feed<'a, S> {
    /// Prepares `bufs` (grown to `padded` bytes on the device first) for `len` bytes of
    /// `source`, with zeros past `len` (queued now on the copy stream) and the final piece kept
    /// from `final_at` (`None`: no final piece). The device message buffer stays free for the
    /// launches to read.
    pub(crate) fn new(
        ctx: &'a Arc<CudaContext>,
        compute: &'a Arc<CudaStream>,
        bufs: &'a mut TreeBuffers,
        source: &'a S,
        len: u64,
        padded: usize,
        final_at: Option<u64>,
    ) -> Result<(Self, &'a CudaSlice<u8>), GpuError> {
        bufs.reserve(compute, padded)?;
        let TreeBuffers {
            message,
            copy,
            pieces,
            copied,
            arrived,
        } = bufs;
        // The buffer may have just been allocated on the compute stream (stream-ordered, and
        // the copy stream does not block on it), and an earlier call's kernels read it there.
        copy.join(compute)?;
        // Steps 2 and 5's zeros: the only bytes past the copied ones a kernel reads.
        if padded as u64 > len {
            copy.memset_zeros(&mut message.slice_mut(len as usize..padded))?;
        }
        let address = message.device_ptr_mut(copy).0;
        let feed = Feed {
            source,
            len,
            compute,
            copy,
            message: address,
            pieces,
            copied,
            arrived,
            queued: 0,
            count: 0,
            waited: false,
            final_piece: [0; 32],
            final_at,
            copies: Vec::new(),
            ctx,
        };
        Ok((feed, message))
    }

    /// Queues the message up to byte `end` (at least; whole pieces) and makes the compute
    /// stream wait for it.
    pub(crate) fn until(&mut self, end: u64) -> Result<(), crate::SourceError> {
        let end = end.min(self.len);
        while self.queued < end {
            let at = self.queued;
            let n = (self.len - at).min(PIECE_BYTES as u64) as usize;
            let b = self.count % 2;
            // The piece before in this buffer has been copied: it may be refilled.
            self.copied[b].synchronize()?;
            let host = &mut self.pieces[b].as_mut_slice()?[..n];
            read_piece(self.source, host, at, self.len)?;
            if let Some(final_at) = self.final_at {
                keep_window(&mut self.final_piece, final_at, host, at);
            }
            let span = Span::begin(self.ctx, self.copy)?;
            // SAFETY: `at + n <= len <= padded`, within the device buffer `Feed::new` reserved;
            // the host bytes are pinned and are not written again before `copied[b]`, recorded
            // right after this copy, completes.
            unsafe {
                cudarc::driver::result::memcpy_htod_async(
                    self.message + at,
                    &*host,
                    self.copy.cu_stream(),
                )
            }?;
            span.end(self.copy)?;
            self.copied[b].record(self.copy)?;
            self.copies.push(span);
            self.queued += n as u64;
            self.count += 1;
            self.waited = false;
        }
        if !self.waited {
            self.arrived.record(self.copy)?;
            self.compute.wait(self.arrived)?;
            self.waited = true;
        }
        Ok(())
    }

    /// Fails if the source ran on past its length (after every byte was queued).
    pub(crate) fn check_end(&mut self) -> Result<(), crate::SourceError> {
        self.until(self.len)?;
        Ok(check_ends_at(self.source, self.len)?)
    }
}

impl<S: ReadAt + ?Sized> Drop for Feed<'_, S> {
    /// No copy outlives the feed: after a failed read or launch the pinned pieces and the
    /// message buffer may be refilled or freed by the next call, and cudarc does not know of the
    /// raw copies. After a run that succeeded every copy has long ended (the kernels waited).
    fn drop(&mut self) {
        let _ = self.copy.synchronize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_piece_read_on_every_core_is_the_bytes_at_its_offset() {
        let data: Vec<u8> = (0..5 * READ_SHARE + 123).map(|i| (i % 251) as u8).collect();
        for (offset, len) in [
            (0, 0),
            (0, 10),
            (7, READ_SHARE + 1),
            (100, 4 * READ_SHARE + 5),
        ] {
            let mut buf = vec![0u8; len];
            read_piece(data.as_slice(), &mut buf, offset as u64, data.len() as u64).unwrap();
            assert_eq!(buf, data[offset..offset + len]);
        }
        // Read as if it had been longer when its length was taken: it changed size.
        let mut past = vec![0u8; 2 * READ_SHARE];
        let taken = 6 * READ_SHARE as u64;
        let err = read_piece(data.as_slice(), &mut past, 4 * READ_SHARE as u64, taken).unwrap_err();
        let changed = changed_size_in(&err);
        assert_eq!(changed.expected, taken);
        assert_eq!(changed.found, Some(data.len() as u64));
        assert_eq!(err.to_string(), "file changed size while being read");
    }

    fn changed_size_in(err: &io::Error) -> parhash::file::FileChangedSize {
        *err.get_ref()
            .and_then(|e| e.downcast_ref::<parhash::file::FileChangedSize>())
            .expect("the library's changed-size error")
    }

    #[test]
    fn a_source_longer_than_its_length_is_refused() {
        let data = [1u8, 2, 3];
        check_ends_at(data.as_slice(), 3).unwrap();
        let err = check_ends_at(data.as_slice(), 2).unwrap_err();
        assert_eq!(
            changed_size_in(&err).found,
            None,
            "it went on past its length"
        );
    }

    #[test]
    fn a_file_is_read_at_offsets() {
        let dir = std::env::temp_dir().join(format!("parhash-cuda-readat-{}", std::process::id()));
        std::fs::write(&dir, b"0123456789").unwrap();
        let f = std::fs::File::open(&dir).unwrap();
        let mut buf = [0u8; 4];
        read_exact_at(&f, &mut buf, 3, 10).unwrap();
        assert_eq!(&buf, b"3456");
        assert!(read_exact_at(&f, &mut buf, 8, 10).is_err());
        std::fs::remove_file(&dir).unwrap();
    }

    #[test]
    fn the_final_window_is_kept_from_whichever_pieces_hold_it() {
        let msg: Vec<u8> = (0..200u8).collect();
        for window_at in [0u64, 5, 31, 60, 168] {
            for piece in [1usize, 7, 32, 64, 200] {
                let mut window = [0u8; 32];
                for (k, p) in msg.chunks(piece).enumerate() {
                    keep_window(&mut window, window_at, p, (k * piece) as u64);
                }
                let w = window_at as usize;
                let end = (w + 32).min(msg.len());
                assert_eq!(
                    &window[..end - w],
                    &msg[w..end],
                    "at {window_at} pieces {piece}"
                );
                assert!(window[end - w..].iter().all(|&b| b == 0));
            }
        }
    }
}
