//! BLAKE-256/512 (final version) against the BLAKE specification's examples through every
//! variant. The NIST ShortMsgKAT files are in `short_msg_kat.rs`, the differential tests against
//! the `blake-hash` crate (all four sizes) in `differential.rs`.
mod common;

use common::*;
use parhash::{Algorithm, Blake256, Blake512};

#[test]
fn specification_examples() {
    let k256 = parse_kats(include_str!("vectors/blake256/spec_examples.txt"));
    let k512 = parse_kats(include_str!("vectors/blake512/spec_examples.txt"));
    assert_eq!((k256.len(), k512.len()), (2, 2));
    check_records_every_variant::<Blake256>(Algorithm::Blake256, &k256, "spec");
    check_records_every_variant::<Blake512>(Algorithm::Blake512, &k512, "spec");
}

/// The vectors run through every available variant: "sequential, parallel and
/// parallel-portable always run", so three at least.
#[test]
fn three_variants_at_least_run() {
    let counts = [
        available_variants::<Blake256>().len(),
        available_variants::<Blake512>().len(),
    ];
    assert!(counts.iter().all(|&n| n >= 3), "{counts:?}");
}
