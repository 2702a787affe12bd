//! GPU results against the CPU (parhash and RustCrypto oracles). These need a CUDA GPU, so they
//! are `#[ignore]`d with that reason; `scripts/gpu-check.sh` runs them with `--ignored` on a GPU
//! machine. Without a GPU, only the error message is checked.

use parhash::lab::algo::parsha256::reference::parsha256 as reference;
use parhash::lab::testing::pseudo_random_bytes as random_bytes;
use parhash_cuda::{nonce, plan, Gpu, KeccakKind, KeccakLayout, ParshaForm};
use sha2::Digest;

const NEEDS_GPU: &str = "needs a CUDA GPU";

fn gpu() -> Gpu {
    match Gpu::open() {
        Ok(g) => {
            println!("GPU: {} ({})", g.name(), g.arch());
            g
        }
        Err(e) => panic!("{NEEDS_GPU}: {e}"),
    }
}

fn random_lengths(seed: u64, count: usize, max: usize) -> Vec<usize> {
    let r = random_bytes(seed, 4 * count);
    r.chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()) as usize % (max + 1))
        .collect()
}

#[test]
fn without_a_gpu_open_fails_with_the_one_clear_message() {
    match Gpu::open() {
        Ok(g) => println!("a GPU is present: {}", g.name()),
        Err(e) => {
            let msg = e.to_string();
            println!("{msg}");
            assert!(msg.starts_with("no usable CUDA GPU: "), "{msg}");
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU (scripts/gpu-check.sh runs it)"]
fn sha256_batches_match_the_cpu() {
    let g = gpu();
    // Every length around the block boundaries, then random batches of random lengths.
    let mut batches: Vec<Vec<Vec<u8>>> =
        vec![(0..300).map(|n| random_bytes(n as u64, n)).collect()];
    for seed in 1..=4u64 {
        let lens = random_lengths(seed, 1000 * seed as usize, 5000);
        batches.push(
            lens.iter()
                .enumerate()
                .map(|(i, &n)| random_bytes(seed * 7919 + i as u64, n))
                .collect(),
        );
    }
    batches.push(vec![random_bytes(99, 3 << 20)]);
    for batch in &batches {
        let refs: Vec<&[u8]> = batch.iter().map(|m| m.as_slice()).collect();
        let got = g.sha256_many(&refs).unwrap();
        assert_eq!(got.len(), batch.len());
        for (m, d) in batch.iter().zip(&got) {
            assert_eq!(
                d.as_slice(),
                sha2::Sha256::digest(m).as_slice(),
                "len {}",
                m.len()
            );
        }
    }
    assert!(g.sha256_many(&[]).unwrap().is_empty());
}

#[test]
#[ignore = "needs a CUDA GPU (scripts/gpu-check.sh runs it)"]
fn nonce_search_finds_the_genesis_nonce_and_hash() {
    let g = gpu();
    let header = nonce::genesis_header();
    let target = nonce::target_from_bits(nonce::header_bits(&header)).unwrap();
    // A range of 2^28 nonces (several launches' worth is covered by `split_range`'s tests).
    let start = nonce::GENESIS_NONCE - (1 << 27);
    let found = g
        .search_nonce(&header, target, start..=start + (1 << 28))
        .unwrap();
    let (n, hash) = found.expect("the genesis nonce is in range");
    assert_eq!(n, nonce::GENESIS_NONCE);
    assert_eq!(nonce::to_hex(&hash), nonce::GENESIS_HASH_HEX);
    // Just below it, nothing meets difficulty 1 in a small range.
    let below = g.search_nonce(
        &header,
        target,
        nonce::GENESIS_NONCE - 5000..=nonce::GENESIS_NONCE - 1,
    );
    assert_eq!(below.unwrap(), None);
}

#[test]
#[ignore = "needs a CUDA GPU (scripts/gpu-check.sh runs it)"]
fn parsha256_matches_the_cpu_for_every_height_and_iv_in_every_form() {
    let g = gpu();
    let lens = [
        0usize,
        1,
        64,
        65,
        96,
        97,
        223,
        224,
        1000,
        4096,
        10_000,
        100_000,
        1 << 20,
    ];
    for &len in &lens {
        let data = random_bytes(len as u64 + 3, len);
        for tree_height in 1..=16 {
            for iv_bits in [0, 128, 256] {
                let want = reference(&data, tree_height, iv_bits).unwrap();
                let auto = g.parsha256(&data, tree_height, iv_bits).unwrap();
                assert_eq!(auto, want, "auto len {len} T {tree_height} l {iv_bits}");
                for form in [ParshaForm::Warp, ParshaForm::Block, ParshaForm::Rounds] {
                    if want.0 == 0 || !form.supports(want.0) {
                        continue;
                    }
                    let run = g
                        .parsha256_with(&data, tree_height, iv_bits, Some(form))
                        .unwrap();
                    assert_eq!(
                        (run.t, run.digest),
                        want,
                        "{} len {len} T {tree_height} l {iv_bits}",
                        form.name()
                    );
                    // The same form with its rounds overlapping the copies.
                    let streamed = g
                        .parsha256_from(&data[..], len as u64, tree_height, iv_bits, Some(form))
                        .unwrap();
                    assert_eq!(
                        (streamed.t, streamed.digest),
                        want,
                        "{} streamed",
                        form.name()
                    );
                }
            }
        }
    }
    // Large messages against parhash's fast CPU engine (the reference is slow at this size).
    let big = random_bytes(5, 20 << 20);
    for (tree_height, iv_bits) in [(13, 0), (16, 128), (8, 256)] {
        assert_eq!(
            g.parsha256(&big, tree_height, iv_bits).unwrap(),
            parhash::parsha256::parsha256(&big, tree_height, iv_bits).unwrap(),
            "20 MiB T {tree_height} l {iv_bits}"
        );
    }
    assert_eq!(
        g.parsha256(&big, 13, 0).unwrap(),
        plan::emulate(&big, 13, 0).unwrap()
    );
}

#[test]
#[ignore = "needs a CUDA GPU (scripts/gpu-check.sh runs it)"]
fn keccak_batches_match_the_cpu_in_both_layouts() {
    let g = gpu();
    for seed in 1..=3u64 {
        let lens = random_lengths(seed, 3000 * seed as usize, 2000);
        let batch: Vec<Vec<u8>> = lens
            .iter()
            .enumerate()
            .map(|(i, &n)| random_bytes(seed * 31 + i as u64, n))
            .collect();
        let refs: Vec<&[u8]> = batch.iter().map(|m| m.as_slice()).collect();
        for layout in [KeccakLayout::Packed, KeccakLayout::Interleaved] {
            let sha3 = g.keccak_many(&refs, KeccakKind::Sha3_256, layout).unwrap();
            let keccak = g.keccak_many(&refs, KeccakKind::Keccak256, layout).unwrap();
            for (i, m) in batch.iter().enumerate() {
                assert_eq!(
                    sha3[i].as_slice(),
                    sha3::Sha3_256::digest(m).as_slice(),
                    "{layout:?} len {}",
                    m.len()
                );
                assert_eq!(
                    keccak[i].as_slice(),
                    sha3::Keccak256::digest(m).as_slice(),
                    "{layout:?} len {}",
                    m.len()
                );
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU (scripts/gpu-check.sh runs it)"]
fn host_to_device_rate_is_measured() {
    let g = gpu();
    let rate = g.h2d_rate(64 << 20).unwrap();
    println!("host-to-device: {:.1} GB/s", rate / 1e9);
    assert!(rate > 1e8);
}

#[test]
#[ignore = "needs a CUDA GPU (scripts/gpu-check.sh runs it)"]
fn reused_buffers_carry_nothing_between_batches() {
    let g = gpu();
    // A batch that grows the lanes, then batches that fill a fraction of them (none, one empty
    // message, one message, a few), twice over: every digest must be its own message's,
    // whatever an earlier batch left in the pinned and device buffers. Batches of one length
    // travel without tables (`pack::uniform_len`): over several chunks, and a few.
    let lens = random_lengths(77, 20_000, 1000);
    let shapes: [Vec<usize>; 9] = [
        lens,
        vec![],
        vec![0],
        vec![55],
        vec![55; 100_000],
        vec![0, 0, 0],
        vec![64, 1, 0, 200],
        vec![136; 3000],
        vec![1; 7],
    ];
    for round in 0..2u64 {
        for shape in &shapes {
            let batch: Vec<Vec<u8>> = shape
                .iter()
                .enumerate()
                .map(|(i, &n)| random_bytes(round * 1_000_003 + i as u64, n))
                .collect();
            let refs: Vec<&[u8]> = batch.iter().map(|m| m.as_slice()).collect();
            let sha = g.sha256_many(&refs).unwrap();
            assert_eq!(sha.len(), batch.len());
            for (d, m) in sha.iter().zip(&batch) {
                assert_eq!(
                    d.as_slice(),
                    sha2::Sha256::digest(m).as_slice(),
                    "len {}",
                    m.len()
                );
            }
            for layout in [KeccakLayout::Packed, KeccakLayout::Interleaved] {
                let k = g.keccak_many(&refs, KeccakKind::Sha3_256, layout).unwrap();
                for (d, m) in k.iter().zip(&batch) {
                    assert_eq!(
                        d.as_slice(),
                        sha3::Sha3_256::digest(m).as_slice(),
                        "{layout:?}"
                    );
                }
            }
        }
    }
}

#[test]
#[ignore = "needs a CUDA GPU (scripts/gpu-check.sh runs it)"]
fn parsha256_of_files_read_in_pieces_matches_the_cpu() {
    let g = gpu();
    let dir = std::env::temp_dir().join(format!("parhash-gpu-files-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let piece = 16usize << 20;
    // Files that end inside a piece, on a piece boundary, one byte either side, several pieces,
    // then shorter ones after them (the device buffer keeps the longer file's bytes).
    for (i, len) in [
        piece - 1,
        piece,
        piece + 1,
        2 * piece + 12_345,
        100_000,
        60,
        0,
    ]
    .into_iter()
    .enumerate()
    {
        let data = random_bytes(i as u64 + 40, len);
        let path = dir.join(format!("f{i}"));
        std::fs::write(&path, &data).unwrap();
        let file = std::fs::File::open(&path).unwrap();
        for (tree_height, iv_bits) in [(13, 256), (4, 0)] {
            let run = g
                .parsha256_from(&file, len as u64, tree_height, iv_bits, None)
                .unwrap();
            let want = parhash::parsha256::parsha256(&data, tree_height, iv_bits).unwrap();
            assert_eq!((run.t, run.digest), want, "len {len} T {tree_height}");
        }
        // The length taken before reading is no longer the file's: refused, not hashed.
        if len > 0 {
            let shrank = g.parsha256_from(&file, len as u64 + 1, 13, 256, None);
            assert!(
                matches!(shrank, Err(parhash_cuda::SourceError::Read(_))),
                "len {len}"
            );
            let grew = g.parsha256_from(&file, len as u64 - 1, 13, 256, None);
            assert!(
                matches!(grew, Err(parhash_cuda::SourceError::Read(_))),
                "len {len}"
            );
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
