//! A message's last bytes written as the MD kernels read them: in 16-byte pieces, each one
//! 16-byte store, in buffers aligned to 16 bytes.
//!
//! Why: a load takes its bytes from a store still on its way to the cache only when that one
//! store holds all of them (and, on AMD Zen 5, does not cross a cache line). The kernels read
//! a block with 16-byte loads. A tail copied by `memcpy` (32- or 64-byte stores at whatever
//! offset), then a byte of 0x80 and the length's word, fails that, and each such load waits
//! until the store reaches the cache, which waits until everything before it has finished:
//! short messages hashed one after another no longer overlap in the core. A copy in 16-byte
//! pieces costs almost nothing beside that wait (BENCHMARKS.md, short messages).
//!
//! The same pieces suit every CPU: a load as wide as the store, or narrower and inside it,
//! takes its bytes from it on Intel and AMD alike.

/// `T` at a 16-byte boundary, so that no 16-byte piece of it crosses a cache line.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
pub(crate) struct Aligned16<T>(pub(crate) T);

/// Up to 15 bytes as the low bytes of a little-endian `u128`, zeros above, read by at most two
/// loads within `src` (overlapping where `src` is not a power of two long: the bytes both
/// read are the same, so OR-ing them is exact).
#[inline(always)]
fn load_partial(src: &[u8]) -> u128 {
    let n = src.len();
    debug_assert!(n < 16);
    if n >= 8 {
        let low = u64::from_le_bytes(src[..8].try_into().expect("8 bytes"));
        let high = u64::from_le_bytes(src[n - 8..].try_into().expect("8 bytes"));
        u128::from(low) | u128::from(high) << (8 * (n - 8))
    } else if n >= 4 {
        let low = u32::from_le_bytes(src[..4].try_into().expect("4 bytes"));
        let high = u32::from_le_bytes(src[n - 4..].try_into().expect("4 bytes"));
        u128::from(low) | u128::from(high) << (8 * (n - 4))
    } else if n > 0 {
        u128::from(src[0])
            | u128::from(src[n / 2]) << (8 * (n / 2))
            | u128::from(src[n - 1]) << (8 * (n - 1))
    } else {
        0
    }
}

/// The blocks that end a message whose last `tail` bytes are under one block, with the MD
/// padding (`tail`, 0x80, zeros, `length` in the last 8 bytes): 16-byte pieces as loads of
/// those blocks would give them, built in registers and never stored, and how many blocks (1,
/// or 2 where the tail leaves under 8 bytes for the length). A block stored and at once loaded
/// back waits for its stores when they do not match the loads (above); built here, nothing
/// waits (BENCHMARKS.md, short messages).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub(crate) fn padded_tail(
    tail: &[u8],
    length: [u8; 8],
) -> ([[core::arch::x86_64::__m128i; 4]; 2], usize) {
    use core::arch::x86_64::{_mm_or_si128, _mm_set_epi64x, _mm_setzero_si128};
    debug_assert!(tail.len() < 64);
    // SAFETY: SSE2 is part of the x86-64 baseline.
    let (zero, length) = unsafe {
        (
            _mm_setzero_si128(),
            _mm_set_epi64x(i64::from_le_bytes(length), 0),
        )
    };
    let mut first = tail_block_pieces(tail);
    if tail.len() < 56 {
        // SAFETY: as above.
        first[3] = unsafe { _mm_or_si128(first[3], length) };
        ([first, [zero; 4]], 1)
    } else {
        ([first, [zero, zero, zero, length]], 2)
    }
}

/// The four 16-byte pieces of a block that begins with `tail` (under one block), then 0x80
/// and zeros.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn tail_block_pieces(tail: &[u8]) -> [core::arch::x86_64::__m128i; 4] {
    if tail.is_empty() {
        // A message of whole blocks (the common 64-byte one): the padding's first piece as a
        // constant, not four tests of an empty tail (about 1 ns of 51 for a 64-byte SHA-256).
        // SAFETY: SSE2 is part of the x86-64 baseline.
        unsafe {
            use core::arch::x86_64::{_mm_set_epi64x, _mm_setzero_si128};
            let zero = _mm_setzero_si128();
            return [_mm_set_epi64x(0, 0x80), zero, zero, zero];
        }
    }
    // Not `array::from_fn`: its closure stayed a call of its own, each piece returned through
    // the stack (a 64-byte SHA-256 50 -> 57 ns).
    [
        tail_piece(tail, 0),
        tail_piece(tail, 1),
        tail_piece(tail, 2),
        tail_piece(tail, 3),
    ]
}

/// Piece `i` of [`tail_block_pieces`].
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn tail_piece(tail: &[u8], i: usize) -> core::arch::x86_64::__m128i {
    use core::arch::x86_64::{_mm_loadu_si128, _mm_set_epi64x, _mm_setzero_si128};
    let n = tail.len();
    let start = 16 * i;
    if let Some(bytes) = tail.get(start..start + 16) {
        // SAFETY: `bytes` is 16 readable bytes (an unaligned load may read them).
        unsafe { _mm_loadu_si128(bytes.as_ptr().cast()) }
    } else if start <= n {
        let value = load_partial(&tail[start..]) | 0x80 << (8 * (n - start));
        // SAFETY: SSE2 is part of the x86-64 baseline.
        unsafe { _mm_set_epi64x((value >> 64) as u64 as i64, value as u64 as i64) }
    } else {
        // SAFETY: as above.
        unsafe { _mm_setzero_si128() }
    }
}

/// Writes `value` (little-endian) to `dst` with one 16-byte store: a `u128` stored by itself
/// is two 8-byte stores, and a 16-byte load cannot take its bytes from two stores.
#[inline(always)]
fn store(dst: &mut [u8; 16], value: u128) {
    #[cfg(target_arch = "x86_64")]
    {
        use core::arch::x86_64::{_mm_set_epi64x, _mm_storeu_si128};
        // SAFETY: SSE2 is part of the x86-64 baseline; `dst` is 16 writable bytes (an
        // unaligned store may write them).
        unsafe {
            let word = _mm_set_epi64x((value >> 64) as u64 as i64, value as u64 as i64);
            _mm_storeu_si128(dst.as_mut_ptr().cast(), word);
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        *dst = value.to_le_bytes();
    }
}

/// Word arrays in whole 16-byte pieces, each written by [`write_words`] with one store.
pub(crate) trait Words: Copy {
    /// All words zero.
    const ZERO: Self;

    /// Writes `self` over `dst`, each 16-byte piece by one store.
    fn write_to(self, dst: &mut Self);
}

/// [`Words`] for `[$word; $n]`: each piece's words made into one SSE2 register (`$set`, which
/// takes the highest word first) and stored whole. From the words as values, not from
/// memory: a piece loaded from a local and stored is a copy, which the compiler splits back
/// into the narrow stores that built the local.
macro_rules! words {
    ($word:ty, $per_piece:literal, $set:ident, $int:ty, [$($highest_first:literal),*]; $n:literal) => {
        impl Words for [$word; $n] {
            const ZERO: Self = [0; $n];

            #[inline(always)]
            fn write_to(self, dst: &mut Self) {
                #[cfg(target_arch = "x86_64")]
                {
                    use core::arch::x86_64::{$set, _mm_storeu_si128};
                    let (pieces, rest) = dst.as_chunks_mut::<$per_piece>();
                    debug_assert!(rest.is_empty());
                    let (values, _) = self.as_chunks::<$per_piece>();
                    for (piece, value) in pieces.iter_mut().zip(values) {
                        let words = value.map(|w| w as $int);
                        // SAFETY: SSE2 is part of the x86-64 baseline; `piece` is 16 writable
                        // bytes of plain words (an unaligned store may write them).
                        unsafe {
                            let word = $set($(words[$highest_first]),*);
                            _mm_storeu_si128(piece.as_mut_ptr().cast(), word);
                        }
                    }
                }
                #[cfg(not(target_arch = "x86_64"))]
                {
                    *dst = self;
                }
            }
        }
    };
}

words!(u32, 4, _mm_set_epi32, i32, [3, 2, 1, 0]; 4);
words!(u32, 4, _mm_set_epi32, i32, [3, 2, 1, 0]; 8);
words!(u64, 2, _mm_set_epi64x, i64, [1, 0]; 2);
words!(u64, 2, _mm_set_epi64x, i64, [1, 0]; 8);

/// Writes `value` over `dst` with one 16-byte store per piece (a state's words, a pair of
/// counts): what a later 16-byte load of any piece reads, one store holds, however the
/// compiler built `value` (it writes an array of constants or of separate words with stores
/// as narrow as its parts).
#[inline(always)]
pub(crate) fn write_words<W: Words>(dst: &mut W, value: W) {
    value.write_to(dst);
}

/// Writes `src` (at most `dst.len()` bytes) at the start of `dst` in 16-byte pieces; the last
/// piece's bytes after `src` become zeros, the pieces after it are left as they were.
#[inline(always)]
pub(crate) fn copy_in(dst: &mut [u8], src: &[u8]) {
    let (pieces, _) = dst.as_chunks_mut::<16>();
    let (whole, rest) = src.as_chunks::<16>();
    // One test per piece of `dst` (a block: a count the compiler knows and unrolls), not a loop
    // over `whole`, which it turns into a `memcpy` call: that call's stores, as wide as it
    // likes and at whatever offset, are not ones the kernel's loads can take their bytes from
    // (a reused SHA-1 `Hasher` at 64 bytes: 41 -> 77 ns when the compiler chose it).
    for (i, piece) in pieces.iter_mut().enumerate() {
        if let Some(bytes) = whole.get(i) {
            *piece = *bytes;
        } else if i == whole.len() && !rest.is_empty() {
            store(piece, load_partial(rest));
        }
    }
}

/// Writes the padded end of a message to the first blocks of `padded` and returns how many
/// (1-3): `tail` (under two blocks), 0x80, zeros, and `length` (the bit length as the
/// algorithm writes it, 8 or 16 bytes) at the end of the last block. Every 16-byte piece of
/// those blocks is written by one store.
#[inline(always)]
pub(crate) fn pad<const BLOCK: usize, const LEN: usize>(
    tail: &[u8],
    length: [u8; LEN],
    padded: &mut Aligned16<[[u8; BLOCK]; 3]>,
) -> usize {
    let blocks = (tail.len() + 1 + LEN).div_ceil(BLOCK);
    let (pieces, _) = padded.0.as_flattened_mut().as_chunks_mut::<16>();
    let pieces = &mut pieces[..blocks * BLOCK / 16];
    let (whole, rest) = tail.as_chunks::<16>();
    let mut end = [0u8; 16];
    end[16 - LEN..].copy_from_slice(&length);
    let length_piece = u128::from_le_bytes(end);
    let (head, after) = pieces.split_at_mut(whole.len());
    for (piece, bytes) in head.iter_mut().zip(whole) {
        *piece = *bytes;
    }
    // The piece with the tail's last bytes and 0x80; the last piece holds the length (0x80
    // and the length come after the tail, so neither is a whole piece of it).
    let (partial, after) = after.split_first_mut().expect("0x80 follows the tail");
    let value = load_partial(rest) | 0x80 << (8 * rest.len());
    match after.split_last_mut() {
        None => store(partial, value | length_piece),
        Some((last, zeros)) => {
            store(partial, value);
            for piece in zeros {
                store(piece, 0);
            }
            store(last, length_piece);
        }
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partial_piece_reads_every_length_exactly() {
        let bytes: Vec<u8> = (1..=15).collect();
        for n in 0..16 {
            let mut expected = [0u8; 16];
            expected[..n].copy_from_slice(&bytes[..n]);
            assert_eq!(
                load_partial(&bytes[..n]),
                u128::from_le_bytes(expected),
                "{n}"
            );
        }
    }

    /// Each word lands where it was in `value` (the `_mm_set_*` arguments go highest first).
    #[test]
    fn write_words_writes_every_word_in_its_place() {
        fn check<W: Words + PartialEq + core::fmt::Debug>(value: W, mut dst: W) {
            write_words(&mut dst, value);
            assert_eq!(dst, value);
        }
        check::<[u32; 4]>(
            core::array::from_fn(|i| 0x0101_0101 * (i as u32 + 1)),
            [0; 4],
        );
        check::<[u32; 8]>(
            core::array::from_fn(|i| 0x1111_1111 * (i as u32 + 1)),
            [7; 8],
        );
        check::<[u64; 2]>([u64::MAX - 1, 3], [0; 2]);
        check::<[u64; 8]>(
            core::array::from_fn(|i| (i as u64 + 1) << 60 | i as u64),
            [9; 8],
        );
    }

    #[test]
    fn copy_in_writes_the_bytes_and_zeros_to_the_piece_end() {
        let src: Vec<u8> = (1..=64).collect();
        for n in 0..=64 {
            let mut dst = Aligned16([0xAAu8; 64]);
            copy_in(&mut dst.0, &src[..n]);
            let piece_end = n.div_ceil(16) * 16;
            assert_eq!(&dst.0[..n], &src[..n], "{n}");
            assert!(dst.0[n..piece_end].iter().all(|&b| b == 0), "{n}");
            assert!(dst.0[piece_end..].iter().all(|&b| b == 0xAA), "{n}");
        }
    }

    /// The padding as the specifications write it, byte by byte.
    fn padded_bytewise(tail: &[u8], length: &[u8], block: usize) -> Vec<u8> {
        let mut v = tail.to_vec();
        v.push(0x80);
        while (v.len() + length.len()) % block != 0 {
            v.push(0);
        }
        v.extend_from_slice(length);
        v
    }

    /// `pad` against [`padded_bytewise`] for every tail under two blocks.
    fn check_pad<const BLOCK: usize, const LEN: usize>(length_of: impl Fn(usize) -> [u8; LEN]) {
        let tail: Vec<u8> = (0..2 * BLOCK)
            .map(|i| (i as u8).wrapping_mul(29) ^ 0x5c)
            .collect();
        for n in 0..2 * BLOCK {
            let length = length_of(n);
            let mut padded = Aligned16([[0xAAu8; BLOCK]; 3]);
            let blocks = pad(&tail[..n], length, &mut padded);
            let expected = padded_bytewise(&tail[..n], &length, BLOCK);
            assert_eq!(blocks * BLOCK, expected.len(), "{BLOCK}-byte blocks, {n}");
            let written = &padded.0.as_flattened()[..blocks * BLOCK];
            assert_eq!(written, &expected[..], "{BLOCK}-byte blocks, {n}");
        }
    }

    #[test]
    fn pad_writes_the_padding_of_every_tail_length() {
        // MD5, SHA-1, SHA-256: 64-byte blocks, a 64-bit length; SHA-512: 128, 128-bit.
        check_pad::<64, 8>(|n| {
            0x0123_4567_89ab_cdef_u64
                .wrapping_add(n as u64)
                .to_be_bytes()
        });
        check_pad::<128, 16>(|n| (u128::MAX - n as u128).to_be_bytes());
    }
}
