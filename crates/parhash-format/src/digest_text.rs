//! A digest's text as lists and object stores write it: hex, or base64 (standard alphabet,
//! padded, as `cksum --base64` and S3 write it), one reader for every line form.

/// A digest of `size` bytes written in hex, or in base64 where its length says so. Some sizes
/// have texts of one length in both (2 and 4 bytes: a CRC-32 is 8 hex digits or 8 base64
/// characters); base64 of those sizes ends in `=`, so no text is both and hex goes first.
pub(crate) fn decode_digest(text: &[u8], size: usize) -> Option<Vec<u8>> {
    if text.len() == 2 * size {
        if let Some(digest) = decode_hex(text) {
            return Some(digest);
        }
    }
    (text.len() == 4 * size.div_ceil(3))
        .then(|| decode_base64(text))
        .flatten()
        .filter(|digest| digest.len() == size)
}

/// Canonical base64 only: what encoding the bytes again gives back exactly.
pub(crate) fn decode_base64(text: &[u8]) -> Option<Vec<u8>> {
    use base64::Engine;
    let engine = base64::engine::general_purpose::STANDARD;
    let bytes = engine.decode(text).ok()?;
    (engine.encode(&bytes).as_bytes() == text).then_some(bytes)
}

/// Hex digits, either case, two per byte; none at all is not a digest.
pub(crate) fn decode_hex(hex: &[u8]) -> Option<Vec<u8>> {
    if hex.is_empty() || hex.len() % 2 != 0 {
        return None;
    }
    hex.chunks_exact(2)
        .map(|pair| {
            let high = (pair[0] as char).to_digit(16)?;
            let low = (pair[1] as char).to_digit(16)?;
            Some((high * 16 + low) as u8)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_whose_hex_and_base64_are_equally_long() {
        // CRC-32C of "hello\n" (GCS shows it in base64) and a 2-byte digest.
        assert_eq!(
            decode_digest(b"353dd8be", 4),
            Some(vec![0x35, 0x3d, 0xd8, 0xbe])
        );
        assert_eq!(
            decode_digest(b"NT3Yvg==", 4),
            Some(vec![0x35, 0x3d, 0xd8, 0xbe])
        );
        assert_eq!(decode_digest(b"tK8=", 2), Some(vec![0xb4, 0xaf]));
        assert_eq!(decode_digest(b"b4af", 2), Some(vec![0xb4, 0xaf]));
        assert_eq!(decode_digest(b"NT3Yvg=A", 4), None);
        // Lists hold canonical base64 only, as coreutils reads it: padded, no stray bits (a
        // store's value may leave its padding out: multipart.rs restores it first).
        assert_eq!(decode_base64(b"NT3Yvg"), None);
        assert_eq!(decode_base64(b"NT3Yvh=="), None);
        assert_eq!(
            decode_base64(b"NT3Yvg=="),
            Some(vec![0x35, 0x3d, 0xd8, 0xbe])
        );
    }
}
