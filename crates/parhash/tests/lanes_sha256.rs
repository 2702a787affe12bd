//! SHA-256 many-compression kernels (every vector width, and the SHA-NI streams where the CPU
//! has them) against the PARSHA-256 reference's literal compression.
mod common;

use common::*;
use parhash::lab::algo::parsha256::reference;
use parhash::lab::algo::sha2::sha256::lanes as sha256;
use parhash::lab::lanes::Kernel;
use rand::Rng;

fn expected(state: &[u32; 8], block: &[u8; 64]) -> [u32; 8] {
    let y: Vec<u8> = state
        .iter()
        .flat_map(|w| w.to_be_bytes())
        .chain(block.iter().copied())
        .collect();
    let out = reference::h(&y);
    core::array::from_fn(|i| u32::from_be_bytes(out[4 * i..4 * i + 4].try_into().unwrap()))
}

#[test]
fn every_kernel_matches_single_compressions() {
    let mut r = rng(0x1a2e_5256);
    let kernels = Kernel::all(true);
    eprintln!(
        "sha256 many-compression kernels tested: {:?}",
        kernels.iter().map(|k| k.name()).collect::<Vec<_>>()
    );
    // Odd counts hit every remainder of 8 and 16; carry-prone all-ones states included.
    for count in [
        0usize, 1, 2, 3, 4, 5, 6, 7, 8, 9, 15, 16, 17, 31, 33, 48, 100,
    ] {
        let mut states: Vec<[u32; 8]> = (0..count).map(|_| r.random()).collect();
        if count > 0 {
            states[0] = [u32::MAX; 8];
        }
        let blocks: Vec<[u8; 64]> = (0..count)
            .map(|_| random_bytes(&mut r, 64).try_into().unwrap())
            .collect();
        let want: Vec<[u32; 8]> = states
            .iter()
            .zip(&blocks)
            .map(|(s, b)| expected(s, b))
            .collect();
        for &kernel in &kernels {
            let mut got = states.clone();
            sha256::compress_with(kernel, &mut got, &blocks);
            assert_eq!(got, want, "{} count {count}", kernel.name());
        }
        let mut got = states.clone();
        sha256::compress_lanes(&mut got, &blocks);
        assert_eq!(got, want, "detected count {count}");
        for (i, (s, b)) in states.iter().zip(&blocks).enumerate() {
            let mut one = *s;
            sha256::compress_one(&mut one, b);
            assert_eq!(one, want[i]);
        }
    }
}

fn be_bytes(words: &[u32; 8]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_be_bytes()).collect()
}

/// The tree-node entry points (children's words and message read in place) against the
/// reference's compression of the inputs PARSHA-256 specifies, with every kernel.
#[test]
fn tree_node_kernels_match_single_compressions() {
    let mut r = rng(0x7ee_5256);
    let iv = sha256::IV;
    for count in [0usize, 1, 2, 3, 4, 5, 7, 8, 17, 33, 100] {
        let children: Vec<[u32; 8]> = (0..2 * count).map(|_| r.random()).collect();
        let message = random_bytes(&mut r, 32 * count);
        let want: Vec<[u32; 8]> = (0..count)
            .map(|i| {
                let mut block = be_bytes(&children[2 * i + 1]);
                block.extend_from_slice(&message[32 * i..32 * i + 32]);
                expected(&children[2 * i], block.as_slice().try_into().unwrap())
            })
            .collect();
        for kernel in Kernel::all(true) {
            let mut got = vec![[0u32; 8]; count];
            sha256::compress_parents(kernel, &children, &message, &mut got);
            assert_eq!(got, want, "parents, {} count {count}", kernel.name());
        }
        for piece_len in [64usize, 80, 96] {
            let pieces = random_bytes(&mut r, piece_len * count);
            let want: Vec<[u32; 8]> = pieces
                .chunks_exact(piece_len)
                .map(|piece| {
                    let state = core::array::from_fn(|w| {
                        u32::from_be_bytes(piece[4 * w..4 * w + 4].try_into().unwrap())
                    });
                    let mut block = piece[32..].to_vec();
                    block.extend_from_slice(&be_bytes(&iv)[..96 - piece_len]);
                    expected(&state, block.as_slice().try_into().unwrap())
                })
                .collect();
            for kernel in Kernel::all(true) {
                let mut got = vec![[0u32; 8]; count];
                sha256::compress_leaves(kernel, &pieces, piece_len, &iv, &mut got);
                assert_eq!(
                    got,
                    want,
                    "leaves of {piece_len}, {} count {count}",
                    kernel.name()
                );
            }
        }
    }
}
