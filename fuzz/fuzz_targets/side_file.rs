//! The side file `LIST.parhash-meta` is read by `--resume` and `--update --rehash-changed`
//! and may have been written by anyone who can write beside the list. Any bytes, line by
//! line through `meta::parse_record`: no panic; a record read writes (`meta::write_record`)
//! as one line that reads back the same. The whole file through `meta::MetaReader`, as
//! `--update` (`find`, in walk order) and `--resume` (`take_if_next`) ask for its names: no
//! panic, every answer one of its records, in file order, and the offset where a resumed side
//! file is cut always at a line's end. And the side file `sum` writes for the records found
//! answers every name it holds.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use parhash_format::meta::{self, Meta, MetaReader};
use parhash_format::update::WalkOrder;

fuzz_target!(|input: &[u8]| {
    let [bits, side @ ..] = input else {
        return;
    };
    // (name, metadata, offset after its line) of each line that is a record.
    let mut records: Vec<(Vec<u8>, Meta, u64)> = Vec::new();
    let mut offset = 0;
    for line in side.split_inclusive(|&b| b == b'\n') {
        offset += line.len() as u64;
        let Some((name, recorded)) = meta::parse_record(line) else {
            continue;
        };
        let mut again = Vec::new();
        meta::write_record(&mut again, &name, &recorded);
        assert_eq!(again.iter().filter(|&&b| b == b'\n').count(), 1);
        assert!(again.ends_with(b"\n"));
        assert_eq!(meta::parse_record(&again), Some((name.clone(), recorded)));
        records.push((name, recorded, offset));
    }
    let names: Vec<Vec<u8>> = records.iter().map(|r| r.0.clone()).collect();
    let order = common::walk_order(&names, bits & 1 != 0);
    let mut queries = names.clone();
    if bits & 2 != 0 {
        queries = common::sorted_unique(&order, queries);
    }
    if bits & 4 != 0 {
        queries.retain(|name| name.len() % 2 == 0);
    }
    if bits & 8 != 0 {
        queries.insert(queries.len() / 2, b"absent".to_vec());
    }
    let resumed = bits & 16 != 0;
    read_checked(side, &records, &queries, &order, resumed);

    // The side file `sum` writes for these records (in walk order, each name once).
    let mut clean = meta::HEADER.to_vec();
    let mut written = Vec::new();
    for name in common::sorted_unique(&order, names) {
        let (_, recorded, _) = records.iter().find(|r| r.0 == name).expect("read above");
        meta::write_record(&mut clean, &name, recorded);
        written.push((name, *recorded, clean.len() as u64));
    }
    let queries: Vec<Vec<u8>> = written.iter().map(|r| r.0.clone()).collect();
    for resumed in [false, true] {
        let answers = read_checked(&clean, &written, &queries, &order, resumed);
        assert!(
            answers.iter().all(Option::is_some),
            "a written record not found"
        );
    }
});

/// Asks `side` (whose `records` are those above) for each of `queries`, checking each
/// answer; the answers.
fn read_checked(
    side: &[u8],
    records: &[(Vec<u8>, Meta, u64)],
    queries: &[Vec<u8>],
    order: &WalkOrder,
    resumed: bool,
) -> Vec<Option<Meta>> {
    let mut reader = MetaReader::new(side);
    let mut last_end = 0;
    let mut answers = Vec::new();
    for name in queries {
        let answer = match resumed {
            true => reader.take_if_next(name),
            false => reader.find(name, |a, b| order.cmp(a, b)),
        }
        .expect("a slice reads");
        let end = reader.taken_end();
        assert!(common::at_record_boundary(side, end, b'\n'));
        assert!(end >= last_end, "the cut moves back");
        if let Some(found) = answer {
            // One of the records, the one the cut now follows, and past the last one taken.
            let record = records.iter().find(|r| r.2 == end).expect("a record's end");
            let same = match resumed {
                true => record.0 == *name,
                false => order.cmp(&record.0, name).is_eq(),
            };
            assert!(same && record.1 == found && end > last_end);
        }
        last_end = end;
        answers.push(answer);
    }
    answers
}
