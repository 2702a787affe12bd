//! The CUDA kernels themselves, run on the CPU: `tests/emu/harness.cpp` compiles every `.cu`
//! file as C++20 against `tests/emu/cuda_emu.h` (one OS thread per GPU thread, a barrier for
//! `__syncthreads`, shuffles through memory) and runs one launch per call. The buffers and
//! arguments are prepared here as `src/gpu.rs` prepares them, and the digests are compared with
//! parhash's reference PARSHA-256 and RustCrypto's SHA-256 / SHA-3 / Keccak.
//!
//! This verifies what the kernels compute without a GPU; it cannot verify what only the hardware
//! decides (launch limits, registers, device memory faults, timing). Needs a C++20 compiler
//! (`c++`, `g++` or `clang++`); without one the tests say so, and fail under CI.

use parhash::lab::algo::parsha256::reference::parsha256 as reference;
use parhash::lab::testing::pseudo_random_bytes as random_bytes;
use parhash_cuda::plan::{self, ParshaForm, Plan};
use parhash_cuda::{layout, nonce, pack};
use sha2::Digest;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

fn harness() -> Option<&'static Path> {
    static HARNESS: OnceLock<Option<PathBuf>> = OnceLock::new();
    HARNESS
        .get_or_init(|| {
            let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/emu/harness.cpp");
            let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cuda-emu");
            std::fs::create_dir_all(&dir).ok()?;
            let exe = dir.join(format!("harness-{}", std::process::id()));
            for cxx in ["c++", "g++", "clang++"] {
                let built = Command::new(cxx)
                    .args(["-std=c++20", "-O1", "-pthread", "-o"])
                    .arg(&exe)
                    .arg(&src)
                    .status();
                if matches!(built, Ok(s) if s.success()) {
                    return Some(exe);
                }
            }
            None
        })
        .as_deref()
}

/// The harness, or `None` (with the reason printed) where no C++20 compiler exists; under CI
/// that is a failure.
fn emulator() -> Option<&'static Path> {
    let h = harness();
    if h.is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "no C++20 compiler (c++, g++, clang++) to run the kernels on the CPU"
        );
        eprintln!("skipped: no C++20 compiler (c++, g++, clang++) to run the kernels on the CPU");
    }
    h
}

/// One launch of `kernel` over `grid` blocks of `block` threads; returns every buffer after it.
fn launch(
    exe: &Path,
    kernel: &str,
    grid: u32,
    block: u32,
    buffers: &[&[u8]],
    scalars: &[u64],
) -> Vec<Vec<u8>> {
    let mut input = Vec::new();
    input.extend(grid.to_le_bytes());
    input.extend(block.to_le_bytes());
    input.extend((buffers.len() as u32).to_le_bytes());
    for b in buffers {
        input.extend((b.len() as u64).to_le_bytes());
        input.extend_from_slice(b);
    }
    input.extend((scalars.len() as u32).to_le_bytes());
    for s in scalars {
        input.extend(s.to_le_bytes());
    }
    let mut child = Command::new(exe)
        .arg(kernel)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start the harness");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().expect("harness output");
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "{kernel} failed in the harness");
    let mut rest = out.stdout.as_slice();
    let mut result = Vec::new();
    while !rest.is_empty() {
        let len = u64::from_le_bytes(rest[..8].try_into().unwrap()) as usize;
        result.push(rest[8..8 + len].to_vec());
        rest = &rest[8 + len..];
    }
    assert_eq!(result.len(), buffers.len());
    result
}

fn le_bytes<T: Copy, const N: usize>(items: &[T], to: fn(T) -> [u8; N]) -> Vec<u8> {
    items.iter().flat_map(|&x| to(x)).collect()
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// A batch staged as `src/gpu.rs` stages it (`pack::pack_into`, into a reused buffer full of an
/// earlier batch's bytes): its data, offset table and length table.
fn staged(refs: &[&[u8]]) -> [Vec<u8>; 3] {
    let mut buf = vec![0xa5u8; pack::packed_len(refs.iter().map(|m| m.len()))];
    let (a, b) = pack::pack_into(refs, &mut buf);
    [buf[b..].to_vec(), buf[..a].to_vec(), buf[a..b].to_vec()]
}

fn messages() -> Vec<Vec<u8>> {
    let mut lens: Vec<usize> = (0..=140).collect();
    lens.extend([191, 192, 200, 271, 272, 273, 1000, 4097]);
    lens.iter()
        .map(|&n| random_bytes(n as u64 + 1, n))
        .collect()
}

#[test]
fn sha256_batch_kernel_matches_sha256() {
    let Some(exe) = emulator() else { return };
    let msgs = messages();
    let refs: Vec<&[u8]> = msgs.iter().map(|m| m.as_slice()).collect();
    let [data, offsets, lengths] = staged(&refs);
    let count = msgs.len() as u32;
    let out = vec![0u8; 32 * msgs.len()];
    let r = launch(
        exe,
        "sha256_batch",
        count.div_ceil(256),
        256,
        &[&data, &offsets, &lengths, &out],
        &[u64::from(count)],
    );
    for (i, m) in msgs.iter().enumerate() {
        let w: [u32; 8] = words(&r[3][32 * i..32 * i + 32]).try_into().unwrap();
        assert_eq!(
            plan::words_to_bytes(&w).as_slice(),
            sha2::Sha256::digest(m).as_slice(),
            "len {}",
            m.len()
        );
    }
}

#[test]
fn uniform_kernels_match_sha256_sha3_and_keccak() {
    let Some(exe) = emulator() else { return };
    // Lengths around the alignment, SHA-256's block and Keccak's rate; 300 messages each, staged
    // as `src/gpu.rs` stages a batch of one length (no tables, a fixed stride) into a reused
    // buffer full of other bytes.
    for len in [1usize, 7, 8, 55, 56, 63, 64, 119, 135, 136, 137, 300] {
        let msgs: Vec<Vec<u8>> = (0..300)
            .map(|i| random_bytes((len * 1000 + i) as u64, len))
            .collect();
        let refs: Vec<&[u8]> = msgs.iter().map(|m| m.as_slice()).collect();
        assert_eq!(pack::uniform_len(&refs), Some(len));
        let stride = pack::uniform_stride(len);
        let mut data = vec![0x5au8; stride * refs.len()];
        pack::pack_uniform_into(&refs, &mut data);
        let count = refs.len() as u32;
        let out = vec![0u8; 32 * refs.len()];
        let scalars = [stride as u64, len as u64, u64::from(count)];
        let sha = launch(exe, "sha256_uniform", 2, 256, &[&data, &out], &scalars);
        let keccak = |domain: u8| {
            let mut s = scalars.to_vec();
            s.push(u64::from(domain));
            launch(exe, "keccak_uniform", 2, 256, &[&data, &out], &s)
        };
        let (sha3, k256) = (keccak(pack::DOMAIN_SHA3), keccak(pack::DOMAIN_KECCAK));
        for (i, m) in msgs.iter().enumerate() {
            let w: [u32; 8] = words(&sha[1][32 * i..32 * i + 32]).try_into().unwrap();
            let at = 32 * i..32 * i + 32;
            assert_eq!(
                plan::words_to_bytes(&w).as_slice(),
                sha2::Sha256::digest(m).as_slice(),
                "sha256 len {len} message {i}"
            );
            assert_eq!(
                sha3[1][at.clone()],
                sha3::Sha3_256::digest(m)[..],
                "sha3 len {len}"
            );
            assert_eq!(
                k256[1][at],
                sha3::Keccak256::digest(m)[..],
                "keccak len {len}"
            );
        }
    }
}

#[test]
fn nonce_search_kernel_finds_the_genesis_nonce() {
    let Some(exe) = emulator() else { return };
    let header = nonce::genesis_header();
    let target = nonce::target_from_bits(nonce::header_bits(&header)).unwrap();
    let params = le_bytes(&nonce::kernel_params(&header, &target), u32::to_le_bytes);
    let search = |start: u32, count: u32| {
        let found = u64::MAX.to_le_bytes();
        // 4 blocks of 256 threads: a grid-stride loop of several nonces per thread.
        let r = launch(
            exe,
            "nonce_search",
            4,
            256,
            &[&params, &found],
            &[u64::from(start), u64::from(count)],
        );
        u64::from_le_bytes(r[1][..8].try_into().unwrap())
    };
    let found = search(nonce::GENESIS_NONCE - 3000, 4000);
    assert_eq!(found, u64::from(nonce::GENESIS_NONCE));
    assert_eq!(
        nonce::to_hex(&nonce::block_hash(&header, found as u32)),
        nonce::GENESIS_HASH_HEX
    );
    assert_eq!(search(nonce::GENESIS_NONCE - 3000, 3000), u64::MAX);
}

/// PARSHA-256 through the emulated kernels, driven as `Gpu::parsha256_with` drives them.
fn parsha_emulated(
    exe: &Path,
    data: &[u8],
    tree_height: u32,
    iv_bits: u32,
    form: ParshaForm,
) -> Option<(u32, [u8; 32])> {
    let Plan::Tree(p) = plan::plan(data.len() as u64, tree_height, iv_bits).unwrap() else {
        return None;
    };
    if !form.supports(p.t) {
        return None;
    }
    let msg = plan::padded_message(&p, data);
    let iv_words = u64::from(p.iv_words());
    let pair = |z: &[u8], present: &[u8], stride: usize| {
        let z = words(z);
        let present = words(present);
        let get = |j: usize| -> Option<[u8; 32]> {
            let w: [u32; 8] = std::array::from_fn(|k| z[k * stride + j]);
            (present[j] != 0).then(|| plan::words_to_bytes(&w))
        };
        (get(0), get(1))
    };
    let (z0, z1) = match form {
        ParshaForm::Warp | ParshaForm::Block => {
            let (kernel, threads) = if form == ParshaForm::Warp {
                ("parsha_warp", 32)
            } else {
                ("parsha_block", 1u32 << p.t)
            };
            let r = launch(
                exe,
                kernel,
                1,
                threads,
                &[&msg, &[0u8; 64], &[0u8; 8]],
                &[u64::from(p.t), p.q, p.b, iv_words],
            );
            // z01 holds z(0) then z(1), 8 words each: stride 1 with j scaled by 8.
            let z = words(&r[1]);
            let present = words(&r[2]);
            let get = |j: usize| {
                let w: [u32; 8] = z[8 * j..8 * j + 8].try_into().unwrap();
                (present[j] != 0).then(|| plan::words_to_bytes(&w))
            };
            (get(0), get(1))
        }
        ParshaForm::Rounds => {
            let procs = p.processors() as usize;
            let (mut z, mut pr) = (vec![0u8; 32 * procs], vec![0u8; 4 * procs]);
            for (base, shape) in p.schedule() {
                let r = launch(
                    exe,
                    "parsha_round",
                    (procs as u32).div_ceil(256),
                    256,
                    &[&msg, &z, &pr, &vec![0u8; 32 * procs], &vec![0u8; 4 * procs]],
                    &[
                        base / 4,
                        u64::from(p.t),
                        shape.int_bytes / 4,
                        shape.int_count,
                        u64::from(shape.leaflike),
                        shape.leaf_bytes / 4,
                        shape.leaf_count,
                        iv_words,
                    ],
                );
                z = r[3].clone();
                pr = r[4].clone();
            }
            pair(&z, &pr, procs)
        }
    };
    let digest = plan::finish(&p, z0, z1, plan::final_piece(&p, data)).unwrap();
    Some((p.t, digest))
}

#[test]
fn parsha256_kernels_match_the_reference_in_every_form() {
    let Some(exe) = emulator() else { return };
    let mut checked = 0;
    for len in [97usize, 250, 1000, 3000] {
        let data = random_bytes(len as u64, len);
        for tree_height in 1..=7 {
            for iv_bits in [0, 128, 256] {
                let want = reference(&data, tree_height, iv_bits).unwrap();
                for form in [ParshaForm::Warp, ParshaForm::Block, ParshaForm::Rounds] {
                    if let Some(got) = parsha_emulated(exe, &data, tree_height, iv_bits, form) {
                        assert_eq!(
                            got,
                            want,
                            "{} len {len} T {tree_height} l {iv_bits}",
                            form.name()
                        );
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 100);
}

#[test]
fn parsha256_kernels_match_the_reference_for_tall_trees() {
    let Some(exe) = emulator() else { return };
    // t = 10 (the largest block) and t = 11 (per-round only, several blocks per round).
    for (len, tree_height, forms) in [
        (
            140_000usize,
            10,
            &[ParshaForm::Block, ParshaForm::Rounds][..],
        ),
        (270_000, 11, &[ParshaForm::Rounds][..]),
    ] {
        let data = random_bytes(len as u64, len);
        let want = reference(&data, tree_height, 128).unwrap();
        for &form in forms {
            let got = parsha_emulated(exe, &data, tree_height, 128, form).unwrap();
            assert_eq!(got, want, "{} len {len} T {tree_height}", form.name());
        }
    }
}

#[test]
fn keccak_kernels_match_sha3_and_keccak_in_both_layouts() {
    let Some(exe) = emulator() else { return };
    let msgs = messages();
    let refs: Vec<&[u8]> = msgs.iter().map(|m| m.as_slice()).collect();
    let count = msgs.len() as u32;
    let grid = count.div_ceil(256);
    let out = vec![0u8; 32 * msgs.len()];
    for (domain, oracle) in [
        (
            pack::DOMAIN_SHA3,
            (|m: &[u8]| sha3::Sha3_256::digest(m).to_vec()) as fn(&[u8]) -> Vec<u8>,
        ),
        (pack::DOMAIN_KECCAK, |m: &[u8]| {
            sha3::Keccak256::digest(m).to_vec()
        }),
    ] {
        let [data, offsets, lengths] = staged(&refs);
        let packed = launch(
            exe,
            "keccak_packed",
            grid,
            256,
            &[&data, &offsets, &lengths, &out],
            &[u64::from(count), u64::from(domain)],
        );
        let il = layout::interleave(&refs, domain);
        let interleaved = launch(
            exe,
            "keccak_interleaved",
            grid,
            256,
            &[
                &le_bytes(&il.lanes, u64::to_le_bytes),
                &le_bytes(&il.blocks, u32::to_le_bytes),
                &out,
            ],
            &[u64::from(count)],
        );
        for (i, m) in msgs.iter().enumerate() {
            let want = oracle(m);
            assert_eq!(
                packed[3][32 * i..32 * i + 32],
                want[..],
                "packed len {}",
                m.len()
            );
            assert_eq!(
                interleaved[2][32 * i..32 * i + 32],
                want[..],
                "interleaved len {}",
                m.len()
            );
        }
    }
}
