//! `sum -o FILE --update` reads a list that anyone who can write FILE may have written and
//! merges it with a new walk. Any bytes as the list, in any algorithm and style, with a walk
//! order from its own names, through `update::ListEntries` and `update::Merge`: no panic; an
//! error is an `UpdateError`; each entry read is a whole record `sum` writes for that
//! algorithm and style, strictly after the one before in walk order; the merge hands on every
//! entry once (kept or gone) and every walked file once (kept or new), in walk order. And the
//! list `sum` writes for the names found merges exactly: kept where the walk has the name,
//! gone where it has not, new for the walk's other names.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use parhash::Algorithm;
use parhash_format::line::{write_line, LineStyle};
use parhash_format::resume::{own_entry, Records};
use parhash_format::update::{ListEntries, ListEntry, Merge, Merged, UpdateError, WalkOrder};

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
    let own: Vec<_> = records
        .iter()
        .filter_map(|record| own_entry(&record.bytes, algorithm, style))
        .collect();
    let names: Vec<Vec<u8>> = own.iter().map(|e| e.name.clone()).collect();
    let order = common::walk_order(&names, walk_bits & 1 != 0);

    // The list as it is.
    let entries = entries_checked(list, algorithm, style, &order, &records);
    let walk = walked(&order, &names, walk_bits);
    merge_checked(list, algorithm, style, &order, &walk, entries.is_ok());

    // The list `sum` writes for the names found, in walk order: read whole, merged exactly.
    let mut clean = Vec::new();
    let mut listed = Vec::new();
    for name in common::sorted_unique(&order, names) {
        let entry = own
            .iter()
            .find(|e| e.name == name)
            .expect("a name of the list");
        write_line(&mut clean, algorithm, &entry.digest, &entry.name, style);
        listed.push(name);
    }
    let clean_records = common::records(&clean, terminator);
    let entries = entries_checked(&clean, algorithm, style, &order, &clean_records)
        .expect("the list sum writes is read whole");
    assert_eq!(
        entries.iter().map(|e| &e.name).collect::<Vec<_>>(),
        listed.iter().collect::<Vec<_>>()
    );
    let steps = merge_checked(&clean, algorithm, style, &order, &walk, true);
    let in_walk = |name: &[u8]| walk.iter().any(|w| order.cmp(w, name).is_eq());
    let in_list = |name: &[u8]| listed.iter().any(|l| order.cmp(l, name).is_eq());
    for step in &steps {
        match step {
            Merged::Both(entry, _) => assert!(in_walk(&entry.name)),
            Merged::Gone(entry) => assert!(!in_walk(&entry.name)),
            Merged::New(walked) => assert!(!in_list(walked)),
        }
    }
});

/// The walk: the list's names (some dropped, some new ones), in walk order, each once.
fn walked(order: &WalkOrder, names: &[Vec<u8>], bits: u8) -> Vec<Vec<u8>> {
    let mut walk: Vec<Vec<u8>> = names
        .iter()
        .enumerate()
        .filter(|(at, _)| bits & 2 == 0 || at % 3 != 1)
        .map(|(_, name)| name.clone())
        .collect();
    if bits & 4 != 0 {
        if let Some(first) = names.first() {
            walk.push([&first[..], b"/new"].concat());
            walk.push([&first[..], b".new"].concat());
        }
    }
    if bits & 8 != 0 {
        walk.extend([b"".to_vec(), b"/".to_vec(), b"z".to_vec(), b"a/b".to_vec()]);
    }
    common::sorted_unique(order, walk)
}

/// Reads the entries of `list` (its `records`), checking each; all of them, or the first
/// error.
fn entries_checked(
    list: &[u8],
    algorithm: Algorithm,
    style: LineStyle,
    order: &WalkOrder,
    records: &[parhash_format::resume::Record],
) -> Result<Vec<ListEntry>, String> {
    let mut entries: Vec<ListEntry> = Vec::new();
    for entry in ListEntries::new(list, algorithm, style, order.clone()) {
        match entry {
            Ok(entry) => {
                let record = &records[entry.line as usize - 1];
                assert_eq!(entry.record, record.bytes);
                let own = own_entry(&entry.record, algorithm, style).expect("an own entry");
                assert_eq!(own.name, entry.name);
                if let Some(previous) = entries.last() {
                    assert!(previous.line < entry.line);
                    assert!(order.cmp(&previous.name, &entry.name).is_lt());
                }
                entries.push(entry);
            }
            Err(err) => {
                match err {
                    // A line other than the last (a torn or foreign last line is passed
                    // over: its file is hashed again).
                    UpdateError::Foreign { line } => assert!(line < records.len() as u64),
                    UpdateError::Unordered { line } => assert!(line <= records.len() as u64),
                    UpdateError::Io(ref err) => panic!("a slice reads: {err}"),
                }
                return Err(err.to_string());
            }
        }
    }
    Ok(entries)
}

/// Merges the list with `walk`, checking that every entry and every walked name is handed on
/// once, in walk order; the steps up to the first error.
fn merge_checked(
    list: &[u8],
    algorithm: Algorithm,
    style: LineStyle,
    order: &WalkOrder,
    walk: &[Vec<u8>],
    readable: bool,
) -> Vec<Merged<Vec<u8>>> {
    let entries = ListEntries::new(list, algorithm, style, order.clone());
    let name_of: fn(&Vec<u8>) -> &[u8] = |name| name;
    let merge = Merge::new(entries, walk.iter().cloned(), order.clone(), name_of);
    let mut steps = Vec::new();
    let mut failed = false;
    // Each step takes an entry or a walked name (or both).
    let most = Records::new(list, common::terminator(style)).count() + walk.len();
    for (n, step) in merge.enumerate() {
        assert!(n <= most, "the merge does not end");
        match step {
            Ok(step) => steps.push(step),
            Err(_) => {
                failed = true;
                break;
            }
        }
    }
    assert_eq!(failed, !readable);
    let mut listed_seen = Vec::new();
    let mut walk_seen = Vec::new();
    let mut last: Option<&[u8]> = None;
    for step in &steps {
        let name: &[u8] = match step {
            Merged::Both(entry, walked) => {
                assert!(order.cmp(&entry.name, walked).is_eq());
                listed_seen.push(&entry.name);
                walk_seen.push(walked);
                walked
            }
            Merged::Gone(entry) => {
                listed_seen.push(&entry.name);
                &entry.name
            }
            Merged::New(walked) => {
                walk_seen.push(walked);
                walked
            }
        };
        if let Some(last) = last {
            assert!(order.cmp(last, name).is_lt(), "merged out of walk order");
        }
        last = Some(name);
    }
    if readable {
        assert_eq!(walk_seen, walk.iter().collect::<Vec<_>>());
        let entries = ListEntries::new(list, algorithm, style, order.clone());
        let names: Vec<Vec<u8>> = entries.map(|e| e.expect("readable").name).collect();
        assert_eq!(listed_seen, names.iter().collect::<Vec<_>>());
    } else {
        assert!(walk_seen
            .iter()
            .zip(walk)
            .all(|(seen, walked)| *seen == walked));
    }
    steps
}
