//! Digest values: inline up to the longest fixed digest, on the heap beyond.

use std::fmt;
use std::num::NonZeroU8;

/// A digest value.
///
/// Digests of up to [`Output::INLINE`] bytes (64: every fixed-length digest but Skein-1024's
/// 128 bytes) are held inline, without an allocation, so the many small digests of the batch
/// and many-file engines cost a copy each and nothing more. Longer digests (Skein-1024, the
/// longer outputs an extendable-output function such as BLAKE3 or SHAKE can be asked for, up
/// to [`Output::MAX`] bytes) are held on the heap: a digest that may be a megabyte long cannot
/// be `Copy`, so `Output` is `Clone` (cheap for inline digests).
#[derive(Clone)]
pub struct Output(Stored);

/// Where an [`Output`]'s bytes live.
#[derive(Clone)]
enum Stored {
    Inline(Inline),
    Heap(Box<[u8]>),
}

/// An inline digest: its bytes at the start of the `Output`, 8-byte aligned, so a digest is
/// written and read with aligned wide stores and loads (after an enum's tag and a length byte
/// they were at offset 2: every 16-byte access unaligned, some split over two cache lines).
/// The length is kept plus one so that its zero is a niche that tells `Stored::Heap` apart:
/// no tag byte, the `Output` stays 72 bytes.
#[derive(Clone)]
#[repr(C, align(8))]
struct Inline {
    bytes: [u8; Output::INLINE],
    len_plus_one: NonZeroU8,
}

impl Output {
    /// The longest digest held inline: 64 bytes, every fixed-length digest but Skein-1024's.
    /// Not 128 (Skein-1024's): an `Output` is written and moved once per message, and with
    /// 128 inline bytes a 64-byte BLAKE3 message took ~10 % longer through [`hash`](crate::hash)
    /// than by the `blake3` crate (zeroing the array; moves of over 128 bytes become `memcpy`
    /// calls), against none with 64.
    pub const INLINE: usize = 64;

    /// The longest fixed-length digest (Skein-1024's 128 bytes): scratch space for a kernel's
    /// digest before it becomes an `Output`.
    pub(crate) const LONGEST_FIXED: usize = 128;

    /// The longest digest parhash computes: 1 MiB (8,388,608 bits), for the extendable-output
    /// functions (BLAKE3, SHAKE128, SHAKE256). b3sum and OpenSSL accept any length, but a
    /// digest is printed as one hexadecimal line and the many-file engine holds a window of
    /// them, so the length is bounded where memory stays modest (a 1 MiB digest is a 2 MiB
    /// line). Longer output of an XOF: [`Hasher::finalize_xof_into_reset`](crate::Hasher::finalize_xof_into_reset), into the caller's
    /// buffer, any length.
    pub const MAX: usize = 1 << 20;

    /// `len` bytes written in place by `finalize` (one copy less than [`Output::from_slice`]).
    #[inline]
    pub(super) fn filled(
        len: usize,
        finalize: impl FnOnce(&mut [u8]) -> Result<(), digest::InvalidBufferSize>,
    ) -> Self {
        if len > Output::INLINE {
            let mut bytes = vec![0; len].into_boxed_slice();
            finalize(&mut bytes).expect("buffer sized from output_size");
            return Output(Stored::Heap(bytes));
        }
        let mut bytes = [0; Output::INLINE];
        finalize(&mut bytes[..len]).expect("buffer sized from output_size");
        Output(Stored::Inline(Inline {
            bytes,
            len_plus_one: NonZeroU8::MIN.saturating_add(len as u8),
        }))
    }

    /// Wraps digest bytes (of any length: inline up to [`Output::INLINE`], on the heap above).
    #[inline]
    pub fn from_slice(bytes: &[u8]) -> Self {
        Output::filled(bytes.len(), |out| {
            out.copy_from_slice(bytes);
            Ok(())
        })
    }

    /// The digest bytes.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        match &self.0 {
            Stored::Inline(inline) => &inline.bytes[..usize::from(inline.len_plus_one.get() - 1)],
            Stored::Heap(bytes) => bytes,
        }
    }

    /// The digest's length in bytes.
    #[inline]
    pub fn len(&self) -> usize {
        self.as_bytes().len()
    }

    /// Whether the digest has no bytes (only an empty [`Output::from_slice`]).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Lowercase hexadecimal.
    pub fn to_hex(&self) -> String {
        format!("{self:x}")
    }
}

// Equality and hashing by the bytes, whatever their storage.
impl PartialEq for Output {
    fn eq(&self, other: &Self) -> bool {
        self.as_bytes() == other.as_bytes()
    }
}

impl Eq for Output {}

impl std::hash::Hash for Output {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_bytes().hash(state);
    }
}

impl AsRef<[u8]> for Output {
    fn as_ref(&self) -> &[u8] {
        self.as_bytes()
    }
}

impl fmt::LowerHex for Output {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // A piece at a time: one `write!` per byte is slow for a megabyte-long XOF output.
        let mut text = [0u8; 256];
        for piece in self.as_bytes().chunks(text.len() / 2) {
            let text = &mut text[..2 * piece.len()];
            hex::encode_to_slice(piece, text).expect("twice the bytes");
            f.write_str(std::str::from_utf8(text).expect("hexadecimal digits are ASCII"))?;
        }
        Ok(())
    }
}

impl fmt::Debug for Output {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Output({self:x})")
    }
}

impl fmt::Display for Output {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::LowerHex::fmt(self, f)
    }
}
