//! `parhash`: hash, check, list and benchmark from the command line.
//!
//! This file is glue: parse the flags (`flags`), run one subcommand (`sum`, `check`, `list`,
//! `bench`), turn the outcome into an exit status. Exit statuses follow coreutils' sha256sum: 0 when all
//! went well, 1 when any file failed or any checksum did not match, and for usage errors of `sum`
//! and `check`; usage errors of the other subcommands are 2.
// `stdio` alone calls the C library (signals, descriptors), behind safe functions.
#![deny(unsafe_code)]

mod audit;
#[cfg(feature = "lab")]
mod bench;
mod bench_args;
mod check;
mod completion_flags;
mod completions;
mod flags;
#[cfg(feature = "gpu")]
mod gpu;
mod input;
mod list;
mod list_file;
mod locate;
mod many;
mod messages;
mod multipart;
mod piece_hash;
mod progress;
mod range;
mod stdio;
#[cfg(feature = "store")]
mod store;
mod sum;

use std::process::ExitCode;

use flags::Command;
use messages::err_message;

fn main() -> ExitCode {
    stdio::restore_sigpipe();
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let mut cli = match flags::parse_from(&args) {
        Ok(cli) => cli,
        Err(err) => return usage_error(err, &args),
    };
    if let Err(message) = input::resolve_blake3_mode(&mut cli.command) {
        err_message!("{message}");
        return ExitCode::from(flags::usage_status(&args));
    }
    let outcome = match &cli.command {
        Command::Sum(args) => sum::run(args),
        Command::Check(args) if args.audit => audit::run(args),
        Command::Check(args) if args.ranges.range.is_some() => range::check(args),
        Command::Check(args) => check::run(&check::Options::from(args), &args.files),
        Command::List(args) => list::run(args),
        Command::Bench(args) => bench(args),
        #[cfg(feature = "store")]
        Command::Store(args) => store::run(args),
        Command::Completions(args) => completions::run_completions(args),
        Command::Man(args) => completions::run_man(args),
    };
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        // Options clap cannot check (`bench --tree`, `--baseline`...) are usage errors: one
        // line, status 2.
        Err(err) => match err.downcast_ref::<messages::UsageError>() {
            Some(usage) => {
                err_message!("{usage}");
                ExitCode::from(2)
            }
            None => {
                err_message!("{}", messages::describe(&err));
                ExitCode::FAILURE
            }
        },
    }
}

/// `parhash bench`: the lab, or in a build without it (`--no-default-features`) a usage error
/// that says how to get it.
fn bench(args: &bench_args::BenchArgs) -> anyhow::Result<bool> {
    #[cfg(feature = "lab")]
    return bench::run(args);
    #[cfg(not(feature = "lab"))]
    {
        let _ = args;
        Err(messages::UsageError(
            "this parhash was built without the benchmark lab (cargo feature `lab`); \
             install it with default features: cargo install --locked --path crates/parhash-cli"
                .into(),
        )
        .into())
    }
}

/// Reports a command-line error (exit status [`flags::usage_status`]) or prints help/version
/// (exit status 0).
fn usage_error(err: flags::ParseError, args: &[std::ffi::OsString]) -> ExitCode {
    use std::error::Error;
    let status = flags::usage_status(args);
    let err = match err {
        flags::ParseError::Refused(message) => {
            // coreutils' form: the reason, then where to read more.
            let subcommand = args.get(1).map(|a| a.to_string_lossy()).unwrap_or_default();
            err_message!("{message}");
            eprintln!("Try 'parhash {subcommand} --help' for more information.");
            return ExitCode::from(status);
        }
        flags::ParseError::Clap(err) => err,
    };
    // An unknown algorithm deserves one plain line with the suggestion, not clap's three.
    if let Some(unknown) = err
        .source()
        .and_then(|s| s.downcast_ref::<parhash::Error>())
    {
        err_message!("{unknown}");
        return ExitCode::from(status);
    }
    let _ = err.print();
    // clap's exit codes are 0 (help, version) and 2 (usage error).
    match err.exit_code() {
        0 => ExitCode::SUCCESS,
        _ => ExitCode::from(status),
    }
}
