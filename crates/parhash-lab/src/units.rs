//! Parsing and printing of the lab's quantities: sizes with suffixes (`4KiB`, `1.5M`, `2G`),
//! comma lists (`8,64,4k`) and ranges (`1..4`, `1..=8`), rates and times.

use std::fmt;

/// A user-written value that could not be understood.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParseError(pub String);

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParseError {}

/// The seed's (study 5) message lengths: 8, 64, 576, 1536 B, then 4 KiB doubling to 256 KiB.
pub const SEED_LENGTHS: [usize; 11] = [
    8,
    64,
    576,
    1536,
    4 << 10,
    8 << 10,
    16 << 10,
    32 << 10,
    64 << 10,
    128 << 10,
    256 << 10,
];

/// Parses a byte size (`64`, `4KiB`, `1.5M`, `50MB`, `1e8`): the rule of
/// [`parhash_format::size::parse_size`], which `sum --part-size` reads sizes with too.
pub fn parse_size(text: &str) -> Result<usize, ParseError> {
    let bytes = parhash_format::size::parse_size(text).map_err(ParseError)?;
    usize::try_from(bytes).map_err(|_| ParseError(format!("'{text}' is too large")))
}

/// Parses a comma-separated list of items, each either one value or an inclusive range
/// `a..b` / `a..=b` (both inclusive: `1..4` is 1, 2, 3, 4). Ranges step by one for small
/// integers, and by doubling when `doubling` is set (`8..256` = 8, 16, ..., 256).
pub fn parse_list<F>(text: &str, doubling: bool, parse: F) -> Result<Vec<u64>, ParseError>
where
    F: Fn(&str) -> Result<u64, ParseError>,
{
    let mut out = Vec::new();
    for item in text.split(',').map(str::trim).filter(|s| !s.is_empty()) {
        if let Some((a, b)) = item.split_once("..") {
            let b = b.strip_prefix('=').unwrap_or(b);
            let (lo, hi) = (parse(a)?, parse(b)?);
            if hi < lo {
                return Err(ParseError(format!("range '{item}' runs backwards")));
            }
            let mut v = lo;
            loop {
                out.push(v);
                if out.len() > 10_000 {
                    return Err(ParseError(format!("range '{item}' has too many values")));
                }
                let next = if doubling { v.max(1) * 2 } else { v + 1 };
                if next > hi {
                    break;
                }
                v = next;
            }
        } else {
            out.push(parse(item)?);
        }
    }
    if out.is_empty() {
        return Err(ParseError(format!("'{text}' lists nothing")));
    }
    Ok(out)
}

/// Parses a list of sizes (`8,64,4KiB` or `4k..256k`, ranges doubling). The word `seed` stands
/// for the seed study's eleven lengths.
pub fn parse_sizes(text: &str) -> Result<Vec<usize>, ParseError> {
    let mut out = Vec::new();
    for part in text.split(',') {
        if part.trim() == "seed" {
            out.extend(SEED_LENGTHS);
        } else if !part.trim().is_empty() {
            let v: Vec<u64> = parse_list(part, true, |s| parse_size(s).map(|n| n as u64))?;
            out.extend(v.into_iter().map(|n| n as usize));
        }
    }
    if out.is_empty() {
        return Err(ParseError(format!("'{text}' lists no size")));
    }
    Ok(out)
}

/// Parses a list of counts (`1,2,4` or `1..4`, ranges stepping by one).
pub fn parse_counts(text: &str) -> Result<Vec<usize>, ParseError> {
    let v = parse_list(text, false, |s| {
        s.trim()
            .parse::<u64>()
            .map_err(|_| ParseError(format!("'{s}' is not a whole number")))
    })?;
    Ok(v.into_iter().map(|n| n as usize).collect())
}

/// Parses a duration: `30s`, `500ms`, `2m`, or plain seconds.
pub fn parse_duration(text: &str) -> Result<std::time::Duration, ParseError> {
    let t = text.trim();
    let bad = || {
        ParseError(format!(
            "'{text}' is not a duration (examples: 30s, 500ms, 2m)"
        ))
    };
    let (number, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1e-3)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60.0)
    } else {
        (t, 1.0)
    };
    let v: f64 = number.trim().parse().map_err(|_| bad())?;
    if !v.is_finite() || v < 0.0 {
        return Err(bad());
    }
    Ok(std::time::Duration::from_secs_f64(v * scale))
}

/// Short human size: `8 B`, `576 B`, `1 KiB`, `4 KiB`, `1.5 MiB`, `100 MB` (decimal when exact).
pub fn format_size(bytes: usize) -> String {
    const KI: usize = 1024;
    // Below 4 KiB only whole KiB are written in KiB (1536 B stays exact).
    if bytes < KI || (bytes < 4 * KI && bytes % KI != 0) {
        return format!("{bytes} B");
    }
    let decimal = [(1_000_000_000usize, "GB"), (1_000_000, "MB")];
    let binary = [(KI * KI * KI, "GiB"), (KI * KI, "MiB"), (KI, "KiB")];
    for (unit, name) in binary {
        if bytes >= unit && bytes % unit == 0 {
            return format!("{} {name}", bytes / unit);
        }
    }
    for (unit, name) in decimal {
        if bytes >= unit && bytes % unit == 0 {
            return format!("{} {name}", bytes / unit);
        }
    }
    for (unit, name) in binary {
        if bytes >= unit {
            return format!("{:.1} {name}", bytes as f64 / unit as f64);
        }
    }
    format!("{bytes} B")
}

/// Rate in GB/s (decimal, like memory bandwidth figures).
pub fn format_rate(bytes_per_second: f64) -> String {
    if !bytes_per_second.is_finite() || bytes_per_second <= 0.0 {
        return "-".into();
    }
    let gb = bytes_per_second / 1e9;
    if gb >= 10.0 {
        format!("{gb:.1} GB/s")
    } else if gb >= 0.1 {
        format!("{gb:.2} GB/s")
    } else {
        format!("{:.1} MB/s", bytes_per_second / 1e6)
    }
}

/// A number with three significant digits, for ns/byte, cycles/byte and ratios.
pub fn sig3(x: f64) -> String {
    if !x.is_finite() {
        return "-".into();
    }
    let a = x.abs();
    if a >= 100.0 {
        format!("{x:.0}")
    } else if a >= 10.0 {
        format!("{x:.1}")
    } else if a >= 1.0 {
        format!("{x:.2}")
    } else if a >= 0.01 {
        format!("{x:.3}")
    } else if a == 0.0 {
        "0".into()
    } else {
        format!("{x:.2e}")
    }
}

/// A count or rate with three significant digits and an SI prefix: `950`, `3.90 k`, `1.25 M`.
pub fn si(x: f64) -> String {
    let a = x.abs();
    for (unit, prefix) in [(1e9, "G"), (1e6, "M"), (1e3, "k")] {
        if a >= unit {
            return format!("{} {prefix}", sig3(x / unit));
        }
    }
    sig3(x)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn si_prefixes() {
        let cases = [950.0, 3_900.0, 387_000.0, 1_250_000.0, 2.5e9, f64::NAN];
        let printed = cases.map(si);
        assert_eq!(printed, ["950", "3.90 k", "387 k", "1.25 M", "2.50 G", "-"]);
    }

    #[test]
    fn sizes_are_the_shared_rule_in_bytes() {
        assert_eq!(parse_size("4KiB"), Ok(4096));
        assert_eq!(parse_size("50MB"), Ok(50_000_000));
        assert!(parse_size("0.5").is_err());
    }

    #[test]
    fn lists_and_ranges() {
        assert_eq!(parse_counts("1..4"), Ok(vec![1, 2, 3, 4]));
        assert_eq!(parse_counts("1..=3,8"), Ok(vec![1, 2, 3, 8]));
        assert_eq!(parse_sizes("4k..32k"), Ok(vec![4096, 8192, 16384, 32768]));
        assert_eq!(parse_sizes("seed"), Ok(SEED_LENGTHS.to_vec()));
        assert_eq!(parse_sizes("8, 1KiB"), Ok(vec![8, 1024]));
        assert!(parse_counts("4..1").is_err());
        assert!(parse_counts("").is_err());
        assert!(parse_counts("x").is_err());
    }

    #[test]
    fn durations() {
        let texts = ["30s", "500ms", "2m", "1.5"];
        let millis = [30_000, 500, 120_000, 1500];
        let expected = millis.map(|ms| Ok(std::time::Duration::from_millis(ms)));
        assert_eq!(texts.map(parse_duration), expected);
        assert!(parse_duration("soon").is_err());
    }

    #[test]
    fn printing() {
        let sizes = [
            8,
            4096,
            50_000_000,
            1536,
            1024,
            2048,
            1 << 20,
            6 << 9 << 10,
            5000,
        ];
        let printed = sizes.map(format_size);
        let expected = [
            "8 B", "4 KiB", "50 MB", "1536 B", "1 KiB", "2 KiB", "1 MiB", "3 MiB", "4.9 KiB",
        ];
        assert_eq!(printed, expected);
        assert_eq!(format_rate(2.5e9), "2.50 GB/s");
        assert_eq!(sig3(0.123456), "0.123");
    }
}
