//! PARSHA-256 in the CLI: its digest depends on the tree height T and the IV length l as well
//! as the data, so `sum` and `check` carry them (`--tree-height`, `--iv-bits`, and the
//! `PARSHA256-T<T>-IV<l>` tag), and it must know the message length before it starts.
//!
//! Regular files are streamed through [`Parsha256Hasher`], told the file's size first (a file
//! that changes size while it is read is an error, not a wrong digest). Standard input and other
//! inputs of unknown length are spooled to memory, at most [`SPOOL_LIMIT`] bytes; larger input
//! is refused with a message.

use std::fs::File;
use std::io::{self, Read};

use parhash::algo::parsha256::{
    parsha256_with, Parsha256Hasher, ParshaOptions, DEFAULT_IV_BITS, DEFAULT_TREE_HEIGHT,
    MAX_TREE_HEIGHT,
};
use parhash::{Algorithm, Output};

use crate::flags::HashOptions;
use crate::input::{map_file, regular_file_len, Source, MAPPED_PIECE};
use crate::progress::Progress;

/// Most bytes of standard input (or another input of unknown length) spooled to memory.
pub const SPOOL_LIMIT: u64 = 1 << 30;

/// Bytes read per update from a file.
const READ_SIZE: usize = 8 << 20;

/// PARSHA-256's parameters (T, l).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    pub tree_height: u32,
    pub iv_bits: u32,
}

impl Params {
    /// The parameters `-a parsha256` runs with: the flags, or the defaults.
    pub fn from_options(options: &HashOptions) -> Params {
        Params {
            tree_height: options.tree_height.unwrap_or(DEFAULT_TREE_HEIGHT),
            iv_bits: options.iv_bits.unwrap_or(DEFAULT_IV_BITS),
        }
    }

    /// The BSD tag that records them: `PARSHA256-T13-IV256`.
    pub fn tag(self) -> String {
        format!("PARSHA256-T{}-IV{}", self.tree_height, self.iv_bits)
    }

    /// Reads a tag written by [`Params::tag`]; `None` for any other word or invalid parameters.
    pub fn from_tag(tag: &str) -> Option<Params> {
        let rest = tag.strip_prefix("PARSHA256-T")?;
        let (t, l) = rest.split_once("-IV")?;
        let digits =
            |s: &str| !s.is_empty() && s.len() <= 3 && s.bytes().all(|b| b.is_ascii_digit());
        if !digits(t) || !digits(l) {
            return None;
        }
        let params = Params {
            tree_height: t.parse().ok()?,
            iv_bits: l.parse().ok()?,
        };
        let valid = (1..=MAX_TREE_HEIGHT).contains(&params.tree_height)
            && matches!(params.iv_bits, 0 | 128 | 256);
        valid.then_some(params)
    }

    /// These parameters as `HashOptions` for one input (what a tag line asks for).
    pub fn apply(self, options: &HashOptions) -> HashOptions {
        HashOptions {
            tree_height: Some(self.tree_height),
            iv_bits: Some(self.iv_bits),
            ..options.clone()
        }
    }
}

/// Whether `alg` is hashed here (with its parameters) rather than by a plain `Hasher`.
pub fn is_parsha(alg: Algorithm) -> bool {
    alg == Algorithm::Parsha256
}

/// `--tree-height` value parser: 1..=MAX_TREE_HEIGHT.
pub fn parse_tree_height(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(t) if (1..=MAX_TREE_HEIGHT).contains(&t) => Ok(t),
        _ => Err(format!("the tree height must be 1 to {MAX_TREE_HEIGHT}")),
    }
}

/// `--iv-bits` value parser: 0, 128 or 256.
pub fn parse_iv_bits(s: &str) -> Result<u32, String> {
    match s.parse::<u32>() {
        Ok(l @ (0 | 128 | 256)) => Ok(l),
        _ => Err("the IV length must be 0, 128 or 256 bits".into()),
    }
}

/// PARSHA-256 of everything `source` holds, with the parameters in `options`.
pub fn hash(source: &Source, options: &HashOptions) -> io::Result<Output> {
    let params = Params::from_options(options);
    let engine = ParshaOptions {
        threads: options.threads.into(),
        kernel: None,
    };
    let digest = match source {
        Source::Path(path) => {
            let mut file = File::open(path)?;
            match regular_file_len(&file) {
                Some(len) => {
                    let progress = Progress::for_file(path, Some(len), options);
                    let mut hasher =
                        Parsha256Hasher::new(len, params.tree_height, params.iv_bits, &engine)
                            .map_err(io::Error::other)?;
                    if let Some(map) = map_file(&file, Some(len)) {
                        // Hashed in place: whole rounds straight from the map.
                        for piece in map.chunks(MAPPED_PIECE) {
                            hasher.update(piece);
                            progress.advance(piece.len());
                        }
                    } else {
                        let mut buf = vec![0; READ_SIZE.min(len as usize + 1)];
                        loop {
                            let n = match file.read(&mut buf) {
                                Ok(0) => break,
                                Ok(n) => n,
                                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                                Err(e) => return Err(e),
                            };
                            hasher.update(&buf[..n]);
                            progress.advance(n);
                        }
                    }
                    hasher.finalize().map_err(|e| {
                        io::Error::other(format!("file changed size while being read ({e})"))
                    })?
                }
                None => spooled(&mut file, params, &engine)?,
            }
        }
        Source::Stdin => spooled(&mut io::stdin().lock(), params, &engine)?,
    };
    Ok(Output::from_slice(&digest.1))
}

/// Input of unknown length: read into memory (at most [`SPOOL_LIMIT`] bytes), then hashed.
fn spooled(
    reader: &mut impl Read,
    params: Params,
    engine: &ParshaOptions,
) -> io::Result<(u32, [u8; 32])> {
    let mut data = Vec::new();
    reader.take(SPOOL_LIMIT + 1).read_to_end(&mut data)?;
    if data.len() as u64 > SPOOL_LIMIT {
        return Err(io::Error::other(format!(
            "input of unknown length over {} MiB: PARSHA-256 needs the length first; hash a regular file instead",
            SPOOL_LIMIT >> 20
        )));
    }
    parsha256_with(&data, params.tree_height, params.iv_bits, engine).map_err(io::Error::other)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_round_trip_and_reject_bad_parameters() {
        let p = Params {
            tree_height: 7,
            iv_bits: 128,
        };
        assert_eq!(p.tag(), "PARSHA256-T7-IV128");
        assert_eq!(Params::from_tag(&p.tag()), Some(p));
        for bad in [
            "PARSHA256-T0-IV256",
            "PARSHA256-T41-IV256",
            "PARSHA256-T13-IV64",
            "PARSHA256-T13",
            "PARSHA256-T+3-IV0",
            "SHA256",
        ] {
            assert_eq!(Params::from_tag(bad), None, "{bad}");
        }
        assert!(parse_iv_bits("64").is_err());
        assert!(parse_tree_height("0").is_err());
        assert_eq!(parse_tree_height("16"), Ok(16));
    }
}
