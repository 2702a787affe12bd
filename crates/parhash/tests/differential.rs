//! Every algorithm that has an independent implementation among the dev-dependencies (the
//! RustCrypto crates, `blake-hash`: see `common::oracle`) against it, through every variant:
//! block-boundary and random lengths fed in random pieces (`common::differential_every_variant`).
//! One table, so that each algorithm's block size, seed and plan stand in one row.
mod common;

use common::*;
use parhash::Algorithm;

/// Random lengths up to `max_len`: `debug` of them in debug builds, `release` in release ones.
const fn up_to(max_len: usize, debug: usize, release: usize) -> Differential {
    Differential {
        cases: (debug, release),
        max_len,
        slow: None,
    }
}

/// Grøstl's literal byte-matrix form and JH's literal element-wise form (`sequential`) are slow
/// in debug builds: long inputs only in release.
const LITERAL_SLOW: Differential = Differential {
    slow: Some(("sequential", cases(2048, 1 << 20))),
    ..up_to(5000, 40, 400)
};

/// `T` against `common::oracle`: blocks of `block` bytes (the rate for SHA-3 and Keccak).
fn against_oracle<T>(alg: Algorithm, block: usize, seed: u64, plan: Differential)
where
    T: parhash::lab::algo::Variants + digest::Digest + Clone + digest::Reset,
{
    differential_every_variant::<T>(alg, block, seed, plan, |d| {
        oracle(alg, d).expect("an independent implementation")
    });
}

// A row: test, parhash type, algorithm, block, seed, plan.
tests_of! { against_oracle;
    md5: parhash::Md5, Algorithm::Md5, 64, 0x5eed_0005, up_to(20000, 200, 2000);
    sha1: parhash::Sha1, Algorithm::Sha1, 64, 0x5a1_0001, up_to(20000, 60, 600);
    sha224: parhash::Sha224, Algorithm::Sha224, 64, 0x5ea_0224, up_to(20000, 60, 600);
    sha256: parhash::Sha256, Algorithm::Sha256, 64, 0x5ea_0256, up_to(20000, 60, 600);
    sha384: parhash::Sha384, Algorithm::Sha384, 128, 0x5ea_0384, up_to(20000, 60, 600);
    sha512: parhash::Sha512, Algorithm::Sha512, 128, 0x5ea_0512, up_to(20000, 60, 600);
    // No CAVP files for SHA-512/t are in the collection: the `sha2` crate is their only oracle.
    sha512_224: parhash::Sha512_224, Algorithm::Sha512_224, 128, 0x5ea_5224, up_to(20000, 60, 600);
    sha512_256: parhash::Sha512_256, Algorithm::Sha512_256, 128, 0x5ea_5256, up_to(20000, 60, 600);
    sha3_224: parhash::Sha3_224, Algorithm::Sha3_224, 144, 0x5a3_224, up_to(20000, 40, 400);
    sha3_256: parhash::Sha3_256, Algorithm::Sha3_256, 136, 0x5a3_256, up_to(20000, 40, 400);
    sha3_384: parhash::Sha3_384, Algorithm::Sha3_384, 104, 0x5a3_384, up_to(20000, 40, 400);
    sha3_512: parhash::Sha3_512, Algorithm::Sha3_512, 72, 0x5a3_512, up_to(20000, 40, 400);
    keccak224: parhash::Keccak224, Algorithm::Keccak224, 144, 0xcc_224, up_to(20000, 40, 400);
    keccak256: parhash::Keccak256, Algorithm::Keccak256, 136, 0xcc_256, up_to(20000, 40, 400);
    keccak384: parhash::Keccak384, Algorithm::Keccak384, 104, 0xcc_384, up_to(20000, 40, 400);
    keccak512: parhash::Keccak512, Algorithm::Keccak512, 72, 0xcc_512, up_to(20000, 40, 400);
    whirlpool: parhash::Whirlpool, Algorithm::Whirlpool, 64, 0x5eed_0f1a, up_to(20000, 40, 400);
    // BLAKE-224/384 have no KAT files here: `blake-hash` is their only oracle.
    blake224: parhash::Blake224, Algorithm::Blake224, 64, 0xb1a4_e224, up_to(5000, 40, 400);
    blake256: parhash::Blake256, Algorithm::Blake256, 64, 0xb1a4_e256, up_to(5000, 40, 400);
    blake384: parhash::Blake384, Algorithm::Blake384, 128, 0xb1a4_e384, up_to(5000, 40, 400);
    blake512: parhash::Blake512, Algorithm::Blake512, 128, 0xb1a4_e512, up_to(5000, 40, 400);
    skein512_224: parhash::Skein512_224, Algorithm::Skein512_224, 64, 0x5ce1_0224, up_to(5000, 30, 300);
    skein512_256: parhash::Skein512_256, Algorithm::Skein512_256, 64, 0x5ce1_0256, up_to(5000, 30, 300);
    skein512_384: parhash::Skein512_384, Algorithm::Skein512_384, 64, 0x5ce1_0384, up_to(5000, 30, 300);
    skein512_512: parhash::Skein512_512, Algorithm::Skein512_512, 64, 0x5ce1_0512, up_to(5000, 30, 300);
    skein256_256: parhash::Skein256_256, Algorithm::Skein256_256, 32, 0x5ce1_2256, up_to(5000, 30, 300);
    skein1024_1024: parhash::Skein1024_1024, Algorithm::Skein1024_1024, 128, 0x5ce1_1024, up_to(5000, 30, 300);
    groestl224: parhash::Groestl224, Algorithm::Groestl224, 64, 0x6_0224, LITERAL_SLOW;
    groestl256: parhash::Groestl256, Algorithm::Groestl256, 64, 0x6_0256, LITERAL_SLOW;
    groestl384: parhash::Groestl384, Algorithm::Groestl384, 128, 0x6_0384, LITERAL_SLOW;
    groestl512: parhash::Groestl512, Algorithm::Groestl512, 128, 0x6_0512, LITERAL_SLOW;
    jh224: parhash::Jh224, Algorithm::Jh224, 64, 0x7_0224, LITERAL_SLOW;
    jh256: parhash::Jh256, Algorithm::Jh256, 64, 0x7_0256, LITERAL_SLOW;
    jh384: parhash::Jh384, Algorithm::Jh384, 64, 0x7_0384, LITERAL_SLOW;
    jh512: parhash::Jh512, Algorithm::Jh512, 64, 0x7_0512, LITERAL_SLOW;
}
