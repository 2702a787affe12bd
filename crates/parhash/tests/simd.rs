//! SIMD-224/256/384/512 (v1.1) against the sphlib ShortMsgKAT files, the designers' "abc" traces
//! and the vectors of `shared/specs/simd.md` section 8; every variant forced on each; the
//! `sequential` (literal) form against every `parallel` form on random lengths and splits.
mod common;

use common::*;
use digest::Digest;
use parhash::lab::algo::simd::{self, sequential, State};
use parhash::lab::algo::Variants;
use parhash::{Algorithm, Hasher, Simd224, Simd256, Simd384, Simd512};

const ALGS: [Algorithm; 4] = [
    Algorithm::Simd224,
    Algorithm::Simd256,
    Algorithm::Simd384,
    Algorithm::Simd512,
];

/// Every variant this machine can run, for one algorithm.
fn available_variants(alg: Algorithm) -> Vec<parhash::Variant> {
    for v in alg.variants().iter().filter(|v| !v.available) {
        eprintln!("skipped {alg}/{}: not available on this CPU", v.name);
    }
    let available: Vec<_> = alg.available_variants().collect();
    // A portable variant always runs: none at all would test nothing.
    assert!(!available.is_empty(), "{alg}: no variant available");
    available
}

/// The scalar variant every SIMD size has, the others' reference.
fn sequential(alg: Algorithm) -> parhash::Variant {
    alg.variant("sequential").expect("always available")
}

fn hash_with(variant: parhash::Variant, data: &[u8]) -> Vec<u8> {
    common::ran_variant(variant.algorithm(), variant.name());
    let mut h = Hasher::with_variant(variant);
    h.update(data);
    h.finalize().as_bytes().to_vec()
}

fn check_kat_file(alg: Algorithm, text: &str) {
    let kats = byte_aligned(parse_kats(text));
    assert_eq!(kats.len(), 256);
    for variant in available_variants(alg) {
        for k in &kats {
            assert_eq!(
                hex(&hash_with(variant, &k.msg)),
                hex(&k.md),
                "{alg}/{variant} Len = {} (line {})",
                k.bits,
                k.line
            );
        }
    }
}

#[test]
fn short_msg_kat_256_every_variant() {
    check_kat_file(
        Algorithm::Simd256,
        include_str!("vectors/simd256/ShortMsgKAT_256.sphlib.txt"),
    );
}

#[test]
fn short_msg_kat_512_every_variant() {
    check_kat_file(
        Algorithm::Simd512,
        include_str!("vectors/simd512/ShortMsgKAT_512.sphlib.txt"),
    );
}

/// Section 5 for bit-level messages, built from the literal compression function: the partial
/// byte keeps its bits at the top, zero padding, then the length block with the exact bit count.
fn sequential_bit_digest<const L: usize>(iv: State<L>, msg: &[u8], bits: usize) -> Vec<u8> {
    let block = 16 * L;
    let mut data = msg[..bits.div_ceil(8)].to_vec();
    if bits % 8 != 0 {
        let last = data.len() - 1;
        data[last] &= 0xffu8 << (8 - bits % 8);
    }
    data.resize(data.len().div_ceil(block) * block, 0);
    let mut state = iv;
    sequential::compress_blocks(&mut state, &data, false);
    let mut length_block = vec![0u8; block];
    length_block[..8].copy_from_slice(&(bits as u64).to_le_bytes());
    sequential::compress(&mut state, &length_block, true);
    state[0]
        .iter()
        .chain(state[1].iter())
        .flat_map(|w| w.to_le_bytes())
        .collect()
}

#[test]
fn short_msg_kat_bit_lengths_through_sequential() {
    // The byte-oriented API cannot express these; the literal form can (every 7th length keeps
    // the debug suite fast while still covering every residue mod 8).
    let files = [
        include_str!("vectors/simd256/ShortMsgKAT_256.sphlib.txt"),
        include_str!("vectors/simd512/ShortMsgKAT_512.sphlib.txt"),
    ];
    let step = cases(7, 1);
    for k in parse_kats(files[0]).iter().step_by(step) {
        let got = sequential_bit_digest(simd::IV_256, &k.msg, k.bits);
        assert_eq!(hex(&got), hex(&k.md), "SIMD-256 Len = {}", k.bits);
    }
    for k in parse_kats(files[1]).iter().step_by(step) {
        let got = sequential_bit_digest(simd::IV_512, &k.msg, k.bits);
        assert_eq!(hex(&got), hex(&k.md), "SIMD-512 Len = {}", k.bits);
    }
}

/// The spec's section 8 (and the designers' reference code for SIMD-224/384).
#[test]
fn specification_vectors_every_variant() {
    let fox = b"The quick brown fox jumps over the lazy dog".as_slice();
    let cases: [(Algorithm, &[u8], &str); 12] = [
        (Algorithm::Simd256, b"", "8029E81E7320E13ED9001DC3D8021FEC695B7A25CD43AD805260181C35FCAEA8"),
        (Algorithm::Simd256, &[0xcc], "4ACB11B332C3CB462B60EBBB0DEC32EF7A2A3470AF49EC5C10AA52A484A640D4"),
        (Algorithm::Simd256, b"abc", "071BDA9FA6887F45D9A5993E01AD6DC89A20414C84020AE0C1EF5C1A56589D08"),
        (Algorithm::Simd256, fox, "C9DEB40282EE7B66A6FC1C8E240CE73AAC4252C30B48D247E8D8693AD8AE2E34"),
        (Algorithm::Simd512, b"", "51A5AF7E243CD9A5989F7792C880C4C3168C3D60C4518725FE5757D1F7A69C6366977EABA7905CE2DA5D7CFD07773725F0935B55F3EFB954996689A49B6D29E0"),
        (Algorithm::Simd512, &[0xcc], "6FD2D5E6104BD3966283321234CD40F4ED380CB53A03911B610746466C10A93E41C9B745C79DFDE3275980FE82FC8372EFC406A9B0BDC8C63A375954E63436E2"),
        (Algorithm::Simd512, b"abc", "16E676965036D1760B810F86BC6C488DBC522B03A276CA7DE62CFB651EBA048FCBE273AF51B21D0416709CD5E3434801CA782087DEFF150DFF3AF0C23E718B32"),
        (Algorithm::Simd512, fox, "CA493CE78CC2A63B5A48393E61D113D59A930B3E76D062AB58177345C48B59890A08661D04DD6160A1B42D215F1E303D97AB0ABB54E65F758F79AEE2B182B34B"),
        (Algorithm::Simd224, b"", "43E1D53656D7B85D10D5499E28AFDEF90BB497730D2853C8609B534B"),
        (Algorithm::Simd224, b"abc", "9E063E336EB9CF685C03D5B17A4A9E4912BB54411B74BFCA86E41BD8"),
        (Algorithm::Simd384, b"", "5FDD62778FC213221890AD3BAC742A4AF107CE2692D6112E795B54B25DCD5E0F4BF3EF1B770AB34B38F074A5E0ECFCB5"),
        (Algorithm::Simd384, b"abc", "D6DDCED90788BFE7AA32739266796B353A678B29D2B12661EA007C4AC10783C8B353D4856339B0FA985AAC7F495B7C6A"),
    ];
    check_vectors_every_variant(&cases);
}

/// Each `(algorithm, message, expected hex digest)` through every available variant.
fn check_vectors_every_variant(cases: &[(Algorithm, &[u8], &str)]) {
    for &(alg, msg, expected) in cases {
        for variant in available_variants(alg) {
            assert_eq!(
                hex(&hash_with(variant, msg)),
                expected.to_ascii_lowercase(),
                "{alg}/{variant} of {} bytes",
                msg.len()
            );
        }
    }
}

/// Long messages: the length block's high bits matter here (spec section 9, pitfall 4: sphlib
/// gets these wrong, the designers' reference and the spec give these values).
#[test]
fn long_message_vectors_every_variant() {
    let million_a = vec![b'a'; 1_000_000];
    let pattern: Vec<u8> = (0..1_048_576u32).map(|i| (7 * i + 3) as u8).collect();
    let cases: [(Algorithm, &[u8], &str); 3] = [
        (Algorithm::Simd256, &million_a, "3D367DC2382E39C57384001830DF7F9671EF3206BF1CBF2F82191D24CFBA947D"),
        (Algorithm::Simd256, &pattern, "18827981CEA021AE66CE670CE42C5517FD6D3158BC1D74010D81A9F49623ACE4"),
        (Algorithm::Simd512, &million_a, "8A8C0A415DBB6B9596F72F24E500CD0DC9F77BA80A327571AFB13D9669D38EAA01F7EB3360A106F9BC6E6F7F24E548C564D8673AD8C2D96D99974D0360B699CA"),
    ];
    check_vectors_every_variant(&cases);
}

#[test]
fn truncated_sizes_follow_the_iv_and_truncation_rules() {
    // SIMD-224/384 have no KAT file: their IVs must come from section 2's rule, and their
    // digests must be the first bytes of the A‖B output of the same-width state from that IV.
    assert_eq!(simd::derive_iv::<4>(224), simd::IV_224);
    assert_eq!(simd::derive_iv::<8>(384), simd::IV_384);
    let mut r = rng(0x51d_0224);
    for len in [0usize, 1, 63, 64, 65, 127, 128, 129, 1000] {
        let data = random_bytes(&mut r, len);
        let full224 = sequential_bit_digest(simd::IV_224, &data, 8 * len);
        let full384 = sequential_bit_digest(simd::IV_384, &data, 8 * len);
        assert_eq!(
            Simd224::digest(&data).as_slice(),
            &full224[..28],
            "len {len}"
        );
        assert_eq!(
            Simd384::digest(&data).as_slice(),
            &full384[..48],
            "len {len}"
        );
        // and the full-size variants are the same construction with their own IV
        let full256 = sequential_bit_digest(simd::IV_256, &data, 8 * len);
        let full512 = sequential_bit_digest(simd::IV_512, &data, 8 * len);
        assert_eq!(Simd256::digest(&data).as_slice(), &full256[..], "len {len}");
        assert_eq!(Simd512::digest(&data).as_slice(), &full512[..], "len {len}");
    }
}

/// One block section of an intermediate-values file.
#[derive(Default, Debug)]
struct TraceBlock {
    message: Vec<u8>,
    ntt: Vec<u32>,
    z: Vec<Vec<u32>>,
    w: Vec<Vec<u32>>,
    /// (label, state as lanes of [A, B, C, D])
    states: Vec<(String, Vec<[u32; 4]>)>,
}

fn parse_trace(text: &str) -> (Vec<TraceBlock>, Vec<u8>) {
    let mut blocks: Vec<TraceBlock> = Vec::new();
    let mut digest = Vec::new();
    // 'z' or 'w' while continuation lines of those vectors may follow
    let mut vector_target = ' ';
    for raw in text.lines() {
        let line = raw.trim();
        if line.starts_with("\\subsubsection") {
            blocks.push(TraceBlock::default());
            continue;
        }
        if let Some(rest) = line.strip_prefix("DIGEST ") {
            digest = unhex(rest.split('=').nth(1).expect("digest value"));
            continue;
        }
        let Some(block) = blocks.last_mut() else {
            continue;
        };
        let words = |s: &str| -> Vec<u32> {
            s.split_whitespace()
                .map(|w| u32::from_str_radix(w, 16).expect("hex word"))
                .collect()
        };
        if let Some((key, value)) = line.split_once(" = ") {
            let key = key.trim();
            if key.starts_with("M[") {
                block.message.extend(unhex(&value.replace(' ', "")));
            } else if key.starts_with("y[") {
                block
                    .ntt
                    .extend(value.split_whitespace().map(|v| v.parse::<u32>().unwrap()));
            } else if key.starts_with("Z[") {
                block.z.push(words(value));
                vector_target = 'z';
            } else if key.starts_with("W[") {
                block.w.push(words(value));
                vector_target = 'w';
            }
            continue;
        }
        if !line.is_empty()
            && raw.starts_with(' ')
            && line.split_whitespace().all(|w| w.len() == 8)
            && vector_target != ' '
        {
            let target = if vector_target == 'z' {
                block.z.last_mut()
            } else {
                block.w.last_mut()
            };
            target.expect("continuation line").extend(words(line));
            continue;
        }
        vector_target = ' ';
        if line.starts_with("IV") || line.starts_with("Step") || line.starts_with("Feed-Forward") {
            let label = line.split(':').next().unwrap().trim().to_string();
            block.states.push((label, Vec::new()));
        } else if line.starts_with("\\paragraph{Compression Function Output}") {
            block.states.push(("output".to_string(), Vec::new()));
        } else if line.starts_with("A[") {
            let mut lane = [0u32; 4];
            for (i, field) in line.split_whitespace().enumerate() {
                let value = field.split('=').nth(1).expect("A[j]=value");
                lane[i] = u32::from_str_radix(value, 16).expect("hex");
            }
            block.states.last_mut().expect("state header").1.push(lane);
        }
    }
    (blocks, digest)
}

fn lanes_of<const L: usize>(state: &State<L>) -> Vec<[u32; 4]> {
    (0..L)
        .map(|j| [state[0][j], state[1][j], state[2][j], state[3][j]])
        .collect()
}

fn check_trace<const L: usize>(text: &str, iv: State<L>, digest_of_abc: &[u8]) {
    let (blocks, digest) = parse_trace(text);
    assert_eq!(blocks.len(), 2, "first block and final block");
    assert_eq!(digest, digest_of_abc);
    let mut state = iv;
    for (index, block) in blocks.iter().enumerate() {
        let final_block = index == 1;
        let n_size = 32 * L;
        assert_eq!(block.message.len(), 16 * L);
        assert_eq!(block.ntt.len(), n_size);
        let y = sequential::ntt(L, &block.message, final_block);
        assert_eq!(&y[..n_size], &block.ntt[..], "NTT of block {index}");
        let by_definition = sequential::ntt_by_definition(L, &block.message, final_block);
        assert_eq!(
            &by_definition[..n_size],
            &block.ntt[..],
            "O(N²) NTT of block {index}"
        );
        let z = sequential::inner_codes::<L>(&sequential::lift(&y));
        let flat = |v: &[[u32; L]; 32]| v.iter().map(|x| x.to_vec()).collect::<Vec<_>>();
        assert_eq!(flat(&z), block.z, "Z of block {index}");
        let w = sequential::permute(&z);
        assert_eq!(flat(&w), block.w, "W of block {index}");

        let expected: std::collections::HashMap<&str, &Vec<[u32; 4]>> =
            block.states.iter().map(|(l, s)| (l.as_str(), s)).collect();
        assert_eq!(
            &lanes_of(&state),
            expected["IV"],
            "chaining value entering block {index}"
        );
        let mut checked = 0;
        sequential::compress_traced(&mut state, &block.message, final_block, |cp, st| {
            let label = match cp {
                sequential::Checkpoint::MessageXored => "IV XOR M".to_string(),
                sequential::Checkpoint::Step(k) if k < 32 => format!("Step {k:2}"),
                sequential::Checkpoint::Step(k) => format!("Feed-Forward Step {k}"),
            };
            assert_eq!(
                &lanes_of(st),
                expected[label.as_str()],
                "{label} of block {index}"
            );
            checked += 1;
        });
        assert_eq!(checked, 37);
        assert_eq!(
            &lanes_of(&state),
            expected["output"],
            "output of block {index}"
        );
    }
}

#[test]
fn abc_trace_simd256_step_by_step() {
    check_trace(
        include_str!("vectors/simd256/intermediate_values_abc.txt"),
        simd::IV_256,
        &Simd256::digest(b"abc"),
    );
}

#[test]
fn abc_trace_simd512_step_by_step() {
    check_trace(
        include_str!("vectors/simd512/intermediate_values_abc.txt"),
        simd::IV_512,
        &Simd512::digest(b"abc"),
    );
}

/// Streaming at random splits, one-shot `Digest`, the dynamic `Hasher` and every forced variant
/// agree with the literal `sequential` form, on random messages of 0..=20000 bytes (many blocks,
/// both the zero-padded and the exact-multiple endings).
#[test]
fn every_variant_matches_sequential_at_random_lengths_and_splits() {
    let mut r = rng(0x51d_5eed);
    for alg in ALGS {
        let block = alg.info().block_size;
        let mut lengths = boundary_lengths(block);
        lengths.retain(|&l| l <= 20000);
        for _ in 0..cases(25, 200) {
            lengths.push(rand::Rng::random_range(&mut r, 0..=20000));
        }
        let variants = available_variants(alg);
        for &len in &lengths {
            let data = random_bytes(&mut r, len);
            let expected = hash_with(sequential(alg), &data);
            let splits = random_splits(&mut r, len);
            for &variant in &variants {
                common::ran_variant(alg, variant.name());
                let mut h = Hasher::with_variant(variant);
                for piece in &splits {
                    h.update(&data[piece.clone()]);
                }
                assert_eq!(
                    h.finalize().as_bytes(),
                    &expected[..],
                    "{alg}/{variant} len {len}"
                );
            }
            assert_eq!(parhash::hash(alg, &data).as_bytes(), &expected[..]);
            let one_shot = match alg {
                Algorithm::Simd224 => Simd224::digest(&data).to_vec(),
                Algorithm::Simd256 => Simd256::digest(&data).to_vec(),
                Algorithm::Simd384 => Simd384::digest(&data).to_vec(),
                _ => Simd512::digest(&data).to_vec(),
            };
            assert_eq!(one_shot, expected, "{alg} Digest::digest len {len}");
        }
    }
}

/// Spec section 9, pitfall 4: sphlib's length block goes wrong once the block counter reaches
/// 2^14 (SIMD-224/256, 2^20 bytes) or 2^12 (SIMD-384/512, 2^19 bytes). Every form, streamed at
/// random splits, against the literal form around those lengths (the published vectors at
/// 1,000,000 and 1,048,576 bytes are in `long_message_vectors_every_variant`).
#[test]
fn long_message_pitfall_lengths_every_variant_matches_sequential() {
    let mut r = rng(0x51d_1009);
    for alg in ALGS {
        let threshold: usize = if alg.info().block_size == 64 {
            1 << 20
        } else {
            1 << 19
        };
        let block = alg.info().block_size;
        let lengths = [threshold - block, threshold - 1, threshold, threshold + 1];
        let variants = available_variants(alg);
        let data = random_bytes(&mut r, threshold + 1);
        for len in lengths {
            let data = &data[..len];
            let expected = hash_with(sequential(alg), data);
            for &variant in &variants {
                common::ran_variant(alg, variant.name());
                let mut h = Hasher::with_variant(variant);
                for piece in random_splits(&mut r, len) {
                    h.update(&data[piece]);
                }
                assert_eq!(
                    h.finalize().as_bytes(),
                    &expected[..],
                    "{alg}/{variant} len {len}"
                );
            }
        }
    }
}

/// The forced ISA forms are offered exactly when detection (which honours
/// `PARHASH_DISABLE_ISA`) allows them, `parallel` is always there, and exactly one variant is
/// the default: CI's passes with ISAs switched off exercise the fallbacks through this list.
#[test]
fn variants_follow_detection() {
    use parhash::lab::platform::{Avx2, Avx512};
    for alg in ALGS {
        let variants = alg.variants();
        let available = |name: &str| {
            variants
                .iter()
                .find(|v| v.name == name)
                .unwrap_or_else(|| panic!("{alg} lists {name}"))
                .available
        };
        assert!(available("sequential"));
        assert!(available("parallel"));
        assert!(available("parallel-portable"));
        #[cfg(target_arch = "x86_64")]
        {
            assert_eq!(
                available("parallel-avx2"),
                Avx2::detect().is_some(),
                "{alg}"
            );
            assert_eq!(
                available("parallel-avx512"),
                Avx512::detect().is_some(),
                "{alg}"
            );
        }
        let defaults: Vec<_> = variants.iter().filter(|v| v.default).collect();
        assert_eq!(defaults.len(), 1, "{alg}: {defaults:?}");
        assert_eq!(defaults[0].name, "parallel", "{alg}");
    }
}

#[test]
fn streaming_digest_trait_and_reset() {
    let data = pattern(5000);
    let expected = Simd512::digest(&data);
    let mut d = Simd512::new();
    for chunk in data.chunks(17) {
        Digest::update(&mut d, chunk);
    }
    assert_eq!(d.finalize_reset(), expected);
    Digest::update(&mut d, &data);
    assert_eq!(d.finalize(), expected);
    for variant in Simd256::available_variants() {
        let mut h = Simd256::with_variant(variant);
        Digest::update(&mut h, b"ab");
        Digest::reset(&mut h);
        Digest::update(&mut h, b"abc");
        assert_eq!(h.finalize(), Simd256::digest(b"abc"), "{variant}");
    }
    assert!(Simd256::variant("no-such-variant").is_none());
}

#[test]
fn registry_names() {
    for (alg, tag) in ALGS
        .iter()
        .zip(["SIMD-224", "SIMD-256", "SIMD-384", "SIMD-512"])
    {
        assert_eq!(alg.info().tag, tag);
        assert_eq!(Algorithm::from_name(tag), Ok(*alg));
    }
    // "simd" alone names the ISA idea, not this hash: no bare alias.
    assert!(Algorithm::from_name("simd").is_err());
}
