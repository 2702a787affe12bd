//! `check --range`'s rules, for the CLI and the Python package's cluster check alike: the
//! range `OFFSET:LENGTH` and its `bytes A-B` note, where a file's outboard is (`FILE.obao`,
//! `FILE.obaoK`, or under a directory), and one list line's range verified against its BLAKE3
//! digest with that outboard (`parhash::outboard`), with the line's outcome as `check`
//! reports it.

use std::fs::File;
use std::io;
use std::path::{Component, Path, PathBuf};

use parhash::outboard::{verify_range_grouped, ChunkGroup, RangeError};
use parhash::{Algorithm, Output};

use crate::escape;

/// A byte range of a file: `OFFSET:LENGTH`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteRange {
    /// The first byte.
    pub offset: u64,
    /// How many bytes.
    pub len: u64,
}

impl ByteRange {
    /// `bytes A-B` (inclusive, as `check --range` and `sum --range` print it), or `no bytes at
    /// A` for an empty range.
    pub fn describe(self) -> String {
        match self.len {
            0 => format!("no bytes at {}", self.offset),
            len => format!("bytes {}-{}", self.offset, self.offset + (len - 1)),
        }
    }

    /// Why `check --range` refuses this range, if it does: an empty one verifies nothing.
    pub fn check_refusal(self) -> Option<String> {
        (self.len == 0).then(|| {
            format!(
                "--range {}:0 holds no bytes: there is nothing to verify",
                self.offset
            )
        })
    }
}

/// Parses `OFFSET:LENGTH`, each a size as `--part-size` takes them (`4MiB`, `1e6`, `4096`).
///
/// # Errors
/// A message saying why `text` is no range.
pub fn parse_range(text: &str) -> Result<ByteRange, String> {
    let (offset, len) = text
        .split_once(':')
        .ok_or_else(|| format!("'{text}' is not OFFSET:LENGTH (example: 1GiB:4MiB)"))?;
    let offset = crate::size::parse_size(offset)?;
    let len = crate::size::parse_size(len)?;
    if offset.checked_add(len).is_none() {
        return Err(format!("'{text}' ends past the largest file offset"));
    }
    Ok(ByteRange { offset, len })
}

/// Parses a chunk group's k (0 to 10: leaves of 2^k KiB).
///
/// # Errors
/// A message saying why `text` is no chunk group.
pub fn parse_chunk_group(text: &str) -> Result<ChunkGroup, String> {
    text.parse::<u8>()
        .ok()
        .and_then(ChunkGroup::new)
        .ok_or_else(|| {
            format!(
                "'{text}' is no chunk group: 0 (bao, 1 KiB) to {} (1 MiB); 4 is iroh's 16 KiB",
                ChunkGroup::MAX_LOG
            )
        })
}

/// The outboard of the file at `path`: beside it (`dir` empty) or under `dir`, named
/// `PATH.obao` for bao's chunk group and `PATH.obaoK` for another k, so that the name says
/// what the outboard does not record.
///
/// # Errors
/// A name with `..` under a `dir`: it would land outside it.
pub fn outboard_path(path: &Path, dir: &Path, group: ChunkGroup) -> io::Result<PathBuf> {
    let mut name = path.as_os_str().to_os_string();
    name.push(".obao");
    if group != ChunkGroup::BAO {
        name.push(group.chunk_log().to_string());
    }
    let beside = PathBuf::from(name);
    if dir.as_os_str().is_empty() {
        return Ok(beside);
    }
    let mut under = dir.to_path_buf();
    for part in beside.components() {
        match part {
            Component::Normal(part) => under.push(part),
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
            Component::ParentDir => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "a name with .. has no place under --outboard's DIR: name the file without ..",
                ))
            }
        }
    }
    Ok(under)
}

/// Where `check --range` looks for outboards: `dir` (empty: beside each file) and the chunk
/// group (`None`: the first of every group's name that exists).
#[derive(Clone, Copy, Debug)]
pub struct Outboards<'a> {
    /// `--outboard DIR`, or empty.
    pub dir: &'a Path,
    /// `--chunk-group K`.
    pub chunk_group: Option<ChunkGroup>,
}

impl Outboards<'_> {
    /// The outboard of the file at `path` and its chunk group; an error saying how to make
    /// one where there is none.
    fn find(&self, path: &Path) -> io::Result<(PathBuf, ChunkGroup)> {
        let groups: Vec<ChunkGroup> = match self.chunk_group {
            Some(group) => vec![group],
            None => (0..=ChunkGroup::MAX_LOG)
                .filter_map(ChunkGroup::new)
                .collect(),
        };
        for &group in &groups {
            let candidate = outboard_path(path, self.dir, group)?;
            if candidate.is_file() {
                return Ok((candidate, group));
            }
        }
        let first = outboard_path(path, self.dir, groups[0])?;
        let outboard_flag = if self.dir.as_os_str().is_empty() {
            String::new()
        } else {
            format!("={}", self.dir.display())
        };
        Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "no outboard ({} not found): write one with `parhash sum -a blake3 --outboard{} {}`",
                first.display(),
                outboard_flag,
                path.display()
            ),
        ))
    }
}

/// One line's range checked: the outcome `check` reports, and where the data differs, the
/// message for standard error that says which bytes (before the line).
#[derive(Debug)]
pub struct LineRange {
    /// The listed digest where the range verified; another value where its data differs; an
    /// error with the reason for everything that is no verdict on the data (no outboard, a
    /// damaged one, a range past the end, another algorithm).
    pub outcome: io::Result<Output>,
    /// `NAME: which chunks differ`, where they do.
    pub damage: Option<String>,
}

/// The range of the file a list line names (`name`, its `algorithm` and `expected` digest)
/// verified with the file's outboard, reading only the range and the outboard's nodes on the
/// way to the root.
pub fn verify_line(
    algorithm: Algorithm,
    expected: &[u8],
    name: &[u8],
    range: ByteRange,
    outboards: Outboards<'_>,
) -> LineRange {
    let mut damage = None;
    let outcome = verify(algorithm, expected, name, range, outboards, &mut damage);
    LineRange { outcome, damage }
}

fn verify(
    algorithm: Algorithm,
    expected: &[u8],
    name: &[u8],
    range: ByteRange,
    outboards: Outboards<'_>,
    damage: &mut Option<String>,
) -> io::Result<Output> {
    let no_verdict = |text: String| io::Error::new(io::ErrorKind::InvalidData, text);
    if algorithm != Algorithm::Blake3 {
        return Err(no_verdict(format!(
            "--range verifies BLAKE3 lines (with their outboards), not {}",
            algorithm.name()
        )));
    }
    let Ok(root) = <[u8; 32]>::try_from(expected) else {
        return Err(no_verdict(
            "--range verifies BLAKE3's 32-byte digest, not a longer or shorter one".into(),
        ));
    };
    if name == b"-" {
        return Err(no_verdict(
            "--range needs a file, not standard input".into(),
        ));
    }
    let path = escape::path_from_bytes(name);
    let data = File::open(&path)?;
    let (outboard_path, group) = outboards.find(&path)?;
    let outboard = File::open(&outboard_path)?;
    let shown = outboard_path.display();
    match verify_range_grouped(&root, group, outboard, data, range.offset, range.len) {
        Ok(()) => Ok(Output::from_slice(&root)),
        Err(err) if err.is_data_damage() => {
            *damage = Some(format!("{}: {err}", escape::quote(name)));
            // A value that is not the listed digest: the line is FAILED, counted as a
            // mismatch, as `check` counts a file that differs.
            let mut other = root;
            other[0] ^= 1;
            Ok(Output::from_slice(&other))
        }
        Err(err) if err.is_outboard_damage() => Err(no_verdict(format!(
            "{shown}: {err}; the file's range was not checked (write the outboard again with \
             `parhash sum -a blake3 --outboard` from a good copy)"
        ))),
        Err(RangeError::Io(err)) => Err(err),
        Err(err) => Err(no_verdict(err.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_parse_with_sizes() {
        let range = parse_range("1GiB:4MiB").unwrap();
        assert_eq!(
            range,
            ByteRange {
                offset: 1 << 30,
                len: 4 << 20
            }
        );
        assert_eq!(range.describe(), "bytes 1073741824-1077936127");
        assert_eq!(parse_range("0:0").unwrap().describe(), "no bytes at 0");
        assert!(parse_range("0:0").unwrap().check_refusal().is_some());
        assert!(range.check_refusal().is_none());
        assert!(parse_range("4096").is_err());
        assert!(parse_range("x:1").is_err());
        assert!(parse_range("1:-1").is_err());
    }

    #[test]
    fn chunk_groups_are_0_to_10() {
        assert_eq!(parse_chunk_group("0").unwrap(), ChunkGroup::BAO);
        assert_eq!(parse_chunk_group("4").unwrap(), ChunkGroup::IROH);
        assert!(parse_chunk_group("11").is_err());
        assert!(parse_chunk_group("k").is_err());
    }
}
