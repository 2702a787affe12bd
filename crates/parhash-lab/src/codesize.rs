//! Machine-code size of each implementation form, read from the running binary's symbols.
//!
//! Convention (see BRIEF): each form's code lives in module `parhash::algo::<family>::<form>`
//! (`algo/keccak/parallel.rs`...). The lab parses its own executable (`/proc/self/exe`) with the
//! `object` crate, demangles every function symbol, and adds the sizes of those whose path
//! contains `parhash::algo::<family>::<form>`. Code inlined into callers outside the module is
//! not counted; a family's form module serves all its digest sizes.

use std::collections::BTreeMap;

use object::{Object, ObjectSymbol, SymbolKind};

/// Bytes of code per `family::form` module (the two path segments after `parhash::algo::`).
pub fn form_sizes() -> Result<BTreeMap<String, u64>, String> {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let data = std::fs::read(&exe).map_err(|e| format!("{}: {e}", exe.display()))?;
    let file = object::File::parse(&*data).map_err(|e| e.to_string())?;
    let mut seen = std::collections::HashSet::new();
    let mut sizes = BTreeMap::new();
    for sym in file.symbols() {
        if sym.kind() != SymbolKind::Text || sym.size() == 0 || !seen.insert(sym.address()) {
            continue;
        }
        let Ok(name) = sym.name() else { continue };
        let demangled = format!("{:#}", rustc_demangle::demangle(name));
        if let Some(key) = form_key(&demangled) {
            *sizes.entry(key).or_insert(0) += sym.size();
        }
    }
    if sizes.is_empty() {
        return Err("no parhash::algo symbols in this binary (stripped?)".into());
    }
    Ok(sizes)
}

/// `family::form` from a demangled path containing `parhash::algo::family::form...`.
pub fn form_key(demangled: &str) -> Option<String> {
    let at = demangled.find("parhash::algo::")? + "parhash::algo::".len();
    let mut parts = demangled[at..].split("::");
    let family = parts.next()?;
    let form = parts.next()?;
    let clean = |s: &str| {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect::<String>()
    };
    let (family, form) = (clean(family), clean(form));
    (!family.is_empty() && !form.is_empty()).then(|| format!("{family}::{form}"))
}

/// The size of `variant`'s module for an algorithm of `family` (display name such as
/// `SHA-2`), trying the family's likely module names; returns the module path and bytes.
pub fn size_of(
    sizes: &BTreeMap<String, u64>,
    family: &str,
    algorithm: &str,
    variant: &str,
) -> Option<(String, u64)> {
    let norm = |s: &str| {
        s.chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase()
    };
    let form = variant.replace('-', "_");
    let alg_alpha: String = algorithm
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    let mut candidates = vec![norm(family), norm(algorithm), alg_alpha];
    candidates.dedup();
    for fam in candidates {
        // A dispatching form may keep per-ISA code beside it (`parallel_avx2`, ...): all count.
        let key = format!("{fam}::{form}");
        let prefix = format!("{key}_");
        let parts: Vec<(&String, &u64)> = sizes
            .iter()
            .filter(|(k, _)| **k == key || k.starts_with(&prefix))
            .collect();
        if !parts.is_empty() {
            let names: Vec<&str> = parts
                .iter()
                .map(|(k, _)| k.split("::").nth(1).unwrap_or(""))
                .collect();
            let path = if names.len() == 1 {
                format!("parhash::algo::{key}")
            } else {
                format!("parhash::algo::{fam}::{{{}}}", names.join(","))
            };
            return Some((path, parts.iter().map(|(_, b)| **b).sum()));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_from_demangled_paths() {
        assert_eq!(
            form_key("parhash::algo::keccak::parallel::compress_blocks").as_deref(),
            Some("keccak::parallel")
        );
        assert_eq!(
            form_key("<parhash::algo::jh::sequential::E8 as core::clone::Clone>::clone").as_deref(),
            Some("jh::sequential")
        );
        assert_eq!(form_key("std::io::stdio::_print"), None);
        let mut sizes = BTreeMap::new();
        sizes.insert("sha2::sequential".to_string(), 100u64);
        assert_eq!(
            size_of(&sizes, "SHA-2", "sha256", "sequential"),
            Some(("parhash::algo::sha2::sequential".to_string(), 100))
        );
        assert_eq!(size_of(&sizes, "SHA-2", "sha256", "parallel"), None);
        sizes.insert("sha2::parallel_avx2".to_string(), 30u64);
        sizes.insert("sha2::parallel_avx512".to_string(), 40u64);
        assert_eq!(
            size_of(&sizes, "SHA-2", "sha256", "parallel"),
            Some((
                "parhash::algo::sha2::{parallel_avx2,parallel_avx512}".to_string(),
                70
            ))
        );
    }

    #[test]
    fn this_binary_has_symbols() {
        // The test binary links parhash: at least one algo module must show up.
        let sizes = form_sizes().unwrap();
        assert!(sizes.keys().any(|k| k.starts_with("md5::")), "{sizes:?}");
    }
}
