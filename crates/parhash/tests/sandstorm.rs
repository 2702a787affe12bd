//! SANDstorm: the generated ShortMsgKAT files, the spec's outside and tree vectors, and the fast
//! tree (every engine, thread count and streaming split) against the literal reference across
//! every level boundary, for the design tree and the reference code's 8-bit-counter variant.
mod common;

use common::*;
use digest::Digest;
use parhash::lab::algo::sandstorm::lanes::Wide;
use parhash::lab::algo::sandstorm::reference::{self, Boundaries};
use parhash::lab::algo::sandstorm::tree::{hash_slice, Tree, TreeOptions};
use parhash::lab::algo::sandstorm::word::Word;
use parhash::lab::algo::sandstorm::{P224Ref, P256Ref, Params, P224, P256, P384, P512};
use parhash::{hash, Algorithm, Hasher, Sandstorm256, Sandstorm512};
use rand::{rngs::StdRng, Rng};

const KATS: [(Algorithm, &str); 4] = [
    (
        Algorithm::Sandstorm224,
        include_str!("vectors/sandstorm224/ShortMsgKAT_224.generated.txt"),
    ),
    (
        Algorithm::Sandstorm256,
        include_str!("vectors/sandstorm256/ShortMsgKAT_256.generated.txt"),
    ),
    (
        Algorithm::Sandstorm384,
        include_str!("vectors/sandstorm384/ShortMsgKAT_384.generated.txt"),
    ),
    (
        Algorithm::Sandstorm512,
        include_str!("vectors/sandstorm512/ShortMsgKAT_512.generated.txt"),
    ),
];

#[test]
fn short_msg_kat_every_variant() {
    for (alg, text) in KATS {
        let kats = byte_aligned(parse_kats(text));
        assert_eq!(kats.len(), 256, "{alg}");
        let mut algs = vec![alg];
        match alg {
            Algorithm::Sandstorm224 => algs.push(Algorithm::Sandstorm224Ref),
            Algorithm::Sandstorm256 => algs.push(Algorithm::Sandstorm256Ref),
            _ => {}
        }
        for a in algs {
            check_records_dynamic(a, &kats, "ShortMsgKAT");
        }
    }
}

#[test]
fn outside_and_tree_vectors() {
    let fox = b"The quick brown fox jumps over the lazy dog";
    let expect = [
        (Algorithm::Sandstorm224, "e2ae7dbf4649c65e0ae19de85b3b4d2565862645146282ec57a64ef4"),
        (Algorithm::Sandstorm256, "607ac39b7cd6c1912e7934cdbbfceeea1fe5e8155a9726b36c96895c93e6056d"),
        (Algorithm::Sandstorm384, "e0fb1925617466e876152d6c632b4751829ee61036d1bccbe0d481ea5b0eab7f0a020c7cb9423cd7382a18b738609e5d"),
        (Algorithm::Sandstorm512, "c50794660a3672279018ec7ab26559bdea6565e191ba892ef4cc579c96fb33804255ad18a4b2f6604b34d5e2a4ca5d4dd1fc6fee882727ac54f6273706ea9ff6"),
    ];
    for (alg, md) in expect {
        assert_eq!(hash(alg, fox).to_hex(), md, "{alg}");
    }
    let counting = |n: usize| -> Vec<u8> { (0..n).map(|i| i as u8).collect() };
    let trees = [
        (Algorithm::Sandstorm256, 640, "97dd94cfb7de3af13c166f18b9eaa2b824d11f1f6e2194ef5483ddebfb0269a2"),
        (Algorithm::Sandstorm256, 704, "4239f7dae54bc37852fb054c0bde6d43a74d913ab05a6cb439d31bb11af6565e"),
        (Algorithm::Sandstorm256, 6464, "d174375e59f17e58c93c29d2932455e6676869b860891b8f4b061f4e27034c16"),
        (Algorithm::Sandstorm512, 1280, "354f0c1e64f19d2952d6c45e8a924b0110ed4b2a09b1047e7eed8faa3a531964807e1823c8a81a392388e1e729d7aad8d792083e2e99aa44321ebb2f306a7c0b"),
        (Algorithm::Sandstorm512, 1408, "789e241b73d4401476ae3d6997d15132d44907d39f5413df177804ccea9cb55041807c916500515e42eacdf17c2d90a31e7bfb9eddaa2de1e02ae3431428e260"),
    ];
    for (alg, n, md) in trees {
        let variants: Vec<_> = alg.available_variants().collect();
        assert!(!variants.is_empty(), "{alg}: no variant available");
        for v in variants {
            common::ran_variant(alg, v.name());
            let mut h = Hasher::with_variant(v);
            h.update(&counting(n));
            assert_eq!(h.finalize().to_hex(), md, "{alg}/{v} n={n}");
        }
    }
    assert_eq!(
        hash(Algorithm::Sandstorm256Ref, &counting(6464)).to_hex(),
        "d174375e59f17e58c93c29d2932455e6676869b860891b8f4b061f4e27034c16"
    );
}

/// Padded block counts on and next to every level boundary: level 0 alone (1), one level-1
/// superblock (2, 10, 11), level 2 used (12), a second level-2 input (20, 21, 100-102), one or
/// two level-2 superblocks (1000-1002), level 3 and its neighbours (10000-10002).
const BOUNDARY_BLOCKS: [usize; 16] = [
    1, 2, 10, 11, 12, 20, 21, 100, 101, 102, 1000, 1001, 1002, 10000, 10001, 10002,
];

/// Where the reference code's 8-bit counter first moves a boundary (section 7: from 258 padded
/// blocks on), plus a level-2 superblock of its shorter kind (the third, from 2525 blocks).
const QUIRK_BLOCKS: [usize; 5] = [256, 257, 258, 259, 2526];

/// Message lengths (bytes) that pad to `blocks` blocks: the shortest (the padding fills a whole
/// block), one inside, and the longest (one byte of padding).
fn lengths_padding_to(blocks: usize, block_bytes: usize, r: &mut StdRng) -> [usize; 3] {
    let shortest = (blocks - 1) * block_bytes;
    [
        shortest,
        shortest + r.random_range(1..block_bytes - 1),
        shortest + block_bytes - 1,
    ]
}

/// The eight-lane forms this CPU has and `PARHASH_DISABLE_ISA` allows, each recorded as run
/// (the others printed as skipped).
fn wide_forms() -> Vec<Wide> {
    let named = [
        ("AVX-512", Wide::avx512()),
        ("AVX2", Wide::avx2()),
        ("AVX2 gather", Wide::avx2_gather()),
    ];
    let mut forms = Vec::new();
    for (name, wide) in named {
        if let Some(form) = wide {
            common::ran("sandstorm-lanes", form.name());
            forms.push(form);
        } else {
            eprintln!("skipped the {name} form: not available here");
        }
    }
    forms
}

/// Every engine: serial, interleaved, and 1..=4 threads with the portable kernel and each
/// eight-lane form this CPU has and `PARHASH_DISABLE_ISA` allows (AVX-512; AVX2 with GFNI's
/// S-box where present; AVX2 with the table-gather S-box, forced), and the portable chains
/// compiled with BMI2 (128-bit words).
fn engines() -> Vec<TreeOptions> {
    let mut e = vec![TreeOptions::SEQUENTIAL, TreeOptions::INTERLEAVED];
    e.extend((1..=4).map(TreeOptions::portable));
    for wide in wide_forms() {
        e.extend((1..=4).filter_map(|t| TreeOptions::portable(t).with_wide(Some(wide))));
    }
    // SANDstorm-384/512's chains compiled with BMI2 (`mulx`); 64-bit words ignore it.
    match parhash::lab::platform::Bmi2::detect() {
        Some(bmi2) => {
            common::ran("sandstorm-chains", "bmi2");
            e.extend((1..=4).map(|t| TreeOptions {
                bmi2: Some(bmi2),
                ..TreeOptions::portable(t)
            }))
        }
        None => eprintln!("skipped the BMI2 engine: not available here"),
    }
    common::ran("sandstorm-chains", "portable");
    e
}

/// The truncated digest of result words.
fn digest_bytes<P: Params>(words: [P::W; 4]) -> Vec<u8> {
    let word_bytes = <P::W as Word>::BYTES;
    let mut out = vec![0u8; 4 * word_bytes];
    for (j, w) in words.into_iter().enumerate() {
        w.write_be_bytes(&mut out[j * word_bytes..]);
    }
    out.truncate(P::OUT);
    out
}

/// The tree of `engine` fed `data` in random pieces (carrying partial blocks, as the `digest`
/// buffer does).
fn streamed<P: Params>(engine: TreeOptions, data: &[u8], r: &mut StdRng) -> Vec<u8> {
    let bb = 8 * <P::W as Word>::BYTES;
    let mut tree = Tree::new(P::K, P::BOUNDARIES, engine);
    let mut pending = Vec::new();
    for piece in random_splits(r, data.len()) {
        pending.extend_from_slice(&data[piece]);
        let whole = pending.len() / bb * bb;
        tree.update_blocks(&pending[..whole]);
        pending.drain(..whole);
    }
    digest_bytes::<P>(tree.finalize(&pending, data.len() as u128 * 8))
}

/// The fast tree against the literal reference at every boundary block count, three byte
/// lengths each: the fast serial form; every engine (each kernel, each thread count 1..=4) both
/// whole and streamed at random split points; and the public API (`Hasher::with_threads`, the
/// path of `parhash sum -j N`) streamed on 1..=4 threads. The whole set runs in debug builds
/// too (a few seconds: the dev profile optimises a little), so CI reaches level 3 for every size.
fn fast_tree_matches_literal<P: Params>(alg: Algorithm, seed: u64) {
    let bb = 8 * <P::W as Word>::BYTES;
    let mut r = rng(seed);
    let engines = engines();
    let mut counts = BOUNDARY_BLOCKS.to_vec();
    if P::BOUNDARIES == Boundaries::ReferenceCode8Bit {
        counts.extend(QUIRK_BLOCKS);
    }
    for blocks in counts {
        for n in lengths_padding_to(blocks, bb, &mut r) {
            let data = random_bytes(&mut r, n);
            let mut expected = reference::hash(&P::K, &data, P::BOUNDARIES);
            expected.truncate(P::OUT);
            let at = |form: &str| format!("{} {blocks} blocks, n={n}: {form}", P::NAME);
            let serial = hash_slice(P::K, P::BOUNDARIES, TreeOptions::SEQUENTIAL, &data);
            assert_eq!(digest_bytes::<P>(serial), expected, "{}", at("sequential"));
            for threads in 1..=4 {
                let mut h = Hasher::with_threads(alg, threads);
                for piece in random_splits(&mut r, n) {
                    h.update(&data[piece]);
                }
                let form = format!("Hasher::with_threads({threads}) streamed");
                assert_eq!(h.finalize().as_bytes(), &expected[..], "{}", at(&form));
            }
            for &engine in &engines {
                let words = hash_slice(P::K, P::BOUNDARIES, engine, &data);
                assert_eq!(
                    digest_bytes::<P>(words),
                    expected,
                    "{}",
                    at(&format!("{engine:?}"))
                );
            }
            for &engine in &engines {
                let got = streamed::<P>(engine, &data, &mut r);
                assert_eq!(got, expected, "{}", at(&format!("streamed {engine:?}")));
            }
        }
    }
}

// One test per size and variant, so that they run side by side.
tests_of! { fast_tree_matches_literal;
    tree_matches_literal_224: P224, Algorithm::Sandstorm224, 0x5a_224;
    tree_matches_literal_256: P256, Algorithm::Sandstorm256, 0x5a_256;
    tree_matches_literal_384: P384, Algorithm::Sandstorm384, 0x5a_384;
    tree_matches_literal_512: P512, Algorithm::Sandstorm512, 0x5a_512;
    tree_matches_literal_224_ref: P224Ref, Algorithm::Sandstorm224Ref, 0x5a_0224;
    tree_matches_literal_256_ref: P256Ref, Algorithm::Sandstorm256Ref, 0x5a_0256;
}

#[test]
fn reference_code_quirk_starts_at_258_blocks() {
    // The spec: results differ from 258 padded blocks (16,448 bytes) on; 16,447 bytes agree.
    let data = pattern(20000);
    for (n, same) in [(16447, true), (16448, false), (20000, false)] {
        let design = hash(Algorithm::Sandstorm256, &data[..n]);
        let quirk = hash(Algorithm::Sandstorm256Ref, &data[..n]);
        assert_eq!(design == quirk, same, "n={n}");
    }
}

#[test]
fn digest_trait_streaming_and_threads_agree() {
    let mut r = rng(0x5a_d1);
    for len in [0usize, 1, 63, 64, 65, 700, 64_000, 64 * 1001, 64 * 2000 + 5] {
        let data = random_bytes(&mut r, len);
        let one_shot = Sandstorm256::digest(&data);
        for threads in 1..=4 {
            let mut h = Sandstorm256::with_threads(threads);
            for piece in random_splits(&mut r, len) {
                Digest::update(&mut h, &data[piece]);
            }
            assert_eq!(h.finalize(), one_shot, "len {len} threads {threads}");
        }
        let d512 = Sandstorm512::digest(&data);
        let mut h = Sandstorm512::with_threads(3);
        Digest::update(&mut h, &data);
        assert_eq!(h.finalize_reset(), d512);
        // After reset the hasher starts over.
        Digest::update(&mut h, &data);
        assert_eq!(h.finalize(), d512);
    }
}

/// The eight-lane forms group level-2 chains eight at a time, a job holds up to sixteen level-2
/// superblocks, and under the design's boundaries whole groups of eight run in lockstep (one
/// level-2 superblock per lane): messages with 8 and 17 whole level-2 superblocks (8,001 and
/// 17,005 blocks) reach all three, checked against the literal reference for each form on
/// 1..=3 threads, streamed, and split inside a level-2 superblock, for the design and the
/// reference code's
/// counter (whose level-2 superblocks differ in length, so its groups mix lengths).
fn wide_level2_groups_match_literal<P: Params>(seed: u64) {
    let forms = wide_forms();
    if forms.is_empty() {
        // AVX2 alone gives the gather form: with AVX2 here (and not switched off), none is a bug.
        assert!(
            parhash::lab::platform::Avx2::detect().is_none(),
            "AVX2 is here but SANDstorm has no eight-lane form"
        );
        common::skipped(
            &format!("wide_level2_groups_match_literal ({})", P::NAME),
            "no eight-lane form: no AVX2 here (or PARHASH_DISABLE_ISA)",
        );
        return;
    }
    let mut r = rng(seed);
    let block = 8 * <P::W as Word>::BYTES;
    for n in [block * 8001 + 17, block * 17_005 - 1] {
        let data = random_bytes(&mut r, n);
        let mut expected = reference::hash(&P::K, &data, P::BOUNDARIES);
        expected.truncate(P::OUT);
        for &wide in &forms {
            for threads in 1..=3 {
                let engine = TreeOptions::portable(threads)
                    .with_wide(Some(wide))
                    .unwrap();
                let words = hash_slice(P::K, P::BOUNDARIES, engine, &data);
                let at = format!("{} n={n} {} threads={threads}", P::NAME, wide.name());
                assert_eq!(digest_bytes::<P>(words), expected, "{at}");
            }
            let engine = TreeOptions::portable(2).with_wide(Some(wide)).unwrap();
            let got = streamed::<P>(engine, &data, &mut r);
            assert_eq!(got, expected, "{} n={n} {} streamed", P::NAME, wide.name());
            // Whole groups of eight that start inside an update (after the rest of an open
            // level-2 superblock), on one and two threads.
            for threads in 1..=2 {
                let engine = TreeOptions::portable(threads)
                    .with_wide(Some(wide))
                    .unwrap();
                let mut tree = Tree::new(P::K, P::BOUNDARIES, engine);
                let (head, rest) = data.split_at(503 * block);
                let whole = rest.len() / block * block;
                tree.update_blocks(head);
                tree.update_blocks(&rest[..whole]);
                let got = digest_bytes::<P>(tree.finalize(&rest[whole..], n as u128 * 8));
                let at = format!("{} n={n} {} threads={threads} split", P::NAME, wide.name());
                assert_eq!(got, expected, "{at}");
            }
        }
    }
}

tests_of! { wide_level2_groups_match_literal;
    wide_level2_groups_match_literal_256: P256, 0x5a_81a;
    wide_level2_groups_match_literal_256_ref: P256Ref, 0x5a_081a;
    wide_level2_groups_match_literal_384: P384, 0x5a_0384;
    wide_level2_groups_match_literal_512: P512, 0x5a_0512;
}

/// The BMI2 build of the compression agrees with the baseline build, for both word sizes.
#[cfg(target_arch = "x86_64")]
#[test]
fn bmi2_compression_matches_the_baseline() {
    use parhash::lab::algo::sandstorm::fast::{compress_lanes, compress_lanes_bmi2};
    let Some(bmi2) = parhash::lab::platform::Bmi2::detect() else {
        common::skipped(
            "bmi2_compression_matches_the_baseline",
            "no BMI2 here (or PARHASH_DISABLE_ISA)",
        );
        return;
    };
    common::ran("sandstorm-chains", "bmi2");
    fn check<P: Params>(bmi2: parhash::lab::platform::Bmi2, r: &mut StdRng) {
        let bytes: Vec<u8> = (0..4 * 8 * <P::W as Word>::BYTES)
            .map(|_| r.random())
            .collect();
        let m: [[P::W; 8]; 4] = core::array::from_fn(|l| {
            parhash::lab::algo::sandstorm::fast::load_block(&bytes[l * 8 * <P::W as Word>::BYTES..])
        });
        let (mut a, mut b) = ([P::K; 4], [P::K; 4]);
        for _ in 0..3 {
            compress_lanes::<P::W, 4>(&m, &mut a);
            compress_lanes_bmi2::<P::W, 4>(bmi2, &m, &mut b);
        }
        assert!(a == b, "{}", P::NAME);
    }
    let mut r = rng(0x5eed_0021);
    check::<P256>(bmi2, &mut r);
    check::<P512>(bmi2, &mut r);
}
