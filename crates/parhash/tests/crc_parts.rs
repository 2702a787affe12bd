//! One CRC over parts (`parts::Plan`, what the file engine runs on every core): the parts'
//! CRCs combined equal the whole message's CRC as independent crates compute it (`crc32fast`,
//! `crc32c`, `crc64fast-nvme`), for random lengths and part counts, and a file hashed on two
//! threads gives the same.
mod common;

use std::io::Write;

use parhash::file::FileHasher;
use parhash::lab::testing::pseudo_random_bytes;
use parhash::parts::Plan;
use parhash::{Algorithm, Hasher, Threads};
use proptest::prelude::*;

/// The CRC of `data` as an independent crate gives it, big-endian hex.
fn independent(algorithm: Algorithm, data: &[u8]) -> String {
    match algorithm {
        Algorithm::Crc32 => format!("{:08x}", crc32fast::hash(data)),
        Algorithm::Crc32c => format!("{:08x}", crc32c::crc32c(data)),
        Algorithm::Crc64Nvme => {
            let mut digest = crc64fast_nvme::Digest::new();
            digest.write(data);
            format!("{:016x}", digest.sum64())
        }
        other => unreachable!("{other} is not a CRC"),
    }
}

const CRCS: [Algorithm; 3] = [Algorithm::Crc32, Algorithm::Crc32c, Algorithm::Crc64Nvme];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(if cfg!(debug_assertions) { 64 } else { 256 }))]

    /// Parts hashed in any order, through the in-memory and the positional-read paths.
    #[test]
    fn parts_combine_to_the_whole_crc(
        len in prop_oneof![0usize..64, 0usize..5000, 0usize..300_000],
        parts in 1usize..40,
        seed in any::<u64>(),
    ) {
        let data = pseudo_random_bytes(seed, len);
        for algorithm in CRCS {
            let plan = Plan::new(algorithm, len as u64, parts).unwrap();
            prop_assert!(plan.parts() >= 1 && plan.parts() <= parts.max(1));
            let mut states: Vec<_> = (0..plan.parts())
                .map(|i| {
                    if i % 2 == 0 {
                        plan.hash_part(i, &data).unwrap()
                    } else {
                        plan.hash_part_from(i, |at, buf| {
                            buf.copy_from_slice(&data[at as usize..at as usize + buf.len()]);
                            Ok(())
                        })
                        .unwrap()
                    }
                })
                .collect();
            states.reverse();
            let got = plan.combine(&states, &data).unwrap().to_hex();
            prop_assert_eq!(got, independent(algorithm, &data), "{} in {} parts", algorithm, plan.parts());
        }
    }
}

/// A file over the engine's split threshold, hashed on two threads (its parts on both cores,
/// mapped or read), gives the crates' CRC, as does every variant on one thread.
#[test]
fn a_large_file_on_two_threads_gives_the_sequential_crc() {
    let data = pseudo_random_bytes(7, (9 << 20) + 4321);
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(&data).unwrap();
    file.flush().unwrap();
    for algorithm in CRCS {
        let expected = independent(algorithm, &data);
        for maps in [true, false] {
            let hasher = FileHasher::new(Hasher::builder(algorithm).threads(Threads::new(2)))
                .memory_maps(maps);
            let got = hasher.hash_path(file.path()).unwrap().to_hex();
            assert_eq!(got, expected, "{algorithm}, maps {maps}");
        }
        for info in algorithm.variants().into_iter().filter(|v| v.available) {
            let variant = algorithm.variant(info.name).unwrap();
            let mut hasher = Hasher::builder(algorithm).variant(variant).build().unwrap();
            hasher.update(&data);
            assert_eq!(
                hasher.finalize().to_hex(),
                expected,
                "{algorithm} {}",
                info.name
            );
            common::ran_variant(algorithm, info.name);
        }
    }
}
