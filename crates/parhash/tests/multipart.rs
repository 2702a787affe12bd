//! Multipart checksums against an independent computation with RustCrypto's `md-5`, `sha1`
//! and `sha2` crates: S3's ETag (MD5 of the parts' MD5s) and composite checksums, for random
//! sizes and part sizes, from memory, from a reader and from a file.

use std::io::Write;

use digest::Digest;
use parhash::file::FileChangedSize;
use parhash::multipart::{
    compute, compute_file, compute_file_whole, compute_files, compute_reader, Combine, FileJob,
    Request,
};
use parhash::Algorithm;
use proptest::prelude::*;

/// The combined digest with `D` for the parts and for their concatenation.
fn reference<D: Digest>(data: &[u8], part_size: usize) -> (Vec<u8>, u64) {
    let mut parts: Vec<&[u8]> = data.chunks(part_size).collect();
    if parts.is_empty() {
        parts.push(&[]);
    }
    let mut outer = D::new();
    for part in &parts {
        outer.update(D::digest(part));
    }
    (outer.finalize().to_vec(), parts.len() as u64)
}

fn expected(combine: Combine, data: &[u8], part_size: usize) -> (Vec<u8>, u64) {
    match combine.algorithm() {
        Algorithm::Md5 => reference::<md5::Md5>(data, part_size),
        Algorithm::Sha1 => reference::<sha1::Sha1>(data, part_size),
        Algorithm::Sha256 => reference::<sha2::Sha256>(data, part_size),
        other => panic!("no reference for {other}"),
    }
}

const FORMS: [Combine; 3] = [
    Combine::S3Etag,
    Combine::Composite(Algorithm::Sha1),
    Combine::Composite(Algorithm::Sha256),
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn every_form_and_part_size_matches_the_reference(
        len in 0usize..300_000,
        sizes in proptest::collection::vec(1u64..70_000, 1..4),
        seed in any::<u8>(),
    ) {
        let data: Vec<u8> = (0..len).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect();
        let requests: Vec<Request> = sizes
            .iter()
            .flat_map(|&size| FORMS.map(|form| Request::new(form, size).unwrap()))
            .collect();
        let from_memory = compute(&data, &requests);
        let from_reader = compute_reader(&data[..], &requests).unwrap();
        for ((request, got), streamed) in requests.iter().zip(&from_memory).zip(&from_reader) {
            let (digest, parts) = expected(request.combine(), &data, request.part_size() as usize);
            prop_assert_eq!(got.digest.as_bytes(), &digest[..], "{:?}", request);
            prop_assert_eq!(got.parts, parts);
            prop_assert_eq!(got, streamed);
        }
    }
}

#[test]
fn s3_etag_of_a_file_in_8_mib_parts_with_a_last_part_of_one_byte() {
    let data: Vec<u8> = (0..(16 << 20) + 1).map(|i: u32| (i % 251) as u8).collect();
    let mut file = tempfile::NamedTempFile::new().unwrap();
    file.write_all(&data).unwrap();
    let request = Request::new(Combine::S3Etag, 8 << 20).unwrap();
    let [got] = compute_file(file.as_file(), &[request])
        .unwrap()
        .try_into()
        .unwrap();
    let (digest, parts) = reference::<md5::Md5>(&data, 8 << 20);
    assert_eq!((got.digest.as_bytes(), got.parts), (&digest[..], 3));
    assert_eq!(parts, 3);
}

#[test]
fn an_empty_object_is_one_empty_part() {
    let request = Request::new(Combine::S3Etag, 8 << 20).unwrap();
    let [got] = compute(&[], &[request]).try_into().unwrap();
    assert_eq!(got.parts, 1);
    assert_eq!(got.digest.as_bytes(), &reference::<md5::Md5>(&[], 1).0[..]);
    // md5(md5("")): the ETag S3 gives an empty object uploaded in one part.
    assert_eq!(
        format!("{:x}", got.digest),
        "59adb24ef3cdbe0297f05b395827453f"
    );
}

#[test]
fn whole_file_digests_come_from_the_same_read_as_the_parts() {
    // Under 64 KiB read into a buffer of the file's size, at and above it (9 MiB + 5) mapped
    // where the platform maps; both from the file's start, its position being its end here.
    for len in [0usize, 1, 65_535, 65_536, 65_537, (9 << 20) + 5] {
        let data: Vec<u8> = (0..len).map(|i| (i % 253) as u8).collect();
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(&data).unwrap();
        let request = Request::new(Combine::S3Etag, 5 << 20).unwrap();
        let (parts, whole) = compute_file_whole(
            file.as_file(),
            &[request],
            &[Algorithm::Md5, Algorithm::Sha256],
        )
        .unwrap();
        let (etag, count) = reference::<md5::Md5>(&data, 5 << 20);
        assert_eq!(
            (parts[0].digest.as_bytes(), parts[0].parts),
            (&etag[..], count),
            "{len}"
        );
        assert_eq!(whole[0].as_bytes(), &md5::Md5::digest(&data)[..], "{len}");
        assert_eq!(
            whole[1].as_bytes(),
            &sha2::Sha256::digest(&data)[..],
            "{len}"
        );
    }
}

#[test]
fn many_files_get_each_files_answer_in_its_place() {
    // Files small, middle-sized (read whole, their parts and whole digests in lanes across
    // files) and large (read as one file is), a missing one and a folder among them, on one
    // worker and several: each answer against the independent digests, errors in place.
    let dir = tempfile::tempdir().unwrap();
    let lens = [
        0usize,
        1,
        65_535,
        65_537,
        200_000,
        1 << 20,
        (2 << 20) + 1,
        (5 << 20) + 3,
        300,
        (11 << 20) + 7,
    ];
    let requests = [
        Request::new(Combine::S3Etag, 64 << 10).unwrap(),
        Request::new(Combine::S3Etag, 5 << 20).unwrap(),
        Request::new(Combine::Composite(Algorithm::Sha256), 1 << 20).unwrap(),
    ];
    let whole = [Algorithm::Md5, Algorithm::Sha1];
    let mut paths = Vec::new();
    let mut datas = Vec::new();
    for (i, &len) in lens.iter().enumerate() {
        let data: Vec<u8> = (0..len).map(|j| (j * 7 + i) as u8).collect();
        let path = dir.path().join(format!("f{i}"));
        std::fs::write(&path, &data).unwrap();
        paths.push(path);
        datas.push(Some(data));
        if i == 3 {
            paths.push(dir.path().join("missing"));
            datas.push(None);
        }
    }
    paths.push(dir.path().to_path_buf());
    datas.push(None);
    for threads in [1, 2, 5] {
        let jobs: Vec<_> = (paths.iter())
            .enumerate()
            .map(|(i, p)| FileJob {
                path: p,
                requests: &requests,
                // Every other file asks for its parts only.
                whole: if i % 2 == 0 { &whole } else { &[] },
                // Every third says the length it has, one the length it has not.
                len: match (i % 3, &datas[i]) {
                    (0, Some(data)) => Some(data.len() as u64 + u64::from(i == 6)),
                    _ => None,
                },
            })
            .collect();
        let answers = compute_files(&jobs, parhash::Threads::new(threads));
        assert_eq!(answers.len(), jobs.len());
        for ((answer, data), job) in answers.iter().zip(&datas).zip(&jobs) {
            let Some(data) = data
                .as_ref()
                .filter(|d| job.len.is_none_or(|l| l == d.len() as u64))
            else {
                let err = answer.as_ref().unwrap_err();
                let other = job.len.is_some() && data.is_some();
                assert_eq!(
                    err.get_ref().is_some_and(|e| e.is::<FileChangedSize>()),
                    other
                );
                continue;
            };
            let whole = job.whole;
            let (parts, digests) = answer.as_ref().unwrap();
            for (got, request) in parts.iter().zip(&requests) {
                let want = expected(request.combine(), data, request.part_size() as usize);
                assert_eq!((got.digest.as_bytes(), got.parts), (&want.0[..], want.1));
            }
            assert_eq!(digests.len(), whole.len());
            if !whole.is_empty() {
                assert_eq!(digests[0].as_bytes(), &md5::Md5::digest(data)[..]);
                assert_eq!(digests[1].as_bytes(), &sha1::Sha1::digest(data)[..]);
            }
        }
    }
}

#[cfg(target_os = "linux")]
#[test]
fn a_file_that_says_zero_bytes_is_read_to_its_end() {
    // procfs files say 0 bytes whatever they hold: read to the end, as one file alone is.
    let path = std::path::Path::new("/proc/version");
    let requests = [Request::new(Combine::S3Etag, 5 << 20).unwrap()];
    let whole = [Algorithm::Md5];
    let alone = compute_file_whole(&std::fs::File::open(path).unwrap(), &requests, &whole).unwrap();
    let job = FileJob {
        path,
        requests: &requests,
        whole: &whole,
        len: None,
    };
    let many = compute_files(&[job], parhash::Threads::new(2));
    let (parts, digests) = many[0].as_ref().unwrap();
    assert_eq!(parts[0].digest, alone.0[0].digest);
    assert_eq!(digests, &alone.1);
    let text = std::fs::read(path).unwrap();
    assert!(!text.is_empty());
    assert_eq!(digests[0].as_bytes(), &md5::Md5::digest(&text)[..]);
}
