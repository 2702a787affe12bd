//! The disk head: what each read costs, and counters of what was read.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// A disk with one head: a seek costs `seek`, and every byte read costs `1 / rate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Model {
    /// What moving the head costs: paid by a read that does not start where the previous read
    /// ended.
    pub seek: Duration,
    /// Bytes per second under the head.
    pub rate_bytes_per_s: u64,
}

impl Model {
    /// A 7200 rpm disk: 8 ms seeks (half a turn is 4.2 ms, plus the arm's move), 150 MB/s.
    pub const DISK_7200_RPM: Model = Model {
        seek: Duration::from_millis(8),
        rate_bytes_per_s: 150_000_000,
    };

    /// No delays at all (tests of faults, where only the bytes matter).
    pub const INSTANT: Model = Model {
        seek: Duration::ZERO,
        rate_bytes_per_s: u64::MAX,
    };

    /// A model of `seek_ms` milliseconds per seek and `rate_mb_s` megabytes (10^6 bytes) per
    /// second (infinite: no transfer time).
    pub fn new(seek_ms: f64, rate_mb_s: f64) -> Result<Model, String> {
        if !(seek_ms.is_finite() && seek_ms >= 0.0) {
            return Err(format!("seek time {seek_ms} ms: not a time"));
        }
        let rate = rate_mb_s * 1e6;
        if rate == f64::INFINITY {
            return Ok(Model {
                seek: Duration::from_secs_f64(seek_ms / 1e3),
                rate_bytes_per_s: u64::MAX,
            });
        }
        if !(rate.is_finite() && rate >= 1.0) {
            return Err(format!("rate {rate_mb_s} MB/s: not a positive rate"));
        }
        Ok(Model {
            seek: Duration::from_secs_f64(seek_ms / 1e3),
            rate_bytes_per_s: rate as u64,
        })
    }

    /// What reading `len` bytes costs once the head is there.
    pub fn transfer(&self, len: u64) -> Duration {
        Duration::from_nanos(
            (u128::from(len) * 1_000_000_000 / u128::from(self.rate_bytes_per_s.max(1)))
                .try_into()
                .unwrap_or(u64::MAX),
        )
    }
}

/// What the head has done since the counters were last reset.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Read requests served.
    pub reads: u64,
    /// Reads that moved the head (the first read after a reset counts if it does not start
    /// where the head is).
    pub seeks: u64,
    /// Bytes the reads asked for (up to the end of the file).
    pub bytes: u64,
}

/// Counters shared between the file system and whoever reads them.
#[derive(Debug, Default)]
pub struct Counters {
    reads: AtomicU64,
    seeks: AtomicU64,
    bytes: AtomicU64,
}

impl Counters {
    /// The counts now.
    pub fn stats(&self) -> Stats {
        Stats {
            reads: self.reads.load(Ordering::Relaxed),
            seeks: self.seeks.load(Ordering::Relaxed),
            bytes: self.bytes.load(Ordering::Relaxed),
        }
    }

    /// Sets every count to zero (the head stays where it is).
    pub fn reset(&self) {
        self.reads.store(0, Ordering::Relaxed);
        self.seeks.store(0, Ordering::Relaxed);
        self.bytes.store(0, Ordering::Relaxed);
    }

    fn add(&self, seeked: bool, len: u64) {
        self.reads.fetch_add(1, Ordering::Relaxed);
        self.seeks.fetch_add(u64::from(seeked), Ordering::Relaxed);
        self.bytes.fetch_add(len, Ordering::Relaxed);
    }
}

/// The head's state: where it is and when it is free again.
#[derive(Debug)]
pub struct Head {
    model: Model,
    /// Where the previous read ended (`None` before the first read: the first read seeks).
    position: Option<u64>,
    /// When the head finishes the requests already served (a virtual clock: a request that
    /// arrives while the head is busy starts when the previous one ends, not when the thread
    /// that slept for it woke up, so sleeping late does not add up over many requests).
    free_at: Option<Instant>,
}

impl Head {
    /// A head at no known position.
    pub fn new(model: Model) -> Head {
        Head {
            model,
            position: None,
            free_at: None,
        }
    }

    /// The model it follows.
    pub fn model(&self) -> Model {
        self.model
    }

    /// Serves a read of `len` bytes at `offset` that arrives at `now`: counts it and returns
    /// when it completes (the caller sleeps until then).
    pub fn serve(&mut self, counters: &Counters, now: Instant, offset: u64, len: u64) -> Instant {
        let seeked = self.position != Some(offset);
        let mut cost = self.model.transfer(len);
        if seeked {
            cost += self.model.seek;
        }
        self.position = Some(offset + len);
        counters.add(seeked, len);
        let start = self.free_at.map_or(now, |free| free.max(now));
        let done = start + cost;
        self.free_at = Some(done);
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MODEL: Model = Model {
        seek: Duration::from_millis(8),
        rate_bytes_per_s: 1 << 20,
    };

    #[test]
    fn sequential_reads_pay_no_seek_and_a_jump_pays_one() {
        let counters = Counters::default();
        let mut head = Head::new(MODEL);
        let t0 = Instant::now();
        // The first read moves the head to the file.
        let done = head.serve(&counters, t0, 0, 1 << 19);
        assert_eq!(done - t0, MODEL.seek + Duration::from_millis(500));
        // Reads that go on where the last one ended: the transfer only, queued after it.
        let next = head.serve(&counters, t0, 1 << 19, 1 << 19);
        assert_eq!(next - done, Duration::from_millis(500));
        let stats = counters.stats();
        assert_eq!((stats.reads, stats.seeks, stats.bytes), (2, 1, 1 << 20));
        // A jump (back or ahead) pays one seek; arriving after the head is free, it starts then.
        let later = next + Duration::from_secs(1);
        let jumped = head.serve(&counters, later, 0, 1 << 10);
        assert_eq!(jumped - later, MODEL.seek + Duration::from_nanos(976_562));
        assert_eq!(counters.stats().seeks, 2);
        head.serve(&counters, later, 1 << 10, 1);
        head.serve(&counters, later, 5 << 20, 1);
        assert_eq!(counters.stats().seeks, 3);
        counters.reset();
        assert_eq!(counters.stats(), Stats::default());
    }

    #[test]
    fn models_read_their_units() {
        assert_eq!(Model::new(8.0, 150.0).unwrap(), Model::DISK_7200_RPM);
        assert_eq!(
            Model::DISK_7200_RPM.transfer(150_000),
            Duration::from_millis(1)
        );
        assert!(Model::new(-1.0, 150.0).is_err());
        assert!(Model::new(1.0, 0.0).is_err());
        assert!(Model::new(f64::NAN, 1.0).is_err());
        assert_eq!(Model::new(0.0, f64::INFINITY).unwrap(), Model::INSTANT);
        assert_eq!(Model::INSTANT.transfer(1 << 30), Duration::ZERO);
    }
}
