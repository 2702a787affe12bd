//! Shared test helpers: KAT parsers and differential-test inputs.
//!
//! Every integration test file does `mod common;` and uses what it needs, so unused helpers are
//! allowed here.
#![allow(dead_code)]

use rand::{rngs::StdRng, Rng, SeedableRng};

/// One `Len`/`Msg`/`MD` record of a CAVP `.rsp` or NIST ShortMsgKAT file.
#[derive(Clone, Debug)]
pub struct Kat {
    /// Message length in bits.
    pub bits: usize,
    /// Message bytes (empty when `bits == 0`, whatever the file writes).
    pub msg: Vec<u8>,
    /// Expected digest.
    pub md: Vec<u8>,
    /// 1-based line number of the `Len` line, for failure messages.
    pub line: usize,
}

pub fn unhex(s: &str) -> Vec<u8> {
    let s = s.trim();
    assert!(s.len().is_multiple_of(2), "odd hex length: {s}");
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex digit"))
        .collect()
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Parses every `Len = / Msg = / MD = ` record (also `Output =` for some files). Lines starting
/// with `#` or `[` are headers. Panics on a malformed file, so a broken copy cannot pass silently.
pub fn parse_kats(text: &str) -> Vec<Kat> {
    let mut out = Vec::new();
    let mut bits: Option<(usize, usize)> = None;
    let mut msg: Option<Vec<u8>> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with('[') {
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        match key.trim() {
            "Len" => bits = Some((value.trim().parse().expect("Len"), i + 1)),
            "Msg" => msg = Some(unhex(value)),
            "MD" | "Output" => {
                let (len, line) = bits.take().expect("MD without Len");
                let mut m = msg.take().expect("MD without Msg");
                m.truncate(len.div_ceil(8));
                out.push(Kat {
                    bits: len,
                    msg: m,
                    md: unhex(value),
                    line,
                });
            }
            _ => {}
        }
    }
    assert!(!out.is_empty(), "no vectors parsed");
    out
}

/// Only the byte-aligned records (what a byte-oriented API can be tested on).
pub fn byte_aligned(kats: Vec<Kat>) -> Vec<Kat> {
    kats.into_iter().filter(|k| k.bits % 8 == 0).collect()
}

/// A CAVP Monte Carlo file: the seed and the expected checkpoint digests, in order.
pub struct Monte {
    pub seed: Vec<u8>,
    pub checkpoints: Vec<Vec<u8>>,
}

pub fn parse_monte(text: &str) -> Monte {
    let mut seed = None;
    let mut checkpoints = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some(v) = line.strip_prefix("Seed =") {
            seed = Some(unhex(v));
        } else if let Some(v) = line.strip_prefix("MD =") {
            checkpoints.push(unhex(v));
        }
    }
    Monte {
        seed: seed.expect("Monte file without Seed"),
        checkpoints,
    }
}

/// Lengths that hit every block-boundary case for a block size: 0..=block+1 around each of the
/// first few multiples, the padding-overflow band, plus odd sizes that exercise every lane
/// remainder (31 = 16+8+4+2+1, in blocks).
pub fn boundary_lengths(block: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (0..=9).collect();
    for k in 1..=4 {
        for d in [-9isize, -8, -2, -1, 0, 1, 2] {
            let n = (k * block) as isize + d;
            if n >= 0 {
                v.push(n as usize);
            }
        }
    }
    v.extend([
        31 * block,
        31 * block + 1,
        16 * block - 1,
        1000,
        4096,
        65536 + 3,
    ]);
    v.sort_unstable();
    v.dedup();
    v
}

/// Input whose byte i is i mod 251, so that swapped or repeated blocks change the digest.
pub fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 251) as u8).collect()
}

/// A deterministic RNG for reproducible "random" tests; the seed is printed on failure by the
/// caller including it in messages.
pub fn rng(seed: u64) -> StdRng {
    StdRng::seed_from_u64(seed)
}

pub fn random_bytes(rng: &mut StdRng, len: usize) -> Vec<u8> {
    let mut v = vec![0u8; len];
    rng.fill(&mut v[..]);
    v
}

/// Random split points for a message of `len` bytes: the pieces a streaming update receives.
pub fn random_splits(rng: &mut StdRng, len: usize) -> Vec<std::ops::Range<usize>> {
    let mut cuts = vec![0, len];
    let pieces = rng.random_range(0..8usize);
    for _ in 0..pieces {
        cuts.push(rng.random_range(0..=len));
    }
    cuts.sort_unstable();
    cuts.windows(2).map(|w| w[0]..w[1]).collect()
}

/// Number of random cases: fewer in debug builds, more in release.
pub fn cases(debug: usize, release: usize) -> usize {
    if cfg!(debug_assertions) {
        debug
    } else {
        release
    }
}
