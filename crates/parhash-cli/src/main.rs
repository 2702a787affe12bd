//! `parhash`: hash, check, list and benchmark from the command line.
//!
//! This file is glue: parse the flags (`flags`), run one subcommand (`sum`, `check`, `list`,
//! `bench`), turn the outcome into an exit status. Exit statuses follow coreutils' sha256sum: 0 when all
//! went well, 1 when any file failed or any checksum did not match; usage errors are 2.
#![forbid(unsafe_code)]

mod bench;
mod check;
mod escape;
mod flags;
mod gpu;
mod input;
mod length;
mod lines;
mod list;
mod many;
mod messages;
mod parsha;
mod progress;
mod sum;
mod walk;

use std::process::ExitCode;

use flags::Command;
use messages::err_message;

fn main() -> ExitCode {
    let cli = match flags::parse_from(std::env::args_os()) {
        Ok(cli) => cli,
        Err(err) => return usage_error(err),
    };
    let outcome = match &cli.command {
        Command::Sum(args) => sum::run(args),
        Command::Check(args) => check::run(&check::Options::from(args), &args.files),
        Command::List(args) => list::run(args),
        Command::Bench(args) => bench::run(args),
    };
    match outcome {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        // The reader went away (`parhash sum big | head -c1`): nothing left to tell anyone.
        Err(err) if messages::is_broken_pipe(&err) => ExitCode::SUCCESS,
        // Options clap cannot check (`bench --tree`, `--baseline`...) are usage errors: one
        // line, status 2.
        Err(err) => match err.downcast_ref::<parhash_lab::error::UsageError>() {
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

/// Reports a command-line error (exit status 2) or prints help/version (exit status 0).
fn usage_error(err: clap::Error) -> ExitCode {
    use std::error::Error;
    // An unknown algorithm deserves one plain line with the suggestion, not clap's three.
    if let Some(unknown) = err
        .source()
        .and_then(|s| s.downcast_ref::<parhash::Error>())
    {
        err_message!("{unknown}");
        return ExitCode::from(2);
    }
    let code = err.exit_code();
    let _ = err.print();
    // clap's exit codes are 0 (help, version) and 2 (usage error); both fit in a u8.
    ExitCode::from(u8::try_from(code).unwrap_or(2))
}
