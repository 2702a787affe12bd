//! The flags of `parhash completions` and `parhash man`, and `-a`'s value parser, which offers
//! the algorithm names to completion scripts. (Apart from `completions`, which generates from
//! all of `flags`, so that `flags` can use these without a module cycle.)
#![forbid(unsafe_code)]

use std::ffi::OsStr;

use clap::builder::{PossibleValue, TypedValueParser};
use clap::Args;
use clap_complete::Shell;
use parhash::Algorithm;

/// Print a completion script for a shell (bash, zsh, fish, elvish, powershell).
///
/// The script completes subcommands, flags and the algorithm names of -a. Install it where
/// the shell looks for completions, for example:
///
/// parhash completions bash > ~/.local/share/bash-completion/completions/parhash
///
/// parhash completions zsh > ~/.zfunc/_parhash (with fpath+=~/.zfunc before compinit)
///
/// parhash completions fish > ~/.config/fish/completions/parhash.fish
///
/// parhash completions elvish >> ~/.config/elvish/rc.elv
///
/// parhash completions powershell >> $PROFILE
#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to write the script for.
    #[arg(value_enum, value_name = "SHELL")]
    pub shell: Shell,
}

/// Print parhash's manual page (roff) on standard output.
///
/// One page covers every subcommand and flag. Read it at once with `parhash man | man -l -`, or
/// install it: `parhash man > ~/.local/share/man/man1/parhash.1`, then `man parhash`.
#[derive(Args, Debug)]
pub struct ManArgs {}

/// `-a` value parser: any name or alias [`Algorithm::from_name`] accepts (case and separators
/// ignored), with the canonical names offered to shell completion as the possible values.
#[derive(Clone, Copy, Debug)]
pub struct AlgorithmParser;

impl TypedValueParser for AlgorithmParser {
    type Value = Algorithm;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<Algorithm, clap::Error> {
        // clap's own function parser words the errors (and keeps `parhash::Error` as the
        // source, which `main` prints as one line with its suggestion).
        let by_name: fn(&str) -> Result<Algorithm, parhash::Error> = Algorithm::from_name;
        by_name.parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            Algorithm::ALL
                .iter()
                .map(|alg| PossibleValue::new(alg.name())),
        ))
    }
}
