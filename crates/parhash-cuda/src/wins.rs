//! Where the GPU wins end to end on this machine, as the lab measured it: `parhash bench
//! --preset gpu` writes what it found (the GPU's name, and for each algorithm and parameter
//! set the size from which the GPU beat every CPU thread), and `parhash sum --device auto`
//! hashes on the GPU exactly there. Nothing measured, another GPU, or other parameters: the CPU.
//!
//! The record is a small text file beside the PTX cache ([`crate::cache::cache_dir`]), so it
//! belongs to the machine and user that measured it:
//!
//! ```text
//! # where the GPU wins end to end (parhash bench --preset gpu, 2026-12-07)
//! device NVIDIA H100 80GB HBM3
//! parsha256 T=13 l=256 from 1000000
//! ```
//!
//! `never` in place of `from N` records a measurement the GPU lost at every size.

use std::path::PathBuf;

/// The record's file name in the cache folder.
pub const FILE_NAME: &str = "gpu-wins";

/// One measured crossover.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Win {
    /// The algorithm's name, as `parhash sum -a` takes it (`parsha256`).
    pub algorithm: String,
    /// PARSHA-256's tree height T.
    pub tree_height: u32,
    /// PARSHA-256's IV length l in bits.
    pub iv_bits: u32,
    /// The size in bytes from which the GPU won end to end at every size measured; `None`: it
    /// won at none.
    pub from_bytes: Option<u64>,
}

/// What the lab measured on one GPU.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Wins {
    /// The GPU's name, as the driver reports it ([`crate::Gpu::name`]).
    pub device: String,
    /// The crossovers, one per algorithm and parameter set.
    pub wins: Vec<Win>,
    /// The first line's comment (when and how it was measured).
    pub note: String,
}

impl Wins {
    /// The record's text.
    pub fn to_text(&self) -> String {
        let mut out = format!("# {}\ndevice {}\n", self.note, self.device);
        for w in &self.wins {
            let from = w
                .from_bytes
                .map_or_else(|| "never".to_string(), |b| format!("from {b}"));
            out.push_str(&format!(
                "{} T={} l={} {from}\n",
                w.algorithm, w.tree_height, w.iv_bits
            ));
        }
        out
    }

    /// Reads a record; the error names the line that is not one.
    pub fn parse(text: &str) -> Result<Wins, String> {
        let mut wins = Wins::default();
        for (i, line) in text.lines().enumerate() {
            let bad = || format!("line {}: not a gpu-wins line: {line:?}", i + 1);
            let line = line.trim();
            if let Some(note) = line.strip_prefix('#') {
                if wins.note.is_empty() {
                    wins.note = note.trim().to_string();
                }
                continue;
            }
            if line.is_empty() {
                continue;
            }
            if let Some(device) = line.strip_prefix("device ") {
                wins.device = device.trim().to_string();
                continue;
            }
            let words: Vec<&str> = line.split_whitespace().collect();
            let param = |word: &str, key: &str| -> Result<u32, String> {
                word.strip_prefix(key)
                    .and_then(|v| v.parse().ok())
                    .ok_or_else(bad)
            };
            let (algorithm, from_bytes) = match words.as_slice() {
                [alg, _, _, "never"] => (alg, None),
                [alg, _, _, "from", n] => (alg, Some(n.parse().map_err(|_| bad())?)),
                _ => return Err(bad()),
            };
            wins.wins.push(Win {
                algorithm: algorithm.to_string(),
                tree_height: param(words[1], "T=")?,
                iv_bits: param(words[2], "l=")?,
                from_bytes,
            });
        }
        if wins.device.is_empty() {
            return Err("no `device` line".into());
        }
        Ok(wins)
    }

    /// Adds `win`, replacing what was recorded for its algorithm and parameters.
    pub fn record(&mut self, win: Win) {
        self.wins.retain(|w| {
            (&w.algorithm, w.tree_height, w.iv_bits)
                != (&win.algorithm, win.tree_height, win.iv_bits)
        });
        self.wins.push(win);
    }

    /// The size from which the GPU named `device` wins for `algorithm` with tree height
    /// `tree_height` and an IV of `iv_bits` bits; `None` where that was not measured there or
    /// the GPU never won.
    pub fn gpu_from(
        &self,
        device: &str,
        algorithm: &str,
        tree_height: u32,
        iv_bits: u32,
    ) -> Option<u64> {
        if self.device != device {
            return None;
        }
        self.wins
            .iter()
            .find(|w| {
                w.algorithm == algorithm && w.tree_height == tree_height && w.iv_bits == iv_bits
            })
            .and_then(|w| w.from_bytes)
    }
}

/// The record's path: [`FILE_NAME`] in the PTX cache folder.
pub fn path() -> Option<PathBuf> {
    crate::cache::cache_dir().map(|d| d.join(FILE_NAME))
}

/// The record on this machine, if there is a readable one.
pub fn load() -> Option<Wins> {
    Wins::parse(&std::fs::read_to_string(path()?).ok()?).ok()
}

/// Writes the record (write, then rename, so a reader never sees half of it); returns where.
///
/// # Errors
/// No cache folder can be named, or writing failed.
pub fn store(wins: &Wins) -> std::io::Result<PathBuf> {
    let path = path().ok_or_else(|| {
        std::io::Error::other("no cache folder (set PARHASH_CUDA_CACHE, XDG_CACHE_HOME or HOME)")
    })?;
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, wins.to_text())?;
    std::fs::rename(&tmp, &path)?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Wins {
        Wins {
            device: "NVIDIA H100 80GB HBM3".into(),
            wins: vec![
                Win {
                    algorithm: "parsha256".into(),
                    tree_height: 13,
                    iv_bits: 256,
                    from_bytes: Some(1_000_000),
                },
                Win {
                    algorithm: "parsha256".into(),
                    tree_height: 4,
                    iv_bits: 0,
                    from_bytes: None,
                },
            ],
            note: "measured".into(),
        }
    }

    #[test]
    fn a_record_reads_back_as_written() {
        let w = sample();
        assert_eq!(Wins::parse(&w.to_text()).unwrap(), w);
    }

    #[test]
    fn the_gpu_is_used_only_where_it_was_measured_to_win() {
        let w = sample();
        let h100 = "NVIDIA H100 80GB HBM3";
        assert_eq!(w.gpu_from(h100, "parsha256", 13, 256), Some(1_000_000));
        assert_eq!(w.gpu_from(h100, "parsha256", 4, 0), None, "it never won");
        assert_eq!(w.gpu_from(h100, "parsha256", 13, 0), None, "not measured");
        assert_eq!(w.gpu_from(h100, "sha256", 13, 256), None);
        assert_eq!(
            w.gpu_from("NVIDIA A100", "parsha256", 13, 256),
            None,
            "another GPU"
        );
    }

    #[test]
    fn a_new_measurement_replaces_the_old_one_for_its_parameters() {
        let mut w = sample();
        w.record(Win {
            algorithm: "parsha256".into(),
            tree_height: 13,
            iv_bits: 256,
            from_bytes: Some(10_000),
        });
        assert_eq!(w.wins.len(), 2);
        assert_eq!(
            w.gpu_from(&w.device.clone(), "parsha256", 13, 256),
            Some(10_000)
        );
    }

    #[test]
    fn damaged_records_are_refused_with_the_line() {
        assert!(
            Wins::parse("parsha256 T=13 l=256 from 5\n").is_err(),
            "no device"
        );
        for bad in [
            "parsha256 T=13 l=256 from x",
            "parsha256 13 256 never",
            "parsha256",
        ] {
            let err = Wins::parse(&format!("device X\n{bad}\n")).unwrap_err();
            assert!(err.starts_with("line 2:"), "{err}");
        }
    }
}
