//! The NIST SHA-3 competition's ShortMsgKAT files (256 byte-aligned records each) through every
//! variant, by the `Digest` type and the dynamic `Hasher` (`common::check_short_msg_kat`). One
//! table, so that each file stands in one row with its algorithm.
mod common;

use common::*;
use parhash::Algorithm;

/// One `#[test]` a family, so that a failure names it: `test: parhash type (also the Algorithm)
/// = file under tests/vectors, ...;`.
macro_rules! short_msg_kats {
    ($($test:ident: $($alg:ident = $file:literal),+;)+) => {$(
        #[test]
        fn $test() {
            $(check_short_msg_kat::<parhash::$alg>(
                Algorithm::$alg,
                include_str!(concat!("vectors/", $file)),
            );)+
        }
    )+};
}

short_msg_kats! {
    sha3: Sha3_256 = "sha3-256/ShortMsgKAT_SHA3-256.txt", Sha3_512 = "sha3-512/ShortMsgKAT_SHA3-512.txt";
    keccak: Keccak256 = "keccak256/ShortMsgKAT_256.sphlib.txt", Keccak512 = "keccak512/ShortMsgKAT_512.sphlib.txt";
    blake: Blake256 = "blake256/ShortMsgKAT_256.sphlib.txt", Blake512 = "blake512/ShortMsgKAT_512.sphlib.txt";
    groestl: Groestl256 = "groestl256/ShortMsgKAT_256.sphlib.txt", Groestl512 = "groestl512/ShortMsgKAT_512.sphlib.txt";
    jh: Jh256 = "jh256/ShortMsgKAT_256.sphlib.txt", Jh512 = "jh512/ShortMsgKAT_512.sphlib.txt";
    skein: Skein512_256 = "skein512-256/ShortMsgKAT_256.sphlib.txt", Skein512_512 = "skein512-512/ShortMsgKAT_512.sphlib.txt";
}
