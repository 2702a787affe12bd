//! The names users type: lookup that forgives case and separators, and suggestions for typos.

use super::{Algorithm, Error};

/// Normalises a user-typed name for matching: lowercase, without `-`, `_`, `/`, `.` or spaces.
pub(super) fn normalize(name: &str) -> String {
    normalized(name).collect()
}

/// Whether two names are equal once normalised ([`normalize`]), compared without allocating:
/// every name lookup runs it over every spelling of every algorithm.
fn same_name(a: &str, b: &str) -> bool {
    normalized(a).eq(normalized(b))
}

/// The characters of `name` as [`normalize`] leaves them.
fn normalized(name: &str) -> impl Iterator<Item = char> + '_ {
    name.chars()
        .filter(|c| !matches!(c, '-' | '_' | '/' | ' ' | '.'))
        .flat_map(char::to_lowercase)
}

/// Most names [`Algorithm::suggest`] returns.
const MAX_SUGGESTIONS: usize = 3;

/// How far `wanted` (normalised) is from `candidate` (a name, tag or alias, normalised), and
/// how long a prefix they share.
///
/// Distance is optimal string alignment, so a swap of two adjacent characters counts as one
/// edit: `sha265` is one edit from `sha256` but two from `sha224` (plain Levenshtein ties those).
/// A name typed in part (`sha3`, `blake2`) counts as one edit from each of its completions.
fn nearness(wanted: &str, candidate: &str) -> (usize, std::cmp::Reverse<usize>) {
    let mut distance = strsim::osa_distance(wanted, candidate);
    if wanted.len() >= 2 && candidate.starts_with(wanted) {
        distance = distance.min(1);
    }
    let shared_prefix = wanted
        .chars()
        .zip(candidate.chars())
        .take_while(|(a, b)| a == b)
        .count();
    (distance, std::cmp::Reverse(shared_prefix))
}

impl Algorithm {
    /// Every spelling this algorithm answers to: its name, its tag and its aliases.
    fn spellings(self) -> impl Iterator<Item = &'static str> {
        let info = self.info();
        [info.name, info.tag]
            .into_iter()
            .chain(info.aliases.iter().copied())
    }

    /// Looks an algorithm up by canonical name or alias, ignoring case and separators
    /// (`SHA-256`, `sha_256`, `Sha256` all find `sha256`). The error suggests the closest names
    /// ([`Algorithm::suggest`]).
    pub fn from_name(name: &str) -> Result<Algorithm, Error> {
        for &alg in Algorithm::ALL {
            if alg.spellings().any(|n| same_name(n, name)) {
                return Ok(alg);
            }
        }
        Err(Error::UnknownAlgorithm {
            name: name.to_string(),
            suggestion: Algorithm::suggest(name).first().copied(),
        })
    }

    /// The canonical names closest to a name that is not one (a typo, a partial name, another
    /// tool's spelling): those at the smallest distance found, best first, at most three; empty
    /// when none is close.
    ///
    /// Every name, tag and alias is compared, case and separators ignored: `b2` and `b2sum`
    /// are aliases of `blake2b`, `sha22` suggests `sha224`, `sha3` the SHA-3 algorithms. The
    /// edits allowed grow with the length typed (one per three characters, from one to three),
    /// so a two-letter name is not matched to any other two-letter name. Ties go to the longer
    /// shared prefix (people get the start of a name right more often than its end), then to
    /// registry order.
    ///
    /// ```
    /// use parhash::Algorithm;
    /// assert_eq!(Algorithm::suggest("sha22")[0], "sha224");
    /// assert_eq!(Algorithm::suggest("blake2x")[0], "blake2b");
    /// assert!(Algorithm::suggest("zzzz").is_empty());
    /// ```
    pub fn suggest(name: &str) -> Vec<&'static str> {
        let wanted = normalize(name);
        let max_edits = (wanted.chars().count() / 3).clamp(1, 3);
        let mut near: Vec<_> = Algorithm::ALL
            .iter()
            .enumerate()
            .filter_map(|(order, alg)| {
                let best = alg
                    .spellings()
                    .map(|n| nearness(&wanted, &normalize(n)))
                    .min()?;
                (best.0 <= max_edits).then_some((best, order, alg.name()))
            })
            .collect();
        near.sort();
        // Only the nearest: a name two edits away is noise beside one a single edit away.
        let nearest = near.first().map_or(0, |((distance, _), _, _)| *distance);
        near.into_iter()
            .take_while(|((distance, _), _, _)| *distance == nearest)
            .take(MAX_SUGGESTIONS)
            .map(|(_, _, name)| name)
            .collect()
    }
}

impl std::str::FromStr for Algorithm {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Algorithm::from_name(s)
    }
}
