//! What the `parallel` forms share, written once: the 64 rounds with the message schedule
//! stamped in beside them (`rounds64_with_schedule!`, used by `parallel_portable`) and the body
//! of the 128-bit vector kernels, four 32-bit words per register (`vector_kernel_body!`, stamped per
//! ISA by `schedule_isa::vector_kernel!` into `parallel_sse41` and `parallel_avx512`). A module
//! of its own, below the forms: they and their dispatch (`parallel`) import it, never each other.

/// The 64 rounds of one block on `$state` (without feed-forward). `$wk!(t)` reads `W[t] + K[t]`, which must be stored for
/// groups 0..4 on entry; `$schedule!(g)` must store that of group `g` (4..16) into `$wk`, and is called
/// during the rounds of group `g - 4`.
macro_rules! rounds64_with_schedule {
    ($state:expr, $wk:ident, $schedule:ident) => {
        $crate::algo::sha2::rounds::rounds!($state, $wk, $schedule;
            {0 [4] [] [5] []} {8 [6] [] [7] []} {16 [8] [] [9] []} {24 [10] [] [11] []}
            {32 [12] [] [13] []} {40 [14] [] [15] []} {48 [] [] [] []} {56 [] [] [] []})
    };
}
pub(super) use rounds64_with_schedule;

/// The body of a 128-bit vector kernel: four schedule words per register, `W` of the last four
/// groups kept in registers, `W + K` stored to an aligned stack array for the scalar rounds.
/// `$sigma0` and `$sigma1` are the lane-wise small sigmas for the kernel's ISA.
#[cfg(target_arch = "x86_64")]
macro_rules! vector_kernel_body {
    ($state:expr, $blocks:expr, $sigma0:ident, $sigma1:ident) => {{
        use core::arch::x86_64::*;
        use $crate::algo::sha2::consts::K256;
        use $crate::algo::sha2::sha256::sequential::feed_forward;

        /// `W + K` of one block, aligned for vector stores.
        #[repr(C, align(16))]
        struct Wk([u32; 64]);

        let state: &mut [u32; 8] = $state;
        let blocks: &[[u8; 64]] = $blocks;
        // A static, so the vector loads read one fixed copy.
        static K: [u32; 64] = K256;
        let kp = K.as_ptr().cast::<__m128i>();
        let mut wk = Wk([0; 64]);
        for block in blocks {
            let mut x = $crate::algo::sha2::sha256::sha_ni::load_words(block);
            for (i, w) in x.iter().enumerate() {
                // SAFETY: i < 4, so both stay inside the 64-word K256 and `wk`, and `wk` is
                // 16-byte aligned.
                unsafe {
                    let k = _mm_loadu_si128(kp.add(i));
                    _mm_store_si128(
                        wk.0.as_mut_ptr().cast::<__m128i>().add(i),
                        _mm_add_epi32(*w, k),
                    );
                }
            }
            $crate::algo::from_memory::reload_after_here(&mut wk);
            // Group `g` replaces group `g - 4` in `x`; the two halves follow from the σ1 chain.
            macro_rules! schedule {
                ($grp:expr) => {
                    let w16 = x[$grp % 4];
                    let w15 = _mm_alignr_epi8(x[($grp + 1) % 4], w16, 4);
                    let w7 = _mm_alignr_epi8(x[($grp + 3) % 4], x[($grp + 2) % 4], 4);
                    let mut n = _mm_add_epi32(_mm_add_epi32(w16, $sigma0(w15)), w7);
                    // Lanes 0 and 1 need W[t-2], W[t-1] (lanes 2, 3 of the last group);
                    // σ1(0) = 0 leaves lanes 2 and 3 alone.
                    n = _mm_add_epi32(n, $sigma1(_mm_srli_si128(x[($grp + 3) % 4], 8)));
                    // Lanes 2 and 3 need the W[t], W[t+1] just made.
                    n = _mm_add_epi32(n, $sigma1(_mm_slli_si128(n, 8)));
                    x[$grp % 4] = n;
                    // SAFETY: groups are 4..16, so both stay inside the 64-word K256 and
                    // `wk`, and `wk` is 16-byte aligned.
                    unsafe {
                        let k = _mm_loadu_si128(kp.add($grp));
                        _mm_store_si128(
                            wk.0.as_mut_ptr().cast::<__m128i>().add($grp),
                            _mm_add_epi32(n, k),
                        );
                    }
                    // The rounds load these words (a memory operand of their `add`), not
                    // extract them from `n` (`algo::from_memory`).
                    $crate::algo::from_memory::reload_after_here(&mut wk);
                };
            }
            macro_rules! wk_at {
                ($i:expr) => {
                    wk.0[$i]
                };
            }
            let v = $crate::algo::sha2::sha256::schedule::rounds64_with_schedule!(
                *state, wk_at, schedule
            );
            feed_forward(state, v);
        }
    }};
}
#[cfg(target_arch = "x86_64")]
pub(super) use vector_kernel_body;
