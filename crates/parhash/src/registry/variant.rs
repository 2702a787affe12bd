//! A forced implementation variant as a value: [`Variant`] is one entry of one algorithm's
//! variant table that this CPU can run, checked once when it is made ([`Algorithm::variant`]),
//! so a builder given one never reads a name and cannot fail to find it.

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
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Variant {
    algorithm: Algorithm,
    /// Its position in the variant table of the algorithm's type (a listed variant, a group
    /// such as `parallel` or an accepted alias), found available here.
    index: u8,
}

impl Variant {
    /// The variant at `index` of `algorithm`'s table, which was found available here.
    fn checked(algorithm: Algorithm, index: usize) -> Variant {
        Variant {
            algorithm,
            index: u8::try_from(index).expect("variant tables hold a dozen entries"),
        }
    }

    /// The algorithm this is a variant of.
    pub fn algorithm(self) -> Algorithm {
        self.algorithm
    }

    /// Its name, as [`Algorithm::variants`] lists it.
    pub fn name(self) -> &'static str {
        self.algorithm.variant_name_at(self.index())
    }

    /// Its position in the variant table of [`Variant::algorithm`]'s type.
    pub(crate) fn index(self) -> usize {
        usize::from(self.index)
    }
}

impl fmt::Debug for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Variant")
            .field("algorithm", &self.algorithm)
            .field("name", &self.name())
            .finish()
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Algorithm {
    /// The variant called `name` (see [`Algorithm::variants`]), if this algorithm has it and
    /// this CPU (and `PARHASH_DISABLE_ISA`) allows it.
    ///
    /// # Errors
    /// [`Error::UnavailableVariant`], which lists the variants available here.
    pub fn variant(self, name: &str) -> Result<Variant, Error> {
        match self.find_variant(name) {
            Some(index) => Ok(Variant::checked(self, index)),
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
        self.available_variant_indices()
            .into_iter()
            .map(move |index| Variant::checked(self, index))
    }

    /// The variant used when none is forced: the one [`Algorithm::variants`] flags as the
    /// default.
    pub fn default_variant(self) -> Variant {
        Variant::checked(self, self.default_variant_index())
    }
}
