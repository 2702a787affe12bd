//! The piece list `LIST.parhash-pieces` is read by `check --locate` and `check --audit` and
//! may have been written by anyone who can write beside the list. Any bytes through
//! `pieces::PieceReader` and `pieces::PieceIndex`: no panic; a record read intact holds one
//! piece digest per piece, and written again (`pieces::write_record`) reads back the
//! same, intact; a record changed in one byte is never read back intact with other fields
//! or digests.
#![no_main]

use libfuzzer_sys::fuzz_target;
use parhash_format::pieces::{self, Piece, PieceIndex, PieceReader, PieceRecord};

fuzz_target!(|input: &[u8]| {
    let [flip, list @ ..] = input else {
        return;
    };
    let mut reader = PieceReader::new(list);
    let mut intact_records: Vec<(PieceRecord, Vec<Vec<u8>>)> = Vec::new();
    while let Some((record, offset)) = reader.next_record().expect("a slice reads") {
        assert!(offset < list.len() as u64);
        assert!(list[offset as usize..].starts_with(b"file "));
        let mut digests = Vec::new();
        let intact = loop {
            match reader.next_piece().expect("a slice reads") {
                Piece::Digest(digest) => {
                    assert_eq!(digest.len(), pieces::PIECE_DIGEST_LEN);
                    digests.push(digest);
                }
                Piece::End { intact } => break intact,
            }
        };
        if intact {
            assert_eq!(digests.len() as u64, record.pieces());
            intact_records.push((record, digests));
        }
    }
    let index = PieceIndex::read(list).expect("a slice reads");
    for (record, _) in &intact_records {
        assert!(index.get(&record.name).is_some());
    }
    // Written again: every record reads back intact, and one byte changed breaks it.
    let mut written = pieces::HEADER.to_vec();
    for (record, digests) in &intact_records {
        pieces::write_record(&mut written, record, digests.iter().map(Vec::as_slice));
    }
    let back = read_all(&written);
    assert_eq!(back.len(), intact_records.len());
    for ((record, digests), (r, d, intact)) in intact_records.iter().zip(&back) {
        assert!(*intact && r == record && d == digests);
    }
    if written.len() > pieces::HEADER.len() {
        let at = pieces::HEADER.len() + usize::from(*flip) % (written.len() - pieces::HEADER.len());
        let mut changed = written.clone();
        changed[at] ^= 1 << (flip % 7);
        for (r, d, intact) in read_all(&changed) {
            let unchanged = intact_records.iter().any(|(rec, ds)| *rec == r && *ds == d);
            assert!(!intact || unchanged, "a changed record read back intact");
        }
    }
});

fn read_all(list: &[u8]) -> Vec<(PieceRecord, Vec<Vec<u8>>, bool)> {
    let mut reader = PieceReader::new(list);
    let mut out = Vec::new();
    while let Some((record, _)) = reader.next_record().expect("a slice reads") {
        let mut digests = Vec::new();
        loop {
            match reader.next_piece().expect("a slice reads") {
                Piece::Digest(digest) => digests.push(digest),
                Piece::End { intact } => {
                    out.push((record, digests, intact));
                    break;
                }
            }
        }
    }
    out
}
