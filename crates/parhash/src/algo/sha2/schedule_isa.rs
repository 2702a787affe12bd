//! The instruction sets the `parallel` SHA-256 and SHA-512 forms compute their message schedule
//! with. Shared by both word sizes, whose backend tables pick one and whose `parallel` modules
//! dispatch on it.

#[cfg(target_arch = "x86_64")]
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
