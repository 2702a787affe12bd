//! `parhash store verify` and `parhash store list`: the printing of a verification
//! (`parhash_store::verify`, lines or JSON records on standard output and the counts on
//! standard error) and of the store's checksums (`parhash_store::catalog`), in the words of the
//! Python package's `parhash-store`.

use std::io::Write;

use parhash_store::report::{Tally, Verdict};
use parhash_store::s3::{self, Connection};
use parhash_store::verify::{self, Options};

use crate::flags::store::{ListArgs, StoreArgs, StoreCommand, StoreFlags, VerifyArgs};
use crate::messages::{err_message, UsageError};

/// Runs `parhash store`; `Ok(false)` where anything did not match. A run that could not
/// finish is a usage-status error (2), as for the Python package.
pub fn run(args: &StoreArgs) -> anyhow::Result<bool> {
    match &args.command {
        StoreCommand::Verify(args) => verify_tree(args),
        StoreCommand::List(args) => list(args),
    }
}

/// The runtime of a command's requests, and the client as `flags` say.
fn connect(flags: &StoreFlags) -> anyhow::Result<(tokio::runtime::Runtime, s3::Client)> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let connection = Connection {
        endpoint_url: flags.endpoint_url.clone(),
        profile: flags.profile.clone(),
        region: flags.region.clone(),
    };
    let client = runtime.block_on(s3::client(&connection));
    Ok((runtime, client))
}

fn verify_tree(args: &VerifyArgs) -> anyhow::Result<bool> {
    let (bucket, prefix) = parhash_store::parse_url(&args.url).map_err(UsageError)?;
    if !args.local.is_dir() {
        return Err(UsageError(format!("{}: not a folder", args.local.display())).into());
    }
    let (runtime, client) = connect(&args.store)?;
    let options = Options {
        threads: args.store.threads as usize,
        start_after: args.start_after.clone(),
        min_part_size: args.min_part_size,
        page_size: args.store.page_size,
        download_mismatches: args.download_mismatches,
    };
    // The verdicts given so far, on a terminal; lines are written beside it.
    let progress = crate::progress::count_bar("objects and files checked", args.no_progress);
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut tally = Tally::default();
    let mut seen = 0u64;
    let mut last: Option<String> = args.start_after.clone();
    let mut written = Ok(());
    let outcome = verify::verify(
        &runtime,
        client,
        &args.local,
        &bucket,
        &prefix,
        &options,
        |verdict: Verdict| {
            tally.add(&verdict);
            seen += u64::from(verdict.key.is_some());
            if written.is_ok() {
                let mut write = || {
                    if args.json {
                        writeln!(out, "{}", verdict.record())
                    } else if !(args.quiet && verdict.status == "matched") {
                        writeln!(out, "{}", verdict.line())
                    } else {
                        Ok(())
                    }
                };
                written = match &progress {
                    Some(bar) => bar.suspend(write),
                    None => write(),
                };
            }
            last = Some(verdict.name);
        },
    );
    if let Some(bar) = &progress {
        bar.finish_and_clear();
    }
    written?;
    out.flush()?;
    if let Err(failure) = outcome {
        let whereabouts = match &last {
            Some(last) => format!(
                "after {} verdicts, the last '{last}'; resume with --start-after '{last}'",
                tally.total()
            ),
            None => "before any verdict".to_string(),
        };
        return Err(UsageError(format!("{}: {failure} ({whereabouts})", args.url)).into());
    }
    if seen == 0 && args.start_after.is_none() {
        return Err(UsageError(format!("{}: no objects under this prefix", args.url)).into());
    }
    if args.json {
        writeln!(out, "{}", tally.record(&args.url))?;
        out.flush()?;
    }
    err_message!("{}: {}", args.url, tally.summary());
    Ok(tally.passed())
}

/// `parhash store list`: a line (or a record) per object; `Ok(false)` where an object had no
/// checksum parhash can reproduce.
fn list(args: &ListArgs) -> anyhow::Result<bool> {
    let (bucket, prefix) = parhash_store::parse_url(&args.url).map_err(UsageError)?;
    let sink: Box<dyn Write> = match &args.output {
        Some(path) => Box::new(std::fs::File::create(path).map_err(|err| {
            UsageError(format!(
                "{}: {}",
                path.display(),
                parhash_format::error_text(&err)
            ))
        })?),
        None => Box::new(std::io::stdout().lock()),
    };
    let mut out = std::io::BufWriter::new(sink);
    let (runtime, client) = connect(&args.store)?;
    let progress = crate::progress::count_bar("objects listed", args.no_progress);
    let (mut count, mut without) = (0u64, 0u64);
    let mut written = Ok(());
    let outcome = parhash_store::catalog::checksums(
        &runtime,
        client,
        &bucket,
        &prefix,
        args.store.threads as usize,
        args.store.page_size,
        |object| {
            count += 1;
            if let Some(bar) = &progress {
                bar.inc(1);
            }
            if written.is_ok() {
                written = match (&object.expected, args.json) {
                    (_, true) => writeln!(out, "{}", object.record()),
                    (Ok(exp), false) => {
                        out.write_all(&parhash_store::catalog::line(exp, &object.name))
                    }
                    (Err(_), false) => Ok(()),
                };
            }
            if let Err(why) = &object.expected {
                without += 1;
                let say =
                    || err_message!("{}: no checksum parhash can reproduce ({why})", object.name);
                match &progress {
                    Some(bar) => bar.suspend(say),
                    None => say(),
                }
            }
        },
    );
    if let Some(bar) = &progress {
        bar.finish_and_clear();
    }
    written?;
    out.flush()?;
    if let Err(failure) = outcome {
        return Err(UsageError(format!("{}: {failure} (after {count} objects)", args.url)).into());
    }
    if count == 0 {
        return Err(UsageError(format!("{}: no objects under this prefix", args.url)).into());
    }
    Ok(without == 0)
}
