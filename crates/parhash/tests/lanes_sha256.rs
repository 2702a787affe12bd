//! SHA-256 many-compression kernels (every vector width, and the SHA-NI streams where the CPU
//! has them) against the PARSHA-256 reference's literal compression.
mod common;

use common::*;
use parhash::algo::parsha256::reference;
use parhash::algo::sha2::sha256::lanes as sha256;
use parhash::lanes::Kernel;
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
