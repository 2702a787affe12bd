//! The fast SANDstorm compression function.
//!
//! What makes it fast, following the Sandia study:
//! - fully unrolled (macros instead of loops and calls), every index a constant;
//! - the message schedule is computed *beside* the rounds: round r only waits for the four
//!   schedule words of P_r, so the schedule for round r+1 is issued in the same stretch of
//!   straight-line code as round r and the out-of-order core runs the two chains side by side
//!   (the study's 2x from interleaving schedule and round instructions);
//! - F and G use the 64x64->128 multiply for 128-bit words (`u128` arithmetic);
//! - `LANES` independent compressions (blocks of different superblocks, which the tree makes
//!   independent) are interleaved step by step: each chain is latency-bound (multiply, S-box
//!   load, rotate), so a second and third chain fill the idle execution units.

use super::reference::Chain;
use super::word::{bitmix, ch, Word};

/// Reads a block of 8 big-endian words.
#[inline(always)]
pub fn load_block<W: Word>(bytes: &[u8]) -> [W; 8] {
    core::array::from_fn(|j| W::from_be_bytes(&bytes[j * W::BYTES..]))
}

/// Compresses `LANES` independent (block, chain) pairs in place. `LANES = 1` is the serial form.
#[inline(always)]
pub fn compress_lanes<W: Word, const LANES: usize>(m: &[[W; 8]; LANES], c: &mut [Chain<W>; LANES]) {
    let mut ms = [[W::default(); 33]; LANES];
    for l in 0..LANES {
        ms[l][..8].copy_from_slice(&m[l]);
    }

    macro_rules! schedule {
        ($($i:literal)*) => {$(
            for l in 0..LANES {
                let s = &mut ms[l];
                let sum = s[$i - 8]
                    .add(W::RC[$i - 8])
                    .add(s[$i - 1].g())
                    .add(ch(s[$i - 1], s[$i - 2], s[$i - 3]))
                    .add(s[$i - 4]);
                s[$i] = sum.sb().rotl(W::R_MS);
            }
        )*};
    }

    let mut w: [[W; 4]; LANES] = core::array::from_fn(|l| c[l][0]);

    // One round: XOR in P_r (four schedule words from `$p`), four steps, BitMix, chain XOR.
    macro_rules! round {
        ($r:literal, $p:expr) => {
            for l in 0..LANES {
                let p: [W; 4] = $p(&ms[l]);
                let w = &mut w[l];
                for j in 0..4 {
                    w[j] ^= p[j];
                }
                round!(@step w, $r, 0);
                round!(@step w, $r, 1);
                round!(@step w, $r, 2);
                round!(@step w, $r, 3);
                bitmix(w);
                if $r < 4 {
                    // Row r + 1 (clamped only so that round 4's dead branch indexes in bounds).
                    const NEXT: usize = if $r < 4 { $r + 1 } else { 4 };
                    for j in 0..4 {
                        w[j] ^= c[l][NEXT][j];
                    }
                }
            }
            if $r >= 1 {
                for l in 0..LANES {
                    c[l][$r] = w[l];
                }
            }
        };
        (@step $w:ident, $r:literal, $i:literal) => {
            let a = $w[($i + 3) % 4];
            let sum = $w[$i]
                .add(a.f())
                .add(ch(a, $w[($i + 2) % 4], $w[($i + 1) % 4]))
                .add(W::RC[24 - 4 * $r - $i]);
            $w[$i] = sum.sb().rotl(W::R_RND);
        };
    }

    let p0 = |s: &[W; 33]| {
        let mut p = [W::default(); 4];
        for j in 0..4 {
            p[j] = s[j].rotl(W::R_IN) ^ s[j + 4];
        }
        bitmix(&mut p);
        p
    };
    let p_at =
        |start: usize| move |s: &[W; 33]| [s[start], s[start + 1], s[start + 2], s[start + 3]];

    // Round r needs schedule words up to 17, 22, 27, 32: issue each round next to the schedule
    // words the following round needs.
    schedule!(8 9 10 11 12);
    round!(0, p0);
    schedule!(13 14 15 16 17);
    round!(1, p_at(14));
    schedule!(18 19 20 21 22);
    round!(2, p_at(19));
    schedule!(23 24 25 26 27);
    round!(3, p_at(24));
    schedule!(28 29 30 31 32);
    round!(4, p_at(29));
}

/// [`compress_lanes`] compiled with BMI1/BMI2 (x86-64): for 128-bit words, `mulx` for the
/// 64x64->128 products of F and G. The form the tree's `parallel` engine runs for
/// SANDstorm-384/512 on CPUs without AVX2 (its chains are compiled the same way; with AVX2 it
/// runs eight lanes, `lanes.rs`); here for callers that time the compression alone.
#[cfg(target_arch = "x86_64")]
pub fn compress_lanes_bmi2<W: Word, const LANES: usize>(
    token: crate::platform::Bmi2,
    m: &[[W; 8]; LANES],
    c: &mut [Chain<W>; LANES],
) {
    let _ = token;
    // SAFETY: the token proves BMI1 and BMI2 on this CPU.
    unsafe { compress_lanes_bmi2_enabled(m, c) }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "bmi1,bmi2")]
fn compress_lanes_bmi2_enabled<W: Word, const LANES: usize>(
    m: &[[W; 8]; LANES],
    c: &mut [Chain<W>; LANES],
) {
    compress_lanes::<W, LANES>(m, c);
}

/// Compresses one block into one chain (the serial form).
#[inline(never)]
pub fn compress_blocks<W: Word>(chain: &mut Chain<W>, blocks: &[[W; 8]]) {
    for block in blocks {
        let mut c = [*chain];
        compress_lanes::<W, 1>(&[*block], &mut c);
        *chain = c[0];
    }
}

#[cfg(test)]
mod tests {
    use super::super::reference;
    use super::*;

    fn pseudo_random<W: Word>(seed: u64) -> ([W; 8], Chain<W>) {
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        let mut next = || {
            let mut bytes = [0u8; 16];
            for b in bytes.iter_mut() {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                *b = x as u8;
            }
            W::from_be_bytes(&bytes)
        };
        let m = core::array::from_fn(|_| next());
        let c = core::array::from_fn(|_| core::array::from_fn(|_| next()));
        (m, c)
    }

    fn lanes_match_reference<W: Word, const LANES: usize>() {
        for seed in 0..50u64 {
            let inputs: [([W; 8], Chain<W>); LANES] =
                core::array::from_fn(|l| pseudo_random(seed * 31 + l as u64));
            let m = core::array::from_fn(|l| inputs[l].0);
            let mut c = core::array::from_fn(|l| inputs[l].1);
            compress_lanes::<W, LANES>(&m, &mut c);
            for l in 0..LANES {
                assert_eq!(
                    c[l],
                    reference::compress(&inputs[l].0, &inputs[l].1),
                    "lane {l}"
                );
            }
        }
    }

    #[test]
    fn fast_compression_equals_reference() {
        lanes_match_reference::<u64, 1>();
        lanes_match_reference::<u64, 2>();
        lanes_match_reference::<u64, 4>();
        lanes_match_reference::<u128, 1>();
        lanes_match_reference::<u128, 2>();
    }
}
