//! Clocks and statistics: wall time from `Instant`, cycles from the time-stamp counter (TSC),
//! whose frequency is measured against the wall clock, and median/min/max of samples.

use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

/// Reads the time-stamp counter, or `None` where the CPU has none the lab can read.
#[inline]
pub fn tsc() -> Option<u64> {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: rdtsc is part of the x86-64 baseline (every x86-64 CPU executes it) and only
        // reads a counter.
        Some(unsafe { std::arch::x86_64::_rdtsc() })
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        None
    }
}

/// The time-stamp counter's frequency in Hz, measured over `window` of wall time. On modern
/// x86 CPUs the TSC ticks at a constant rate (the nominal frequency), independent of turbo, so
/// "cycles" here are TSC ticks: the core clock may run faster or slower.
pub fn tsc_frequency(window: Duration) -> Option<f64> {
    let t0 = Instant::now();
    let c0 = tsc()?;
    while t0.elapsed() < window {
        std::hint::spin_loop();
    }
    let c1 = tsc()?;
    let elapsed = t0.elapsed().as_secs_f64();
    Some((c1.wrapping_sub(c0)) as f64 / elapsed)
}

/// The CPU time this process has used so far, in seconds: every thread's, those that have
/// ended too (a file engine's helper threads live for one file). `None` where the lab cannot
/// read it (not Unix).
pub fn process_cpu_seconds() -> Option<f64> {
    #[cfg(unix)]
    {
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: `getrusage` writes one `rusage` through the pointer, which points to one.
        if unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) } != 0 {
            return None;
        }
        // SAFETY: the call succeeded, so it filled the (already zeroed) struct.
        let usage = unsafe { usage.assume_init() };
        let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
        Some(seconds(usage.ru_utime) + seconds(usage.ru_stime))
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// Median, minimum and maximum of a set of samples.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    pub median: f64,
    pub min: f64,
    pub max: f64,
}

impl Stats {
    /// Statistics of `samples` (all zero for none).
    pub fn of(samples: &[f64]) -> Stats {
        if samples.is_empty() {
            return Stats::default();
        }
        let mut s = samples.to_vec();
        s.sort_by(f64::total_cmp);
        let n = s.len();
        let median = if n % 2 == 1 {
            s[n / 2]
        } else {
            (s[n / 2 - 1] + s[n / 2]) / 2.0
        };
        Stats {
            median,
            min: s[0],
            max: s[n - 1],
        }
    }

    /// Every figure multiplied by `k` (k > 0: keeps min below max).
    pub fn scale(self, k: f64) -> Stats {
        Stats {
            median: self.median * k,
            min: self.min * k,
            max: self.max * k,
        }
    }
}

/// One timed sample: wall seconds and TSC ticks (0 where there is no TSC).
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub seconds: f64,
    pub ticks: f64,
}

/// Times `work` once.
pub fn time<F: FnMut()>(mut work: F) -> Sample {
    let c0 = tsc().unwrap_or(0);
    let t0 = Instant::now();
    work();
    let seconds = t0.elapsed().as_secs_f64();
    let c1 = tsc().unwrap_or(0);
    Sample {
        seconds,
        ticks: c1.wrapping_sub(c0) as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_median_min_max() {
        let s = Stats::of(&[3.0, 1.0, 2.0]);
        assert_eq!((s.median, s.min, s.max), (2.0, 1.0, 3.0));
        let s = Stats::of(&[4.0, 1.0, 2.0, 3.0]);
        assert_eq!((s.median, s.min, s.max), (2.5, 1.0, 4.0));
        assert_eq!(Stats::of(&[]), Stats::default());
        assert_eq!(Stats::of(&[1.0, 2.0]).scale(2.0).max, 4.0);
    }

    #[test]
    fn tsc_ticks_forward() {
        if let (Some(a), Some(b)) = (tsc(), tsc()) {
            assert!(b >= a);
        }
    }
}
