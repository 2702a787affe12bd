//! Byte sizes as people write them on a command line (`4KiB`, `1.5M`, `8MiB`, `50MB`): the one
//! parser of `sum --part-size` and the benchmark lab's sizes.

/// Parses a byte size: a number (decimal point allowed) with an optional suffix. `k`, `m`, `g`,
/// `t` and their `KiB`-style spellings are binary (1024); `kB`, `MB`, `GB`, `TB` are decimal
/// (1000), like the seeds' "50 MB". `1e6` is accepted for powers of ten.
///
/// # Errors
/// A message naming the text, for anything else or a fraction of a byte.
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let bad = || format!("'{text}' is not a size (examples: 64, 4KiB, 1.5M, 50MB, 1e8)");
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.' || c == 'e' || c == 'E'))
        .unwrap_or(t.len());
    // A trailing 'e'/'E' belongs to no exponent: treat "1e" as malformed.
    let (number, suffix) = t.split_at(split);
    if number.is_empty() {
        return Err(bad());
    }
    let value: f64 = number.parse().map_err(|_| bad())?;
    let multiplier = match suffix.trim() {
        "" | "b" | "B" => 1.0,
        "k" | "K" | "KiB" | "kiB" | "Ki" | "ki" => 1024.0,
        "m" | "M" | "MiB" | "Mi" => 1024.0 * 1024.0,
        "g" | "G" | "GiB" | "Gi" => 1024.0 * 1024.0 * 1024.0,
        "t" | "T" | "TiB" | "Ti" => 1024.0f64.powi(4),
        suffix if is_decimal_suffix(suffix) => decimal_multiplier(suffix),
        _ => return Err(bad()),
    };
    let bytes = value * multiplier;
    if !bytes.is_finite() || bytes < 0.0 || bytes > (usize::MAX / 2) as f64 {
        return Err(bad());
    }
    if bytes.fract() != 0.0 {
        return Err(format!("'{text}' is not a whole number of bytes"));
    }
    Ok(bytes as u64)
}

/// Whether `suffix` is one of the decimal units (`kB`, `KB`, `MB`, `GB`, `TB`).
pub fn is_decimal_suffix(suffix: &str) -> bool {
    matches!(suffix.trim(), "kB" | "KB" | "MB" | "GB" | "TB")
}

fn decimal_multiplier(suffix: &str) -> f64 {
    match suffix.trim() {
        "kB" | "KB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        _ => 1e12,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_with_suffixes() {
        let texts = [
            "64", "4KiB", "4k", "1.5M", "50MB", "2GiB", "1e8", "0", " 8 MiB ",
        ];
        let sizes = [
            64,
            4096,
            4096,
            1536 * 1024,
            50_000_000,
            2 << 30,
            100_000_000,
            0,
            8 << 20,
        ];
        assert_eq!(texts.map(parse_size), sizes.map(Ok));
        for bad in ["abc", "4q", "0.5", "-1", "", "1e"] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
        assert!(is_decimal_suffix("MB") && !is_decimal_suffix("MiB"));
    }
}
