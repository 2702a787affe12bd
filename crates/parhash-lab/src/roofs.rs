//! The roofs, measured in the same run as the hashes: memory read bandwidth (a streaming read,
//! one thread and all threads), page-cache reads, cold disk reads, and the host-to-accelerator
//! transfer rate when an accelerator back-end exists.

use std::path::Path;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::classify::Roof;
use crate::source::{read_range, ScratchFile, READ_CHUNK};

/// Probes of host-to-accelerator copy rates: each returns `(device name, bytes per second)` or
/// `None` when its device is absent. GPU back-ends add theirs here.
pub static TRANSFER_PROBES: &[TransferProbe] = &[crate::engines::gpu::transfer_probe];

/// Measures one device's host-to-device copy rate: `(device name, bytes per second)`.
pub type TransferProbe = fn() -> Option<(String, f64)>;

/// The roofs of this machine.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Roofs {
    /// Streaming memory read with one thread (bytes/s).
    pub memory_1t: f64,
    /// Streaming memory read with `threads` threads (bytes/s, all together).
    pub memory_nt: f64,
    /// Threads used for `memory_nt`.
    pub threads: usize,
    /// Bytes read for the memory roofs (must exceed the caches).
    pub memory_bytes: usize,
    /// Reads of a file in the page cache.
    pub page_cache: Roof,
    /// Reads of a file whose cached pages were dropped.
    pub disk: Roof,
    /// Bytes of the file used for the file roofs.
    pub file_bytes: usize,
    /// Host-to-accelerator copy rate (bytes/s) and the device's name, when there is one.
    pub transfer: Option<(String, f64)>,
    /// Remarks on how far the figures can be trusted.
    pub notes: Vec<String>,
}

impl Roofs {
    /// The memory roof for `threads` threads: linear between the one- and N-thread figures.
    pub fn memory_for(&self, threads: usize) -> Roof {
        let bandwidth = if threads <= 1 || self.threads <= 1 {
            self.memory_1t
        } else if threads >= self.threads {
            self.memory_nt
        } else {
            let f = (threads - 1) as f64 / (self.threads - 1) as f64;
            self.memory_1t + f * (self.memory_nt - self.memory_1t)
        };
        Roof {
            bandwidth,
            latency: 0.0,
        }
    }

    /// Transfer roof as a [`Roof`], when there is an accelerator.
    pub fn transfer_roof(&self) -> Option<Roof> {
        self.transfer.as_ref().map(|(_, bw)| Roof {
            bandwidth: *bw,
            latency: 0.0,
        })
    }

    /// "no GPU" or the device and its rate.
    pub fn transfer_text(&self) -> String {
        match &self.transfer {
            Some((name, bw)) => format!("{name}: {}", crate::units::format_rate(*bw)),
            None => "no GPU (no accelerator back-end found on this machine)".to_string(),
        }
    }
}

/// Sizes of the roof measurements.
#[derive(Clone, Copy, Debug)]
pub struct RoofPlan {
    pub memory_bytes: usize,
    pub file_bytes: usize,
    pub repeats: usize,
    pub threads: usize,
}

impl RoofPlan {
    /// Full-size roofs: 256 MiB of memory (beyond any cache), a 64 MiB file.
    pub fn normal(threads: usize) -> Self {
        RoofPlan {
            memory_bytes: 256 << 20,
            file_bytes: 64 << 20,
            repeats: 5,
            threads,
        }
    }

    /// Seconds-scale CI figures: only the mechanics are exercised.
    pub fn tiny(threads: usize) -> Self {
        RoofPlan {
            memory_bytes: 4 << 20,
            file_bytes: 1 << 20,
            repeats: 2,
            threads,
        }
    }
}

/// Sums a slice of words (the compiler vectorises it): reads every byte once.
fn stream_sum(words: &[u64]) -> u64 {
    words.iter().fold(0u64, |a, &w| a.wrapping_add(w))
}

/// Best streaming-read bandwidth of `words` split over `threads` threads.
fn memory_bandwidth(words: &[u64], threads: usize, repeats: usize) -> f64 {
    let threads = threads.max(1);
    let chunk = words.len().div_ceil(threads);
    let mut best = 0.0f64;
    for _ in 0..repeats.max(1) {
        let t0 = Instant::now();
        let total: u64 = std::thread::scope(|s| {
            let handles: Vec<_> = words
                .chunks(chunk.max(1))
                .map(|part| s.spawn(move || stream_sum(part)))
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().expect("roof thread"))
                .fold(0u64, u64::wrapping_add)
        });
        std::hint::black_box(total);
        let secs = t0.elapsed().as_secs_f64();
        best = best.max((words.len() * 8) as f64 / secs);
    }
    best
}

/// Bandwidth of reading the whole file, and the median latency of 4 KiB reads; `cold` drops the
/// cached pages before each read.
fn file_roof(file: &ScratchFile, repeats: usize, cold: bool) -> std::io::Result<Roof> {
    let handle = file.open()?;
    let mut buf = vec![0u8; READ_CHUNK];
    let mut best = 0.0f64;
    for _ in 0..repeats.max(1) {
        if cold {
            file.drop_cache()?;
        } else {
            read_range(&handle, 0, file.len(), &mut buf, |_| ())?;
        }
        let t0 = Instant::now();
        let mut sum = 0u8;
        read_range(&handle, 0, file.len(), &mut buf, |c| {
            sum = sum.wrapping_add(c[c.len() - 1])
        })?;
        std::hint::black_box(sum);
        best = best.max(file.len() as f64 / t0.elapsed().as_secs_f64());
    }
    let mut lat = Vec::new();
    let small = 4096.min(file.len());
    for i in 0..(repeats.max(1) * 4) {
        if cold {
            file.drop_cache()?;
        }
        // Different offsets so read-ahead of one probe does not serve the next.
        let offset = ((i * 7919 * 4096) % file.len().saturating_sub(small).max(1)) as u64 & !4095;
        let t0 = Instant::now();
        read_range(&handle, offset, small, &mut buf, |_| ())?;
        lat.push(t0.elapsed().as_secs_f64());
    }
    Ok(Roof {
        bandwidth: best,
        latency: crate::timer::Stats::of(&lat).median,
    })
}

/// Measures every roof; `scratch` is where the probe file goes (it must be on the disk to
/// measure, not on a RAM file system).
pub fn measure(plan: &RoofPlan, scratch: &Path) -> std::io::Result<Roofs> {
    let mut notes = Vec::new();
    let words = vec![1u64; plan.memory_bytes / 8];
    let memory_1t = memory_bandwidth(&words, 1, plan.repeats);
    let memory_nt = memory_bandwidth(&words, plan.threads, plan.repeats);
    drop(words);

    let file = ScratchFile::create(scratch, "roof-probe.bin", plan.file_bytes)?;
    let page_cache = file_roof(&file, plan.repeats, false)?;
    let disk = match file_roof(&file, plan.repeats.min(3), true) {
        Ok(roof) => roof,
        Err(e) => {
            notes.push(format!(
                "cold reads failed ({e}): disk roof is the page-cache roof"
            ));
            page_cache
        }
    };
    if disk.bandwidth > 0.5 * page_cache.bandwidth {
        notes.push(format!(
            "cold reads ran at {} against {} from the page cache: dropping the cache had little \
             effect here (RAM-backed or host-cached storage), so 'disk' figures are optimistic",
            crate::units::format_rate(disk.bandwidth),
            crate::units::format_rate(page_cache.bandwidth)
        ));
    }
    let transfer = TRANSFER_PROBES.iter().find_map(|probe| probe());
    if plan.memory_bytes < (64 << 20) {
        notes.push("tiny mode: the memory probe fits in cache, roofs are not meaningful".into());
    }
    Ok(Roofs {
        memory_1t,
        memory_nt,
        threads: plan.threads,
        memory_bytes: plan.memory_bytes,
        page_cache,
        disk,
        file_bytes: plan.file_bytes,
        transfer,
        notes,
    })
}

/// Roughly how long [`measure`] takes with this plan, to budget the run.
pub fn expected_time(plan: &RoofPlan) -> Duration {
    Duration::from_secs_f64(
        (plan.memory_bytes as f64 * 2.0 / 5e9 + plan.file_bytes as f64 * 4.0 / 5e8)
            * plan.repeats as f64,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_roof_interpolates() {
        let r = Roofs {
            memory_1t: 10.0,
            memory_nt: 30.0,
            threads: 3,
            memory_bytes: 0,
            page_cache: Roof {
                bandwidth: 1.0,
                latency: 0.0,
            },
            disk: Roof {
                bandwidth: 1.0,
                latency: 0.0,
            },
            file_bytes: 0,
            transfer: None,
            notes: vec![],
        };
        assert_eq!(r.memory_for(1).bandwidth, 10.0);
        assert_eq!(r.memory_for(2).bandwidth, 20.0);
        assert_eq!(r.memory_for(8).bandwidth, 30.0);
        assert!(r.transfer_text().starts_with("no GPU"));
    }

    #[test]
    fn tiny_roofs_measure() {
        let dir = std::env::temp_dir().join(format!("parhash-lab-roofs-{}", std::process::id()));
        let r = measure(&RoofPlan::tiny(2), &dir).unwrap();
        assert!(r.memory_1t > 0.0 && r.memory_nt > 0.0);
        assert!(r.page_cache.bandwidth > 0.0 && r.disk.bandwidth > 0.0);
        let _ = std::fs::remove_dir_all(dir);
    }
}
