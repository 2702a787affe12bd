//! `parhash list`: every algorithm in the registry, with what this CPU can run.

use std::io::Write;

use anyhow::{Context, Result};
use parhash::{Algorithm, AlgorithmInfo, VariantInfo};

use crate::flags::ListArgs;
use crate::messages::WRITE_ERROR;

/// Prints the list on standard output.
pub fn run(args: &ListArgs) -> Result<bool> {
    let mut stdout = crate::stdio::stdout();
    let listing = match args.json {
        true => parhash_format::json::algorithms(),
        false => render().into_bytes(),
    };
    stdout.write_all(&listing).context(WRITE_ERROR)?;
    stdout.flush().context(WRITE_ERROR)?;
    Ok(true)
}

/// The whole listing as text.
pub fn render() -> String {
    let mut out = format!(
        "parhash {}: {} algorithm{}; this CPU: {}\n",
        env!("CARGO_PKG_VERSION"),
        Algorithm::ALL.len(),
        if Algorithm::ALL.len() == 1 { "" } else { "s" },
        parhash::cpu_features()
    );
    let width = Algorithm::ALL
        .iter()
        .map(|a| a.name().len())
        .max()
        .unwrap_or(0);
    for &alg in Algorithm::ALL {
        let info = alg.info();
        out.push('\n');
        out.push_str(&format!(
            "{:<width$}  {}-bit digest ({} bytes), {}-byte blocks, {} family{}{}\n",
            info.name,
            info.digest_size * 8,
            info.digest_size,
            info.block_size,
            info.family.name(),
            if info.broken { "  BROKEN" } else { "" },
            if info.cryptographic {
                String::new()
            } else {
                format!("; {}", AlgorithmInfo::NOT_CRYPTOGRAPHIC)
            },
        ));
        let mut aliases = vec![info.tag];
        aliases.extend(info.aliases.iter().copied());
        out.push_str(&format!("    aliases:  {}\n", aliases.join(", ")));
        out.push_str(&format!("    variants: {}\n", variants(&alg.variants())));
        out.push_str(&format!("    batch:    {}\n", batch(alg)));
        out.push_str(&format!("    note:     {}\n", info.note));
    }
    out.push_str(
        "\nNames are matched ignoring case and separators (SHA-256 = sha_256 = sha256).\n\
         batch: how many messages at once (`sum` over many files) are hashed: side by side in\n\
         SIMD lanes and across threads, or across threads only.\n\
         BROKEN algorithms have practical collisions: use them only for compatibility.\n\
         The checksums (CRCs, xxHash) catch accidental damage only: anyone can change a file\n\
         and keep its checksum.\n",
    );
    out
}

/// How the multi-message engine (`sum` over many files, `parhash::batch`) runs `alg`: in SIMD
/// lanes across threads, or threads only.
fn batch(alg: Algorithm) -> String {
    match parhash::batch::lanes_for(alg) {
        Some(lanes) => format!("{} lanes ({}) x threads", lanes.lanes, lanes.kernel),
        None => "threads only (no multi-lane kernel)".to_string(),
    }
}

/// `portable (default), avx2 (not on this CPU)`.
fn variants(list: &[VariantInfo]) -> String {
    list.iter()
        .map(|v| {
            let mut s = v.name.to_string();
            match (v.default, v.available) {
                (true, _) => s.push_str(" (default)"),
                (false, false) => s.push_str(" (not on this CPU)"),
                (false, true) => {}
            }
            s
        })
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_algorithm_and_its_facts_are_listed() {
        let text = render();
        for &alg in Algorithm::ALL {
            let info = alg.info();
            let block = text
                .split("\n\n")
                .find(|b| b.starts_with(&format!("{} ", info.name)))
                .unwrap_or_else(|| panic!("{} missing:\n{text}", info.name));
            assert!(block.contains(&format!("{}-bit digest", info.digest_size * 8)));
            assert!(block.contains(info.note));
            assert_eq!(block.contains("BROKEN"), info.broken, "{block}");
            assert_eq!(
                block.contains(AlgorithmInfo::NOT_CRYPTOGRAPHIC),
                !info.cryptographic,
                "{block}"
            );
            for alias in info.aliases {
                assert!(block.contains(alias), "{alias} in {block}");
            }
            for v in alg.variants() {
                assert!(block.contains(v.name), "{} in {block}", v.name);
            }
            let threads_only = block.contains("batch:    threads only");
            assert_eq!(
                threads_only,
                parhash::batch::lanes_for(alg).is_none(),
                "{block}"
            );
            assert!(threads_only || block.contains(" lanes ("), "{block}");
        }
    }

    #[test]
    fn variant_markers() {
        let list = [
            VariantInfo {
                name: "a",
                available: true,
                default: true,
                summary: "",
            },
            VariantInfo {
                name: "b",
                available: false,
                default: false,
                summary: "",
            },
            VariantInfo {
                name: "c",
                available: true,
                default: false,
                summary: "",
            },
        ];
        assert_eq!(variants(&list), "a (default), b (not on this CPU), c");
    }
}
