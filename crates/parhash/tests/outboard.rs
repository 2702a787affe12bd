//! BLAKE3 outboards (parhash::outboard) against the reference implementations, both ways: the
//! `bao` crate's outboard (chunk groups of one chunk) byte for byte, its slice extractor and
//! decoder verifying ranges with parhash's outboard, parhash verifying ranges with bao's; the
//! chunk-group outboards against iroh's bao-tree. Then `verify_range` on damaged data, damaged
//! outboards, empty ranges and ranges past the end, and how much it reads.

use std::fs::File;
use std::io::{self, Cursor, Read, Seek, SeekFrom};
use std::ops::Range;

use bao_tree::io::outboard::PreOrderMemOutboard;
use bao_tree::BlockSize;
use parhash::file::FileChangedSize;
use parhash::file::ReadStrategy::{Auto, Sequential};
use parhash::outboard::{
    encode, encode_file, encode_grouped, encode_mapped, outboard_size, verify_range,
    verify_range_grouped, ChunkGroup, Encoder, RangeError, CHUNK_LEN,
};
use rand::rngs::StdRng;
use rand::{Rng, RngCore, SeedableRng};

const KIB: usize = 1024;
const MIB: usize = 1 << 20;

/// The sizes around every boundary that changes the tree: chunks, chunk groups of 16 KiB, the
/// encoder's 1 MiB units, and a few random ones.
fn sizes(rng: &mut StdRng) -> Vec<usize> {
    let mut sizes = vec![
        0,
        1,
        1023,
        1024,
        1025,
        2047,
        2048,
        2049,
        4095,
        4096,
        4097,
        8193,
        16 * KIB - 1,
        16 * KIB,
        16 * KIB + 1,
        MIB - 1,
        MIB,
        MIB + 1,
        2 * MIB,
        3 * MIB + 5000,
        4 * MIB + 1,
    ];
    sizes.extend((0..6).map(|_| rng.random_range(0..5 * MIB)));
    sizes
}

fn random_bytes(rng: &mut StdRng, len: usize) -> Vec<u8> {
    let mut data = vec![0; len];
    rng.fill_bytes(&mut data);
    data
}

fn group(k: u8) -> ChunkGroup {
    ChunkGroup::new(k).expect("k <= 10")
}

/// `verify_range_grouped` of a file and outboard in memory.
fn verify_in_memory(
    root: &[u8; 32],
    k: u8,
    outboard: &[u8],
    data: &[u8],
    start: u64,
    count: u64,
) -> Result<(), RangeError> {
    verify_range_grouped(
        root,
        group(k),
        Cursor::new(outboard),
        Cursor::new(data),
        start,
        count,
    )
}

#[test]
fn outboard_is_baos_and_root_is_the_blake3_digest() {
    let mut rng = StdRng::seed_from_u64(59);
    for len in sizes(&mut rng) {
        let data = random_bytes(&mut rng, len);
        let (root, outboard) = encode(&data);
        let (bao_outboard, bao_root) = bao::encode::outboard(&data);
        assert_eq!(root, *blake3::hash(&data).as_bytes(), "{len}");
        assert_eq!(&root, bao_root.as_bytes(), "{len}");
        assert_eq!(
            parhash::hash(parhash::Algorithm::Blake3, &data).as_bytes(),
            root,
            "{len}"
        );
        assert!(
            outboard == bao_outboard,
            "{len}: outboard differs from bao's"
        );
        assert_eq!(
            outboard.len() as u64,
            outboard_size(len as u64, ChunkGroup::BAO)
        );
    }
}

#[test]
fn grouped_outboards_are_bao_trees() {
    let mut rng = StdRng::seed_from_u64(60);
    for len in sizes(&mut rng) {
        let data = random_bytes(&mut rng, len);
        for k in 0..=ChunkGroup::MAX_LOG {
            let (root, outboard) = encode_grouped(&data, group(k));
            let tree = PreOrderMemOutboard::create(&data, BlockSize::from_chunk_log(k));
            assert_eq!(&root, tree.root.as_bytes(), "{len} k={k}");
            assert!(
                outboard == tree.into_inner_with_prefix(),
                "{len} k={k}: outboard differs from bao-tree's"
            );
            assert_eq!(outboard.len() as u64, outboard_size(len as u64, group(k)));
        }
    }
}

#[test]
fn streamed_threaded_and_file_encodings_agree() {
    let mut rng = StdRng::seed_from_u64(61);
    let dir = tempfile::tempdir().unwrap();
    for len in [0, 5000, MIB + 1, 3 * MIB + 777, 6 * MIB, 8 * MIB + 1] {
        let data = random_bytes(&mut rng, len);
        for k in [0, 4, 10] {
            let whole = encode_grouped(&data, group(k));
            for threads in [1, 2, 0] {
                let mut encoder = Encoder::new(len as u64, group(k)).threads(threads);
                let mut at = 0;
                while at < len {
                    let step = match rng.random_range(0..4) {
                        0 => rng.random_range(1..100),
                        1 => rng.random_range(1..3 * MIB),
                        _ => rng.random_range(1..70 * KIB),
                    };
                    let end = (at + step).min(len);
                    encoder.update(&data[at..end]).unwrap();
                    at = end;
                }
                let (root, sink) = encoder.finalize().unwrap();
                assert_eq!((root, sink.into_inner()), whole, "{len} k={k} -j{threads}");
            }
            let path = dir.path().join("data");
            std::fs::write(&path, &data).unwrap();
            let mut outboard = File::options()
                .read(true)
                .write(true)
                .create(true)
                .truncate(true)
                .open(dir.path().join("data.obao"))
                .unwrap();
            let root = encode_file(&path, group(k), &mut outboard).unwrap();
            let mut written = Vec::new();
            outboard.seek(SeekFrom::Start(0)).unwrap();
            outboard.read_to_end(&mut written).unwrap();
            assert_eq!((root, written), whole, "{len} k={k} file");
            // From a map, on every thread count: a file just written is in the page cache,
            // so every file of more than one unit (2 MiB) is mapped.
            for threads in [1, 2, 0] {
                let sink = tempfile::tempfile().unwrap();
                let data_file = File::open(&path).unwrap();
                let mapped =
                    encode_mapped(&data_file, len as u64, group(k), threads, Auto, true, &sink)
                        .unwrap();
                if len <= 2 * MIB {
                    assert_eq!(mapped, None, "{len} k={k}: one unit is fed, not mapped");
                    continue;
                }
                let mut written = Vec::new();
                (&sink).read_to_end(&mut written).unwrap();
                assert_eq!(
                    (mapped.unwrap(), written),
                    whole,
                    "{len} k={k} mapped -j{threads}"
                );
                let not_mapped = encode_mapped(
                    &data_file,
                    len as u64,
                    group(k),
                    threads,
                    Auto,
                    false,
                    &sink,
                );
                assert_eq!(not_mapped.unwrap(), None, "maps refused: the caller reads");
                let sequential = encode_mapped(
                    &data_file,
                    len as u64,
                    group(k),
                    threads,
                    Sequential,
                    true,
                    &sink,
                );
                assert_eq!(
                    sequential.unwrap(),
                    None,
                    "sequential reads asked: the caller reads"
                );
            }
        }
    }
}

#[test]
fn a_mapped_file_that_changed_size_is_an_error_not_an_outboard() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("data");
    std::fs::write(&path, vec![5u8; 3 * MIB]).unwrap();
    let file = File::open(&path).unwrap();
    for len in [3 * MIB as u64 - 1, 4 * MIB as u64] {
        let sink = tempfile::tempfile().unwrap();
        match encode_mapped(&file, len, ChunkGroup::IROH, 0, Auto, true, &sink) {
            Err(err) => {
                let changed = err
                    .get_ref()
                    .and_then(|e| e.downcast_ref::<FileChangedSize>());
                assert!(changed.is_some(), "told {len} bytes of 3 MiB: {err}");
            }
            // Not mapped (the pages past the end are not in the page cache): the caller
            // reads it, and finds the change.
            Ok(None) => assert!(len > 3 * MIB as u64, "a shorter length is mapped"),
            Ok(Some(_)) => panic!("an outboard of {len} bytes from a file of 3 MiB"),
        }
    }
}

#[test]
fn encoder_refuses_a_length_other_than_the_one_given() {
    let mut encoder = Encoder::new(10, ChunkGroup::BAO);
    encoder.update(&[1; 6]).unwrap();
    let err = encoder.update(&[1; 5]).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
    let err = encoder.finalize().unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidInput);
    assert!(ChunkGroup::new(ChunkGroup::MAX_LOG + 1).is_none());
    assert_eq!(ChunkGroup::IROH.bytes(), 16 * 1024);
}

/// Ranges at the start, at the end, across chunk and group boundaries, one byte, the whole file.
fn ranges(len: u64, rng: &mut StdRng) -> Vec<(u64, u64)> {
    let mut ranges = vec![(0, 1), (0, len), (len - 1, 1), (0, len.min(5000))];
    for boundary in [CHUNK_LEN, 16 * CHUNK_LEN, 1 << 20] {
        if boundary < len {
            ranges.push((boundary - 1, 2));
            ranges.push((boundary - 1, (len - boundary + 1).min(3 * boundary)));
            ranges.push((boundary, len - boundary));
        }
    }
    for _ in 0..4 {
        let start = rng.random_range(0..len);
        ranges.push((start, rng.random_range(1..=len - start)));
    }
    ranges
}

#[test]
fn bao_verifies_parhash_outboards_and_parhash_verifies_baos() {
    let mut rng = StdRng::seed_from_u64(62);
    for len in sizes(&mut rng) {
        if len == 0 {
            continue;
        }
        let data = random_bytes(&mut rng, len);
        let (root, outboard) = encode(&data);
        let (bao_outboard, _) = bao::encode::outboard(&data);
        for (start, count) in ranges(len as u64, &mut rng) {
            let what = format!("{len}: {start}+{count}");
            let mut slice = Vec::new();
            bao::encode::SliceExtractor::new_outboard(
                Cursor::new(&data),
                Cursor::new(&outboard),
                start,
                count,
            )
            .read_to_end(&mut slice)
            .unwrap();
            let mut decoded = Vec::new();
            bao::decode::SliceDecoder::new(&slice[..], &root.into(), start, count)
                .read_to_end(&mut decoded)
                .unwrap();
            let range = start as usize..(start + count) as usize;
            assert_eq!(decoded, data[range], "{what}");
            verify_in_memory(&root, 0, &bao_outboard, &data, start, count)
                .unwrap_or_else(|err| panic!("{what}: {err}"));
        }
    }
}

#[test]
fn grouped_ranges_verify() {
    let mut rng = StdRng::seed_from_u64(63);
    for len in [1, 5000, 16 * KIB + 1, MIB + 1, 3 * MIB + 5000] {
        let data = random_bytes(&mut rng, len);
        for k in [1, 4, 7, 10] {
            let (root, outboard) = encode_grouped(&data, group(k));
            for (start, count) in ranges(len as u64, &mut rng) {
                verify_in_memory(&root, k, &outboard, &data, start, count)
                    .unwrap_or_else(|err| panic!("{len} k={k} {start}+{count}: {err}"));
            }
        }
    }
}

#[test]
fn empty_and_past_the_end_ranges_are_clear_errors() {
    let data = vec![3u8; 3000];
    let (root, outboard) = encode(&data);
    let verify = |offset, len| {
        verify_range(
            &root,
            Cursor::new(&outboard),
            Cursor::new(&data),
            offset,
            len,
        )
    };
    assert!(matches!(
        verify(100, 0),
        Err(RangeError::EmptyRange { offset: 100 })
    ));
    assert!(matches!(
        verify(3000, 0),
        Err(RangeError::EmptyRange { .. })
    ));
    for (offset, len) in [(2999, 2), (3000, 1), (0, 3001), (5000, 10), (1, u64::MAX)] {
        match verify(offset, len) {
            Err(RangeError::PastEnd {
                offset: o,
                len: l,
                file_len: 3000,
            }) if (o, l) == (offset, len) => {}
            other => panic!("{offset}+{len}: {other:?}"),
        }
    }
    let err = verify(2999, 2).unwrap_err().to_string();
    assert!(
        err.contains("past the end") && err.contains("3000"),
        "{err}"
    );
    verify(2999, 1).unwrap();
    // The empty file has no byte to verify.
    let (root, outboard) = encode(&[]);
    let err = verify_range(&root, Cursor::new(&outboard), Cursor::new(&[]), 0, 1);
    assert!(matches!(err, Err(RangeError::PastEnd { file_len: 0, .. })));
}

/// The leaves (byte ranges) of `group` that hold bytes of `range`.
fn leaves_of(range: Range<u64>, group: ChunkGroup, len: u64) -> Range<u64> {
    let bytes = group.bytes();
    range.start / bytes * bytes..(range.end.div_ceil(bytes) * bytes).min(len)
}

#[test]
fn every_changed_byte_in_the_range_is_found_and_placed() {
    let mut rng = StdRng::seed_from_u64(64);
    for (len, k, start, count) in [
        (5000, 0, 1000, 2500),
        (5000, 0, 0, 5000),
        (40_000, 2, 3000, 9000),
        (40_000, 4, 16_000, 24_000),
        (1, 0, 0, 1),
        (1025, 0, 1024, 1),
    ] {
        let mut data = random_bytes(&mut rng, len);
        let (root, outboard) = encode_grouped(&data, group(k));
        let read = leaves_of(start..start + count, group(k), len as u64);
        for at in 0..len {
            let flip = 1 << rng.random_range(0..8);
            data[at] ^= flip;
            let result = verify_in_memory(&root, k, &outboard, &data, start, count);
            data[at] ^= flip;
            let at = at as u64;
            if read.contains(&at) {
                match result {
                    Err(RangeError::DataDamaged { ranges }) => {
                        assert_eq!(ranges.len(), 1, "{len} k={k} byte {at}");
                        let damaged = &ranges[0];
                        assert!(damaged.contains(&at), "{len} k={k} byte {at}: {damaged:?}");
                        assert!(damaged.end - damaged.start <= group(k).bytes());
                    }
                    other => panic!("{len} k={k} byte {at}: {other:?}"),
                }
            } else {
                // Outside the range's leaves: not read, so not seen.
                assert!(result.is_ok(), "{len} k={k} byte {at}: {result:?}");
            }
        }
    }
}

#[test]
fn damage_in_several_leaves_is_listed() {
    let mut data = vec![9u8; 10 * KIB];
    let (root, outboard) = encode(&data);
    for at in [100, 1500, 2100, 7000] {
        data[at] ^= 1;
    }
    let err = verify_range(
        &root,
        Cursor::new(&outboard),
        Cursor::new(&data),
        0,
        10 * 1024,
    )
    .unwrap_err();
    match &err {
        RangeError::DataDamaged { ranges } => {
            assert_eq!(ranges, &[0..3072, 6144..7168]);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(err.to_string(), "data damaged at bytes 0-3071, 6144-7167");
    assert!(err.is_data_damage() && !err.is_outboard_damage());
}

#[test]
fn every_changed_outboard_byte_is_outboard_damage() {
    let mut rng = StdRng::seed_from_u64(65);
    for (len, k) in [
        (0, 0),
        (1, 0),
        (1025, 0),
        (5000, 0),
        (20_000, 0),
        (70_000, 2),
        (50_000, 4),
    ] {
        let data = random_bytes(&mut rng, len);
        let (root, mut outboard) = encode_grouped(&data, group(k));
        let whole = (0, len.max(1) as u64);
        let mut partial = ranges(len.max(1) as u64, &mut rng);
        partial.truncate(6);
        for at in 0..outboard.len() {
            let flip = 1 << rng.random_range(0..8);
            outboard[at] ^= flip;
            for (i, &(start, count)) in std::iter::once(&whole).chain(&partial).enumerate() {
                if len == 0 {
                    continue;
                }
                let result = verify_in_memory(&root, k, &outboard, &data, start, count);
                let what = format!("{len} k={k} outboard byte {at}, {start}+{count}: {result:?}");
                if i == 0 || at < 8 {
                    // The whole file reads every node, and every range the header.
                    assert!(
                        result.as_ref().is_err_and(RangeError::is_outboard_damage),
                        "{what}"
                    );
                } else {
                    // A node off the range's paths is not read; one on them is outboard damage.
                    assert!(
                        result
                            .as_ref()
                            .map_or_else(RangeError::is_outboard_damage, |()| true),
                        "{what}"
                    );
                }
            }
            outboard[at] ^= flip;
        }
        if len == 0 {
            // Nothing to verify in an empty file, but its header is still read.
            let mut damaged = outboard.clone();
            damaged[0] = 1;
            let result = verify_range(&root, Cursor::new(&damaged), Cursor::new(&data), 0, 1);
            assert!(result.is_err_and(|e| e.is_outboard_damage()), "empty file");
        }
    }
}

#[test]
fn short_long_and_mismatched_outboards_and_data() {
    let mut rng = StdRng::seed_from_u64(66);
    let data = random_bytes(&mut rng, 9000);
    let (root, outboard) = encode(&data);
    let verify = |outboard: &[u8], data: &[u8]| {
        verify_range(&root, Cursor::new(outboard), Cursor::new(data), 0, 100)
    };
    for cut in [0, 1, 7, 8, 9, 64, outboard.len() - 1] {
        let result = verify(&outboard[..cut], &data);
        assert!(
            matches!(result, Err(RangeError::OutboardSize { .. })),
            "outboard cut to {cut}: {result:?}"
        );
    }
    let mut long = outboard.clone();
    long.push(0);
    assert!(matches!(
        verify(&long, &data),
        Err(RangeError::OutboardSize { .. })
    ));
    // An outboard of another chunk group does not fit the file.
    let (_, grouped) = encode_grouped(&data, group(2));
    assert!(matches!(
        verify(&grouped, &data),
        Err(RangeError::OutboardSize { .. })
    ));
    // Data that lost or gained bytes at the end is not the file the outboard describes.
    for changed in [&data[..8999], &data[..8193], &[&data[..], &[0]].concat()] {
        match verify(&outboard, changed) {
            Err(RangeError::DataLength {
                expected: 9000,
                found,
            }) => {
                assert_eq!(found, changed.len() as u64)
            }
            other => panic!("data of {} bytes: {other:?}", changed.len()),
        }
    }
    // A header that lost its length, where the data's length fits the tree and the digest.
    let mut header = outboard.clone();
    header[0] ^= 0x10;
    match verify(&header, &data) {
        Err(RangeError::OutboardHeader {
            length,
            data_len: 9000,
        }) => {
            assert_eq!(length, 9000 ^ 0x10)
        }
        other => panic!("{other:?}"),
    }
    // A digest of another file.
    let result = verify_range(&[0; 32], Cursor::new(&outboard), Cursor::new(&data), 0, 1);
    assert!(
        matches!(result, Err(RangeError::OutboardNode { offset: 8 })),
        "{result:?}"
    );
}

/// A reader that counts the bytes read through it.
struct Counting<R> {
    inner: R,
    read: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read += n as u64;
        Ok(n)
    }
}

impl<R: Seek> Seek for Counting<R> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.inner.seek(pos)
    }
}

#[test]
fn a_range_reads_its_leaves_and_their_paths_only() {
    let mut rng = StdRng::seed_from_u64(67);
    let len = 9 * MIB + 12_345;
    let data = random_bytes(&mut rng, len);
    for k in [0, 4, 10] {
        let g = group(k);
        let (root, outboard) = encode_grouped(&data, g);
        let groups = (len as u64).div_ceil(g.bytes());
        let depth = 64 - (groups - 1).leading_zeros() as u64;
        let mut cases = vec![
            (4 * MIB as u64 + 7, 4 * MIB as u64),
            (0, 1),
            (len as u64 - 1, 1),
        ];
        cases.extend((0..6).map(|_| {
            let start = rng.random_range(0..len as u64);
            (
                start,
                rng.random_range(1..=(len as u64 - start).min(3 * MIB as u64)),
            )
        }));
        for (start, count) in cases {
            let mut d = Counting {
                inner: Cursor::new(&data),
                read: 0,
            };
            let mut o = Counting {
                inner: Cursor::new(&outboard),
                read: 0,
            };
            verify_range_grouped(&root, g, &mut o, &mut d, start, count).unwrap();
            let leaves = leaves_of(start..start + count, g, len as u64);
            assert_eq!(d.read, leaves.end - leaves.start, "k={k} {start}+{count}");
            // The parents above the range's leaves: one fewer than the leaves, plus at most
            // two paths to the root.
            let leaf_count = (leaves.end - leaves.start).div_ceil(g.bytes());
            let bound = 8 + 64 * (leaf_count - 1 + 2 * depth);
            assert!(
                o.read <= bound,
                "k={k} {start}+{count}: {} outboard bytes read, bound {bound}",
                o.read
            );
            // A 4 MiB range of this file reads under 1 % more than the range (16 KiB groups).
            if k == 4 && count == 4 * MIB as u64 {
                assert!((d.read + o.read) as f64 <= 1.01 * count as f64);
            }
        }
    }
}
