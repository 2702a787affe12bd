//! One record (line) of a list read with a bound on its length, for every reader of lists that
//! someone else may have written: `check` and its audit, the `--resume` and `--update` readers
//! (`resume::Records`) and the side file (`meta`).
//!
//! A record longer than [`MAX_RECORD_BYTES`] is read on to its terminator and dropped, never
//! held: the caller counts it as improperly formatted (as coreutils counts a line it cannot
//! parse) and goes on with the next. So a list's memory is one record, however long its lines
//! are; an input that never has a terminator (`/dev/zero`) is read until it ends, in that
//! memory, as coreutils reads it.

use std::io::{self, BufRead};

/// The longest record kept, terminator excluded: 4 MiB. Longer than any line parhash writes
/// (the longest digest, [`parhash::Output::MAX`] = 1 MiB, is 2 MiB of hex, or of JSON; a
/// name is at most a few KiB), so only a damaged or hostile list has longer ones.
pub const MAX_RECORD_BYTES: usize = 4 << 20;

// The longest digest in hex, with room for the tag and a name.
const _: () = assert!(MAX_RECORD_BYTES >= 2 * parhash::Output::MAX + (1 << 20));

/// What [`read_record`] read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Read {
    /// Nothing: the input has ended.
    End,
    /// A record, in the buffer: `len` bytes, its terminator included when `complete`.
    Kept {
        /// Its length in the input.
        len: u64,
        /// It ends with the terminator (the input's last record may not).
        complete: bool,
    },
    /// A record longer than [`MAX_RECORD_BYTES`], read past and dropped: the buffer is empty.
    TooLong {
        /// Its length in the input.
        len: u64,
        /// It ends with the terminator.
        complete: bool,
    },
}

/// Reads the next record ended by `terminator` from `reader` into `record` (cleared first).
/// A read interrupted by a signal is retried; another error is returned, what was read of
/// the record left in `record`.
///
/// # Errors
/// The reader's.
pub fn read_record<R: BufRead + ?Sized>(
    reader: &mut R,
    terminator: u8,
    record: &mut Vec<u8>,
) -> io::Result<Read> {
    record.clear();
    let mut len = 0u64;
    let mut too_long = false;
    loop {
        let available = match reader.fill_buf() {
            Ok(available) => available,
            Err(err) if err.kind() == io::ErrorKind::Interrupted => continue,
            Err(err) => return Err(err),
        };
        if available.is_empty() {
            return Ok(ended(len, too_long, false));
        }
        let (take, complete) = match available.iter().position(|&b| b == terminator) {
            Some(at) => (at + 1, true),
            None => (available.len(), false),
        };
        let text = take - usize::from(complete);
        if !too_long && record.len() + text > MAX_RECORD_BYTES {
            too_long = true;
            *record = Vec::new();
        }
        if !too_long {
            record.extend_from_slice(&available[..take]);
        }
        reader.consume(take);
        len += take as u64;
        if complete {
            return Ok(ended(len, too_long, true));
        }
    }
}

fn ended(len: u64, too_long: bool, complete: bool) -> Read {
    match (len, too_long) {
        (0, _) => Read::End,
        (_, false) => Read::Kept { len, complete },
        (_, true) => Read::TooLong { len, complete },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(input: &[u8], terminator: u8, capacity: usize) -> Vec<(Read, Vec<u8>)> {
        let mut reader = io::BufReader::with_capacity(capacity, input);
        let mut out = Vec::new();
        let mut record = Vec::new();
        loop {
            let read = read_record(&mut reader, terminator, &mut record).unwrap();
            if read == Read::End {
                return out;
            }
            out.push((read, record.clone()));
        }
    }

    #[test]
    fn records_up_to_the_bound_are_kept_longer_ones_dropped_to_their_terminator() {
        let at_bound = vec![b'a'; MAX_RECORD_BYTES];
        let over = vec![b'b'; MAX_RECORD_BYTES + 1];
        let mut input = b"x\n".to_vec();
        input.extend_from_slice(&at_bound);
        input.push(b'\n');
        input.extend_from_slice(&over);
        input.extend_from_slice(b"\ny\nz");
        let kept = |bytes: &[u8], complete| {
            let len = bytes.len() as u64;
            (Read::Kept { len, complete }, bytes.to_vec())
        };
        let mut bound_line = at_bound.clone();
        bound_line.push(b'\n');
        let too_long = Read::TooLong {
            len: over.len() as u64 + 1,
            complete: true,
        };
        // Buffers smaller and larger than a record: the bound does not depend on them.
        for capacity in [7, 1 << 16, 3 * MAX_RECORD_BYTES] {
            assert_eq!(
                records(&input, b'\n', capacity),
                [
                    kept(b"x\n", true),
                    kept(&bound_line, true),
                    (too_long, Vec::new()),
                    kept(b"y\n", true),
                    kept(b"z", false),
                ],
                "{capacity}"
            );
        }
    }

    #[test]
    fn a_last_record_without_terminator_over_the_bound_is_torn_and_dropped() {
        let mut input = b"a\0".to_vec();
        input.extend(std::iter::repeat_n(b'\n', 2 * MAX_RECORD_BYTES));
        let read = records(&input, b'\0', 1 << 16);
        let len = 2 * MAX_RECORD_BYTES as u64;
        assert_eq!(
            read[1],
            (
                Read::TooLong {
                    len,
                    complete: false
                },
                Vec::new()
            )
        );
        assert_eq!(read.len(), 2);
    }

    #[test]
    fn an_endless_record_is_read_in_bounded_memory() {
        // 64 MiB of zeros without a terminator: consumed, never held.
        let mut reader = io::BufReader::new(io::Read::take(io::repeat(0), 64 << 20));
        let mut record = Vec::new();
        let read = read_record(&mut reader, b'\n', &mut record).unwrap();
        assert_eq!(
            read,
            Read::TooLong {
                len: 64 << 20,
                complete: false
            }
        );
        assert!(record.capacity() <= MAX_RECORD_BYTES + (8 << 10));
    }
}
