//! Where a changed object's bytes and its local file differ (`--download-mismatches`): the
//! object read beside the file, piece by piece (never held whole), the differing byte ranges
//! and, for a multipart object, the parts they fall in. The one downloading reads the object;
//! this decides what it shows.

use std::io::{self, Read};

use serde::Serialize;

/// The object and the file are read this many bytes at a time.
pub const CHUNK: usize = 1 << 20;

/// Differing ranges found to the byte; past that many, to [`COARSE`] bytes (a file that
/// differs everywhere is not compared byte by byte).
pub const EXACT_RANGES: usize = 64;

/// The size of a range once [`EXACT_RANGES`] are known.
pub const COARSE: usize = 64 << 10;

/// Ranges named in a verdict's line (`--json` has them all).
pub const SHOWN_RANGES: usize = 4;

/// A piece this small, while ranges are exact, is compared byte by byte.
const BYTE_BY_BYTE: usize = 64;

/// Where the two differ.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Difference {
    /// The first byte that differs, None where none does.
    pub first: Option<u64>,
    /// The differing ranges `[start, end)`, in order, adjacent ones joined.
    pub ranges: Vec<(u64, u64)>,
    /// The part size of a multipart object (of more than one part).
    pub part_size: Option<u64>,
    /// Its part count.
    pub part_count: Option<u64>,
    /// The numbers (from 1) of the parts the ranges fall in.
    pub parts: Vec<u64>,
}

/// Which side a read failed on.
#[derive(Debug)]
pub enum Failed {
    /// Reading the object (the store's answer).
    Object(io::Error),
    /// Reading the local file.
    Local(io::Error),
}

/// Where `object` (a multipart one's `(part size, part count)` in `parts`) and `local` differ:
/// both read [`CHUNK`] bytes at a time, a multipart object's pieces never crossing a part's
/// end.
///
/// # Errors
/// The side a read failed on.
pub fn compare(
    object: &mut impl Read,
    local: &mut impl Read,
    parts: Option<(u64, u64)>,
) -> Result<Difference, Failed> {
    let mut found = Difference::default();
    if let Some((size, count)) = parts.filter(|&(size, count)| size > 0 && count > 1) {
        (found.part_size, found.part_count) = (Some(size), Some(count));
    }
    let (mut theirs, mut ours) = (Vec::with_capacity(CHUNK), Vec::with_capacity(CHUNK));
    let mut offset = 0u64;
    loop {
        let mut want = CHUNK as u64;
        if let Some(size) = found.part_size {
            want = want.min(size - offset % size);
        }
        let got_theirs = fill(object, &mut theirs, want).map_err(Failed::Object)?;
        let want_ours = if got_theirs == 0 { CHUNK } else { got_theirs };
        let got_ours = fill(local, &mut ours, want_ours as u64).map_err(Failed::Local)?;
        if got_theirs == 0 && got_ours == 0 {
            break;
        }
        let common = got_theirs.min(got_ours);
        found.differ(&theirs[..common], &ours[..common], offset);
        if got_theirs != got_ours {
            // One ends here: the rest of the other differs.
            let rest = if got_theirs > got_ours {
                io::copy(object, &mut io::sink()).map_err(Failed::Object)?
            } else {
                io::copy(local, &mut io::sink()).map_err(Failed::Local)?
            };
            let end = offset + got_theirs.max(got_ours) as u64 + rest;
            found.add(offset + common as u64, end);
            break;
        }
        offset += got_theirs as u64;
    }
    found.first = found.ranges.first().map(|&(start, _)| start);
    if let (Some(size), Some(count)) = (found.part_size, found.part_count) {
        let mut numbers: Vec<u64> = (found.ranges.iter())
            .flat_map(|&(start, end)| start / size + 1..=(end - 1) / size + 1)
            .filter(|&n| n <= count)
            .collect();
        numbers.sort_unstable();
        numbers.dedup();
        found.parts = numbers;
    }
    Ok(found)
}

/// `buf` refilled with up to `len` bytes of `reader` (fewer only where it ends); how many.
fn fill(reader: &mut impl Read, buf: &mut Vec<u8>, len: u64) -> io::Result<usize> {
    buf.clear();
    reader.take(len).read_to_end(buf)
}

impl Difference {
    /// Adds the ranges where two pieces of the same length differ, halving them (each half one
    /// comparison) down to a byte, or to [`COARSE`] bytes once [`EXACT_RANGES`] are known.
    fn differ(&mut self, theirs: &[u8], ours: &[u8], offset: u64) {
        if theirs == ours {
            return;
        }
        let exact = self.ranges.len() < EXACT_RANGES;
        if theirs.len() <= if exact { BYTE_BY_BYTE } else { COARSE } {
            if !exact {
                self.add(offset, offset + theirs.len() as u64);
                return;
            }
            for (i, (a, b)) in theirs.iter().zip(ours).enumerate() {
                if a != b {
                    self.add(offset + i as u64, offset + i as u64 + 1);
                }
            }
            return;
        }
        let half = theirs.len() / 2;
        self.differ(&theirs[..half], &ours[..half], offset);
        self.differ(&theirs[half..], &ours[half..], offset + half as u64);
    }

    fn add(&mut self, start: u64, end: u64) {
        match self.ranges.last_mut() {
            Some(last) if last.1 == start => last.1 = end,
            _ => self.ranges.push((start, end)),
        }
    }

    /// In words, for a verdict's reason: the first difference, the first [`SHOWN_RANGES`]
    /// ranges (inclusive), the parts.
    pub fn text(&self) -> String {
        let Some(first) = self.first else {
            return "downloaded: its bytes are the file's".into();
        };
        let shown: Vec<String> = (self.ranges.iter().take(SHOWN_RANGES))
            .map(|(start, end)| format!("{start}-{}", end - 1))
            .collect();
        let mut words = format!(
            "downloaded: first difference at byte {first}; bytes {}",
            shown.join(", ")
        );
        if self.ranges.len() > SHOWN_RANGES {
            words += &format!(" and {} more ranges", self.ranges.len() - SHOWN_RANGES);
        }
        if let Some(count) = self.part_count.filter(|&c| c > 0) {
            let numbers: Vec<String> = self.parts.iter().map(u64::to_string).collect();
            let s = if self.parts.len() > 1 { "s" } else { "" };
            words += &format!("; part{s} {} of {count}", numbers.join(", "));
        }
        words
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compared(theirs: &[u8], ours: &[u8], parts: Option<(u64, u64)>) -> Difference {
        compare(&mut &theirs[..], &mut &ours[..], parts).unwrap()
    }

    #[test]
    fn ranges_are_exact_then_coarse_and_name_their_parts() {
        let theirs: Vec<u8> = (0..3_000_000u32).map(|i| i as u8).collect();
        let mut ours = theirs.clone();
        for i in [10, 11, 12, 2_000_000] {
            ours[i] ^= 1;
        }
        let found = compared(&theirs, &ours, Some((1 << 20, 3)));
        assert_eq!(found.ranges, vec![(10, 13), (2_000_000, 2_000_001)]);
        assert_eq!((found.first, found.parts.clone()), (Some(10), vec![1, 2]));
        assert_eq!(
            found.text(),
            "downloaded: first difference at byte 10; bytes 10-12, 2000000-2000000; parts 1, 2 of 3"
        );
        // Every 1000th byte: the first EXACT_RANGES to the byte, the rest in COARSE ranges
        // that still hold each one.
        let mut ours = theirs.clone();
        for i in (0..theirs.len()).step_by(1000) {
            ours[i] ^= 1;
        }
        let found = compared(&theirs, &ours, None);
        assert!(found.ranges[..EXACT_RANGES]
            .iter()
            .enumerate()
            .all(|(k, &r)| r == (k as u64 * 1000, k as u64 * 1000 + 1)));
        assert!((0..theirs.len() as u64)
            .step_by(1000)
            .all(|i| found.ranges.iter().any(|&(a, b)| a <= i && i < b)));
        assert!(found.text().contains(" more ranges") && found.part_count.is_none());
    }

    #[test]
    fn a_longer_side_differs_to_its_end() {
        assert_eq!(compared(b"abc", b"abcxyz", None).ranges, vec![(3, 6)]);
        assert_eq!(compared(b"abcdef", b"ab", None).ranges, vec![(2, 6)]);
        let same = compared(b"abc", b"abc", None);
        assert_eq!(
            (same.first, same.text().as_str()),
            (None, "downloaded: its bytes are the file's")
        );
    }
}
