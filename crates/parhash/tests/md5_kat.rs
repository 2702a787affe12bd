//! MD5 against the RFC 1321 test suite through every implementation variant. The differential
//! test against the RustCrypto `md-5` crate is in `differential.rs`.
mod common;

use common::*;
use parhash::{Algorithm, Md5};

#[test]
fn rfc1321_suite() {
    let kats = parse_kats(include_str!("vectors/md5/rfc-1321.txt"));
    assert_eq!(kats.len(), 7);
    let variants = available_variants::<Md5>();
    assert!(variants.contains(&"sequential") && variants.contains(&"parallel-portable"));
    #[cfg(target_arch = "x86_64")]
    assert!(variants.contains(&"scheduled"), "{variants:?}");
    check_records_every_variant::<Md5>(Algorithm::Md5, &kats, "RFC 1321");
}
