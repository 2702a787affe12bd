//! The pieces of one read handed to several long-lived workers (each whole-file hasher and
//! the consumer of [`super::MultiHasher::hash_file_feeding`]), each of which takes every
//! piece in order, while the reading thread reads the next ones: a short queue of
//! [`IN_FLIGHT`] pieces shared between the workers (`Arc`), their buffers reused once every
//! worker is done with them.
//!
//! Why not a thread per piece and worker, the next piece read once all are done: the reads
//! (copies from the page cache, or the page faults of a map) then waited for the slowest
//! worker, and the workers for the reads (BENCHMARKS.md, `check --locate`).

use std::collections::VecDeque;
use std::io;
use std::ops::Deref;
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;

use super::read::{give_back, take_buffer, Buffer};
use super::Progress;

/// Pieces read and not yet done by every worker, the one being read included: enough that
/// reading overlaps hashing and a worker slowed for a moment does not stall the others, few
/// enough that the pieces stay in the last-level cache between the read and the last worker.
pub(super) const IN_FLIGHT: usize = 3;

/// A piece's bytes: read into a buffer of the pipeline's, or borrowed (a map, the zeros of a
/// hole, a spooled input).
enum Bytes<'a> {
    Buffer(Buffer, usize),
    Borrowed(&'a [u8]),
}

impl Deref for Bytes<'_> {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Buffer(buf, len) => &buf[..*len],
            Bytes::Borrowed(bytes) => bytes,
        }
    }
}

struct Piece<'a> {
    offset: u64,
    bytes: Bytes<'a>,
}

/// A worker's word that it is done with its next piece, or that it stopped (its error).
struct Done {
    worker: usize,
    result: io::Result<()>,
}

/// What the reading thread does once every worker is done with a piece (drop its map).
pub(super) type After<'a> = Box<dyn FnOnce() + 'a>;

/// What one worker does with each piece: `(offset, bytes)`; an error stops everything.
pub(super) type Work<'w> = Box<dyn FnMut(u64, &[u8]) -> io::Result<()> + Send + 'w>;

/// The reading thread's end: it sends pieces and takes back their buffers.
pub(super) struct Feeder<'a> {
    workers: Vec<Sender<Arc<Piece<'a>>>>,
    done: Receiver<Done>,
    /// Pieces done by each worker so far.
    finished: Vec<u64>,
    /// Pieces sent: the oldest one first, with what to do once every worker is done with it.
    in_flight: VecDeque<(Arc<Piece<'a>>, Option<After<'a>>)>,
    /// Pieces sent before the oldest one in flight.
    retired: u64,
    offset: u64,
    buffer_size: usize,
    buffers_made: usize,
    spare: Vec<Buffer>,
    progress: &'a dyn Progress,
    /// The first worker's error: nothing more is sent once there is one.
    failed: Option<io::Error>,
}

/// Runs `read` on this thread, feeding the pieces it sends to `works`, each on a thread of its
/// own; returns once every worker is done. The first error (`read`'s, or a worker's, which
/// stops the reading) is returned.
pub(super) fn run<'a>(
    works: Vec<Work<'_>>,
    buffer_size: usize,
    progress: &'a dyn Progress,
    read: impl FnOnce(&mut Feeder<'a>) -> io::Result<()>,
) -> io::Result<()> {
    let (done_tx, done_rx) = mpsc::channel();
    std::thread::scope(|scope| {
        let mut senders = Vec::with_capacity(works.len());
        for (worker, work) in works.into_iter().enumerate() {
            let (tx, rx) = mpsc::channel::<Arc<Piece<'a>>>();
            senders.push(tx);
            let done = done_tx.clone();
            scope.spawn(move || run_worker(worker, rx, done, work));
        }
        drop(done_tx);
        let mut feeder = Feeder {
            finished: vec![0; senders.len()],
            workers: senders,
            done: done_rx,
            in_flight: VecDeque::with_capacity(IN_FLIGHT),
            retired: 0,
            offset: 0,
            buffer_size,
            buffers_made: 0,
            spare: Vec::new(),
            progress,
            failed: None,
        };
        let read = read(&mut feeder);
        feeder.finish(read)
    })
}

/// One worker: every piece to `work`, in order, each reported done once dropped (so the reader
/// can reuse its buffer). A panic is reported as an error, so that the reader stops waiting.
fn run_worker(worker: usize, pieces: Receiver<Arc<Piece<'_>>>, done: Sender<Done>, mut work: Work) {
    struct OnPanic<'d>(usize, &'d Sender<Done>);
    impl Drop for OnPanic<'_> {
        fn drop(&mut self) {
            if std::thread::panicking() {
                let result = Err(io::Error::other("a hashing thread panicked"));
                let _ = self.1.send(Done {
                    worker: self.0,
                    result,
                });
            }
        }
    }
    let _guard = OnPanic(worker, &done);
    for piece in pieces {
        let result = work(piece.offset, &piece.bytes);
        drop(piece);
        let failed = result.is_err();
        // The reader hung up: it stopped.
        if done.send(Done { worker, result }).is_err() || failed {
            return;
        }
    }
}

impl<'a> Feeder<'a> {
    /// A buffer to read the next piece into, [`Self::send_buffer`] then: a spare one, or once
    /// [`IN_FLIGHT`] are out, the oldest one back from the workers.
    ///
    /// # Errors
    /// A worker's error (the reading must stop).
    pub(super) fn buffer(&mut self) -> io::Result<Buffer> {
        loop {
            if let Some(buf) = self.spare.pop() {
                return Ok(buf);
            }
            if self.buffers_made < IN_FLIGHT {
                self.buffers_made += 1;
                return Ok(take_buffer(self.buffer_size));
            }
            self.retire_oldest()?;
        }
    }

    /// Takes back a buffer from [`Self::buffer`] that was not sent.
    pub(super) fn keep(&mut self, buf: Buffer) {
        self.spare.push(buf);
    }

    /// Hands the first `len` bytes of `buf` (from [`Self::buffer`]) to the workers.
    ///
    /// # Errors
    /// A worker's error.
    pub(super) fn send_buffer(&mut self, buf: Buffer, len: usize) -> io::Result<()> {
        self.send(Bytes::Buffer(buf, len), None)
    }

    /// Hands `bytes` to the workers; `after` runs once they are all done with them.
    ///
    /// # Errors
    /// A worker's error.
    pub(super) fn send_borrowed(
        &mut self,
        bytes: &'a [u8],
        after: Option<After<'a>>,
    ) -> io::Result<()> {
        self.send(Bytes::Borrowed(bytes), after)
    }

    fn send(&mut self, bytes: Bytes<'a>, after: Option<After<'a>>) -> io::Result<()> {
        self.take_reports()?;
        while self.in_flight.len() >= IN_FLIGHT {
            self.retire_oldest()?;
        }
        let piece = Arc::new(Piece {
            offset: self.offset,
            bytes,
        });
        self.offset += piece.bytes.len() as u64;
        for worker in &self.workers {
            if worker.send(Arc::clone(&piece)).is_err() {
                // The worker stopped on an error, which is in the reports.
                self.wait_for_error();
                return Err(self.error());
            }
        }
        self.in_flight.push_back((piece, after));
        Ok(())
    }

    /// Takes the reports already in, without waiting.
    fn take_reports(&mut self) -> io::Result<()> {
        while let Ok(done) = self.done.try_recv() {
            self.note(done);
        }
        self.settle()
    }

    /// Waits until the oldest piece in flight is done by every worker, and takes it back.
    fn retire_oldest(&mut self) -> io::Result<()> {
        let oldest = self.retired;
        while self.finished.iter().any(|&n| n <= oldest) {
            match self.done.recv() {
                Ok(done) => self.note(done),
                Err(mpsc::RecvError) => {
                    self.failed
                        .get_or_insert_with(|| io::Error::other("a worker stopped"));
                }
            }
            if self.failed.is_some() {
                return Err(self.error());
            }
        }
        self.settle()
    }

    fn note(&mut self, done: Done) {
        match done.result {
            Ok(()) => self.finished[done.worker] += 1,
            Err(err) => {
                self.failed.get_or_insert(err);
            }
        }
    }

    /// Takes back every piece in flight that all the workers are done with; the error, if a
    /// worker reported one.
    fn settle(&mut self) -> io::Result<()> {
        if self.failed.is_some() {
            return Err(self.error());
        }
        let all_done = self.finished.iter().copied().min().unwrap_or(u64::MAX);
        while self.retired < all_done {
            let Some((piece, after)) = self.in_flight.pop_front() else {
                break;
            };
            self.retired += 1;
            self.progress.hashed(piece.bytes.len() as u64);
            // Every worker dropped its handle before it said it was done.
            if let Ok(Piece {
                bytes: Bytes::Buffer(buf, _),
                ..
            }) = Arc::try_unwrap(piece)
            {
                self.spare.push(buf);
            }
            if let Some(after) = after {
                after();
            }
        }
        Ok(())
    }

    /// Waits for the report of a worker that hung up: its error.
    fn wait_for_error(&mut self) {
        while self.failed.is_none() {
            match self.done.recv() {
                Ok(done) => self.note(done),
                Err(mpsc::RecvError) => break,
            }
        }
    }

    fn error(&mut self) -> io::Error {
        self.failed
            .take()
            .unwrap_or_else(|| io::Error::other("a worker stopped"))
    }

    /// Ends the feed after `read`: the workers finish the pieces in flight (all of them, when
    /// nothing failed), and the buffers are kept for the next file.
    fn finish(mut self, read: io::Result<()>) -> io::Result<()> {
        self.workers.clear();
        let mut result = read;
        if result.is_ok() {
            result = (|| {
                while !self.in_flight.is_empty() {
                    self.retire_oldest()?;
                }
                Ok(())
            })();
        } else if let Some(err) = self.failed.take() {
            // A worker's error first: the reading may have stopped because of it.
            result = Err(err);
        }
        for (piece, after) in self.in_flight.drain(..) {
            drop(piece);
            if let Some(after) = after {
                after();
            }
        }
        self.spare.drain(..).for_each(give_back);
        result
    }
}
