//! Where the GPU wins end to end on this machine, as the lab measured it: `parhash bench
//! --preset gpu` times `parhash sum` with `--device gpu` against the CPU, process start and
//! the GPU's opening included, and writes what it found (the GPU's name, and for each
//! algorithm where the GPU beat every CPU thread at every larger size); `parhash sum --device
//! auto` hashes on the GPU exactly there. Nothing measured, another GPU, or other parameters:
//! the CPU.
//!
//! The record is a small text file beside the PTX cache ([`crate::cache::cache_dir`]), so it
//! belongs to the machine and user that measured it:
//!
//! ```text
//! # where the GPU wins end to end (parhash bench --preset gpu, 2026-12-07)
//! device NVIDIA H100 80GB HBM3
//! parsha256 T=13 l=256 from 1000000
//! sha256 files from 100000
//! sha3-256 files never
//! ```
//!
//! A PARSHA-256 line counts the bytes of one file (with its tree height T and IV length l); a
//! batched algorithm's line counts the files of one command line (each a small file: the
//! lab measures files of [`FILES_OF_BYTES`] bytes). `never` in place of `from N` records a
//! measurement the GPU lost at every size.

use std::path::PathBuf;

/// The record's file name in the cache folder.
pub const FILE_NAME: &str = "gpu-wins";

/// The size of each file in the lab's file lists, from which a batched algorithm's crossover
/// (a number of files) is measured.
pub const FILES_OF_BYTES: u64 = 1024;

/// What a crossover counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// The bytes of one file hashed as PARSHA-256's tree with these parameters.
    Tree {
        /// PARSHA-256's tree height T.
        tree_height: u32,
        /// PARSHA-256's IV length l in bits.
        iv_bits: u32,
    },
    /// The files of one command line, hashed in batches (one GPU thread per file).
    Files,
}

/// One measured crossover.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Win {
    /// The algorithm's name, as `parhash sum -a` takes it (`parsha256`, `sha256`).
    pub algorithm: String,
    /// What [`Win::from`] counts.
    pub scale: Scale,
    /// The size (bytes, or files) from which the GPU won end to end at every size measured;
    /// `None`: it won at none.
    pub from: Option<u64>,
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
            let scale = match w.scale {
                Scale::Tree {
                    tree_height,
                    iv_bits,
                } => format!("T={tree_height} l={iv_bits}"),
                Scale::Files => "files".to_string(),
            };
            let from = w
                .from
                .map_or_else(|| "never".to_string(), |n| format!("from {n}"));
            out.push_str(&format!("{} {scale} {from}\n", w.algorithm));
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
            let (algorithm, scale, from) = match words.as_slice() {
                [alg, "files", from @ ..] => (alg, Scale::Files, from),
                [alg, t, l, from @ ..] => (
                    alg,
                    Scale::Tree {
                        tree_height: param(t, "T=")?,
                        iv_bits: param(l, "l=")?,
                    },
                    from,
                ),
                _ => return Err(bad()),
            };
            let from = match from {
                ["never"] => None,
                ["from", n] => Some(n.parse().map_err(|_| bad())?),
                _ => return Err(bad()),
            };
            wins.wins.push(Win {
                algorithm: algorithm.to_string(),
                scale,
                from,
            });
        }
        if wins.device.is_empty() {
            return Err("no `device` line".into());
        }
        Ok(wins)
    }

    /// Adds `win`, replacing what was recorded for its algorithm and scale.
    pub fn record(&mut self, win: Win) {
        self.wins
            .retain(|w| (&w.algorithm, w.scale) != (&win.algorithm, win.scale));
        self.wins.push(win);
    }

    /// The size from which the GPU named `device` wins for `algorithm` at `scale`; `None`
    /// where that was not measured there or the GPU never won.
    pub fn gpu_from(&self, device: &str, algorithm: &str, scale: Scale) -> Option<u64> {
        if self.device != device {
            return None;
        }
        self.wins
            .iter()
            .find(|w| w.algorithm == algorithm && w.scale == scale)
            .and_then(|w| w.from)
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

    const T13: Scale = Scale::Tree {
        tree_height: 13,
        iv_bits: 256,
    };

    fn sample() -> Wins {
        let win = |algorithm: &str, scale, from| Win {
            algorithm: algorithm.into(),
            scale,
            from,
        };
        let t4 = Scale::Tree {
            tree_height: 4,
            iv_bits: 0,
        };
        Wins {
            device: "NVIDIA H100 80GB HBM3".into(),
            wins: vec![
                win("parsha256", T13, Some(1_000_000)),
                win("parsha256", t4, None),
                win("sha256", Scale::Files, Some(100_000)),
                win("sha3-256", Scale::Files, None),
            ],
            note: "measured".into(),
        }
    }

    #[test]
    fn a_record_reads_back_as_written() {
        let w = sample();
        let text = w.to_text();
        assert!(
            text.contains("\nparsha256 T=13 l=256 from 1000000\n"),
            "{text}"
        );
        assert!(text.contains("\nsha256 files from 100000\n"), "{text}");
        assert!(text.contains("\nsha3-256 files never\n"), "{text}");
        assert_eq!(Wins::parse(&text).unwrap(), w);
    }

    #[test]
    fn the_gpu_is_used_only_where_it_was_measured_to_win() {
        let w = sample();
        let h100 = "NVIDIA H100 80GB HBM3";
        let t4 = Scale::Tree {
            tree_height: 4,
            iv_bits: 0,
        };
        let t13_l0 = Scale::Tree {
            tree_height: 13,
            iv_bits: 0,
        };
        assert_eq!(w.gpu_from(h100, "parsha256", T13), Some(1_000_000));
        assert_eq!(w.gpu_from(h100, "parsha256", t4), None, "it never won");
        assert_eq!(w.gpu_from(h100, "parsha256", t13_l0), None, "not measured");
        assert_eq!(w.gpu_from(h100, "parsha256", Scale::Files), None);
        assert_eq!(w.gpu_from(h100, "sha256", Scale::Files), Some(100_000));
        assert_eq!(w.gpu_from(h100, "sha256", T13), None);
        assert_eq!(w.gpu_from(h100, "sha3-256", Scale::Files), None, "never");
        assert_eq!(w.gpu_from(h100, "keccak256", Scale::Files), None);
        assert_eq!(
            w.gpu_from("NVIDIA A100", "parsha256", T13),
            None,
            "another GPU"
        );
    }

    #[test]
    fn a_new_measurement_replaces_the_old_one_for_its_scale() {
        let mut w = sample();
        let device = w.device.clone();
        w.record(Win {
            algorithm: "parsha256".into(),
            scale: T13,
            from: Some(10_000),
        });
        w.record(Win {
            algorithm: "sha3-256".into(),
            scale: Scale::Files,
            from: Some(1000),
        });
        assert_eq!(w.wins.len(), 4);
        assert_eq!(w.gpu_from(&device, "parsha256", T13), Some(10_000));
        assert_eq!(w.gpu_from(&device, "sha3-256", Scale::Files), Some(1000));
        assert_eq!(w.gpu_from(&device, "sha256", Scale::Files), Some(100_000));
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
            "sha256 files",
            "sha256 files from",
            "sha256 files from 5 6",
            "sha256 files sometimes",
            "parsha256 T=13 l=256",
        ] {
            let err = Wins::parse(&format!("device X\n{bad}\n")).unwrap_err();
            assert!(err.starts_with("line 2:"), "{bad}: {err}");
        }
    }
}
