//! The one pattern every hash family uses to pick its compression code: a *backend table*.
//!
//! A family declares its table once with [`backends!`]: each kernel variant's enum variant, its
//! user-facing name (`sequential`, `parallel-avx2`, ...), its one-line summary and the platform
//! tokens it needs; group aliases such as `parallel` ("the best available of these"); and the
//! preference order of the default. The macro generates the `Copy` enum and implements
//! [`Dispatch`] for it, which gives every family the same `detect()` (the default, detected once
//! per process), `find()` (a forced variant's position in the table, `None` where unknown or
//! unavailable: what a checked variant keeps), `at()` (that position's backend) and `infos()`
//! (what `parhash list` shows); [`table_variants!`] builds a hasher type's `Variants` on them. The family keeps only its `compress` match, by hand, so the
//! kernel each variant calls stays in plain sight.
//!
//! ```ignore
//! backends! {
//!     /// Which compression code a hasher runs.
//!     pub(crate) enum Backend {
//!         /// Scalar, literal to the specification.
//!         Sequential => "sequential": "portable scalar rounds";
//!         // A group alias, listed here: the first available of its names.
//!         "parallel" = ["parallel-avx2", "parallel-portable"]: "best SIMD form available";
//!         ParallelPortable => "parallel-portable": "the SIMD data flow on arrays";
//!         /// 256-bit registers.
//!         ParallelAvx2(Avx2) => "parallel-avx2": "rows in 256-bit registers";
//!         // An alias that is accepted by name but not listed (no summary).
//!         "portable" = ["sequential"];
//!     }
//!     // `default = [...];` here when it is not the `parallel` group.
//! }
//!
//! impl Backend {
//!     #[inline]
//!     fn compress(self, state: &mut State, blocks: &[Block]) {
//!         match self {
//!             Backend::Sequential => sequential::compress_blocks(state, blocks),
//!             Backend::ParallelPortable => parallel_portable::compress_blocks(state, blocks),
//!             #[cfg(target_arch = "x86_64")]
//!             Backend::ParallelAvx2(token) => parallel_avx2::compress_blocks(token, state, blocks),
//!         }
//!     }
//! }
//! ```
//!
//! Rules the macro keeps:
//! - A variant with tokens (types of [`crate::platform`]) exists only on x86_64 and holds its
//!   tokens, so its kernel can be entered only where the ISA was detected; `by_name` builds it only
//!   when every token's `detect()` succeeds. A token-less variant may carry its own `#[cfg(..)]`.
//! - Entries are listed (`infos`) in the order they are declared; groups and aliases name entries,
//!   and a name that is not declared is a compile error, checked on every target.
//! - The default is the first available name of `default` (`["parallel"]` when left out), or, after
//!   `where COND => default = [...];`, of that list first when `COND` holds on this CPU (a
//!   microarchitecture whose measured order differs, see `platform::intel`); `infos` flags it on the first listed
//!   group that picks it (the alias users know it by, e.g. `parallel`), else on its own variant.
//! - Dispatch costs what a hand-written enum costs: detection runs once per process, a hasher
//!   stores the `Copy` enum, and each call is one `match`.

use core::marker::PhantomData;

use crate::algo::VariantInfo;

/// One row of a backend table: a variant or a group alias.
pub(crate) struct Entry<B: 'static> {
    /// The name users pass (`--variant`, `with_variant`).
    pub(crate) name: &'static str,
    /// The line `infos` shows; `None` for an alias that is accepted but not listed.
    pub(crate) summary: Option<&'static str>,
    pub(crate) pick: Pick<B>,
}

/// How an entry's name turns into a backend.
pub(crate) enum Pick<B: 'static> {
    /// One kernel variant: built if this CPU allows it.
    Variant(fn() -> Option<B>),
    /// A group alias: the first of these names that is available.
    Best(&'static [&'static str]),
}

impl<B: Dispatch> Entry<B> {
    fn resolve(&self) -> Option<B> {
        match self.pick {
            Pick::Variant(build) => build(),
            Pick::Best(names) => B::best_of(names),
        }
    }
}

/// Implemented by [`backends!`] for every backend enum.
pub(crate) trait Dispatch: Copy + PartialEq + 'static {
    /// Every variant and alias compiled into this build, in listing order.
    const TABLE: &'static [Entry<Self>];

    /// The default backend on this CPU (detected once per process).
    fn detect() -> Self;

    /// The named variant or group, or `None` when it does not exist or this CPU lacks its ISA.
    fn by_name(name: &str) -> Option<Self> {
        Self::TABLE.iter().find(|e| e.name == name)?.resolve()
    }

    /// The position of `name` (a variant, group or alias) in the table when it is available
    /// here: what a checked variant keeps.
    fn find(name: &str) -> Option<usize> {
        let index = Self::TABLE.iter().position(|e| e.name == name)?;
        Self::TABLE[index].resolve().map(|_| index)
    }

    /// The backend of the entry at `index`, one [`Dispatch::find`] or [`Dispatch::available`]
    /// gave. It resolves as it did then: detection runs once per process
    /// (`PARHASH_DISABLE_ISA` included), so the same tokens are found again.
    fn at(index: usize) -> Self {
        Self::TABLE[index]
            .resolve()
            .expect("an entry found available stays available")
    }

    /// The positions of the listed entries available here, in listing order.
    fn available() -> impl Iterator<Item = usize> {
        (0..Self::TABLE.len())
            .filter(|&i| Self::TABLE[i].summary.is_some() && Self::TABLE[i].resolve().is_some())
    }

    /// The position of the entry `infos` flags as the default.
    fn default_index() -> usize {
        let default = Self::detect();
        let listed = || (0..Self::TABLE.len()).filter(|&i| Self::TABLE[i].summary.is_some());
        let is_group = |&i: &usize| matches!(Self::TABLE[i].pick, Pick::Best(_));
        listed()
            .filter(is_group)
            .chain(listed().filter(|i| !is_group(i)))
            .find(|&i| Self::TABLE[i].resolve() == Some(default))
            .expect("the default backend is one of the listed entries")
    }

    /// The first of `names` that is available here.
    fn best_of(names: &[&str]) -> Option<Self> {
        names.iter().find_map(|name| Self::by_name(name))
    }

    /// The listed entries with availability here and exactly one default.
    fn infos() -> Vec<VariantInfo> {
        let flagged = Self::default_index();
        Self::TABLE
            .iter()
            .enumerate()
            .filter(|(_, e)| e.summary.is_some())
            .map(|(i, e)| VariantInfo {
                name: e.name,
                available: e.resolve().is_some(),
                default: i == flagged,
                summary: e.summary.unwrap_or_default(),
            })
            .collect()
    }
}

/// Compile-time check of a table's names: each declared once, each reference declared.
pub(crate) const fn check_names(declared: &[&str], referenced: &[&str]) {
    let mut i = 0;
    while i < declared.len() {
        let mut j = i + 1;
        while j < declared.len() {
            assert!(
                !str_eq(declared[i], declared[j]),
                "a backend table declares a name twice"
            );
            j += 1;
        }
        i += 1;
    }
    let mut r = 0;
    while r < referenced.len() {
        let mut found = false;
        let mut d = 0;
        while d < declared.len() {
            found |= str_eq(referenced[r], declared[d]);
            d += 1;
        }
        assert!(
            found,
            "a backend group or default names an undeclared variant"
        );
        r += 1;
    }
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Declares a backend enum and its table once; see the [module docs](self) for the syntax.
///
/// Internally a muncher: it walks the entries one at a time, collecting enum variants, table
/// rows, declared names and referenced names, and emits them all at the end.
macro_rules! backends {
    (
        $(#[$attr:meta])*
        $vis:vis enum $name:ident { $($body:tt)* }
        default = [$($default:literal),+ $(,)?];
        $(where $cond:expr => default = [$($alt:literal),+ $(,)?];)?
    ) => {
        $crate::dispatch::backends!(@entry
            [$(#[$attr])* $vis $name ($($default),+) {$(($cond) [$($alt),+])?}]
            [] [] [] [$($default,)+ $($($alt,)+)?]
            $($body)*
        );
    };

    // Most families default to their `parallel` group: that is the default left unsaid.
    (
        $(#[$attr:meta])*
        $vis:vis enum $name:ident { $($body:tt)* }
    ) => {
        $crate::dispatch::backends! {
            $(#[$attr])* $vis enum $name { $($body)* }
            default = ["parallel"];
        }
    };

    // A variant that needs platform tokens: x86_64 only, built when every token is detected.
    (@entry $head:tt [$($variants:tt)*] [$($rows:tt)*] [$($names:tt)*] [$($refs:tt)*]
        $(#[doc = $doc:literal])*
        $variant:ident($($token:ident),+) => $vname:literal: $summary:literal;
        $($rest:tt)*
    ) => {
        $crate::dispatch::backends!(@entry $head
            [$($variants)*
                $(#[doc = $doc])*
                #[cfg(target_arch = "x86_64")]
                $variant($($crate::platform::$token),+),
            ]
            [$($rows)*
                #[cfg(target_arch = "x86_64")]
                $crate::dispatch::Entry {
                    name: $vname,
                    summary: Some($summary),
                    pick: $crate::dispatch::Pick::Variant(|| {
                        Some(Self::$variant($($crate::platform::$token::detect()?),+))
                    }),
                },
            ]
            [$($names)* $vname,] [$($refs)*]
            $($rest)*
        );
    };

    // A variant without tokens, on every target unless it carries a `#[cfg(..)]`.
    (@entry $head:tt [$($variants:tt)*] [$($rows:tt)*] [$($names:tt)*] [$($refs:tt)*]
        $(#[doc = $doc:literal])*
        $(#[cfg($cfg:meta)])?
        $variant:ident => $vname:literal: $summary:literal;
        $($rest:tt)*
    ) => {
        $crate::dispatch::backends!(@entry $head
            [$($variants)* $(#[doc = $doc])* $(#[cfg($cfg)])? $variant,]
            [$($rows)*
                $(#[cfg($cfg)])?
                $crate::dispatch::Entry {
                    name: $vname,
                    summary: Some($summary),
                    pick: $crate::dispatch::Pick::Variant(|| Some(Self::$variant)),
                },
            ]
            [$($names)* $vname,] [$($refs)*]
            $($rest)*
        );
    };

    // A group alias: listed with its summary, or accepted but unlisted without one.
    (@entry $head:tt $variants:tt [$($rows:tt)*] [$($names:tt)*] [$($refs:tt)*]
        $group:literal = [$($member:literal),+ $(,)?] $(: $summary:literal)?;
        $($rest:tt)*
    ) => {
        $crate::dispatch::backends!(@entry $head $variants
            [$($rows)*
                $crate::dispatch::Entry {
                    name: $group,
                    summary: $crate::dispatch::backends!(@summary $($summary)?),
                    pick: $crate::dispatch::Pick::Best(&[$($member),+]),
                },
            ]
            [$($names)* $group,] [$($refs)* $($member,)+]
            $($rest)*
        );
    };

    (@summary) => { None };
    (@summary $summary:literal) => { Some($summary) };

    // Every entry read: emit the enum, its table and the name check.
    (@entry [$(#[$attr:meta])* $vis:vis $name:ident ($($default:literal),+)
            {$(($cond:expr) [$($alt:literal),+])?}]
        [$($variants:tt)*] [$($rows:tt)*]
        [$($names:tt)*] [$($refs:tt)*]
    ) => {
        $(#[$attr])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        $vis enum $name {
            $($variants)*
        }

        impl $crate::dispatch::Dispatch for $name {
            const TABLE: &'static [$crate::dispatch::Entry<Self>] = &[$($rows)*];

            fn detect() -> Self {
                static DEFAULT: std::sync::OnceLock<$name> = std::sync::OnceLock::new();
                *DEFAULT.get_or_init(|| {
                    $(
                        if $cond {
                            if let Some(best) =
                                <Self as $crate::dispatch::Dispatch>::best_of(&[$($alt),+])
                            {
                                return best;
                            }
                        }
                    )?
                    <Self as $crate::dispatch::Dispatch>::best_of(&[$($default),+])
                        .expect("the last default of a backend table is always available")
                })
            }
        }

        const _: () = $crate::dispatch::check_names(&[$($names)*], &[$($refs)*]);
    };
}
pub(crate) use backends;

/// A backend table named by a function that takes its backend (a core's `with_backend`, a
/// state's `new`), so that a macro given a core type can reach its table.
pub(crate) struct Table<B>(PhantomData<B>);

/// The table of the backend `_takes_backend` takes.
pub(crate) fn table<B: Dispatch, X>(_takes_backend: fn(B) -> X) -> Table<B> {
    Table(PhantomData)
}

impl<B: Dispatch> Table<B> {
    pub(crate) fn infos(self) -> Vec<VariantInfo> {
        B::infos()
    }
    pub(crate) fn find(self, name: &str) -> Option<usize> {
        B::find(name)
    }
    pub(crate) fn available(self) -> impl Iterator<Item = usize> {
        B::available()
    }
    pub(crate) fn default_index(self) -> usize {
        B::default_index()
    }
    pub(crate) fn name(self, index: usize) -> &'static str {
        B::TABLE[index].name
    }
    pub(crate) fn at(self, index: usize) -> B {
        B::at(index)
    }
}

/// [`Variants`](crate::algo::Variants) for `$ty`, whose variants are the entries of the backend
/// table that `$takes` (a function of the backend) names; `$build` makes the hasher from an
/// entry's backend and the [`Threads`](crate::threads::Threads).
macro_rules! table_variants {
    ($takes:expr, $build:expr; $ty:ty) => {
        impl $crate::algo::Variants for $ty {
            fn variants() -> Vec<$crate::algo::VariantInfo> {
                $crate::dispatch::table($takes).infos()
            }
            fn variant(name: &str) -> Option<$crate::algo::VariantOf<Self>> {
                $crate::dispatch::table($takes)
                    .find(name)
                    .map($crate::algo::VariantOf::checked)
            }
            fn available_variants() -> Vec<$crate::algo::VariantOf<Self>> {
                $crate::dispatch::table($takes)
                    .available()
                    .map($crate::algo::VariantOf::checked)
                    .collect()
            }
            fn default_variant() -> $crate::algo::VariantOf<Self> {
                $crate::algo::VariantOf::checked($crate::dispatch::table($takes).default_index())
            }
            fn variant_name(variant: $crate::algo::VariantOf<Self>) -> &'static str {
                $crate::dispatch::table($takes).name(variant.index())
            }
            fn with_variant_on(
                variant: $crate::algo::VariantOf<Self>,
                threads: $crate::threads::Threads,
            ) -> Self {
                let backend = $crate::dispatch::table($takes).at(variant.index());
                $build(backend, threads)
            }
        }
    };
}
pub(crate) use table_variants;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::algo::{
        blake, crc, groestl, jh, keccak, md5, parsha256, sandstorm, sha1, sha2, simd, skein,
        whirlpool, xxhash,
    };

    backends! {
        /// A table with every kind of entry.
        enum Toy {
            /// Always available.
            Plain => "plain": "portable";
            "best" = ["fast", "plain"]: "fast where it can be";
            Fast(Avx2) => "fast": "needs AVX2";
            "old-name" = ["plain"];
        }
        default = ["best"];
    }

    backends! {
        /// A table whose condition holds: its order comes first.
        enum Preferred {
            Plain => "plain": "portable";
            Fast(Avx2) => "fast": "needs AVX2";
        }
        default = ["plain"];
        where true => default = ["fast", "plain"];
    }

    backends! {
        /// A table whose condition fails: the plain order.
        enum Unpreferred {
            Plain => "plain": "portable";
            Fast(Avx2) => "fast": "needs AVX2";
        }
        default = ["plain"];
        where false => default = ["fast"];
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn a_condition_puts_its_default_order_first() {
        let fast = crate::platform::Avx2::detect();
        assert_eq!(
            Preferred::detect(),
            fast.map(Preferred::Fast).unwrap_or(Preferred::Plain)
        );
        assert_eq!(Unpreferred::detect(), Unpreferred::Plain);
        assert_eq!(Unpreferred::by_name("fast"), fast.map(Unpreferred::Fast));
        // Keccak's vendor rule: the AVX-512 form on Intel, the scalar BMI2 round elsewhere.
        let expected = match (crate::platform::intel(), crate::platform::Avx512::detect()) {
            (true, Some(avx512)) => keccak::Backend::ParallelAvx512(avx512),
            _ => keccak::Backend::best_of(&["bmi2", "sequential"]).expect("sequential"),
        };
        assert_eq!(keccak::Backend::detect(), expected);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn a_table_resolves_groups_aliases_and_tokens() {
        let fast = crate::platform::Avx2::detect().map(Toy::Fast);
        let best = fast.unwrap_or(Toy::Plain);
        assert_eq!(Toy::detect(), best);
        assert_eq!(Toy::by_name("best"), Some(best));
        assert_eq!(Toy::by_name("fast"), fast);
        assert_eq!(Toy::by_name("old-name"), Some(Toy::Plain));
        assert_eq!(Toy::by_name("nothing"), None);
        let shown: Vec<_> = Toy::infos()
            .into_iter()
            .map(|v| (v.name, v.available, v.default, v.summary))
            .collect();
        assert_eq!(
            shown,
            [
                ("plain", true, false, "portable"),
                ("best", true, true, "fast where it can be"),
                ("fast", fast.is_some(), false, "needs AVX2"),
            ]
        );
    }

    /// One default, flagged on a name that picks exactly the backend `detect` returns; a name is
    /// available exactly when it builds a backend.
    fn check_table<B: Dispatch + core::fmt::Debug>() {
        let infos = B::infos();
        let flagged: Vec<_> = infos.iter().filter(|v| v.default).map(|v| v.name).collect();
        assert_eq!(flagged.len(), 1, "{infos:?}");
        assert_eq!(B::by_name(flagged[0]), Some(B::detect()), "{}", flagged[0]);
        for v in &infos {
            assert_eq!(B::by_name(v.name).is_some(), v.available, "{}", v.name);
        }
        // The positions a checked variant keeps: the same entries, backends and default.
        let available: Vec<_> = B::available().map(|i| B::TABLE[i].name).collect();
        let listed: Vec<_> = infos
            .iter()
            .filter(|v| v.available)
            .map(|v| v.name)
            .collect();
        assert_eq!(available, listed);
        assert_eq!(B::TABLE[B::default_index()].name, flagged[0]);
        assert_eq!(B::at(B::default_index()), B::detect());
        for entry in B::TABLE {
            let found = B::find(entry.name);
            assert_eq!(found.map(B::at), B::by_name(entry.name), "{}", entry.name);
        }
        assert_eq!(B::find("no-such"), None);
    }

    #[test]
    fn every_family_flags_the_default_it_picks() {
        macro_rules! check_tables {
            ($($table:ty),+ $(,)?) => {$(check_table::<$table>();)+};
        }
        check_tables! {
            blake::Backend256, blake::Backend512, groestl::Backend, jh::Backend, keccak::Backend,
            md5::Backend, sha1::Backend, sha2::sha256::Backend, sha2::sha512::Backend,
            simd::Backend, skein::Backend, skein::SequentialOnly, whirlpool::Backend,
            sandstorm::Form, parsha256::Backend, crc::Crc32Backend, crc::Crc32cBackend,
            crc::Crc64Backend, xxhash::Xxh64Backend, xxhash::Xxh3Backend,
        }
    }
}
