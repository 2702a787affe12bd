//! `parhash sum`: print checksum lines, as coreutils' sha256sum does.

use std::ffi::OsString;
use std::io::{self, Write};

use anyhow::{Context, Result};
use parhash::{Algorithm, Output};

use crate::check;
use crate::escape;
use crate::flags::{Device, SumArgs};
use crate::input::{self, hash_input, Source};
use crate::many;
use crate::messages::{err_message, WRITE_ERROR};
use crate::progress::ManyProgress;

/// The algorithm `sum` uses when `-a` is not given.
pub const DEFAULT_ALGORITHM: &str = "sha256";

/// How a checksum line is written.
#[derive(Clone, Copy, Debug, Default)]
pub struct LineStyle {
    /// BSD `TAG (NAME) = HEX` instead of GNU `HEX  NAME`.
    pub tag: bool,
    /// `HEX *NAME` (coreutils' binary-mode marker).
    pub binary: bool,
    /// NUL-terminated and unescaped.
    pub zero: bool,
    /// PARSHA-256's parameters, recorded in its tag.
    pub parsha: Option<crate::parsha::Params>,
}

/// Runs `parhash sum`; `Ok(false)` when some file could not be hashed.
pub fn run(args: &SumArgs) -> Result<bool> {
    if args.check {
        let options = check::Options {
            algorithm: args.algorithm,
            verify: args.verify.clone(),
            output: args.output.clone(),
            hashing: args.hashing.clone(),
        };
        return check::run(&options, &args.files);
    }
    let algorithm = match args.algorithm {
        Some(alg) => alg,
        None => Algorithm::from_name(DEFAULT_ALGORITHM)
            .context("the default algorithm is not in this build; choose one with -a")?,
    };
    let style = LineStyle {
        tag: args.tag,
        binary: args.binary,
        zero: args.output.zero,
        parsha: crate::parsha::is_parsha(algorithm)
            .then(|| crate::parsha::Params::from_options(&args.hashing)),
    };
    let stdin_only = [OsString::from("-")];
    let files = if args.files.is_empty() {
        &stdin_only[..]
    } else {
        &args.files[..]
    };
    if args.device == Device::Gpu {
        return crate::gpu::run(algorithm, files, args, style);
    }

    if args.recursive || files.len() > 1 {
        return run_many(algorithm, files, args, style);
    }
    let mut stdout = io::stdout().lock();
    let mut line = Vec::with_capacity(256);
    let mut all_ok = true;
    for file in files {
        let name = escape::os_bytes(file);
        let source = if name.as_ref() == b"-" {
            Source::Stdin
        } else {
            Source::Path(file.into())
        };
        match hash_input(algorithm, &source, &args.hashing) {
            Ok(digest) => {
                line.clear();
                write_line(&mut line, algorithm, &digest, &name, style);
                stdout.write_all(&line).context(WRITE_ERROR)?;
            }
            Err(err) => {
                err_message!("{}: {}", escape::quote(&name), input::error_text(&err));
                all_ok = false;
            }
        }
    }
    stdout.flush().context(WRITE_ERROR)?;
    Ok(all_ok)
}

/// `sum` over many files (or `-r`): through the multi-message engine (`many`), output byte for
/// byte what the one-by-one loop above prints, in the same order on both streams.
fn run_many(
    algorithm: Algorithm,
    files: &[OsString],
    args: &SumArgs,
    style: LineStyle,
) -> Result<bool> {
    let total = (!args.recursive).then_some(files.len() as u64);
    let progress = ManyProgress::new(total, &args.hashing);
    let items = many::items_for(files, args.recursive);
    let mut stdout = io::stdout().lock();
    let mut lines = Vec::with_capacity(64 * 1024);
    let mut all_ok = true;
    many::run(algorithm, items, &args.hashing, &progress, |outcomes| {
        for (name, result) in outcomes {
            match result {
                Ok(digest) => write_line(&mut lines, algorithm, &digest, &name, style),
                Err(err) => {
                    // Lines before the error reach standard output before it reaches standard
                    // error, as in the one-by-one loop.
                    stdout.write_all(&lines).context(WRITE_ERROR)?;
                    lines.clear();
                    err_message!("{}: {}", escape::quote(&name), input::error_text(&err));
                    all_ok = false;
                }
            }
        }
        stdout.write_all(&lines).context(WRITE_ERROR)?;
        lines.clear();
        Ok(())
    })?;
    stdout.flush().context(WRITE_ERROR)?;
    Ok(all_ok)
}

/// Appends one checksum line for `name`, byte for byte as coreutils writes it.
pub fn write_line(
    out: &mut Vec<u8>,
    alg: Algorithm,
    digest: &Output,
    name: &[u8],
    style: LineStyle,
) {
    let escaped = !style.zero && escape::sum_needs_escape(name);
    if escaped {
        out.push(b'\\');
    }
    let push_name = |out: &mut Vec<u8>| {
        if escaped {
            escape::escape_into(out, name);
        } else {
            out.extend_from_slice(name);
        }
    };
    if style.tag {
        match style.parsha {
            Some(params) if crate::parsha::is_parsha(alg) => {
                out.extend_from_slice(params.tag().as_bytes())
            }
            _ => out.extend_from_slice(alg.info().tag.as_bytes()),
        }
        out.extend_from_slice(b" (");
        push_name(out);
        out.extend_from_slice(b") = ");
        out.extend_from_slice(digest.to_hex().as_bytes());
    } else {
        out.extend_from_slice(digest.to_hex().as_bytes());
        out.extend_from_slice(if style.binary { b" *" } else { b"  " });
        push_name(out);
    }
    out.push(if style.zero { b'\0' } else { b'\n' });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(name: &[u8], style: LineStyle) -> Vec<u8> {
        let digest = Output::from_slice(&[0xab, 0x01]);
        let mut out = Vec::new();
        write_line(&mut out, Algorithm::Md5, &digest, name, style);
        out
    }

    #[test]
    fn gnu_lines() {
        let plain = LineStyle::default();
        assert_eq!(line(b"a b", plain), b"ab01  a b\n");
        assert_eq!(line(b"n\nl", plain), b"\\ab01  n\\nl\n");
        assert_eq!(line(b"b\\s", plain), b"\\ab01  b\\\\s\n");
        assert_eq!(line(b"c\rr", plain), b"\\ab01  c\\rr\n");
        let binary = LineStyle {
            binary: true,
            ..plain
        };
        assert_eq!(line(b"a", binary), b"ab01 *a\n");
    }

    #[test]
    fn tag_lines() {
        let tag = LineStyle {
            tag: true,
            ..LineStyle::default()
        };
        assert_eq!(line(b"a", tag), b"MD5 (a) = ab01\n");
        assert_eq!(line(b"n\nl", tag), b"\\MD5 (n\\nl) = ab01\n");
    }

    #[test]
    fn zero_lines_are_not_escaped() {
        let zero = LineStyle {
            zero: true,
            ..LineStyle::default()
        };
        assert_eq!(line(b"n\nl", zero), b"ab01  n\nl\0");
        let tag = LineStyle { tag: true, ..zero };
        assert_eq!(line(b"b\\s", tag), b"MD5 (b\\s) = ab01\0");
    }
}
