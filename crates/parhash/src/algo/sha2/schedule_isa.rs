//! The instruction sets the `parallel` SHA-256 and SHA-512 forms compute their message schedule
//! with, and the variant names that force each. Shared by both word sizes, which dispatch on it
//! in their own `parallel` module.

use crate::algo::VariantInfo;
use crate::platform;

/// Which instructions compute the schedule of a `parallel` form.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ScheduleIsa {
    Portable,
    #[cfg(target_arch = "x86_64")]
    Sse41(platform::Sse41),
    #[cfg(target_arch = "x86_64")]
    Avx512(platform::Avx512),
}

impl ScheduleIsa {
    /// The best schedule ISA this CPU allows.
    pub(crate) fn detect() -> Self {
        #[cfg(target_arch = "x86_64")]
        {
            if let Some(token) = platform::Avx512::detect() {
                return ScheduleIsa::Avx512(token);
            }
            if let Some(token) = platform::Sse41::detect() {
                return ScheduleIsa::Sse41(token);
            }
        }
        ScheduleIsa::Portable
    }

    /// The ISA the variant `name` (`parallel` or one of its forced forms) runs on, or `None`
    /// when `name` is no such variant or this CPU lacks its ISA.
    pub(crate) fn by_variant(name: &str) -> Option<Self> {
        match name {
            "parallel" => Some(Self::detect()),
            "parallel-portable" => Some(ScheduleIsa::Portable),
            #[cfg(target_arch = "x86_64")]
            "parallel-sse41" => platform::Sse41::detect().map(ScheduleIsa::Sse41),
            #[cfg(target_arch = "x86_64")]
            "parallel-avx512" => platform::Avx512::detect().map(ScheduleIsa::Avx512),
            _ => None,
        }
    }

    /// `parallel` and its forced forms as variants; only `parallel` itself can be the default
    /// (`parallel_is_default`). `words` says how many schedule words one register holds.
    pub(crate) fn variant_infos(parallel_is_default: bool, words: Words) -> Vec<VariantInfo> {
        let info = |name, available, summary| VariantInfo {
            name,
            available,
            default: parallel_is_default && name == "parallel",
            summary,
        };
        #[allow(unused_mut)] // nothing is added off x86_64
        let mut v = vec![
            info("parallel", true, words.best),
            info("parallel-portable", true, words.portable),
        ];
        #[cfg(target_arch = "x86_64")]
        v.extend([
            info(
                "parallel-sse41",
                platform::Sse41::detect().is_some(),
                words.sse41,
            ),
            info(
                "parallel-avx512",
                platform::Avx512::detect().is_some(),
                words.avx512,
            ),
        ]);
        v
    }
}

/// One-line summaries of the `parallel` forms of one word size.
pub(crate) struct Words {
    pub best: &'static str,
    pub portable: &'static str,
    pub sse41: &'static str,
    pub avx512: &'static str,
}
