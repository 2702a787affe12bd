//! The internally parallel form of Threefish-512: the four MIX functions of a round run side by
//! side, two per two-lane vector, on words that never move.
//!
//! **Layout.** The state is four pairs: `ea = (v0, v4)`, `eb = (v2, v6)` (even words, the
//! ones MIX adds into) and `oa = (v1, v5)`, `ob = (v3, v7)` (odd words, the ones MIX rotates).
//! Instead of applying the word permutation π after each round, the code renames: π only
//! changes which even word meets which odd word, and over four rounds the pairings are
//!
//! ```text
//! round d mod 4    0              1              2              3
//! MIX pairs        0-1 2-3 4-5 6-7  0-3 2-1 4-7 6-5  0-5 2-7 4-1 6-3  0-7 2-5 4-3 6-1
//! registers        ea+oa, eb+ob   ea+ob, eb+oa   ea'+oa, eb'+ob ea'+ob, eb'+oa
//! ```
//!
//! where `ea'` is `ea` with its two lanes swapped. π⁴ is the identity, so after four rounds
//! every word is back in its own lane and the next subkey is added lane by lane. The only lane
//! move is that swap of the even pairs after rounds 1 and 3 of each four, and it runs beside
//! the XOR of the odd pairs, so a round's dependency chain is one add and one XOR.
//!
//! The 4-wide alternative (all even words in one 256-bit register, all odd in another) needs a
//! cross-lane `vpermq` on that chain in every round; it measured slower than this layout.
//!
//! **Key schedule.** With `P[j] = (k[j mod 9], k[j+4 mod 9])`, subkey `s` in pair layout is
//! `P[s]` for `ea`, `P[s+1]` plus `(0, t[s mod 3])` for `oa`, `P[s+2]` plus
//! `(0, t[s+1 mod 3])` for `eb` and `P[s+3]` plus `(0, s)` for `ob`. The next pair needed is
//! `P[s+4] = (high lane of P[s], low lane of P[s-1])`: one lane move per subkey, computed
//! while the rounds run. The chaining value stays in registers between blocks and is
//! `P[0..4]` of the next block's key.
//!
//! The data flow is generic over [`WordPair`]; [`super::parallel_portable`] runs it on
//! `[u64; 2]`, [`super::parallel_avx2`] and [`super::parallel_avx512`] on 128-bit registers.
#![forbid(unsafe_code)]

use super::{sequential::threefish512::ROTATIONS, C240, FIRST};

/// Rotation counts of the two MIX functions in each register pairing, by round `d mod 8` and
/// slot (0: the pairing of `ea`, 1: that of `eb`), lane by lane (see the module docs).
pub const PAIR_ROTATIONS: [[[u32; 2]; 2]; 8] = {
    let mut t = [[[0u32; 2]; 2]; 8];
    let mut d = 0;
    while d < 8 {
        let c = d % 4;
        // Even word number `a` (word `2a`) sits in each lane of `ea` and `eb`; rounds 2 and 3
        // of each four see them swapped.
        let lanes: [[usize; 2]; 2] = if c < 2 {
            [[0, 2], [1, 3]]
        } else {
            [[2, 0], [3, 1]]
        };
        let mut slot = 0;
        while slot < 2 {
            let mut lane = 0;
            while lane < 2 {
                // After d rounds, word 2a is at position 2j with j = a - d (mod 4): MIX j.
                let mix = (lanes[slot][lane] + 4 - c) % 4;
                t[d][slot][lane] = ROTATIONS[d][mix];
                lane += 1;
            }
            slot += 1;
        }
        d += 1;
    }
    t
};

/// Two 64-bit lanes and the operations the pair layout needs.
pub trait WordPair: Copy {
    /// Proof that this CPU runs the pair's instructions (`()` for portable code).
    type Token: Copy;
    /// The pair `(lo, hi)`.
    fn new(token: Self::Token, lo: u64, hi: u64) -> Self;
    /// `(lo, hi)` of the pair.
    fn words(self) -> [u64; 2];
    /// Lane-wise wrapping addition.
    fn add(self, other: Self) -> Self;
    fn xor(self, other: Self) -> Self;
    /// Rotates lane `i` left by `counts[i]`.
    fn rotl(self, counts: [u32; 2]) -> Self;
    /// `(hi, lo)`.
    fn swap(self) -> Self;
    /// `(self.hi, other.lo)`.
    fn high_low(self, other: Self) -> Self;
}

impl WordPair for [u64; 2] {
    type Token = ();
    #[inline(always)]
    fn new(_: (), lo: u64, hi: u64) -> Self {
        [lo, hi]
    }
    #[inline(always)]
    fn words(self) -> [u64; 2] {
        self
    }
    #[inline(always)]
    fn add(self, o: Self) -> Self {
        [self[0].wrapping_add(o[0]), self[1].wrapping_add(o[1])]
    }
    #[inline(always)]
    fn xor(self, o: Self) -> Self {
        [self[0] ^ o[0], self[1] ^ o[1]]
    }
    #[inline(always)]
    fn rotl(self, counts: [u32; 2]) -> Self {
        [
            self[0].rotate_left(counts[0]),
            self[1].rotate_left(counts[1]),
        ]
    }
    #[inline(always)]
    fn swap(self) -> Self {
        [self[1], self[0]]
    }
    #[inline(always)]
    fn high_low(self, o: Self) -> Self {
        [self[1], o[0]]
    }
}

/// One MIX on each lane: `even += odd`, `odd = (odd <<< R) ^ even`.
#[inline(always)]
fn mix<P: WordPair>(even: &mut P, odd: &mut P, counts: [u32; 2]) {
    *even = even.add(*odd);
    *odd = odd.rotl(counts).xor(*even);
}

/// Rounds `first..first + 4` (`first` is 0 or 4 mod 8), renamed as in the module docs.
#[inline(always)]
fn four_rounds<P: WordPair>(v: &mut [P; 4], first: usize) {
    let [ea, oa, eb, ob] = v;
    let rot = &PAIR_ROTATIONS[first..first + 4];
    mix(ea, oa, rot[0][0]);
    mix(eb, ob, rot[0][1]);
    mix(ea, ob, rot[1][0]);
    mix(eb, oa, rot[1][1]);
    *ea = ea.swap();
    *eb = eb.swap();
    mix(ea, oa, rot[2][0]);
    mix(eb, ob, rot[2][1]);
    mix(ea, ob, rot[3][0]);
    mix(eb, oa, rot[3][1]);
    *ea = ea.swap();
    *eb = eb.swap();
}

/// The key schedule of one block, subkey by subkey.
struct Subkeys<P> {
    /// `P[s-1], P[s], .., P[s+3]`.
    window: [P; 5],
    /// `(0, t[s mod 3])`, `(0, t[s+1 mod 3])`, `(0, t[s+2 mod 3])`.
    tweak: [P; 3],
    /// `(0, s)` and the step `(0, 1)`.
    count: P,
    one: P,
}

impl<P: WordPair> Subkeys<P> {
    #[inline(always)]
    fn new(token: P::Token, key: &[P; 4], tweak: &[u64; 2]) -> Self {
        let [ka, oa, eb, ob] = *key;
        let [x0, x1] = ka.xor(oa).xor(eb).xor(ob).words();
        let parity = C240 ^ x0 ^ x1;
        let t = |w: u64| P::new(token, 0, w);
        Self {
            // P[-1] = P[8] = (k[8], k[3]); P[0..4] are the chaining value's own pairs.
            window: [P::new(token, parity, ob.words()[0]), ka, oa, eb, ob],
            tweak: [t(tweak[0]), t(tweak[1]), t(tweak[0] ^ tweak[1])],
            count: t(0),
            one: t(1),
        }
    }

    /// Adds subkey `s` to the state and moves on to `s + 1`.
    #[inline(always)]
    fn inject_next(&mut self, v: &mut [P; 4]) {
        let [prev, p0, p1, p2, p3] = self.window;
        let [t0, t1, t2] = self.tweak;
        v[0] = v[0].add(p0);
        v[1] = v[1].add(p1.add(t0));
        v[2] = v[2].add(p2.add(t1));
        v[3] = v[3].add(p3.add(self.count));
        self.window = [p0, p1, p2, p3, p0.high_low(prev)];
        self.tweak = [t1, t2, t0];
        self.count = self.count.add(self.one);
    }
}

/// UBI over whole blocks (see `sequential::threefish512::compress_blocks`) in pair layout.
#[inline(always)]
pub fn compress_generic<P: WordPair>(
    token: P::Token,
    h: &mut [u64; 8],
    blocks: &[[u8; 64]],
    tweak: &mut [u64; 2],
    len: u64,
) {
    let pair = |lo: u64, hi: u64| P::new(token, lo, hi);
    let mut chain = [
        pair(h[0], h[4]),
        pair(h[1], h[5]),
        pair(h[2], h[6]),
        pair(h[3], h[7]),
    ];
    for block in blocks {
        let m = super::load_le64(block);
        let message = [
            pair(m[0], m[4]),
            pair(m[1], m[5]),
            pair(m[2], m[6]),
            pair(m[3], m[7]),
        ];
        tweak[0] = tweak[0].wrapping_add(len);
        let mut keys = Subkeys::new(token, &chain, tweak);
        let mut v = message;
        keys.inject_next(&mut v);
        for _ in 0..9 {
            four_rounds(&mut v, 0);
            keys.inject_next(&mut v);
            four_rounds(&mut v, 4);
            keys.inject_next(&mut v);
        }
        for i in 0..4 {
            chain[i] = v[i].xor(message[i]);
        }
        tweak[1] &= !FIRST;
    }
    for (i, c) in chain.iter().enumerate() {
        [h[i], h[i + 4]] = c.words();
    }
}
