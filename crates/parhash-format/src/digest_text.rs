//! A digest's text as lists and object stores write it: hex, or base64 (standard alphabet,
//! padded, as `cksum --base64` and S3 write it), one reader for every line form.

/// A digest of `size` bytes written in hex, or in base64 where its length says so.
pub(crate) fn decode_digest(text: &[u8], size: usize) -> Option<Vec<u8>> {
    if text.len() == 2 * size {
        return decode_hex(text);
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
