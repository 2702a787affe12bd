//! Grøstl: streaming after a reset and which variants are offered. Its ShortMsgKAT files are in
//! `short_msg_kat.rs`, the differential tests against the RustCrypto `groestl` crate in
//! `differential.rs`.
mod common;

use common::*;
use parhash::{Groestl224, Groestl256, Groestl384, Groestl512};

#[test]
fn streaming_reset_and_byte_pieces() {
    check_pieces_after_reset::<Groestl256>(1000);
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
