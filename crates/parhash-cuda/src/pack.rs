//! Message packing for the batched kernels (messages one after another, each at an aligned
//! offset, with offset and length tables) and the padding rules the kernels apply, mirrored here
//! so that they are tested on the CPU.

/// Every packed message starts at a multiple of this many bytes, so the kernels load whole
/// 32-bit (SHA-256) or 64-bit (Keccak) words from it.
pub const PACK_ALIGN: usize = 16;

/// SHA-256's block size in bytes.
pub const SHA256_BLOCK: usize = 64;

/// Keccak's rate in bytes for a 256-bit digest (r = 1088 bits).
pub const KECCAK256_RATE: usize = 136;

/// Keccak-256's domain byte (the original submission's padding).
pub const DOMAIN_KECCAK: u8 = 0x01;

/// SHA3-256's domain byte (FIPS 202: the suffix 01, then pad10*1).
pub const DOMAIN_SHA3: u8 = 0x06;

/// Messages packed for a batched kernel: `data[offsets[i] .. offsets[i] + lengths[i]]` is message
/// `i`. `data` is never empty (a zero-byte device buffer cannot be allocated) and its length is a
/// multiple of [`PACK_ALIGN`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Packed {
    /// The messages, each starting at an aligned offset, zeros between them.
    pub data: Vec<u8>,
    /// Byte offset of each message in `data`.
    pub offsets: Vec<u64>,
    /// Byte length of each message.
    pub lengths: Vec<u64>,
}

/// The offset table alone: where each of messages of these lengths starts, and the total size.
pub fn offsets_for(lengths: impl IntoIterator<Item = usize>) -> (Vec<u64>, usize) {
    let mut offsets = Vec::new();
    let mut end = 0usize;
    for len in lengths {
        offsets.push(end as u64);
        end += len.next_multiple_of(PACK_ALIGN);
    }
    (offsets, end.max(PACK_ALIGN))
}

/// Packs `messages` one after another at aligned offsets.
pub fn pack(messages: &[&[u8]]) -> Packed {
    let (offsets, total) = offsets_for(messages.iter().map(|m| m.len()));
    let mut data = vec![0u8; total];
    for (m, &off) in messages.iter().zip(&offsets) {
        data[off as usize..off as usize + m.len()].copy_from_slice(m);
    }
    Packed {
        data,
        offsets,
        lengths: messages.iter().map(|m| m.len() as u64).collect(),
    }
}

/// The length of [`pack_into`]'s buffer for messages of these lengths: the offset and length
/// tables (8 bytes an entry each), then the packed messages.
pub fn packed_len(lengths: impl IntoIterator<Item = usize>) -> usize {
    let (offsets, data) = offsets_for(lengths);
    16 * offsets.len() + data
}

/// Messages handed to one worker of [`pack_into`] at a time: enough that splitting the buffer
/// costs nothing beside the copies, few enough that every core gets a share of a batch.
const PACK_SHARE: usize = 4096;

/// Packs `messages` straight into `dst` (at least [`packed_len`] bytes, e.g. a pinned staging
/// buffer) as `[offsets | lengths | data]`, every table entry a little-endian u64 and the data
/// laid out as [`pack`] lays it out, on all cores. Returns where the lengths and the data start
/// (`data` is a multiple of 16, so the kernels' aligned loads hold). Every byte of the data
/// region up to [`packed_len`] is written (the gaps with zeros), so a reused buffer carries
/// nothing over from an earlier batch.
pub fn pack_into(messages: &[&[u8]], dst: &mut [u8]) -> (usize, usize) {
    use rayon::prelude::*;
    let n = messages.len();
    let (offsets, data_len) = offsets_for(messages.iter().map(|m| m.len()));
    let (lengths_at, data_at) = (8 * n, 16 * n);
    assert!(
        dst.len() >= data_at + data_len,
        "pack_into: {} bytes for a batch of {}",
        dst.len(),
        data_at + data_len
    );
    let (tables, rest) = dst.split_at_mut(data_at);
    let (offset_table, length_table) = tables.split_at_mut(lengths_at);
    let data = &mut rest[..data_len];
    // Each share of messages owns a contiguous stretch of the data region, so the shares are
    // cut from the buffer once, in order, and filled in parallel.
    let mut shares = Vec::with_capacity(n.div_ceil(PACK_SHARE));
    let mut remaining = data;
    for first in (0..n).step_by(PACK_SHARE) {
        let last = (first + PACK_SHARE).min(n);
        let end = if last == n {
            data_len
        } else {
            offsets[last] as usize
        };
        let (mine, tail) = remaining.split_at_mut(end - offsets[first] as usize);
        remaining = tail;
        shares.push((first..last, mine));
    }
    // An empty batch (or one of empty messages) still has PACK_ALIGN bytes of data: zeros.
    remaining.fill(0);
    shares.into_par_iter().for_each(|(range, out)| {
        let base = offsets[range.start] as usize;
        let mut end = 0;
        for i in range {
            let at = offsets[i] as usize - base;
            let m = messages[i];
            out[at..at + m.len()].copy_from_slice(m);
            end = at + m.len().next_multiple_of(PACK_ALIGN);
            out[at + m.len()..end].fill(0);
        }
        out[end..].fill(0);
    });
    offset_table
        .par_chunks_exact_mut(8)
        .zip(length_table.par_chunks_exact_mut(8))
        .enumerate()
        .for_each(|(i, (o, l))| {
            o.copy_from_slice(&offsets[i].to_le_bytes());
            l.copy_from_slice(&(messages[i].len() as u64).to_le_bytes());
        });
    (lengths_at, data_at)
}

/// Messages of a uniform batch start at multiples of this many bytes (the kernels' 64-bit loads).
pub const UNIFORM_ALIGN: usize = 8;

/// The length every message of `messages` has, where there are some and that length is not 0:
/// such a batch travels as [`pack_uniform_into`] lays it out, without tables (a 55-byte message
/// costs 56 bytes of copy instead of 80).
pub fn uniform_len(messages: &[&[u8]]) -> Option<usize> {
    let len = messages.first()?.len();
    (len > 0 && messages.iter().all(|m| m.len() == len)).then_some(len)
}

/// Where each message of a uniform batch of `len`-byte messages starts: every this many bytes.
pub fn uniform_stride(len: usize) -> usize {
    len.next_multiple_of(UNIFORM_ALIGN)
}

/// Packs messages of one length (see [`uniform_len`]) straight into `dst` (at least
/// `messages.len() * uniform_stride(len)` bytes), one every [`uniform_stride`] bytes with zeros
/// between them, on all cores; every byte of that length is written.
pub fn pack_uniform_into(messages: &[&[u8]], dst: &mut [u8]) {
    use rayon::prelude::*;
    let Some(&first) = messages.first() else {
        return;
    };
    let len = first.len();
    let stride = uniform_stride(len);
    dst[..stride * messages.len()]
        .par_chunks_exact_mut(stride)
        .with_min_len(PACK_SHARE)
        .zip(messages.par_iter())
        .for_each(|(out, m)| {
            assert_eq!(
                m.len(),
                len,
                "pack_uniform_into: messages of different lengths"
            );
            out[..len].copy_from_slice(m);
            out[len..].fill(0);
        });
}

/// The bytes one copy carries for `messages` in the batched kernels' layouts: at a fixed stride
/// where they are all of one length ([`uniform_len`]), else with tables ([`packed_len`]).
pub fn staged_len(messages: &[&[u8]]) -> usize {
    match uniform_len(messages) {
        Some(len) => messages.len() * uniform_stride(len),
        None => packed_len(messages.iter().map(|m| m.len())),
    }
}

/// How [`stage_into`] laid a batch out, for the kernel launch that reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Staged {
    /// `[offsets | lengths | data]`: where the lengths and the data start ([`pack_into`]).
    Tables { lengths_at: usize, data_at: usize },
    /// Messages of `len` bytes every `stride` bytes from the start, no tables
    /// ([`pack_uniform_into`]).
    Uniform { len: usize, stride: usize },
}

/// Lays `messages` out in `dst` (at least [`staged_len`] bytes) as [`staged_len`] decides, and
/// says how.
pub fn stage_into(messages: &[&[u8]], dst: &mut [u8]) -> Staged {
    match uniform_len(messages) {
        Some(len) => {
            pack_uniform_into(messages, dst);
            Staged::Uniform {
                len,
                stride: uniform_stride(len),
            }
        }
        None => {
            let (lengths_at, data_at) = pack_into(messages, dst);
            Staged::Tables {
                lengths_at,
                data_at,
            }
        }
    }
}

/// SHA-256 blocks after padding a message of `len` bytes (the 0x80 byte and the 8-byte length).
pub fn sha256_block_count(len: u64) -> u64 {
    (len + 9).div_ceil(SHA256_BLOCK as u64)
}

/// Block `blk` of `msg` padded as FIPS 180-4 5.1.1 says, built the way the kernel builds it
/// (word by word, the length in the last two words of the last block).
pub fn sha256_padded_block(msg: &[u8], blk: u64) -> [u8; SHA256_BLOCK] {
    let len = msg.len() as u64;
    let last = sha256_block_count(len) - 1;
    let mut block = [0u8; SHA256_BLOCK];
    for (k, byte) in block.iter_mut().enumerate() {
        let pos = blk * SHA256_BLOCK as u64 + k as u64;
        *byte = if blk == last && k >= 56 {
            (len * 8).to_be_bytes()[k - 56]
        } else if pos < len {
            msg[pos as usize]
        } else if pos == len {
            0x80
        } else {
            0
        };
    }
    block
}

/// Keccak blocks after pad10*1 of a message of `len` bytes (at least one padding byte).
pub fn keccak_block_count(len: u64) -> u64 {
    len / KECCAK256_RATE as u64 + 1
}

/// Block `blk` of `msg` padded with the domain byte and pad10*1, as 17 little-endian lanes,
/// built the way the kernel builds it.
pub fn keccak_padded_lanes(msg: &[u8], blk: u64, domain: u8) -> [u64; KECCAK256_RATE / 8] {
    let len = msg.len() as u64;
    let last = keccak_block_count(len) - 1;
    let mut lanes = [0u64; KECCAK256_RATE / 8];
    for (w, lane) in lanes.iter_mut().enumerate() {
        let mut bytes = [0u8; 8];
        for (k, byte) in bytes.iter_mut().enumerate() {
            let pos = blk * KECCAK256_RATE as u64 + 8 * w as u64 + k as u64;
            *byte = if pos < len {
                msg[pos as usize]
            } else if pos == len {
                domain
            } else {
                0
            };
        }
        *lane = u64::from_le_bytes(bytes);
        if blk == last && w == KECCAK256_RATE / 8 - 1 {
            *lane |= 0x80 << 56;
        }
    }
    lanes
}

/// Bytes per chunk below which a batch is not cut further (a copy this size already runs near
/// the bus rate).
pub const MIN_CHUNK_BYTES: usize = 1 << 20;

/// Cuts a batch of `count` messages, `total_bytes` long, into consecutive chunks for `streams`
/// streams: up to four chunks per stream so copies and kernels overlap, none below
/// [`MIN_CHUNK_BYTES`] on average, never an empty chunk.
pub fn chunk_ranges(
    count: usize,
    total_bytes: usize,
    streams: usize,
) -> Vec<std::ops::Range<usize>> {
    if count == 0 {
        return Vec::new();
    }
    let chunks = (total_bytes / MIN_CHUNK_BYTES)
        .clamp(1, 4 * streams.max(1))
        .min(count);
    (0..chunks)
        .map(|c| c * count / chunks..(c + 1) * count / chunks)
        .collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use sha2::Digest;

    fn messages() -> Vec<Vec<u8>> {
        // Every length around the block and alignment boundaries, then a few long ones.
        let mut lens: Vec<usize> = (0..=300).collect();
        lens.extend([1000, 4095, 4096, 4097, 10_000]);
        lens.iter()
            .map(|&n| (0..n).map(|i| (i * 7 + n) as u8).collect())
            .collect()
    }

    #[test]
    fn packing_places_every_message_aligned_and_disjoint() {
        let msgs = messages();
        let refs: Vec<&[u8]> = msgs.iter().map(|m| m.as_slice()).collect();
        let p = pack(&refs);
        assert_eq!(p.data.len() % PACK_ALIGN, 0);
        let mut end = 0;
        for (i, m) in msgs.iter().enumerate() {
            let off = p.offsets[i] as usize;
            assert_eq!(off % PACK_ALIGN, 0);
            assert!(off >= end, "messages overlap");
            assert_eq!(&p.data[off..off + m.len()], m.as_slice());
            assert_eq!(p.lengths[i], m.len() as u64);
            end = off + m.len();
        }
        assert!(end <= p.data.len());
    }

    #[test]
    fn packing_into_a_buffer_lays_out_tables_then_what_pack_lays_out() {
        let msgs = messages();
        let many: Vec<Vec<u8>> = (0..3 * PACK_SHARE + 5)
            .map(|i| vec![i as u8; i % 41])
            .collect();
        let batches: Vec<Vec<&[u8]>> = vec![
            vec![],
            vec![b""],
            vec![b"", b"abc", b""],
            msgs.iter().map(|m| m.as_slice()).collect(),
            many.iter().map(|m| m.as_slice()).collect(),
        ];
        for batch in &batches {
            let p = pack(batch);
            let len = packed_len(batch.iter().map(|m| m.len()));
            // A reused buffer: longer than needed and full of an earlier batch's bytes.
            let mut dst = vec![0xa5u8; len + 100];
            let (lengths_at, data_at) = pack_into(batch, &mut dst);
            let mut want = Vec::new();
            p.offsets.iter().for_each(|o| want.extend(o.to_le_bytes()));
            assert_eq!(want.len(), lengths_at);
            p.lengths.iter().for_each(|l| want.extend(l.to_le_bytes()));
            assert_eq!(want.len(), data_at);
            assert_eq!(data_at % PACK_ALIGN, 0);
            want.extend(&p.data);
            assert_eq!(want.len(), len);
            assert!(dst[..len] == want[..], "batch of {}", batch.len());
            assert!(
                dst[len..].iter().all(|&b| b == 0xa5),
                "wrote past the batch"
            );
        }
    }

    #[test]
    fn chunks_cover_the_batch_in_order_without_empty_ones() {
        assert!(chunk_ranges(0, 0, 3).is_empty());
        assert_eq!(chunk_ranges(5, 10, 3), vec![0..5]);
        let c = chunk_ranges(1000, 100 << 20, 3);
        assert_eq!(c.len(), 12);
        assert_eq!(c.first().unwrap().start, 0);
        assert_eq!(c.last().unwrap().end, 1000);
        assert!(c.windows(2).all(|w| w[0].end == w[1].start));
        assert!(chunk_ranges(3, 100 << 20, 3).iter().all(|r| !r.is_empty()));
    }

    #[test]
    fn empty_batches_and_empty_messages_still_have_a_buffer() {
        let p = pack(&[]);
        assert!(!p.data.is_empty() && p.offsets.is_empty());
        let p = pack(&[b"", b""]);
        assert_eq!(p.offsets, vec![0, 0]);
        assert_eq!(p.data.len(), PACK_ALIGN);
    }

    #[test]
    fn sha256_padding_mirror_gives_sha256() {
        for m in messages() {
            let mut state = parhash::lab::algo::sha2::consts::IV256;
            let blocks: Vec<[u8; 64]> = (0..sha256_block_count(m.len() as u64))
                .map(|b| sha256_padded_block(&m, b))
                .collect();
            parhash::lab::algo::sha2::compress256(&mut state, &blocks);
            let digest: Vec<u8> = state.iter().flat_map(|w| w.to_be_bytes()).collect();
            assert_eq!(digest, sha2::Sha256::digest(&m).to_vec(), "len {}", m.len());
        }
    }

    /// The first 256 bits of the sponge after absorbing `blocks` (each the rate lanes of one
    /// padded block) by the host's sequential permutation: what a kernel's digest must be.
    pub(crate) fn absorb<const N: usize>(blocks: impl IntoIterator<Item = [u64; N]>) -> Vec<u8> {
        let mut state = [0u64; 25];
        for block in blocks {
            for (s, lane) in state.iter_mut().zip(block) {
                *s ^= lane;
            }
            assert!(parhash::lab::algo::keccak::permute_with_variant(
                "sequential",
                &mut state
            ));
        }
        state[..4].iter().flat_map(|l| l.to_le_bytes()).collect()
    }

    fn keccak_with_mirror(m: &[u8], domain: u8) -> Vec<u8> {
        absorb((0..keccak_block_count(m.len() as u64)).map(|b| keccak_padded_lanes(m, b, domain)))
    }

    #[test]
    fn keccak_padding_mirror_gives_sha3_and_keccak() {
        for m in messages() {
            assert_eq!(
                keccak_with_mirror(&m, DOMAIN_SHA3),
                sha3::Sha3_256::digest(&m).to_vec()
            );
            assert_eq!(
                keccak_with_mirror(&m, DOMAIN_KECCAK),
                sha3::Keccak256::digest(&m).to_vec()
            );
        }
    }

    #[test]
    fn a_uniform_batch_is_its_messages_at_a_fixed_stride() {
        let data: Vec<u8> = (0..200_000u32).map(|i| (i * 31 + 7) as u8).collect();
        assert_eq!(uniform_len(&[]), None);
        assert_eq!(
            uniform_len(&[&data[..0], &data[..0]]),
            None,
            "empty messages keep the tables"
        );
        assert_eq!(uniform_len(&[&data[..3], &data[..4]]), None);
        for len in [1usize, 7, 8, 9, 55, 64, 135, 1000] {
            let msgs: Vec<&[u8]> = (0..len.max(1) * 3 + 5000)
                .map(|i| &data[i % 997..i % 997 + len])
                .collect();
            assert_eq!(uniform_len(&msgs), Some(len));
            let stride = uniform_stride(len);
            assert!(stride >= len && stride % UNIFORM_ALIGN == 0 && stride - len < UNIFORM_ALIGN);
            // A reused buffer full of other bytes: every byte is written.
            let mut buf = vec![0xeeu8; stride * msgs.len() + 3];
            pack_uniform_into(&msgs, &mut buf);
            for (i, m) in msgs.iter().enumerate() {
                let at = i * stride;
                assert_eq!(&buf[at..at + len], *m, "len {len} message {i}");
                assert!(buf[at + len..at + stride].iter().all(|&b| b == 0));
            }
            assert_eq!(
                buf[stride * msgs.len()..],
                [0xee; 3],
                "nothing past the batch"
            );
        }
    }
}
