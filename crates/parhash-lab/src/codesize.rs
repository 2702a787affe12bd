//! Machine-code size of each implementation form, read from the running binary's symbols.
//!
//! Convention (see BRIEF): each form's code lives in a module named after the form
//! (`parhash::algo::keccak::sequential`, `parhash::algo::sha2::sha256::sha_ni`...). The lab
//! parses its own executable (`/proc/self/exe`) with the `object` crate, demangles every
//! function symbol (`rustc-demangle`), and adds the sizes (the ELF symbol sizes) of the
//! functions defined in that module: those whose demangled path starts with the module's path
//! (also as `<module::Type as Trait>::method`). A dispatching form counts every ISA module beside
//! it (`parallel` = `parallel_avx2` + `parallel_avx512` + ...). Code inlined into callers outside
//! the module is not counted; a family's form module serves all its digest sizes.

use object::{Object, ObjectSymbol, SymbolKind};

/// The function symbols of a binary: demangled path (without hash) and size in bytes.
#[derive(Clone, Debug, Default)]
pub struct Symbols(Vec<(String, u64)>);

impl Symbols {
    /// Reads the symbols of the running executable.
    pub fn of_this_binary() -> Result<Symbols, String> {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let data = std::fs::read(&exe).map_err(|e| format!("{}: {e}", exe.display()))?;
        let file = object::File::parse(&*data).map_err(|e| e.to_string())?;
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for sym in file.symbols() {
            if sym.kind() != SymbolKind::Text || sym.size() == 0 || !seen.insert(sym.address()) {
                continue;
            }
            let Ok(name) = sym.name() else { continue };
            let demangled = format!("{:#}", rustc_demangle::demangle(name));
            if demangled.contains("parhash::") {
                out.push((demangled, sym.size()));
            }
        }
        if out.is_empty() {
            return Err("no parhash symbols in this binary (stripped?)".into());
        }
        Ok(Symbols(out))
    }

    /// Symbols from a list (for tests).
    pub fn from_list(list: &[(&str, u64)]) -> Symbols {
        Symbols(list.iter().map(|(n, s)| (n.to_string(), *s)).collect())
    }

    /// Paths with leading `<` removed (trait impls: `<path::Type as Trait>::f`).
    fn paths(&self) -> impl Iterator<Item = (&str, u64)> {
        self.0.iter().map(|(n, s)| (n.trim_start_matches('<'), *s))
    }

    /// Bytes of the functions called exactly `path` (all instances).
    pub fn named(&self, path: &str) -> u64 {
        self.paths()
            .filter(|(p, _)| *p == path || p.strip_prefix(path).is_some_and(|t| t.starts_with('<')))
            .map(|(_, s)| s)
            .sum()
    }

    /// Bytes and number of functions defined under module `path` (`parhash::cipher::rc5`).
    pub fn under(&self, path: &str) -> (u64, usize) {
        let prefix = format!("{path}::");
        self.paths()
            .filter(|(p, _)| p.starts_with(&prefix))
            .fold((0, 0), |(b, n), (_, s)| (b + s, n + 1))
    }

    /// The modules right under `parent` whose name is `form` or starts with `form_`, with the
    /// bytes of each (sorted by name).
    fn form_modules(&self, parent: &str, form: &str) -> Vec<(String, u64)> {
        let prefix = format!("{parent}::");
        let mut out: Vec<(String, u64)> = Vec::new();
        for (p, size) in self.paths() {
            let Some(rest) = p.strip_prefix(&prefix) else {
                continue;
            };
            // A module has a further `::` after its name; items of `parent` itself do not.
            let Some((module, _)) = rest.split_once("::") else {
                continue;
            };
            let module_matches = module == form
                || module
                    .strip_prefix(form)
                    .is_some_and(|tail| tail.starts_with('_'));
            if !module_matches {
                continue;
            }
            match out.iter_mut().find(|(m, _)| m == module) {
                Some((_, b)) => *b += size,
                None => out.push((module.to_string(), size)),
            }
        }
        out.sort();
        out
    }
}

/// The size of `variant`'s code for `algorithm` (registry name) of `family` (display name such
/// as `SHA-2`): the module path(s) counted and the bytes. Tries the modules
/// `parhash::algo::<family>::<algorithm>::<form>` (families with one sub-module per size, like
/// SHA-2), `parhash::algo::<family>::<form>` and `parhash::algo::<algorithm letters>::<form>`;
/// a family with a single form and no form module counts its `compress_blocks`.
pub fn form_size(
    symbols: &Symbols,
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
    let fam = norm(family);
    let alg = norm(algorithm);
    let alg_alpha: String = algorithm
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    let mut parents = vec![
        format!("parhash::algo::{fam}::{alg}"),
        format!("parhash::algo::{fam}"),
        format!("parhash::algo::{alg_alpha}"),
    ];
    parents.dedup();
    for parent in &parents {
        let modules = symbols.form_modules(parent, &form);
        if !modules.is_empty() {
            let path = if modules.len() == 1 {
                format!("{parent}::{}", modules[0].0)
            } else {
                let names: Vec<&str> = modules.iter().map(|(m, _)| m.as_str()).collect();
                format!("{parent}::{{{}}}", names.join(","))
            };
            return Some((path, modules.iter().map(|(_, b)| b).sum()));
        }
    }
    if matches!(variant, "portable" | "sequential") {
        for parent in &parents {
            let f = format!("{parent}::compress_blocks");
            let bytes = symbols.named(&f);
            if bytes > 0 {
                return Some((format!("{f} (single form, no form module)"), bytes));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn symbols() -> Symbols {
        Symbols::from_list(&[
            ("parhash::algo::keccak::sequential::compress_blocks", 100),
            (
                "<parhash::algo::keccak::sequential::State as core::clone::Clone>::clone",
                5,
            ),
            ("parhash::algo::keccak::parallel_avx2::compress_blocks", 30),
            (
                "parhash::algo::keccak::parallel_avx512::compress_blocks",
                40,
            ),
            ("parhash::algo::keccak::parallel_avx512::theta", 2),
            ("parhash::algo::keccak::dispatch", 7),
            (
                "parhash::algo::sha2::sha256::sequential::compress_blocks",
                50,
            ),
            (
                "parhash::algo::sha2::sha512::sequential::compress_blocks",
                60,
            ),
            ("parhash::algo::sha2::sha256::sha_ni::compress_blocks", 20),
            ("parhash::algo::md5::compress_blocks", 9),
            ("parhash::cipher::rc5::overlapped::encrypt_first_block", 11),
            ("parhash::cipher::rc5::Rc5_32_12_16::new", 12),
            (
                "core::ptr::drop_in_place<parhash::algo::keccak::sequential::State>",
                1000,
            ),
        ])
    }

    #[test]
    fn forms_by_module() {
        let s = symbols();
        assert_eq!(
            form_size(&s, "Keccak", "keccak256", "sequential"),
            Some(("parhash::algo::keccak::sequential".into(), 105))
        );
        // A dispatching form counts every ISA module beside it.
        assert_eq!(
            form_size(&s, "Keccak", "keccak256", "parallel"),
            Some((
                "parhash::algo::keccak::{parallel_avx2,parallel_avx512}".into(),
                72
            ))
        );
        assert_eq!(
            form_size(&s, "Keccak", "keccak256", "parallel-avx2"),
            Some(("parhash::algo::keccak::parallel_avx2".into(), 30))
        );
        // Families with one module per size: the algorithm's own.
        assert_eq!(
            form_size(&s, "SHA-2", "sha256", "sequential"),
            Some(("parhash::algo::sha2::sha256::sequential".into(), 50))
        );
        assert_eq!(
            form_size(&s, "SHA-2", "sha256", "sha-ni"),
            Some(("parhash::algo::sha2::sha256::sha_ni".into(), 20))
        );
        assert_eq!(form_size(&s, "SHA-2", "sha256", "parallel"), None);
        // A single-form family without form modules.
        assert_eq!(
            form_size(&s, "MD5", "md5", "portable").map(|p| p.1),
            Some(9)
        );
        assert_eq!(s.under("parhash::cipher::rc5::overlapped"), (11, 1));
        assert_eq!(s.under("parhash::cipher::rc5::Rc5_32_12_16"), (12, 1));
    }

    #[test]
    fn this_binary_has_symbols() {
        // The test binary links parhash: MD5's compression must show up.
        let s = Symbols::of_this_binary().unwrap();
        assert!(
            form_size(&s, "MD5", "md5", "portable").is_some()
                || form_size(&s, "MD5", "md5", "sequential").is_some()
        );
    }
}
