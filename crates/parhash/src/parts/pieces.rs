//! A part's range read a piece at a time, what every family's `hash_part_from` does.

use std::cell::Cell;
use std::io;
use std::ops::Range;

/// Reads `range` of the message through `read(offset, buf)` in pieces of at most `piece`
/// bytes, into a buffer the calling thread keeps (parts of one piece each would otherwise cost
/// an allocation, and its zeroing, per piece), and hands each piece to `consume` with its
/// offset.
///
/// # Errors
/// The first error `read` returns.
pub(crate) fn read_in_pieces(
    range: Range<u64>,
    piece: usize,
    mut read: impl FnMut(u64, &mut [u8]) -> io::Result<()>,
    mut consume: impl FnMut(u64, &[u8]),
) -> io::Result<()> {
    thread_local! {
        static BUFFER: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
    }
    let mut buffer = BUFFER.take();
    buffer.resize(piece, 0);
    let mut offset = range.start;
    let result = loop {
        if offset == range.end {
            break Ok(());
        }
        let bytes = &mut buffer[..(range.end - offset).min(piece as u64) as usize];
        if let Err(err) = read(offset, bytes) {
            break Err(err);
        }
        consume(offset, bytes);
        offset += bytes.len() as u64;
    };
    BUFFER.set(buffer);
    result
}

/// The `read(offset, buf)` of a `combine_from` over `message`, in memory: the `combine` of a
/// message at hand.
pub(crate) fn read_in(message: &[u8]) -> impl FnMut(u64, &mut [u8]) -> io::Result<()> + '_ {
    move |offset, buf| {
        let at = offset as usize;
        buf.copy_from_slice(&message[at..at + buf.len()]);
        Ok(())
    }
}
