//! PARSHA-256 split over parts and combined: the same digest as one-shot `parsha256` (and the
//! reference) for every part count, order, thread and reading path; bad inputs refused.
mod common;

use std::collections::HashMap;
use std::ops::Range;
use std::sync::Mutex;

use common::*;
use digest::Digest;
use parhash::lab::algo::parsha256::{parsha256, reference, ParshaError};
use parhash::parsha256::parts::Plan;
use parhash::parts::{PartError, PartState};
use rand::rngs::StdRng;
use rand::seq::SliceRandom;
use rand::Rng;

/// The number of parts a plan must have: the largest power of two `<= asked`, at most
/// `2^(t-1)`, 1 without a tree.
fn expected_parts(asked: usize, t: u32) -> usize {
    let max = if t == 0 { 1 } else { 1 << (t - 1) };
    (1 << asked.ilog2()).min(max)
}

/// Every part of `plan` hashed (in a random order), each state round-tripped through bytes.
fn hash_parts(plan: &Plan, message: &[u8], rng: &mut StdRng) -> Vec<PartState> {
    let mut order: Vec<usize> = (0..plan.parts()).collect();
    order.shuffle(rng);
    order
        .into_iter()
        .map(|p| {
            let state = plan.hash_part(p, message);
            assert_eq!(state.index() as usize, p);
            assert_eq!(state.key(), plan.key());
            let back = PartState::from_bytes(&state.to_bytes()).expect("round trip");
            assert_eq!(back, state);
            back
        })
        .collect()
}

/// Split and merged with every part count 1 ..= 64, combined in a random order, equals
/// `expected`. Plans with the same real part count are the same plan (same key), so their
/// parts are hashed once.
fn check_every_part_count(
    message: &[u8],
    tree_height: u32,
    iv_bits: u32,
    expected: (u32, [u8; 32]),
    rng: &mut StdRng,
) {
    let len = message.len() as u64;
    let mut hashed: HashMap<usize, Vec<PartState>> = HashMap::new();
    for asked in 1..=64 {
        let plan = Plan::new(len, tree_height, iv_bits, asked).expect("valid parameters");
        let what = format!("{len} bytes, T {tree_height}, l {iv_bits}, {asked} parts asked");
        assert_eq!(plan.effective_height(), expected.0, "{what}");
        assert_eq!(plan.parts(), expected_parts(asked, expected.0), "{what}");
        assert_eq!(plan.key().parts as usize, plan.parts(), "{what}");
        let states = hashed
            .entry(plan.parts())
            .or_insert_with(|| hash_parts(&plan, message, rng));
        assert!(states.iter().all(|s| s.key() == plan.key()), "{what}");
        states.shuffle(rng);
        assert_eq!(plan.combine(states.iter(), message), Ok(expected), "{what}");
    }
}

/// Lengths around every place the shape changes (short path, the zero-padded band, each
/// delta(t)) plus random ones up to `max`.
fn lengths(rng: &mut StdRng, iv_bits: u32, max: usize, random: usize) -> Vec<usize> {
    let leaf = 96 - iv_bits as usize / 8;
    let mut lens = vec![0, 1, leaf - 1, leaf, leaf + 1, 2 * leaf + 63, 2 * leaf + 64];
    for t in 2..=8 {
        // delta(t) in bytes: 2^t (128 - l/8) - 32.
        let delta = (1usize << t) * (128 - iv_bits as usize / 8) - 32;
        lens.extend([delta - 1, delta, delta + 1]);
    }
    lens.extend((0..random).map(|_| rng.random_range(0..=max)));
    lens
}

#[test]
fn every_part_count_equals_one_shot_and_the_reference() {
    let mut r = rng(0x9a25_7a01);
    for iv_bits in [0u32, 128, 256] {
        for len in lengths(&mut r, iv_bits, 40_000, 4) {
            let tree_height = r.random_range(1..=13);
            let message = random_bytes(&mut r, len);
            let expected = reference::parsha256(&message, tree_height, iv_bits).expect("valid");
            assert_eq!(parsha256(&message, tree_height, iv_bits), Ok(expected));
            check_every_part_count(&message, tree_height, iv_bits, expected, &mut r);
        }
    }
}

#[test]
fn every_part_count_equals_one_shot_on_megabytes() {
    let mut r = rng(0x9a25_7a02);
    let cases = [
        (0u32, 13u32),
        (128, 9),
        (256, 13),
        (256, 4),
        (0, 1),
        (256, 11),
        (0, 12),
    ];
    for (iv_bits, tree_height) in cases {
        let len = r.random_range(200_000..=cases_len());
        let message = random_bytes(&mut r, len);
        let expected = parsha256(&message, tree_height, iv_bits).expect("valid");
        check_every_part_count(&message, tree_height, iv_bits, expected, &mut r);
    }
}

/// Up to 3 MiB in debug, 8 MiB in release.
fn cases_len() -> usize {
    cases(3 << 20, 8 << 20)
}

#[test]
fn every_tree_height_and_iv_length() {
    let mut r = rng(0x9a25_7a03);
    for iv_bits in [0u32, 128, 256] {
        for tree_height in 1..=13 {
            let len = r.random_range(0..200_000);
            let message = random_bytes(&mut r, len);
            let expected = parsha256(&message, tree_height, iv_bits).expect("valid");
            for asked in [1, 2, 3, 8, 64] {
                let plan = Plan::new(len as u64, tree_height, iv_bits, asked).expect("valid");
                let states = hash_parts(&plan, &message, &mut r);
                assert_eq!(
                    plan.combine(&states, &message),
                    Ok(expected),
                    "{len} bytes, T {tree_height}, l {iv_bits}, {asked} parts"
                );
            }
        }
    }
}

#[test]
fn parts_hashed_in_separate_threads_in_any_order() {
    let mut r = rng(0x9a25_7a04);
    for (len, tree_height, iv_bits, asked) in [
        (700_001usize, 13u32, 256u32, 16usize),
        (300_000, 7, 0, 64),
        (123_457, 13, 128, 5),
    ] {
        let message = random_bytes(&mut r, len);
        let plan = Plan::new(len as u64, tree_height, iv_bits, asked).expect("valid");
        let mut order: Vec<usize> = (0..plan.parts()).collect();
        order.shuffle(&mut r);
        let sent: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());
        std::thread::scope(|scope| {
            for chunk in order.chunks(3) {
                let (plan, message, sent) = (&plan, &message, &sent);
                scope.spawn(move || {
                    for &p in chunk {
                        let bytes = plan.hash_part(p, message).to_bytes();
                        sent.lock().unwrap().push(bytes);
                    }
                });
            }
        });
        let sent = sent.into_inner().unwrap();
        assert_eq!(sent.len(), plan.parts());
        let states: Vec<PartState> = sent
            .iter()
            .map(|b| PartState::from_bytes(b).expect("intact"))
            .collect();
        assert_eq!(
            plan.combine(&states, &message),
            Ok(parsha256(&message, tree_height, iv_bits).unwrap()),
            "{len} bytes"
        );
    }
}

/// Every byte position in `reads` lies in `ranges`, and they cover `ranges` exactly once.
fn assert_reads_cover(reads: &[Range<u64>], ranges: &[Range<u64>], what: &str) {
    let mut reads = reads.to_vec();
    reads.sort_by_key(|r| r.start);
    let mut merged: Vec<Range<u64>> = Vec::new();
    for r in reads {
        assert!(r.start < r.end, "{what}: empty read");
        match merged.last_mut() {
            Some(last) if last.end == r.start => last.end = r.end,
            Some(last) => {
                assert!(last.end < r.start, "{what}: a byte read twice");
                merged.push(r);
            }
            None => merged.push(r),
        }
    }
    assert_eq!(merged, ranges, "{what}: reads are not exactly the ranges");
}

/// A part's reads: each byte at most once, every byte of `ranges` read, and a byte outside them
/// only in a gap of at most 4 KiB between two of them (read through in one request).
fn assert_part_reads(reads: &[Range<u64>], ranges: &[Range<u64>], what: &str) {
    const GAP: u64 = 4 << 10;
    let mut filled: Vec<Range<u64>> = Vec::new();
    for r in ranges {
        match filled.last_mut() {
            Some(last) if r.start - last.end <= GAP => last.end = r.end,
            _ => filled.push(r.clone()),
        }
    }
    let mut reads = reads.to_vec();
    reads.sort_by_key(|r| r.start);
    for pair in reads.windows(2) {
        assert!(pair[0].end <= pair[1].start, "{what}: a byte read twice");
    }
    for read in &reads {
        assert!(read.start < read.end, "{what}: empty read");
        assert!(
            filled
                .iter()
                .any(|f| f.start <= read.start && read.end <= f.end),
            "{what}: read {read:?} goes beyond the ranges and their small gaps"
        );
    }
    for range in ranges {
        let mut at = range.start;
        for read in reads
            .iter()
            .filter(|r| r.end > range.start && r.start < range.end)
        {
            assert!(
                read.start <= at,
                "{what}: bytes {at}..{} not read",
                read.start
            );
            at = at.max(read.end);
        }
        assert!(
            at >= range.end,
            "{what}: bytes {at}..{} not read",
            range.end
        );
    }
}

/// `message` with every byte outside `ranges` replaced by 0xa5: what a reader that fetched only
/// the ranges (a sparse local copy) serves.
fn only_ranges(message: &[u8], ranges: &[Range<u64>]) -> Vec<u8> {
    let mut masked = vec![0xa5; message.len()];
    for r in ranges {
        let r = r.start as usize..r.end as usize;
        masked[r.clone()].copy_from_slice(&message[r]);
    }
    masked
}

#[test]
fn reading_through_a_callback_reads_the_ranges_and_small_gaps_only() {
    let mut r = rng(0x9a25_7a05);
    let mut configs: Vec<(usize, u32, u32, usize)> = lengths(&mut r, 256, 300_000, 6)
        .into_iter()
        .chain([cases(2_000_000, 9_000_000)])
        .map(|len| {
            let iv_bits = [0u32, 128, 256][r.random_range(0..3)];
            (len, r.random_range(1..=13), iv_bits, r.random_range(1..=64))
        })
        .collect();
    // The shape `parhash-dist` uses: pieces with gaps both under and over the read-through size.
    configs.push((9_000_000, 13, 256, 8));
    for (len, tree_height, iv_bits, asked) in configs {
        let message = random_bytes(&mut r, len);
        let plan = Plan::new(len as u64, tree_height, iv_bits, asked).expect("valid");
        let what = format!(
            "{len} bytes, T {tree_height}, l {iv_bits}, {} parts",
            plan.parts()
        );
        let mut all: Vec<Range<u64>> = plan.top_ranges();
        let mut states = Vec::new();
        for p in 0..plan.parts() {
            let ranges = plan.ranges(p);
            all.extend(ranges.iter().cloned());
            let mut reads = Vec::new();
            // Bytes outside the ranges are garbage: the digest shows they are never used.
            let served = only_ranges(&message, &ranges);
            let state = plan
                .hash_part_from(p, |offset, buf| {
                    reads.push(offset..offset + buf.len() as u64);
                    buf.copy_from_slice(&served[offset as usize..][..buf.len()]);
                    Ok(())
                })
                .expect("no read errors");
            assert_part_reads(&reads, &ranges, &format!("{what}, part {p}"));
            assert_eq!(state, plan.hash_part(p, &message), "{what}, part {p}");
            assert_eq!(state.to_bytes().len(), 42 + plan.payload_len(p));
            states.push(state);
        }
        // The parts and the top read every byte of the message exactly once.
        let whole: Vec<Range<u64>> = std::iter::once(0..len as u64)
            .filter(|r| !r.is_empty())
            .collect();
        assert_reads_cover(&all, &whole, &what);
        let mut reads = Vec::new();
        let digest = plan.combine_from(&states, |offset, buf| {
            reads.push(offset..offset + buf.len() as u64);
            buf.copy_from_slice(&message[offset as usize..][..buf.len()]);
            Ok(())
        });
        assert_reads_cover(&reads, &plan.top_ranges(), &format!("{what}, top"));
        assert_eq!(
            digest,
            Ok(parsha256(&message, tree_height, iv_bits).unwrap()),
            "{what}"
        );
    }
}

#[test]
fn read_errors_are_passed_on() {
    let message = pattern(500_000);
    let plan = Plan::new(message.len() as u64, 13, 256, 4).expect("valid");
    let err = plan
        .hash_part_from(1, |_, _| Err(std::io::Error::other("disk on fire")))
        .unwrap_err();
    assert_eq!(err.to_string(), "disk on fire");
    let states: Vec<PartState> = (0..4).map(|p| plan.hash_part(p, &message)).collect();
    let err = plan
        .combine_from(&states, |_, _| {
            Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "short",
            ))
        })
        .unwrap_err();
    assert!(
        matches!(&err, PartError::Io(e) if e.kind() == std::io::ErrorKind::UnexpectedEof),
        "{err:?}"
    );
    // Bad states are refused before anything is read.
    let err = plan
        .combine_from(&states[1..], |_, _| {
            panic!("read before the states were checked")
        })
        .unwrap_err();
    assert_eq!(err, PartError::Missing(vec![0]));
}

/// `state` with its payload replaced by `payload`, as a well-formed envelope (the checksum
/// recomputed): what a buggy or hostile producer could send.
fn with_payload(state: &PartState, payload: &[u8]) -> PartState {
    // Magic, version, mode, parameters, length, parts and index: 30 bytes; then the
    // payload's length, the payload and the checksum.
    let mut out = state.to_bytes()[..30].to_vec();
    out.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(payload);
    let sum = sha2::Sha256::digest(&out);
    out.extend_from_slice(&sum[..8]);
    PartState::from_bytes(&out).expect("a well-formed envelope")
}

#[test]
fn combine_refuses_bad_parts() {
    let mut r = rng(0x9a25_7a06);
    let len = 1_000_003usize;
    let message = random_bytes(&mut r, len);
    let plan = Plan::new(len as u64, 13, 256, 8).expect("valid");
    let states = hash_parts(&plan, &message, &mut r);
    let good = plan.combine(&states, &message).expect("good parts");

    // Missing, duplicated.
    assert_eq!(
        plan.combine(&states[..7], &message),
        Err(PartError::Missing(vec![states[7].index()]))
    );
    let mut twice = states.clone();
    twice.push(states[3].clone());
    assert_eq!(
        plan.combine(&twice, &message),
        Err(PartError::Duplicate(states[3].index()))
    );
    // Foreign: another length, another T, another l, another part count.
    for other in [
        Plan::new(len as u64 - 1, 13, 256, 8),
        Plan::new(len as u64, 12, 256, 8),
        Plan::new(len as u64, 13, 0, 8),
        Plan::new(len as u64, 13, 256, 16),
    ] {
        let other = other.expect("valid");
        let data = &message[..other.message_len() as usize];
        let mut mixed = states.clone();
        let p = r.random_range(0..8);
        let i = mixed.iter().position(|s| s.index() as usize == p).unwrap();
        mixed[i] = other.hash_part(p, data);
        assert!(
            matches!(plan.combine(&mixed, &message), Err(PartError::Foreign { found, .. }) if found == other.key()),
            "{:?}",
            other.key()
        );
        // And the other plan refuses these parts.
        assert!(matches!(
            other.combine(&states, data),
            Err(PartError::Foreign { .. })
        ));
    }
    // Corrupted in transit: every flipped byte is refused when reading the state.
    let bytes = states[0].to_bytes();
    for at in (0..bytes.len()).step_by(97).chain([bytes.len() - 1]) {
        let mut bad = bytes.clone();
        bad[at] ^= 0x01;
        assert!(
            matches!(
                PartState::from_bytes(&bad),
                Err(PartError::Corrupt(_) | PartError::UnsupportedVersion(_))
            ),
            "flip at {at}"
        );
    }
    // A payload of the wrong size, in an intact envelope.
    // (Sizes differ between parts: a root outputs nothing in some of the last rounds.)
    let right = plan.payload_len(states[2].index() as usize);
    assert_eq!(right, states[2].to_bytes().len() - 42);
    for size in [0, 32, right - 32, right - 1, right + 1, right + 32, 1 << 20] {
        let mut bad = states.clone();
        bad[2] = with_payload(&states[2], &vec![7; size]);
        let index = bad[2].index();
        assert!(
            matches!(
                plan.combine(&bad, &message),
                Err(PartError::BadPayload { index: i, .. }) if i == index
            ),
            "{size} bytes"
        );
    }
    // The right size with other contents is a part of another message: a wrong digest.
    let mut swapped = states.clone();
    let payload = vec![0x5a; plan.payload_len(swapped[5].index() as usize)];
    swapped[5] = with_payload(&states[5], &payload);
    assert_ne!(plan.combine(&swapped, &message), Ok(good));
}

#[test]
fn plans_round_the_part_count_to_what_the_tree_allows() {
    assert_eq!(Plan::new(1000, 13, 256, 0).unwrap_err(), PartError::NoParts);
    assert_eq!(
        Plan::new(1000, 0, 256, 1).unwrap_err(),
        PartError::InvalidPlan(ParshaError::InvalidTreeHeight(0).into())
    );
    assert_eq!(
        Plan::new(1000, 3, 64, 1).unwrap_err(),
        PartError::InvalidPlan(ParshaError::InvalidIvBits(64).into())
    );
    // Short messages (t = 0) and t = 1 have one part; T caps t.
    for (len, tree_height, asked, t, parts) in [
        (0u64, 13u32, 64usize, 0u32, 1usize),
        (64, 13, 64, 0, 1),
        (65, 13, 64, 1, 1),
        (1 << 30, 1, 64, 1, 1),
        (1 << 30, 3, 64, 3, 4),
        (1 << 30, 13, 100, 13, 64),
        (1 << 30, 13, 1 << 20, 13, 4096),
        (1 << 40, 40, usize::MAX, 33, 1 << 31),
    ] {
        let plan = Plan::new(len, tree_height, 256, asked).expect("valid");
        assert_eq!((plan.effective_height(), plan.parts()), (t, parts), "{len}");
    }
}

/// The size of a state, as documented: 32 bytes per round, ~85.3 KiB per GiB with T = 13 and
/// l = 256, whatever the part count; the top reads as much per part.
#[test]
fn states_are_small() {
    for (iv_bits, per_gib) in [(256u32, 87_381usize), (128, 74_898), (0, 65_536)] {
        for asked in [1, 8, 64] {
            let plan = Plan::new(1 << 30, 13, iv_bits, asked).expect("valid");
            for p in [0, plan.parts() - 1] {
                let size = plan.payload_len(p);
                assert!(size.abs_diff(per_gib) < 32 * 16, "l {iv_bits}: {size}");
            }
            let top: u64 = plan.top_ranges().iter().map(|r| r.end - r.start).sum();
            let per_part = top / plan.parts() as u64;
            assert!(
                per_part.abs_diff(per_gib as u64) < 2048,
                "l {iv_bits}: {per_part}"
            );
        }
    }
}
