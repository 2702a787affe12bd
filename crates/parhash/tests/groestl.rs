//! Grøstl-224/256/384/512 against the round-3 ShortMsgKAT files and the RustCrypto `groestl`
//! crate, through every implementation variant.
mod common;

use common::*;
use digest::Digest;
use parhash::lab::algo::Variants;
use parhash::{Algorithm, Groestl224, Groestl256, Groestl384, Groestl512};

#[test]
fn groestl256_short_msg_kat() {
    check_short_msg_kat::<Groestl256>(
        Algorithm::Groestl256,
        include_str!("vectors/groestl256/ShortMsgKAT_256.sphlib.txt"),
    );
}

#[test]
fn groestl512_short_msg_kat() {
    check_short_msg_kat::<Groestl512>(
        Algorithm::Groestl512,
        include_str!("vectors/groestl512/ShortMsgKAT_512.sphlib.txt"),
    );
}

/// Every variant, streamed in random pieces, and the dynamic hasher, against the crate.
fn differential<T, Oracle>(alg: Algorithm, block: usize, seed: u64)
where
    T: Variants + Digest + Clone + digest::Reset,
    Oracle: Digest,
{
    let plan = Differential {
        cases: (40, 400),
        max_len: 5000,
        // The literal byte-matrix form is slow in debug builds: long inputs only in release.
        slow: Some(("sequential", cases(2048, 1 << 20))),
    };
    differential_every_variant::<T>(alg, block, seed, plan, |d| Oracle::digest(d).to_vec());
}

#[test]
fn differential_groestl224() {
    differential::<Groestl224, groestl::Groestl224>(Algorithm::Groestl224, 64, 0x6_0224);
}

#[test]
fn differential_groestl256() {
    differential::<Groestl256, groestl::Groestl256>(Algorithm::Groestl256, 64, 0x6_0256);
}

#[test]
fn differential_groestl384() {
    differential::<Groestl384, groestl::Groestl384>(Algorithm::Groestl384, 128, 0x6_0384);
}

#[test]
fn differential_groestl512() {
    differential::<Groestl512, groestl::Groestl512>(Algorithm::Groestl512, 128, 0x6_0512);
}

#[test]
fn streaming_reset_and_byte_pieces() {
    check_pieces_after_reset::<Groestl256>(1000);
}

#[test]
fn names_resolve() {
    assert_names_resolve(&[
        ("groestl224", Algorithm::Groestl224),
        ("GROESTL-256", Algorithm::Groestl256),
        ("grostl256", Algorithm::Groestl256),
        ("grøstl-256", Algorithm::Groestl256),
        ("Grøstl-384", Algorithm::Groestl384),
        ("groestl512", Algorithm::Groestl512),
    ]);
}

/// `parallel-aesni` is offered exactly where AES-NI (with AVX and SSSE3) is.
#[cfg(target_arch = "x86_64")]
#[test]
fn aesni_form_runs_where_the_cpu_has_it() {
    let present = parhash::lab::platform::AesNi::detect().is_some();
    for variants in [
        available_variants::<Groestl224>(),
        available_variants::<Groestl256>(),
        available_variants::<Groestl384>(),
        available_variants::<Groestl512>(),
    ] {
        assert_eq!(
            variants.contains(&"parallel-aesni"),
            present,
            "{variants:?}"
        );
    }
}
