//! PARSHA-256 written literally from the specification (Pal & Sarkar, FSE 2003; the readings in
//! `shared/specs/parsha256.md`), round by round, with lengths in bits as the paper writes them.
//!
//! This is the oracle for the fast engine and is never used for speed: it builds the whole
//! padded message, cuts it into the `u(i, j)` of every round, runs every processor of every round
//! one after the other and checks the paper's invariants (every processor input is 0, m or n
//! bits; the cut covers the padded message exactly; the number of compressions is
//! `(q + 2) 2^t + 2b - 2` plus the final one). It has its own SHA-256 compression function, so it
//! shares no code with the fast path; only FIPS 180-4's constants (`K256`, the IV `H0..H7`) come
//! from [`crate::algo::sha2::consts`], a table of data.
#![forbid(unsafe_code)]

use super::ParshaError;
use crate::algo::sha2::consts::{IV256 as SHA256_H, K256};

/// n: bits into the compression function.
const N: u64 = 768;
/// m: bits out of the compression function.
const M: u64 = 256;

/// h: {0,1}^768 -> {0,1}^256, SHA-256's compression function with its feed-forward. The first
/// 256 bits of `y` are the chaining value H0..H7 and the other 512 the message block, all as
/// big-endian 32-bit words (FIPS 180-4, 6.2.2, one block, no padding).
pub fn h(y: &[u8]) -> Vec<u8> {
    assert_eq!(y.len() as u64 * 8, N, "h takes exactly n bits");
    let word = |b: &[u8]| u32::from_be_bytes([b[0], b[1], b[2], b[3]]);
    let hv: Vec<u32> = (0..8).map(|i| word(&y[4 * i..])).collect();
    let mut w = [0u32; 64];
    for (t, wt) in w.iter_mut().enumerate().take(16) {
        *wt = word(&y[32 + 4 * t..]);
    }
    for t in 16..64 {
        let s0 = w[t - 15].rotate_right(7) ^ w[t - 15].rotate_right(18) ^ (w[t - 15] >> 3);
        let s1 = w[t - 2].rotate_right(17) ^ w[t - 2].rotate_right(19) ^ (w[t - 2] >> 10);
        w[t] = s1
            .wrapping_add(w[t - 7])
            .wrapping_add(s0)
            .wrapping_add(w[t - 16]);
    }
    let (mut a, mut b, mut c, mut d) = (hv[0], hv[1], hv[2], hv[3]);
    let (mut e, mut f, mut g, mut hh) = (hv[4], hv[5], hv[6], hv[7]);
    for t in 0..64 {
        let big_s1 = e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25);
        let ch = (e & f) ^ (!e & g);
        let t1 = hh
            .wrapping_add(big_s1)
            .wrapping_add(ch)
            .wrapping_add(K256[t])
            .wrapping_add(w[t]);
        let big_s0 = a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22);
        let maj = (a & b) ^ (a & c) ^ (b & c);
        let t2 = big_s0.wrapping_add(maj);
        hh = g;
        g = f;
        f = e;
        e = d.wrapping_add(t1);
        d = c;
        c = b;
        b = a;
        a = t1.wrapping_add(t2);
    }
    let out = [a, b, c, d, e, f, g, hh];
    (0..8)
        .flat_map(|i| hv[i].wrapping_add(out[i]).to_be_bytes())
        .collect()
}

/// A processor: h on exactly n bits, anything else (m bits or nothing) passes through.
fn processor(v: &[u8], compressions: &mut u64) -> Vec<u8> {
    let bits = v.len() as u64 * 8;
    assert!(
        bits == 0 || bits == M || bits == N,
        "processor input of {bits} bits breaks the 0/m/n invariant"
    );
    if bits == N {
        *compressions += 1;
        h(v)
    } else {
        v.to_vec()
    }
}

/// The IV of `l` bits: the first l/32 words of SHA-256's initial hash value, big-endian.
fn iv(l: u64) -> Vec<u8> {
    SHA256_H[..(l / 32) as usize]
        .iter()
        .flat_map(|w| w.to_be_bytes())
        .collect()
}

/// bin512(L): L as a 512-bit big-endian integer.
fn bin512(l_bits: u64) -> Vec<u8> {
    let mut v = vec![0u8; 56];
    v.extend(l_bits.to_be_bytes());
    v
}

/// delta(i) = 2^i (2n - 2m - l) - (n - 2m).
fn delta(i: u32, l: u64) -> u64 {
    (1u64 << i) * (2 * N - 2 * M - l) - (N - 2 * M)
}

/// lambda(i) = 2^(i-1) (2n - 2m - l).
fn lambda(i: u32, l: u64) -> u64 {
    (1u64 << (i - 1)) * (2 * N - 2 * M - l)
}

/// Appends `bits` zero bits (always a whole number of bytes here).
fn append_zeros(x: &mut Vec<u8>, bits: u64) {
    assert_eq!(bits % 8, 0);
    x.resize(x.len() + (bits / 8) as usize, 0);
}

/// What [`parsha256_counted`] returns: `t`, the digest, and how many times h ran.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Run {
    /// The effective tree height the message needed.
    pub t: u32,
    /// The digest.
    pub digest: [u8; 32],
    /// How many times the compression function h ran.
    pub compressions: u64,
}

/// PARSHA-256(x, T) with an IV of `l` bits: `(t, z)`.
pub fn parsha256(x: &[u8], tree_height: u32, l: u32) -> Result<(u32, [u8; 32]), ParshaError> {
    parsha256_counted(x, tree_height, l).map(|r| (r.t, r.digest))
}

/// [`parsha256`], also counting the compressions.
pub fn parsha256_counted(x: &[u8], tree_height: u32, l: u32) -> Result<Run, ParshaError> {
    super::check_params(tree_height, l)?;
    let l = u64::from(l);
    let big_t = tree_height;
    let iv = iv(l);
    let mut x = x.to_vec();
    let mut len = x.len() as u64 * 8;
    let mut compressions = 0;

    // Step 1: short messages.
    if len <= N - l {
        let original = len;
        append_zeros(&mut x, N - l - len);
        x.extend(&iv);
        let mut y = h(&x);
        y.extend(bin512(original));
        let z = h(&y);
        return Ok(Run {
            t: 0,
            digest: z.try_into().expect("256 bits"),
            compressions: 2,
        });
    }
    // Step 2: the short-message band.
    if len < delta(1, l) {
        append_zeros(&mut x, delta(1, l) - len);
        len = delta(1, l);
    }
    // Step 3: effective tree height.
    let t = if len >= delta(big_t, l) {
        big_t
    } else {
        (1..big_t)
            .find(|&i| delta(i, l) <= len && len < delta(i + 1, l))
            .expect("delta is increasing and delta(1) <= L < delta(T)")
    };
    // Step 4: q, r, b, R.
    let (q, r) = if len == delta(t, l) {
        (0, 0)
    } else {
        let excess = len - delta(t, l);
        let lam = lambda(t, l);
        // r in {1, ..., lambda}: never 0.
        let q = (excess - 1) / lam;
        (q, excess - q * lam)
    };
    let unit = 2 * N - 2 * M - l;
    let b = r.div_ceil(unit);
    let rounds = q + u64::from(t) + 2;
    // Step 5: end padding.
    append_zeros(&mut x, b * unit - r);

    // Message formatting: sizes of u(i, j) for rounds 1..R (index 0 unused).
    let procs = 1u64 << t;
    let first_leaf = procs / 2;
    let is_leaf = |j: u64| j >= first_leaf;
    let k_i = |i: u64| {
        let s = rounds - i;
        let t = u64::from(t);
        (1u64 << (s - 1)) + ((1u64 << (t - s - 1)) + b - 1) / (1u64 << (t - s))
    };
    // One branch per line of the specification's table, even where two give the same size.
    #[allow(clippy::if_same_then_else)]
    let size = |i: u64, j: u64| -> u64 {
        if i == 1 || (2..=q + 1).contains(&i) && is_leaf(j) {
            N - l
        } else if i == q + 2 && is_leaf(j) {
            if j < first_leaf + b {
                N - l
            } else {
                0
            }
        } else if i > q + 2 && is_leaf(j) {
            0
        } else if (2..=q + 2).contains(&i) {
            N - 2 * M
        } else if j < k_i(i) {
            N - 2 * M
        } else {
            0
        }
    };
    let mut pos = 0usize;
    let mut take = |bits: u64| -> Vec<u8> {
        let bytes = (bits / 8) as usize;
        let piece = x[pos..pos + bytes].to_vec();
        pos += bytes;
        piece
    };
    let mut u: Vec<Vec<Vec<u8>>> = vec![Vec::new()];
    for i in 1..rounds {
        u.push((0..procs).map(|j| take(size(i, j))).collect());
    }
    let u_last = take(if b > 0 { N - 2 * M } else { 0 });
    assert_eq!(
        pos,
        x.len(),
        "the u(i, j) must cover the padded message exactly"
    );

    // Rounds 1 .. R-1.
    let mut z: Vec<Vec<u8>> = Vec::new();
    for (i, round) in u.iter().enumerate().skip(1) {
        let mut next = Vec::with_capacity(procs as usize);
        for j in 0..procs {
            let uij = &round[j as usize];
            let v = if i == 1 || is_leaf(j) {
                if uij.is_empty() {
                    Vec::new()
                } else {
                    [uij.as_slice(), &iv].concat()
                }
            } else {
                [
                    z[2 * j as usize].as_slice(),
                    &z[2 * j as usize + 1],
                    uij.as_slice(),
                ]
                .concat()
            };
            next.push(processor(&v, &mut compressions));
        }
        z = next;
    }

    // Final step.
    let w = if b > 0 {
        processor(
            &[z[0].as_slice(), &z[1], &u_last].concat(),
            &mut compressions,
        )
    } else {
        z[0].clone()
    };
    // Every h turns n bits into m, so the bits fed in (padded message plus one IV per leaf-type
    // input) fix the count: (q + 2) 2^t + 2b - 1 before the final h. The notes' work formula,
    // (q + 2) 2^t + 2b - 2, is one less; this count is checked against the conservation law.
    let leaf_inputs = procs + q * first_leaf + b;
    assert_eq!(
        x.len() as u64 * 8 + leaf_inputs * l - compressions * (N - M),
        M,
        "every bit of the padded message must flow into exactly one compression"
    );
    assert_eq!(compressions, (q + 2) * procs + 2 * b - 1);
    let mut y = w;
    y.extend(bin512(len));
    let digest = h(&y);
    compressions += 1;
    Ok(Run {
        t,
        digest: digest.try_into().expect("256 bits"),
        compressions,
    })
}
