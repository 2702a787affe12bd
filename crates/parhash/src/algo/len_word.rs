//! A hasher's byte count, written with one 16-byte store.
//!
//! Why: `Hasher::new(..)`, `update(m)`, `finalize()` moves the hasher into `finalize` right
//! after `update` wrote its block and then its count, and the move reads the hasher with
//! 16-byte loads. A load cannot take its bytes from a narrower store still on its way to the
//! cache (the count's one byte, or a byte and the zeros beside it, which the compiler writes
//! apart) and waits until that store lands, a third of a 64-byte BLAKE3 `Hasher`'s time
//! (BENCHMARKS.md, short messages). A count written as one whole 16-byte word is taken from
//! the store by the move's load.
//!
//! On x86-64 the word is an SSE2 register's worth (SSE2 is part of every x86-64 CPU); elsewhere
//! a plain `usize`.

/// A count of at most `u32::MAX`, stored as one 16-byte word where that is one store.
#[derive(Clone, Copy)]
pub(crate) struct LenWord(Word);

#[cfg(target_arch = "x86_64")]
type Word = core::arch::x86_64::__m128i;
#[cfg(not(target_arch = "x86_64"))]
type Word = usize;

impl LenWord {
    /// The word for `len` (the count's low 32 bits).
    #[inline(always)]
    pub(crate) fn new(len: usize) -> LenWord {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: SSE2 is part of the x86-64 baseline, so the instruction exists; it only
        // moves a register.
        let word = unsafe { core::arch::x86_64::_mm_cvtsi32_si128(len as u32 as i32) };
        #[cfg(not(target_arch = "x86_64"))]
        let word = len as u32 as usize;
        LenWord(word)
    }

    /// The count.
    #[inline(always)]
    pub(crate) fn get(self) -> usize {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as in `new`.
        let len = unsafe { core::arch::x86_64::_mm_cvtsi128_si32(self.0) } as u32 as usize;
        #[cfg(not(target_arch = "x86_64"))]
        let len = self.0;
        len
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_count_reads_back_as_written() {
        for len in [0, 1, 63, 64, 65, 255, 256, 1 << 20, u32::MAX as usize] {
            assert_eq!(LenWord::new(len).get(), len);
        }
    }
}
