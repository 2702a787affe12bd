//! BSD-style tags (`SHA256`, `BLAKE2b-256`) and the algorithms a digest size can belong to.

use super::Algorithm;

impl Algorithm {
    /// The tag of a BSD-style (`--tag`) line for a digest of `size` bytes: the algorithm's tag
    /// at its default size, `TAG-BITS` at another (`BLAKE2b-256`, as `b2sum -l 256 --tag` and
    /// `cksum -a blake2b -l 256` write it; `SHAKE128-512`, `BLAKE3-512`).
    pub fn tag_for_size(self, size: usize) -> std::borrow::Cow<'static, str> {
        let info = self.info();
        if size == info.digest_size || !info.sizes.is_variable() {
            info.tag.into()
        } else {
            format!("{}-{}", info.tag, size * 8).into()
        }
    }

    /// The algorithm a BSD-style tag names and the digest size in bytes it means: `TAG-BITS`
    /// for a variable-length algorithm (`BLAKE2b-256`: 32), the default size for a plain tag
    /// (`BLAKE2b`: 64, as `b2sum -c` reads it); `None` for an unknown tag or a size the
    /// algorithm cannot produce.
    pub fn from_tag(tag: &str) -> Option<(Algorithm, usize)> {
        if let Some(&alg) = Algorithm::ALL.iter().find(|a| a.info().tag == tag) {
            return Some((alg, alg.digest_size()));
        }
        let (base, bits) = tag.rsplit_once('-')?;
        let alg = *Algorithm::ALL
            .iter()
            .find(|a| a.info().tag == base && a.digest_sizes().is_variable())?;
        // Digits only: no sign, no spaces (`str::parse` would take a leading `+`).
        if bits.is_empty() || !bits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let bits: usize = bits.parse().ok()?;
        let size = bits / 8;
        (bits % 8 == 0 && alg.digest_sizes().contains(size)).then_some((alg, size))
    }

    /// Algorithms whose digest has this many bytes (used to infer the algorithm of a check
    /// line, so only those that can be checked: [`Algorithm::is_checkable`]).
    pub fn with_digest_size(size: usize) -> impl Iterator<Item = Algorithm> {
        Algorithm::ALL
            .iter()
            .copied()
            .filter(move |a| a.digest_size() == size && a.is_checkable())
    }
}
