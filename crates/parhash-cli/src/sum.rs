//! `parhash sum`: print checksum lines, as coreutils' sha256sum does.

use std::ffi::OsString;
use std::io::Write;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use parhash::Algorithm;

use crate::check;
use crate::flags::{Device, SumArgs, DEFAULT_ALGORITHM};
use crate::input::Source;
use crate::many;
use crate::messages::{err_message, WRITE_ERROR};
use crate::progress::ManyProgress;
use crate::stdio;
use parhash_format::escape;
use parhash_format::line::{write_failure, write_line, LineStyle};
use parhash_format::tag as parsha;

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
        json: args.output.json,
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
        match check::hash_source(algorithm, &source, &args.hashing) {
            Ok(digest) => {
                line.clear();
                write_line(&mut line, algorithm, &digest, &name, style);
                stdout.write_all(&line).context(WRITE_ERROR)?;
            }
            Err(err) => {
                line.clear();
                write_failure(&mut line, algorithm, &name, &err, style);
                stdout.write_all(&line).context(WRITE_ERROR)?;
                err_message!(
                    "{}: {}",
                    escape::quote(&name),
                    parhash_format::error_text(&err)
                );
                all_ok = false;
            }
        }
    }
    stdout.flush().context(WRITE_ERROR)?;
    Ok(all_ok)
}

/// `sum` over many files (or `-r`): through the multi-message engine (`many`), output byte for
/// byte what the one-by-one loop above prints, in the same order on both streams. Lines are
/// written (and flushed) as soon as the engine hands them on, and the inputs go to the engine
/// in chunks sized so that it hands them on within about [`PROMPT`] ([`next_chunk_len`]): a
/// reader downstream never waits for a large window of finished lines.
fn run_many(
    algorithm: Algorithm,
    files: &[OsString],
    args: &SumArgs,
    style: LineStyle,
) -> Result<bool> {
    let total = (!args.recursive).then_some(files.len() as u64);
    let progress = ManyProgress::new(total, args.hashing.no_progress);
    let mut items = many::items_for(files, args.recursive)
        .map(closed_stdin_fails)
        .peekable();
    let mut stdout = stdio::stdout();
    let mut lines = Vec::with_capacity(64 * 1024);
    let mut all_ok = true;
    let mut chunk_len = MIN_CHUNK;
    while items.peek().is_some() {
        let chunk: Vec<many::Item> = items.by_ref().take(chunk_len).collect();
        let started = Instant::now();
        let mut held = None;
        many::run(
            algorithm,
            chunk.into_iter(),
            &args.hashing,
            &progress,
            |outcomes| {
                held.get_or_insert_with(|| started.elapsed());
                for (name, result) in outcomes {
                    match result {
                        Ok(digest) => write_line(&mut lines, algorithm, &digest, &name, style),
                        Err(err) => {
                            // Lines before the error reach standard output before it reaches
                            // standard error, as in the one-by-one loop.
                            write_failure(&mut lines, algorithm, &name, &err, style);
                            hand_on(&mut stdout, &mut lines)?;
                            err_message!(
                                "{}: {}",
                                escape::quote(&name),
                                parhash_format::error_text(&err)
                            );
                            all_ok = false;
                        }
                    }
                }
                hand_on(&mut stdout, &mut lines)
            },
        )?;
        chunk_len = next_chunk_len(chunk_len, held.unwrap_or_else(|| started.elapsed()));
    }
    stdout.flush().context(WRITE_ERROR)?;
    Ok(all_ok)
}

/// About how long finished lines may wait before they are written.
const PROMPT: Duration = Duration::from_millis(100);

/// The fewest inputs handed to the engine at once: enough to fill every lane of two threads
/// twice over.
const MIN_CHUNK: usize = 64;

/// The most: the engine's own window, beyond which a chunk saves nothing more.
const MAX_CHUNK: usize = 4096;

/// The next chunk's length, from the last one's and how long its first lines waited: doubled
/// while they came out well within [`PROMPT`], halved when they took longer.
fn next_chunk_len(len: usize, held: Duration) -> usize {
    if held > PROMPT {
        (len / 2).max(MIN_CHUNK)
    } else if held < PROMPT / 4 {
        (len * 2).min(MAX_CHUNK)
    } else {
        len
    }
}

/// Writes the lines gathered so far and flushes them (NUL-terminated `-z` lines too).
fn hand_on(stdout: &mut impl Write, lines: &mut Vec<u8>) -> Result<()> {
    stdout.write_all(lines).context(WRITE_ERROR)?;
    stdout.flush().context(WRITE_ERROR)?;
    lines.clear();
    Ok(())
}

/// An item of standard input the parent closed, as a failed item (see [`check::hash_source`]).
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_grow_when_quick_and_shrink_when_slow() {
        let quick = Duration::from_millis(1);
        let slow = PROMPT * 3;
        assert_eq!(next_chunk_len(MIN_CHUNK, quick), 2 * MIN_CHUNK);
        assert_eq!(next_chunk_len(MAX_CHUNK, quick), MAX_CHUNK);
        assert_eq!(next_chunk_len(4 * MIN_CHUNK, slow), 2 * MIN_CHUNK);
        assert_eq!(next_chunk_len(MIN_CHUNK, slow), MIN_CHUNK);
        assert_eq!(next_chunk_len(256, PROMPT / 2), 256);
    }
}
