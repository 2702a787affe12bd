//! `parhash sum`: print checksum lines, as coreutils' sha256sum does.

use std::ffi::OsString;
use std::io::{self, Write};

use anyhow::{Context, Result};
use parhash::Algorithm;

use crate::check;
use crate::escape;
use crate::flags::{Device, SumArgs};
use crate::input::{self, hash_input, Source};
use crate::lines::{write_line, LineStyle};
use crate::many;
use crate::messages::{err_message, WRITE_ERROR};
use crate::parsha;
use crate::progress::ManyProgress;
use crate::stdio;
use parhash::Output;

/// The algorithm `sum` uses when `-a` is not given.
pub const DEFAULT_ALGORITHM: &str = "sha256";

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
        parsha: parsha::takes_tree_params(algorithm).then(|| args.hashing.tree_params()),
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
    let mut stdout = stdio::stdout();
    let mut line = Vec::with_capacity(256);
    let mut all_ok = true;
    for file in files {
        let name = escape::os_bytes(file);
        let source = if name.as_ref() == b"-" {
            Source::Stdin
        } else {
            Source::Path(file.into())
        };
        match hash_source(algorithm, &source, &args.hashing) {
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
    let progress = ManyProgress::new(total, args.hashing.no_progress);
    let items = many::items_for(files, args.recursive).map(closed_stdin_fails);
    let mut stdout = stdio::stdout();
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

/// [`hash_input`], except that standard input the parent closed fails as in sha256sum (`-: Bad
/// file descriptor`) instead of reading as empty.
pub fn hash_source(
    algorithm: Algorithm,
    source: &Source,
    options: &crate::flags::HashOptions,
) -> io::Result<Output> {
    match (source, stdio::stdin_error()) {
        (Source::Stdin, Some(closed)) => Err(closed),
        _ => hash_input(algorithm, source, options),
    }
}

/// An item of standard input the parent closed, as a failed item (see [`hash_source`]).
fn closed_stdin_fails(item: many::Item) -> many::Item {
    match (item, stdio::stdin_error()) {
        (
            many::Item::Hash {
                name,
                source: Source::Stdin,
            },
            Some(error),
        ) => many::Item::Failed { name, error },
        (item, _) => item,
    }
}
