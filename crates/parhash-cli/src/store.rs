//! `parhash store verify`: the printing of a verification (`parhash_store::verify`), lines or
//! JSON records on standard output and the counts on standard error, in the words of the
//! Python package's `parhash-store`.

use std::io::Write;

use parhash_store::report::{Tally, Verdict};
use parhash_store::s3::{self, Connection};
use parhash_store::verify::{self, Options};

use crate::flags::store::{StoreArgs, StoreCommand, VerifyArgs};
use crate::messages::{err_message, UsageError};

/// Runs `parhash store`; `Ok(false)` where anything did not match. A run that could not
/// finish is a usage-status error (2), as for the Python package.
pub fn run(args: &StoreArgs) -> anyhow::Result<bool> {
    match &args.command {
        StoreCommand::Verify(args) => verify_tree(args),
    }
}

fn verify_tree(args: &VerifyArgs) -> anyhow::Result<bool> {
    let (bucket, prefix) = parhash_store::parse_url(&args.url).map_err(UsageError)?;
    if !args.local.is_dir() {
        return Err(UsageError(format!("{}: not a folder", args.local.display())).into());
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    let connection = Connection {
        endpoint_url: args.endpoint_url.clone(),
        profile: args.profile.clone(),
        region: args.region.clone(),
    };
    let client = runtime.block_on(s3::client(&connection));
    let options = Options {
        threads: args.threads as usize,
        start_after: args.start_after.clone(),
        min_part_size: args.min_part_size,
        page_size: args.page_size,
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
