//! The one parts API (`parhash::parts::Plan`) over every algorithm that splits: each part
//! hashed from the message, from a copy holding only its `ranges` (anything else garbage) and
//! through `read_at`, the states sent as bytes and combined in a random order, equals the
//! one-shot `parhash::hash`, for random lengths and part counts; and every bad input (a plan
//! that cannot be, foreign, duplicated, missing or damaged parts, a failing reader) is refused
//! with a `PartError` that keeps its source. Seeded, so a failure reproduces.

mod common;

use common::{random_bytes, rng};
use std::error::Error as _;
use std::io::{self, Cursor};
use std::ops::Range;

use parhash::parts::{read_at, PartError, PartState, Plan};
use parhash::{hash, Algorithm, Hasher, Output, TreeParams};
use rand::{rngs::StdRng, seq::SliceRandom, Rng};

/// Every algorithm that splits, with the parameters to try.
fn splittable() -> Vec<(Algorithm, Option<TreeParams>)> {
    let params = |t, l| Some(TreeParams::new(t, l).expect("valid"));
    let mut cases = vec![
        (Algorithm::Parsha256, None),
        (Algorithm::Parsha256, params(5, 0)),
        (Algorithm::Parsha256, params(9, 128)),
    ];
    for &algorithm in Algorithm::ALL {
        if algorithm != Algorithm::Parsha256 && Plan::splits(algorithm) {
            cases.push((algorithm, None));
        }
    }
    cases
}

fn plan(algorithm: Algorithm, params: Option<TreeParams>, len: usize, parts: usize) -> Plan {
    let mut builder = Plan::builder(algorithm).threads(2);
    if let Some(params) = params {
        builder = builder.tree_params(params);
    }
    builder.build(len as u64, parts).expect("a valid plan")
}

/// `message` with every byte outside `ranges` replaced by noise: what a machine that fetched
/// only those ranges may hold.
fn only(message: &[u8], ranges: &[Range<u64>], r: &mut StdRng) -> Vec<u8> {
    let mut copy = random_bytes(r, message.len());
    for range in ranges {
        let range = range.start as usize..range.end as usize;
        copy[range.clone()].copy_from_slice(&message[range]);
    }
    copy
}

/// The one-shot digest with the plan's algorithm and parameters.
fn one_shot(plan: &Plan, message: &[u8]) -> Output {
    let mut builder = Hasher::builder(plan.algorithm());
    if let Some(params) = plan.tree_params() {
        builder = builder.tree_params(params);
    }
    let mut hasher = builder.build().expect("a valid hasher");
    hasher.update(message);
    hasher.finalize()
}

/// The digest of `plan` over `message` by every way in: parts from the whole message, from a
/// copy holding only their ranges, through `read_at`; combined in a random order from bytes,
/// with the message and with a copy holding only the combine ranges.
fn check(plan: &Plan, message: &[u8], r: &mut StdRng) {
    let what = format!(
        "{:?}, {} bytes, {} parts",
        plan.key(),
        message.len(),
        plan.parts()
    );
    let want = one_shot(plan, message);
    assert_eq!(plan.message_len(), message.len() as u64, "{what}");
    let mut sent = Vec::new();
    for i in 0..plan.parts() {
        let ranges = plan.ranges(i);
        for pair in ranges.windows(2) {
            assert!(pair[0].end < pair[1].start, "{what}: part {i} {ranges:?}");
        }
        assert!(
            ranges
                .iter()
                .all(|r| r.start < r.end && r.end <= message.len() as u64),
            "{what}: part {i} {ranges:?}"
        );
        let state = plan.hash_part(i, message).expect("hashed");
        assert_eq!(state.index() as usize, i);
        assert_eq!(state.key(), plan.key());
        let sparse = only(message, &ranges, r);
        assert_eq!(
            plan.hash_part(i, &sparse).expect("hashed"),
            state,
            "{what}: part {i} read outside its ranges"
        );
        let from = plan
            .hash_part_from(i, read_at(&mut Cursor::new(&sparse)))
            .expect("read");
        assert_eq!(from, state, "{what}: part {i} through read_at");
        sent.push(state.to_bytes());
    }
    sent.shuffle(r);
    let states: Vec<PartState> = sent
        .iter()
        .map(|bytes| PartState::from_bytes(bytes).expect("intact"))
        .collect();
    assert_eq!(plan.combine(&states, message), Ok(want.clone()), "{what}");
    let top = only(message, &plan.combine_ranges(), r);
    assert_eq!(plan.combine(&states, &top), Ok(want.clone()), "{what}");
    let mut reads = 0;
    let digest = plan.combine_from(&states, |offset, buf| {
        reads += 1;
        let end = offset + buf.len() as u64;
        assert!(
            plan.combine_ranges()
                .iter()
                .any(|r| r.start <= offset && end <= r.end),
            "{what}: combine read {offset}..{end}"
        );
        buf.copy_from_slice(&message[offset as usize..end as usize]);
        Ok(())
    });
    assert_eq!(digest, Ok(want), "{what}");
    assert_eq!(
        reads == 0,
        plan.combine_ranges().is_empty(),
        "{what}: {reads} reads"
    );
}

#[test]
fn every_splittable_algorithm_equals_its_one_shot_digest() {
    let cases = splittable();
    // PARSHA-256, the six SANDstorm algorithms, BLAKE3 and the three CRCs.
    assert_eq!(cases.len(), 3 + 6 + 1 + 3, "{cases:?}");
    let mut r = rng(26);
    for (algorithm, params) in cases {
        // Lengths around the trees' edges and random ones up to ~11 SANDstorm superblocks;
        // the longest one long enough for 8 parts where the tree's unit is larger (BLAKE3's
        // 1 MiB pieces).
        let mut lengths = vec![0, 1, 63, 64, 65, 1000, 64_064, 128_128];
        lengths.extend((0..3).map(|_| r.random_range(0..1_400_000)));
        let splits_in_8 = |len: usize| plan(algorithm, params, len, 8).parts() == 8;
        lengths.push(if splits_in_8(1_400_000) {
            1_400_000
        } else {
            (9 << 20) + 4321
        });
        let mut most = 0;
        for len in lengths {
            let message = random_bytes(&mut r, len);
            // 8 always: the longest message is chosen to split in 8 (checked below).
            for parts in [1, 2, 8, r.random_range(3..=17)] {
                let plan = plan(algorithm, params, len, parts);
                assert!(
                    (1..=parts).contains(&plan.parts()),
                    "{algorithm} {len} {parts}"
                );
                assert_eq!(
                    plan.tree_params().is_some(),
                    algorithm == Algorithm::Parsha256
                );
                check(&plan, &message, &mut r);
                most = most.max(plan.parts());
            }
        }
        // Not only one-part plans: the longest message splits (SANDstorm-384/512 there have
        // 10 superblocks, PARSHA-256 a tree of 2^(t-1) leaves).
        assert!(most >= 8, "{algorithm}: at most {most} parts");
    }
}

/// A plan's combine step gives every digest size its algorithm has (BLAKE3's extendable
/// output), and refuses the others.
#[test]
fn a_plan_gives_every_digest_size_its_algorithm_has() {
    let mut r = rng(27);
    let message = random_bytes(&mut r, (3 << 20) + 99);
    let mut variable = 0;
    for (algorithm, params) in splittable() {
        let sizes = algorithm.digest_sizes();
        variable += usize::from(sizes.is_variable());
        for size in [
            sizes.min,
            algorithm.digest_size(),
            100.clamp(sizes.min, sizes.max),
        ] {
            let mut builder = Plan::builder(algorithm).digest_size(size);
            let mut hasher = Hasher::builder(algorithm).digest_size(size);
            if let Some(params) = params {
                builder = builder.tree_params(params);
                hasher = hasher.tree_params(params);
            }
            let plan = builder
                .build(message.len() as u64, 3)
                .expect("a valid plan");
            assert_eq!(plan.digest_size(), size);
            let states: Vec<PartState> = (0..plan.parts())
                .map(|i| plan.hash_part(i, &message).expect("hashed"))
                .collect();
            let mut hasher = hasher.build().expect("a valid hasher");
            hasher.update(&message);
            let digest = plan.combine(&states, &message).expect("combined");
            assert_eq!(digest, hasher.finalize(), "{algorithm}, {size} bytes");
        }
        if sizes.max < usize::MAX {
            let err = Plan::builder(algorithm)
                .digest_size(sizes.max + 1)
                .build(100, 2)
                .unwrap_err();
            assert!(
                matches!(err, PartError::InvalidPlan(_)),
                "{algorithm}: {err}"
            );
        }
    }
    assert!(
        variable > 0,
        "no algorithm that splits has a choice of lengths"
    );
}

#[test]
fn plans_that_cannot_be_are_refused() {
    assert_eq!(
        Plan::new(Algorithm::Sha256, 100, 2).unwrap_err(),
        PartError::NotSplittable(Algorithm::Sha256)
    );
    for &algorithm in Algorithm::ALL {
        assert_eq!(
            Plan::new(algorithm, 100, 2).is_ok(),
            Plan::splits(algorithm),
            "{algorithm}"
        );
    }
    for algorithm in [Algorithm::Parsha256, Algorithm::Sandstorm512] {
        assert_eq!(
            Plan::new(algorithm, 100, 0).unwrap_err(),
            PartError::NoParts
        );
    }
    let err = Plan::builder(Algorithm::Sandstorm256)
        .tree_params(TreeParams::DEFAULT)
        .build(100, 2)
        .unwrap_err();
    assert_eq!(
        err,
        PartError::InvalidPlan(parhash::Error::NoTreeParams(Algorithm::Sandstorm256))
    );
    assert!(err.source().is_some(), "{err}");
    let err = Plan::new(Algorithm::Parsha256, u64::MAX, 2).unwrap_err();
    assert_eq!(
        err,
        PartError::InvalidPlan(parhash::Error::MessageTooLong(u64::MAX))
    );
    let source = err.source().expect("the registry's error");
    assert_eq!(
        source.downcast_ref::<parhash::Error>(),
        Some(&parhash::Error::MessageTooLong(u64::MAX))
    );
}

#[test]
fn bad_indices_and_lengths_are_refused() {
    let message = random_bytes(&mut rng(1), 300_000);
    for algorithm in [Algorithm::Parsha256, Algorithm::Sandstorm256] {
        let plan = Plan::new(algorithm, message.len() as u64, 4).expect("valid");
        assert_eq!(plan.parts(), 4);
        let no_such = PartError::NoSuchPart { index: 4, parts: 4 };
        assert_eq!(plan.hash_part(4, &message).unwrap_err(), no_such);
        let err = plan
            .hash_part_from(4, |_, _| panic!("read for a part that does not exist"))
            .unwrap_err();
        assert_eq!(err, no_such);
        let short = PartError::LengthMismatch {
            expected: 300_000,
            found: 299_999,
        };
        assert_eq!(plan.hash_part(0, &message[1..]).unwrap_err(), short);
        let states: Vec<PartState> = (0..4)
            .map(|i| plan.hash_part(i, &message).expect("hashed"))
            .collect();
        assert_eq!(plan.combine(&states, &message[1..]).unwrap_err(), short);
    }
}

/// The reader's own error, to find again through `source()`: any error type of its own does,
/// and std's `fmt::Error` is one.
fn disk_on_fire() -> io::Error {
    io::Error::other(std::fmt::Error)
}

/// The source of an `Io` error is the reader's `io::Error` itself, its own error inside.
fn assert_keeps_source(err: &PartError) {
    assert!(matches!(err, PartError::Io(_)), "{err:?}");
    assert_eq!(
        err.to_string(),
        format!("reading the message: {}", std::fmt::Error)
    );
    let io = err
        .source()
        .and_then(|e| e.downcast_ref::<io::Error>())
        .expect("the io::Error is the source");
    assert_eq!(io.kind(), io::ErrorKind::Other);
    assert!(io
        .get_ref()
        .is_some_and(|inner| inner.is::<std::fmt::Error>()));
}

#[test]
fn read_errors_keep_their_source() {
    let message = random_bytes(&mut rng(2), 300_000);
    for algorithm in [Algorithm::Parsha256, Algorithm::Sandstorm256] {
        let plan = Plan::new(algorithm, message.len() as u64, 4).expect("valid");
        for i in 0..plan.parts() {
            let err = plan
                .hash_part_from(i, |_, _| Err(disk_on_fire()))
                .unwrap_err();
            assert_keeps_source(&err);
        }
        let states: Vec<PartState> = (0..4)
            .map(|i| plan.hash_part(i, &message).expect("hashed"))
            .collect();
        if plan.combine_ranges().is_empty() {
            // Nothing to read: the reader is never called.
            let digest = plan.combine_from(&states, |_, _| panic!("read"));
            assert_eq!(digest, Ok(hash(algorithm, &message)));
        } else {
            let err = plan
                .combine_from(&states, |_, _| Err(disk_on_fire()))
                .unwrap_err();
            assert_keeps_source(&err);
        }
        // A message shorter than the plan's: `read_at`'s end-of-file error, kept.
        let err = plan
            .hash_part_from(3, read_at(&mut Cursor::new(&message[..200_000])))
            .unwrap_err();
        let io = err.source().and_then(|e| e.downcast_ref::<io::Error>());
        assert_eq!(
            io.map(io::Error::kind),
            Some(io::ErrorKind::UnexpectedEof),
            "{err:?}"
        );
    }
}

#[test]
fn foreign_duplicated_missing_and_damaged_parts_are_refused() {
    let mut r = rng(3);
    let message = random_bytes(&mut r, 700_000);
    let len = message.len() as u64;
    for algorithm in [Algorithm::Parsha256, Algorithm::Sandstorm224Ref] {
        let plan = Plan::new(algorithm, len, 4).expect("valid");
        assert_eq!(plan.parts(), 4, "{algorithm}");
        let states: Vec<PartState> = (0..4)
            .map(|i| plan.hash_part(i, &message).expect("hashed"))
            .collect();
        // Refused before anything is read.
        let combine = |states: &[PartState]| {
            plan.combine_from(states, |_, _| panic!("read before the states were checked"))
        };
        assert_eq!(
            combine(&states[..3]).unwrap_err(),
            PartError::Missing(vec![3])
        );
        let mut twice = states.clone();
        twice.push(states[2].clone());
        assert_eq!(combine(&twice).unwrap_err(), PartError::Duplicate(2));
        // Parts of other plans: another algorithm, length, part count or tree parameters.
        let other_algorithm = if algorithm == Algorithm::Parsha256 {
            Algorithm::Sandstorm256
        } else {
            Algorithm::Sandstorm224
        };
        let mut others = vec![
            Plan::new(other_algorithm, len, 4),
            Plan::new(algorithm, len - 64, 4),
            Plan::new(algorithm, len, 2),
        ];
        if algorithm == Algorithm::Parsha256 {
            let params = TreeParams::new(12, 256).expect("valid");
            others.push(Plan::builder(algorithm).tree_params(params).build(len, 4));
        }
        for other in others {
            let other = other.expect("valid");
            let foreign = other.hash_part(1, &message[..other.message_len() as usize]);
            let foreign = foreign.expect("hashed");
            let mut mixed = states.clone();
            mixed[1] = foreign.clone();
            assert_eq!(
                combine(&mixed).unwrap_err(),
                PartError::Foreign {
                    expected: plan.key(),
                    found: foreign.key()
                }
            );
        }
        // Damaged on the way: every flipped byte of a state's bytes is caught.
        let bytes = states[1].to_bytes();
        for at in 0..bytes.len() {
            let mut bad = bytes.clone();
            bad[at] ^= 1 << (at % 8);
            let err = PartState::from_bytes(&bad).expect_err("damage goes unnoticed");
            assert!(
                matches!(
                    err,
                    PartError::Corrupt(_) | PartError::UnsupportedVersion(_)
                ),
                "{algorithm}: byte {at}: {err}"
            );
        }
        assert_eq!(
            plan.combine(&states, &message),
            Ok(hash(algorithm, &message))
        );
    }
}

#[test]
fn every_parsha_error_has_its_registry_counterpart() {
    use parhash::parsha256::ParshaError;
    for (parsha, registry) in [
        (
            ParshaError::InvalidTreeHeight(41),
            parhash::Error::InvalidTreeHeight(41),
        ),
        (
            ParshaError::InvalidIvBits(64),
            parhash::Error::InvalidIvBits(64),
        ),
        (
            ParshaError::MessageTooLong(u64::MAX),
            parhash::Error::MessageTooLong(u64::MAX),
        ),
        (
            ParshaError::LengthMismatch {
                declared: 3,
                received: 4,
            },
            parhash::Error::LengthMismatch {
                declared: 3,
                received: 4,
            },
        ),
    ] {
        let text = parsha.to_string();
        let converted = parhash::Error::from(parsha);
        assert_eq!(converted, registry);
        if matches!(
            registry,
            parhash::Error::InvalidTreeHeight(_) | parhash::Error::InvalidIvBits(_)
        ) {
            assert_eq!(converted.to_string(), text);
        }
    }
    // Through the parts API: PARSHA-256's family plan with a bad T.
    let err = parhash::parsha256::parts::Plan::new(100, 0, 256, 2).unwrap_err();
    assert_eq!(
        err,
        PartError::InvalidPlan(parhash::Error::InvalidTreeHeight(0))
    );
}
