//! The spellings the registry takes for each algorithm (besides its own name) resolve to it,
//! through `Algorithm::from_name` and `str::parse` alike: one table for every family.
mod common;

use parhash::Algorithm as A;

#[test]
fn aliases_resolve() {
    common::assert_names_resolve(&[
        ("SHA-256", A::Sha256),
        ("sha2-256", A::Sha256),
        ("sha_256", A::Sha256),
        ("SHA-512/256", A::Sha512_256),
        ("sha512/224", A::Sha512_224),
        ("SHA-384", A::Sha384),
        ("SHA3-256", A::Sha3_256),
        ("sha3_512", A::Sha3_512),
        ("keccak-256", A::Keccak256),
        ("KECCAK384", A::Keccak384),
        ("blake-256", A::Blake256),
        ("blake32", A::Blake256),
        ("blake64", A::Blake512),
        ("BLAKE-224", A::Blake224),
        ("blake384", A::Blake384),
        ("skein512-256", A::Skein512_256),
        ("SKEIN512-512", A::Skein512_512),
        ("skein-512-224", A::Skein512_224),
        ("skein1024-1024", A::Skein1024_1024),
        ("skein256-256", A::Skein256_256),
        ("groestl224", A::Groestl224),
        ("GROESTL-256", A::Groestl256),
        ("grostl256", A::Groestl256),
        ("grøstl-256", A::Groestl256),
        ("Grøstl-384", A::Groestl384),
        ("groestl512", A::Groestl512),
        ("jh224", A::Jh224),
        ("JH-256", A::Jh256),
        ("jh_384", A::Jh384),
        ("JH512", A::Jh512),
    ]);
}
