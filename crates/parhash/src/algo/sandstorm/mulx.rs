//! SANDstorm-384/512's portable compression compiled with BMI1/BMI2 (x86-64): the same source
//! ([`super::fast::compress_lanes`] on 128-bit words), whose F and G are 64x64->128-bit
//! products, gets `mulx` (a widening multiply that leaves the flags alone and writes any two
//! registers), `rorx` and `andn`, which the baseline x86-64 target cannot use. The baseline
//! build stays the twin (`TreeOptions::portable`); BENCHMARKS.md, "Performance at the roof
//! (issue 21)", has the measurement.

use crate::platform::Bmi2;

/// Runs `work` compiled with BMI1/BMI2: what `work` inlines (the tree's portable chains and
/// `compress_lanes`, both `#[inline(always)]`) is generated for those features.
#[inline]
pub(super) fn with_bmi2<R>(token: Bmi2, work: impl FnOnce() -> R) -> R {
    let _ = token;
    // SAFETY: the token proves BMI1 and BMI2 on this CPU.
    unsafe { with_bmi2_enabled(work) }
}

/// # Safety
/// The CPU must support BMI1 and BMI2.
#[target_feature(enable = "bmi1,bmi2")]
#[inline]
unsafe fn with_bmi2_enabled<R>(work: impl FnOnce() -> R) -> R {
    work()
}
