//! What an object store answers is untrusted input: a hostile or broken store's ETags,
//! checksum values, checksum types, encryption fields and sizes into the rules that pick the
//! checksum a verification checks (`parhash_store::rules`), the list lines and records
//! (`catalog`), and a downloaded object's bytes against a file (`difference`). None may panic;
//! a verdict is never `matched` unless what the file gave is what the store showed; every
//! differing byte falls in a range that `difference` reports, and no range holds equal bytes
//! while the ranges are exact.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parhash_store::difference::{self, EXACT_RANGES};
use parhash_store::rules::{self, Head, ADDITIONAL};
use parhash_store::{catalog, report::Verdict};

fuzz_target!(|data: &[u8]| {
    let Some((&split, data)) = data.split_first() else {
        return;
    };
    let (answer, bytes) = data.split_at((usize::from(split) * 4).min(data.len()));
    store_answer(answer);
    downloaded(bytes);
});

/// `answer`'s fields, apart at 0xff: the ETag, a checksum type, SSE, SSE-C, the size, the
/// smallest part, then (algorithm byte, value) pairs.
fn store_answer(answer: &[u8]) {
    let fields: Vec<String> = (answer.split(|&b| b == 0xff))
        .map(|f| String::from_utf8_lossy(f).into_owned())
        .collect();
    let field = |i: usize| fields.get(i).cloned().unwrap_or_default();
    let optional = |i: usize| fields.get(i).filter(|f| !f.is_empty()).cloned();
    let number =
        |i: usize| (field(i).bytes().take(8)).fold(0u64, |n, b| n << 8 | u64::from(b)) % (1 << 40);
    let checksums = (fields.iter().skip(6))
        .filter_map(|f| {
            let (&which, value) = f.as_bytes().split_first()?;
            let (_, name) = ADDITIONAL[usize::from(which) % ADDITIONAL.len()];
            Some((name, String::from_utf8_lossy(value).into_owned()))
        })
        .collect();
    let head = Head {
        etag: field(0),
        checksums,
        checksum_type: optional(1),
        server_side_encryption: optional(2),
        sse_customer_algorithm: optional(3),
    };
    let _ = head.needs_checksum_type();
    let (size, min_part) = (number(4), number(5).max(1));
    let exp = match rules::expected(&head) {
        Ok(exp) => exp,
        Err(why) => {
            assert!(!why.is_empty());
            return;
        }
    };
    assert!(catalog::line(&exp, "n").ends_with(b"\n"));
    let object = catalog::Object {
        key: "p/n".into(),
        name: "n".into(),
        size,
        head: head.clone(),
        expected: Ok(exp.clone()),
    };
    let _: serde_json::Value = serde_json::from_str(&object.record()).expect("a record is JSON");
    let Some(wanted) = rules::requests_for(&exp, size, min_part) else {
        let verdict = rules::no_part_size(&exp, "n", "p/n", size);
        assert_ne!(verdict.status, "matched");
        return;
    };
    // What a file that is not the object gives: a digest of the right length, one off.
    let mut other = exp.digest.clone();
    if let Some(byte) = other.first_mut() {
        *byte ^= 1;
    }
    let count = wanted.requests().len().max(wanted.whole().len());
    let parts = exp.parts.unwrap_or(1);
    let found: Vec<(&[u8], u64)> = vec![(&other[..], parts); count];
    let verdict: Verdict = rules::verdict(&exp, "n", "p/n", &wanted, &found);
    assert!(
        verdict.status != "matched" || exp.digest.is_empty(),
        "a digest the store did not show matched: {verdict:?}"
    );
    let same: Vec<(&[u8], u64)> = vec![(&exp.digest[..], parts); count];
    let _ = rules::verdict(&exp, "n", "p/n", &wanted, &same);
}

/// The first half of `bytes` as the object, the rest as the file, with a part size from the
/// first byte.
fn downloaded(bytes: &[u8]) {
    let Some((&part, bytes)) = bytes.split_first() else {
        return;
    };
    let (theirs, ours) = bytes.split_at(bytes.len() / 2);
    let part_size = u64::from(part % 16) + 1;
    let count = (theirs.len() as u64).div_ceil(part_size);
    let found = difference::compare(&mut &theirs[..], &mut &ours[..], Some((part_size, count)))
        .expect("slices read");
    let longer = theirs.len().max(ours.len()) as u64;
    for i in 0..longer {
        let differs = theirs.get(i as usize) != ours.get(i as usize);
        let covered = found.ranges.iter().any(|&(a, b)| a <= i && i < b);
        assert!(!differs || covered, "byte {i} differs outside every range");
    }
    assert!(
        found.ranges.windows(2).all(|w| w[0].1 < w[1].0),
        "ranges in order, apart"
    );
    assert!(found.ranges.iter().all(|&(a, b)| a < b && b <= longer));
    // Ranges are exact while fewer than EXACT_RANGES were known at each one's making.
    if found.ranges.len() < EXACT_RANGES && theirs.len() == ours.len() {
        for &(a, b) in &found.ranges {
            assert!(
                (a..b).all(|i| theirs[i as usize] != ours[i as usize]),
                "an exact range holds equal bytes"
            );
        }
    }
    assert_eq!(found.first, found.ranges.first().map(|r| r.0));
    let _ = found.text();
}
