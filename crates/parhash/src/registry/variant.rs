//! A forced implementation variant as a value: [`Variant`] names one variant of one algorithm
//! that this CPU can run, checked once when it is made ([`Algorithm::variant`]), so a builder
//! given one never parses a name.

use std::fmt;

use super::{Algorithm, Error};

/// One implementation variant of one algorithm (`sequential`, `parallel-avx2`, `sha-ni`, ...),
/// available on this CPU. Made only by [`Algorithm::variant`] (a name parsed once, at the edge:
/// a CLI flag, a Python argument) or [`Algorithm::available_variants`]; given to
/// [`HasherBuilder::variant`](crate::HasherBuilder::variant) or
/// [`Hasher::with_variant`](crate::Hasher::with_variant).
///
/// ```
/// use parhash::{Algorithm, Hasher};
/// let sequential = Algorithm::Sha256.variant("sequential").unwrap();
/// let mut h = Hasher::with_variant(sequential);
/// h.update(b"abc");
/// assert_eq!(h.finalize(), parhash::hash(Algorithm::Sha256, b"abc"));
/// assert!(Algorithm::Sha256.variant("no-such").is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Variant {
    algorithm: Algorithm,
    /// A name from the algorithm's own variant table (static: never a caller's string).
    name: &'static str,
}

impl Variant {
    /// The algorithm this is a variant of.
    pub fn algorithm(self) -> Algorithm {
        self.algorithm
    }

    /// Its name, as [`Algorithm::variants`] lists it.
    pub fn name(self) -> &'static str {
        self.name
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

impl Algorithm {
    /// The variant called `name` (see [`Algorithm::variants`]), if this algorithm has it and
    /// this CPU (and `PARHASH_DISABLE_ISA`) allows it.
    ///
    /// # Errors
    /// [`Error::UnavailableVariant`], which lists the variants available here.
    pub fn variant(self, name: &str) -> Result<Variant, Error> {
        match self.variant_name(name) {
            Some(name) => Ok(Variant {
                algorithm: self,
                name,
            }),
            None => Err(Error::UnavailableVariant {
                algorithm: self,
                variant: name.to_string(),
                available: self
                    .variants()
                    .iter()
                    .filter(|v| v.available)
                    .map(|v| v.name)
                    .collect(),
            }),
        }
    }

    /// Every variant this CPU can run, in the order [`Algorithm::variants`] lists them.
    pub fn available_variants(self) -> impl Iterator<Item = Variant> {
        self.variants()
            .into_iter()
            .filter(|v| v.available)
            .map(move |v| Variant {
                algorithm: self,
                name: v.name,
            })
    }
}
