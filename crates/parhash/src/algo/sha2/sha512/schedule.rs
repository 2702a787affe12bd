//! What the `parallel` forms share, written once: the 80 rounds with the message schedule
//! stamped in beside them (`rounds80_with_schedule!`, used by `parallel_portable`) and the body
//! of the 128-bit vector kernels, two 64-bit words per register (`vector_kernel_body!`, stamped per
//! ISA by `schedule_isa::vector_kernel!` into `parallel_sse41` and `parallel_avx512`). A module
//! of its own, below the forms: they and their dispatch (`parallel`) import it, never each other.

/// The 80 rounds of one block on `$state` (without feed-forward). `$wk!(t)` reads `W[t] + K[t]`, which must be stored for
/// groups 0..8 on entry; `$schedule!(g)` must store that of group `g` (8..40) into `$wk`, and is called
/// during the rounds of group `g - 8`.
macro_rules! rounds80_with_schedule {
    ($state:expr, $wk:ident, $schedule:ident) => {
        $crate::algo::sha2::rounds::rounds!($state, $wk, $schedule;
            {0 [8] [9] [10] [11]} {8 [12] [13] [14] [15]} {16 [16] [17] [18] [19]}
            {24 [20] [21] [22] [23]} {32 [24] [25] [26] [27]} {40 [28] [29] [30] [31]}
            {48 [32] [33] [34] [35]} {56 [36] [37] [38] [39]} {64 [] [] [] []} {72 [] [] [] []})
    };
}
pub(super) use rounds80_with_schedule;

/// The body of a 128-bit vector kernel: two schedule words per register, `W` of the last eight
/// groups kept in registers, `W + K` stored to an aligned stack array for the scalar rounds.
/// `$sigma0` and `$sigma1` are the lane-wise small sigmas for the kernel's ISA.
#[cfg(target_arch = "x86_64")]
macro_rules! vector_kernel_body {
    ($state:expr, $blocks:expr, $sigma0:ident, $sigma1:ident) => {{
        use core::arch::x86_64::*;
        use $crate::algo::sha2::consts::K512;
        use $crate::algo::sha2::sha512::sequential::feed_forward;

        /// `W + K` of one block, aligned for vector stores.
        #[repr(C, align(16))]
        struct Wk([u64; 80]);

        let state: &mut [u64; 8] = $state;
        let blocks: &[[u8; 128]] = $blocks;
        // Byte order within each 64-bit word: the message is big-endian.
        let be_words = _mm_set_epi64x(0x0809_0a0b_0c0d_0e0f, 0x0001_0203_0405_0607);
        // A static, so the vector loads read one fixed copy.
        static K: [u64; 80] = K512;
        let kp = K.as_ptr().cast::<__m128i>();
        let mut wk = Wk([0; 80]);
        for block in blocks {
            let bp = block.as_ptr().cast::<__m128i>();
            let mut x = [_mm_setzero_si128(); 8];
            for (i, w) in x.iter_mut().enumerate() {
                // SAFETY: i < 8: inside the 128-byte block (unaligned load), the 80-word K and
                // `wk` (16-byte aligned).
                unsafe {
                    *w = _mm_shuffle_epi8(_mm_loadu_si128(bp.add(i)), be_words);
                    let k = _mm_loadu_si128(kp.add(i));
                    _mm_store_si128(
                        wk.0.as_mut_ptr().cast::<__m128i>().add(i),
                        _mm_add_epi64(*w, k),
                    );
                }
            }
            $crate::algo::from_memory::reload_after_here(&mut wk);
            // Group `g` (words 2g, 2g+1) replaces group `g - 8` in `x`.
            macro_rules! schedule {
                ($grp:expr) => {
                    let w16 = x[$grp % 8];
                    let w15 = _mm_alignr_epi8(x[($grp + 1) % 8], w16, 8);
                    let w7 = _mm_alignr_epi8(x[($grp + 5) % 8], x[($grp + 4) % 8], 8);
                    let n = _mm_add_epi64(
                        _mm_add_epi64(w16, $sigma0(w15)),
                        _mm_add_epi64(w7, $sigma1(x[($grp + 7) % 8])),
                    );
                    x[$grp % 8] = n;
                    // SAFETY: groups are 8..40, so both stay inside the 80-word K and `wk`,
                    // and `wk` is 16-byte aligned.
                    unsafe {
                        let k = _mm_loadu_si128(kp.add($grp));
                        _mm_store_si128(
                            wk.0.as_mut_ptr().cast::<__m128i>().add($grp),
                            _mm_add_epi64(n, k),
                        );
                    }
                    // The rounds load these words, not extract them (`algo::from_memory`).
                    $crate::algo::from_memory::reload_after_here(&mut wk);
                };
            }
            macro_rules! wk_at {
                ($i:expr) => {
                    wk.0[$i]
                };
            }
            let v = $crate::algo::sha2::sha512::schedule::rounds80_with_schedule!(
                *state, wk_at, schedule
            );
            feed_forward(state, v);
        }
    }};
}
#[cfg(target_arch = "x86_64")]
pub(super) use vector_kernel_body;
