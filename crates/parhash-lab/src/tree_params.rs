//! `--tree` parameter sets: PARSHA-256's tree height `T` and IV length `l`, the only tree mode
//! with parameters. Each set is one configuration of the engines that take them (PARSHA-256's
//! `tree` on the CPU, `gpu` on a GPU), labelled with the set (`tree[T=10,l=0]`); every other
//! engine takes none (the sweep says what happens when sets are given: `sweep::engines`).

use std::cmp::Ordering;
use std::fmt;

/// The keys a set may hold, for error messages and help.
pub const VALID_KEYS: &str = "T (tree height, 1 to 40; also t, tree-height), \
                              l (IV bits: 0, 128 or 256; also iv, iv-bits)";

/// One validated parameter set of PARSHA-256: the library's [`parhash::TreeParams`] (which
/// checks T and l), with the lab's spelling (`T=13,l=256`) and order; by default parhash's
/// T = 13 (seed study 4's) and l = 256.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct TreeParams(parhash::TreeParams);

impl Ord for TreeParams {
    fn cmp(&self, other: &Self) -> Ordering {
        (self.tree_height(), self.iv_bits()).cmp(&(other.tree_height(), other.iv_bits()))
    }
}

impl PartialOrd for TreeParams {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// Why a `--tree` set was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TreeParamError {
    /// The set as given.
    pub set: String,
    /// What is wrong with it.
    pub problem: String,
}

impl fmt::Display for TreeParamError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "--tree '{}': {} (valid keys: {VALID_KEYS})",
            self.set, self.problem
        )
    }
}

impl std::error::Error for TreeParamError {}

impl TreeParams {
    /// `(T, l)` if both are in range (the library's check).
    pub fn new(tree_height: u32, iv_bits: u32) -> Result<TreeParams, String> {
        parhash::TreeParams::new(tree_height, iv_bits)
            .map(TreeParams)
            .map_err(|e| e.to_string())
    }

    /// The library's form, for engines that hash with it.
    pub fn library(self) -> parhash::TreeParams {
        self.0
    }

    /// Parses `T=13,l=256` (keys in any order, either may be left out for its default).
    pub fn parse(set: &str) -> Result<TreeParams, TreeParamError> {
        let fail = |problem: String| TreeParamError {
            set: set.to_string(),
            problem,
        };
        if set.trim().is_empty() {
            return Err(fail("empty parameter set".into()));
        }
        let defaults = parhash::TreeParams::DEFAULT;
        let mut tree_height = defaults.tree_height();
        let mut iv_bits = defaults.iv_bits();
        for pair in set.split(',') {
            let Some((key, value)) = pair.split_once('=') else {
                return Err(fail(format!("'{}' is not KEY=VALUE", pair.trim())));
            };
            let (key, value) = (key.trim(), value.trim());
            let slot = match key {
                "T" | "t" | "tree-height" => &mut tree_height,
                "l" | "iv" | "iv-bits" => &mut iv_bits,
                _ => return Err(fail(format!("unknown key '{key}'"))),
            };
            *slot = value
                .parse::<u32>()
                .map_err(|_| fail(format!("{key} = '{value}' is not a whole number")))?;
        }
        TreeParams::new(tree_height, iv_bits).map_err(fail)
    }

    /// Tree height `T`.
    pub fn tree_height(self) -> u32 {
        self.0.tree_height()
    }

    /// IV length `l` in bits.
    pub fn iv_bits(self) -> u32 {
        self.0.iv_bits()
    }

    /// The variant name of `base` (`tree`, `gpu`) run with these parameters: `tree[T=10,l=0]`.
    pub fn variant(self, base: &str) -> String {
        format!("{base}[{self}]")
    }
}

impl fmt::Display for TreeParams {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "T={},l={}", self.tree_height(), self.iv_bits())
    }
}

/// Parses every `--tree` set, dropping repeats (`T=13` and `l=256,T=13` are one configuration).
pub fn parse_sets(sets: &[String]) -> Result<Vec<TreeParams>, TreeParamError> {
    let mut out: Vec<TreeParams> = Vec::new();
    for set in sets {
        let params = TreeParams::parse(set)?;
        if !out.contains(&params) {
            out.push(params);
        }
    }
    Ok(out)
}

/// The base name of a variant (`tree[T=10,l=0]` -> `tree`), so that `--variants tree` selects
/// every parameter set.
pub fn base_variant(variant: &str) -> &str {
    variant.split_once('[').map_or(variant, |(base, _)| base)
}

/// The parameter sets an engine builder runs with: the given ones, each labelled, or parhash's
/// defaults under the plain name when none were given. Returns `(params, variant name)`.
pub fn labelled(sets: &[TreeParams], base: &str) -> Vec<(TreeParams, String)> {
    if sets.is_empty() {
        vec![(TreeParams::default(), base.to_string())]
    } else {
        sets.iter().map(|p| (*p, p.variant(base))).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_keys_aliases_and_defaults() {
        let p = TreeParams::parse("T=10,l=0").unwrap();
        assert_eq!((p.tree_height(), p.iv_bits()), (10, 0));
        assert_eq!(TreeParams::parse(" l = 128 ").unwrap().tree_height(), 13);
        assert_eq!(TreeParams::parse("t=5").unwrap().iv_bits(), 256);
        assert_eq!(
            TreeParams::parse("iv-bits=0,tree-height=40").unwrap(),
            TreeParams::new(40, 0).unwrap()
        );
        assert_eq!(TreeParams::default().to_string(), "T=13,l=256");
        assert_eq!(p.variant("tree"), "tree[T=10,l=0]");
        assert_eq!(base_variant("tree[T=10,l=0]"), "tree");
        assert_eq!(base_variant("sha-ni"), "sha-ni");
    }

    #[test]
    fn bad_sets_are_errors_naming_the_valid_keys() {
        for (set, problem) in [
            ("chunk=4KiB,fanout=4", "unknown key 'chunk'"),
            ("T=0", "out of range"),
            ("T=41", "out of range"),
            ("l=64", "not 0, 128 or 256"),
            ("T=ten", "not a whole number"),
            ("T", "not KEY=VALUE"),
            ("T=5,", "not KEY=VALUE"),
            ("", "empty"),
        ] {
            let err = TreeParams::parse(set).unwrap_err();
            let text = err.to_string();
            assert!(text.contains(problem), "{set}: {text}");
            assert!(text.contains("valid keys: T ("), "{text}");
            assert!(!text.contains('\n'), "{text}");
        }
    }

    #[test]
    fn repeats_are_one_configuration() {
        let sets = parse_sets(&["T=13".into(), "l=256,T=13".into(), "T=5".into()]).unwrap();
        assert_eq!(sets.len(), 2);
        let names: Vec<String> = labelled(&sets, "tree").into_iter().map(|l| l.1).collect();
        assert_eq!(names, ["tree[T=13,l=256]", "tree[T=5,l=256]"]);
        assert_eq!(
            labelled(&[], "gpu"),
            vec![(TreeParams::default(), "gpu".into())]
        );
        assert!(parse_sets(&["T=5".into(), "x=1".into()]).is_err());
    }
}
