//! SANDstorm split/merge (`algo::sandstorm::parts`): a message hashed as parts and combined has
//! the one-shot digest, for every size and both boundary rules, every part count 1..=64, parts
//! hashed in any order, on separate threads, read through a callback, their states sent as
//! bytes; and combine refuses every kind of bad input. Seeded, so a failure reproduces.

mod common;

use common::{random_bytes, rng};
use parhash::hash;
use parhash::lab::algo::sandstorm::reference;
use parhash::lab::algo::sandstorm::{P224Ref, P256Ref, Params, P224, P256, P384, P512};
use parhash::parts::{PartError, PartState};
use parhash::sandstorm::parts::{Plan, Variant};
use rand::{rngs::StdRng, seq::SliceRandom, Rng};
use sha2::Digest;

/// Bytes of one level-2 superblock in the design (1000 blocks).
fn superblock_bytes(variant: Variant) -> usize {
    1000 * variant.block_bytes()
}

fn one_shot(variant: Variant, message: &[u8]) -> Vec<u8> {
    hash(parhash::Algorithm::from(variant), message)
        .as_bytes()
        .to_vec()
}

/// The literal reference, truncated (slow: small messages only).
fn literal(variant: Variant, message: &[u8]) -> Vec<u8> {
    fn run<P: Params>(message: &[u8]) -> Vec<u8> {
        let mut d = reference::hash(&P::K, message, P::BOUNDARIES);
        d.truncate(P::OUT);
        d
    }
    match variant {
        Variant::Sandstorm224 => run::<P224>(message),
        Variant::Sandstorm256 => run::<P256>(message),
        Variant::Sandstorm384 => run::<P384>(message),
        Variant::Sandstorm512 => run::<P512>(message),
        Variant::Sandstorm224Ref => run::<P224Ref>(message),
        Variant::Sandstorm256Ref => run::<P256Ref>(message),
    }
}

fn slice(message: &[u8], range: std::ops::Range<u64>) -> &[u8] {
    &message[range.start as usize..range.end as usize]
}

fn hash_part(plan: &Plan, message: &[u8], index: usize) -> PartState {
    plan.hash_part(
        index,
        slice(message, plan.head()),
        slice(message, plan.range(index)),
    )
}

/// All the parts of `plan`, hashed in a random order, through bytes, combined in another
/// random order.
fn split_merge(plan: &Plan, message: &[u8], r: &mut StdRng) -> Vec<u8> {
    let mut order: Vec<usize> = (0..plan.parts()).collect();
    order.shuffle(r);
    let mut states: Vec<PartState> = order
        .iter()
        .map(|&i| PartState::from_bytes(&hash_part(plan, message, i).to_bytes()).unwrap())
        .collect();
    states.shuffle(r);
    plan.combine(&states).unwrap()
}

/// Every part count 1..=64, each on a message with a few more level-2 superblocks than parts
/// (so the count is real) and a random tail: all counts for SANDstorm-256 and -256-ref, and
/// every count for each word size and boundary rule among the others (224 and 224-ref take odd
/// and even counts, 384 and 512 likewise), which keeps the debug run short.
#[test]
fn every_part_count_gives_the_one_shot_digest() {
    let mut r = rng(0x5a4d_0001);
    for variant in Variant::ALL {
        let counts: Vec<usize> = (1..=64)
            .filter(|p| match variant {
                Variant::Sandstorm256 | Variant::Sandstorm256Ref => true,
                Variant::Sandstorm224 | Variant::Sandstorm384 => p % 2 == 1,
                Variant::Sandstorm224Ref | Variant::Sandstorm512 => p % 2 == 0,
            })
            .collect();
        for parts in counts {
            let superblocks = parts + r.random_range(0..3);
            let len = (superblocks - 1) * superblock_bytes(variant)
                + r.random_range(variant.block_bytes()..superblock_bytes(variant));
            let message = random_bytes(&mut r, len);
            let plan = Plan::new(variant, len as u64, parts);
            assert_eq!(plan.parts(), parts, "{variant} {len} bytes");
            assert_eq!(
                split_merge(&plan, &message, &mut r),
                one_shot(variant, &message),
                "{variant}, {len} bytes, {parts} parts"
            );
        }
    }
}

/// Lengths around every boundary (one block, one level-1 superblock, one level-2 superblock,
/// the 8-bit counter's 258 blocks = 16,448 bytes) and random ones up to several MiB, in random
/// part counts; small ones against the literal reference too.
#[test]
fn boundary_and_random_lengths() {
    let mut r = rng(0x5a4d_0002);
    for variant in Variant::ALL {
        let bb = variant.block_bytes();
        let mut lengths = vec![0, 1, bb - 1, bb, bb + 1, 2 * bb - 1, 11 * bb, 12 * bb - 1];
        for blocks in [256, 257, 258, 259, 1000, 1001, 1002, 2001, 2002, 3001] {
            for delta in [-1i64, 0, 1] {
                lengths.push((blocks * bb as i64 + delta) as usize);
            }
        }
        lengths.extend([16_447, 16_448, 16_449]);
        for _ in 0..3 {
            lengths.push(r.random_range(0..6 << 20));
        }
        for len in lengths {
            let message = random_bytes(&mut r, len);
            let expected = one_shot(variant, &message);
            if len <= 200_000 {
                assert_eq!(expected, literal(variant, &message), "{variant} {len}");
            }
            for parts in [1, 2, r.random_range(3..=64)] {
                let plan = Plan::new(variant, len as u64, parts);
                assert_eq!(
                    split_merge(&plan, &message, &mut r),
                    expected,
                    "{variant}, {len} bytes, {parts} parts"
                );
            }
        }
    }
}

/// Parts hashed on separate threads at once (each using the thread pool as well), in a random
/// order, combine to the one-shot digest.
#[test]
fn parts_on_separate_threads() {
    let mut r = rng(0x5a4d_0003);
    for variant in [Variant::Sandstorm256Ref, Variant::Sandstorm512] {
        let len = 20 * superblock_bytes(variant) + r.random_range(0..100_000);
        let message = random_bytes(&mut r, len);
        let plan = Plan::new(variant, len as u64, 13);
        let mut order: Vec<usize> = (0..plan.parts()).collect();
        order.shuffle(&mut r);
        let sent: Vec<Vec<u8>> = std::thread::scope(|s| {
            let handles: Vec<_> = order
                .iter()
                .map(|&i| {
                    let (plan, message) = (&plan, &message);
                    s.spawn(move || hash_part(plan, message, i).to_bytes())
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let states: Vec<PartState> = sent
            .iter()
            .map(|b| PartState::from_bytes(b).unwrap())
            .collect();
        assert_eq!(plan.combine(&states).unwrap(), one_shot(variant, &message));
        // One thread per part, or the plan's own thread count: the same states.
        for (i, state) in order.iter().zip(&states) {
            let one = plan.clone().with_threads(1);
            assert_eq!(&hash_part(&one, &message, *i), state);
        }
    }
}

/// `hash_part_from` reads the head and then its range in order, nothing else, and yields the
/// state `hash_part` does (one part longer than the read chunk, so the reads are cut).
#[test]
fn hash_part_from_reads_only_its_range() {
    let mut r = rng(0x5a4d_0004);
    let cases = [
        (Variant::Sandstorm256, 9 << 20, 1),
        (Variant::Sandstorm224Ref, 3 << 20, 5),
        (Variant::Sandstorm384, 1 << 20, 4),
        (Variant::Sandstorm256, 1000, 3),
        (Variant::Sandstorm512, 0, 1),
    ];
    for (variant, len, parts) in cases {
        let len = len + r.random_range(0..1000);
        let message = random_bytes(&mut r, len);
        let plan = Plan::new(variant, len as u64, parts);
        let mut states = Vec::new();
        for i in 0..plan.parts() {
            let mut reads = Vec::new();
            let state = plan
                .hash_part_from(i, |offset, buf| {
                    reads.push(offset..offset + buf.len() as u64);
                    buf.copy_from_slice(slice(&message, offset..offset + buf.len() as u64));
                    Ok(())
                })
                .unwrap();
            assert_eq!(state, hash_part(&plan, &message, i), "{variant} part {i}");
            // The head first (parts after 0), then the range in order, without gaps.
            let range = plan.range(i);
            let mut rest = reads.as_slice();
            if i > 0 {
                assert_eq!(rest[0], plan.head());
                rest = &rest[1..];
            }
            let mut at = range.start;
            for read in rest {
                assert_eq!(read.start, at, "{variant} part {i}: {reads:?}");
                assert!(read.end <= range.end && read.end > read.start);
                assert!(read.end - read.start <= parhash::sandstorm::parts::READ_CHUNK as u64);
                at = read.end;
            }
            assert_eq!(at, range.end);
            states.push(state);
        }
        assert_eq!(plan.combine(&states).unwrap(), one_shot(variant, &message));
    }
    // A read error is returned as is.
    let plan = Plan::new(Variant::Sandstorm256, 1 << 20, 2);
    let err = plan
        .hash_part_from(1, |_, _| Err(std::io::Error::other("disk on fire")))
        .unwrap_err();
    assert_eq!(err.to_string(), "disk on fire");
}

/// A state whose payload is replaced by `payload`, with an intact envelope (checksum redone).
fn forged(state: &PartState, payload: &[u8]) -> PartState {
    let bytes = state.to_bytes();
    const HEADER: usize = 34;
    let mut out = bytes[..HEADER].to_vec();
    out[30..34].copy_from_slice(&(payload.len() as u32).to_le_bytes());
    out.extend_from_slice(payload);
    let sum = sha2::Sha256::digest(&out);
    out.extend_from_slice(&sum[..8]);
    PartState::from_bytes(&out).unwrap()
}

#[test]
fn combine_refuses_bad_input() {
    let mut r = rng(0x5a4d_0005);
    let variant = Variant::Sandstorm256;
    let len = 5 * superblock_bytes(variant) + 777;
    let message = random_bytes(&mut r, len);
    let plan = Plan::new(variant, len as u64, 4);
    let states: Vec<PartState> = (0..4).map(|i| hash_part(&plan, &message, i)).collect();
    assert_eq!(plan.combine(&states).unwrap(), one_shot(variant, &message));

    // Missing and duplicated parts.
    assert_eq!(plan.combine(&states[..3]), Err(PartError::Missing(vec![3])));
    assert_eq!(
        plan.combine([&states[0], &states[2]]),
        Err(PartError::Missing(vec![1, 3]))
    );
    assert_eq!(
        plan.combine([&states[0], &states[1], &states[1], &states[2], &states[3]]),
        Err(PartError::Duplicate(1))
    );

    // Parts of other plans: another length, size, boundary rule or part count.
    let others = [
        Plan::new(variant, len as u64 + 1, 4),
        Plan::new(Variant::Sandstorm224, len as u64, 4),
        Plan::new(Variant::Sandstorm256Ref, len as u64, 4),
        Plan::new(variant, len as u64, 3),
    ];
    for other in &others {
        assert_ne!(other.key(), plan.key());
        let mut message = message.clone();
        message.resize(other.message_len() as usize, 7);
        let foreign = hash_part(other, &message, 2);
        let mixed = [&states[0], &states[1], &foreign, &states[3]];
        let err = plan.combine(mixed).unwrap_err();
        assert!(matches!(err, PartError::Foreign { .. }), "{err}");
        // And the other way round.
        let err = other.combine(&states).unwrap_err();
        assert!(matches!(err, PartError::Foreign { .. }), "{err}");
    }
    // Asking for more parts than there are superblocks gives the same plan.
    assert_eq!(Plan::new(variant, len as u64, 6).key().parts, 6);
    assert_eq!(
        Plan::new(variant, len as u64, 60).key(),
        Plan::new(variant, len as u64, 6).key()
    );

    // Damaged bytes: every flipped bit is refused before combining.
    let bytes = states[2].to_bytes();
    for i in (0..bytes.len()).step_by(7) {
        let mut bad = bytes.clone();
        bad[i] ^= 1 << (i % 8);
        let err = PartState::from_bytes(&bad).unwrap_err();
        assert!(
            matches!(
                err,
                PartError::Corrupt(_) | PartError::UnsupportedVersion(_)
            ),
            "{err}"
        );
    }
    assert!(PartState::from_bytes(&bytes[..bytes.len() - 1]).is_err());

    // Intact envelopes around payloads of the wrong size: part 0 (the level-3 chain), a middle
    // part and the last (level-2 outputs).
    for i in [0, 1, 3] {
        let payload = states[i].to_bytes();
        let payload = &payload[34..payload.len() - 8];
        for bad in [
            &payload[..payload.len() - 1],
            &payload[..payload.len() - 64],
            &[][..],
            &[payload, &[0u8; 64][..]].concat()[..],
        ] {
            let mut set = states.clone();
            set[i] = forged(&states[i], bad);
            let err = plan.combine(&set).unwrap_err();
            assert!(
                matches!(err, PartError::BadPayload { index, .. } if index == i as u32),
                "part {i}: {err}"
            );
            assert!(err.to_string().contains("malformed payload"), "{err}");
        }
    }
    // A one-part plan's payload (the top message) too.
    let short = Plan::new(variant, 100, 1);
    let state = hash_part(&short, &message[..100], 0);
    let err = short.combine([&forged(&state, &[1, 2, 3])]).unwrap_err();
    assert!(
        matches!(err, PartError::BadPayload { index: 0, .. }),
        "{err}"
    );
}
