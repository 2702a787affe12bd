//! `sum -o FILE --resume` reads back a list that anyone who can write FILE may have written.
//! Any bytes as the list, in any algorithm and style, against a walk made from its own names
//! (some dropped, some added, some unreadable), through `resume::Prefix`: no panic; an
//! error is a `ResumeError`; the part kept is whole records, each one `sum` writes for that
//! algorithm and style (writing its name and digest again gives its bytes), naming the kept
//! files in the walk's order; a torn or foreign line is only ever the last. And the list
//! `sum` itself writes for the names found is kept whole.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use parhash::Algorithm;
use parhash_format::line::{write_line, LineStyle};
use parhash_format::resume::{own_entry, OwnEntry, Prefix, Records, ResumeError, Step};

/// Names the walk says cannot be read now.
const UNREADABLE: &[u8] = b"\xffunreadable";

fuzz_target!(|input: &[u8]| {
    let Some(common::ListInput {
        algorithm,
        style,
        walk_bits,
        list,
        records,
    }) = common::list_input(input)
    else {
        return;
    };
    let terminator = common::terminator(style);
    assert_eq!(
        records.iter().map(|r| r.bytes.len()).sum::<usize>(),
        list.len()
    );
    let mut own = Vec::new();
    for (at, record) in records.iter().enumerate() {
        assert_eq!(
            record.complete,
            at + 1 < records.len() || list.ends_with(&[terminator])
        );
        if let Some(entry) = own_entry(&record.bytes, algorithm, style) {
            // An own entry is a whole record, written again byte for byte.
            assert!(record.complete);
            let mut again = Vec::new();
            write_line(&mut again, algorithm, &entry.digest, &entry.name, style);
            assert_eq!(again, record.bytes);
            own.push(entry);
        }
    }

    let names: Vec<Vec<u8>> = own.iter().map(|e| e.name.clone()).collect();
    let walk = perturbed(&names, walk_bits);
    let all_fail = walk_bits & 0x80 != 0;
    let fails_now = |name: &[u8]| all_fail || name.starts_with(UNREADABLE);
    let _ = resume_checked(list, algorithm, style, &walk, fails_now);

    // The list `sum` writes for these entries, and the walk of their names: kept whole.
    let mut clean = Vec::new();
    let mut seen: Vec<&OwnEntry> = Vec::new();
    for entry in &own {
        if entry.name.starts_with(UNREADABLE) || seen.iter().any(|e| e.name == entry.name) {
            continue;
        }
        write_line(&mut clean, algorithm, &entry.digest, &entry.name, style);
        seen.push(entry);
    }
    let walk: Vec<Vec<u8>> = seen.iter().map(|e| e.name.clone()).collect();
    let (end, steps) = resume_checked(&clean, algorithm, style, &walk, |_| false);
    assert_eq!(end, Ok(clean.len() as u64));
    assert!(steps.iter().all(|&step| step == Step::Kept));
});

/// The walk: the list's names, changed as `bits` say.
fn perturbed(names: &[Vec<u8>], bits: u8) -> Vec<Vec<u8>> {
    let mut walk = names.to_vec();
    let dropped = usize::from(bits & 3).min(walk.len());
    walk.truncate(walk.len() - dropped);
    if bits & 4 != 0 && !walk.is_empty() {
        walk.insert(1.min(walk.len()), [UNREADABLE, b"/gap"].concat());
    }
    if bits & 8 != 0 && walk.len() > 1 {
        walk[1].extend_from_slice(b".renamed");
    }
    if bits & 16 != 0 {
        walk.push(b"new".to_vec());
        walk.push([UNREADABLE, b"/late"].concat());
    }
    if bits & 32 != 0 {
        walk.reverse();
    }
    if bits & 64 != 0 {
        walk.insert(0, b"first".to_vec());
    }
    walk
}

/// Resumes `list` against `walk`, checking what must hold of every answer; the offset where
/// the list is continued (or why not) and the steps taken.
fn resume_checked(
    list: &[u8],
    algorithm: Algorithm,
    style: LineStyle,
    walk: &[Vec<u8>],
    fails_now: impl Fn(&[u8]) -> bool,
) -> (Result<u64, String>, Vec<Step>) {
    let terminator = common::terminator(style);
    let records = Records::new(list, terminator).count() as u64;
    let mut prefix = Prefix::new(list, algorithm, style);
    let mut steps = Vec::new();
    let mut kept_names = Vec::new();
    let mut failed = None;
    for name in walk {
        match prefix.step(name, || fails_now(name)) {
            Ok(step) => {
                if steps.last() == Some(&Step::Resume) {
                    assert_eq!(step, Step::Resume, "a resumed walk goes on resuming");
                }
                if step == Step::Kept {
                    kept_names.push(name.clone());
                }
                steps.push(step);
            }
            Err(err) => {
                assert!(
                    matches!(
                        err,
                        ResumeError::Foreign { .. } | ResumeError::Mismatch { .. }
                    ),
                    "{err:?}"
                );
                failed = Some(err.to_string());
                break;
            }
        }
    }
    let kept_end = prefix.kept_end();
    assert!(common::at_record_boundary(list, kept_end, terminator));
    // The kept part: whole records, each this command's, naming the kept files in order.
    let kept = &list[..kept_end as usize];
    let kept_entries: Vec<Vec<u8>> = Records::new(kept, terminator)
        .map(|record| {
            let record = record.expect("a slice reads");
            own_entry(&record.bytes, algorithm, style)
                .expect("a kept record is this command's")
                .name
        })
        .collect();
    assert_eq!(kept_entries, kept_names);
    assert_eq!(prefix.kept(), kept_names.len() as u64);
    if let Some(torn) = prefix.torn_line() {
        assert_eq!(torn, records, "only the last line is torn");
    }
    let end = match failed {
        Some(err) => Err(err),
        None => match prefix.finish() {
            Ok(end) => {
                assert_eq!(end, kept_end);
                Ok(end)
            }
            Err(err) => {
                assert!(
                    matches!(
                        err,
                        ResumeError::Foreign { .. } | ResumeError::Leftover { .. }
                    ),
                    "{err:?}"
                );
                Err(err.to_string())
            }
        },
    };
    (end, steps)
}
