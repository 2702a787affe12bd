//! `parhash completions SHELL` and `parhash man`: shell completion scripts and the manual page,
//! generated from the command-line definitions in `flags` (by clap_complete and clap_mangen), so
//! they offer exactly the subcommands, flags and algorithm names the binary takes.
#![forbid(unsafe_code)]

use std::io::{self, Write};

use anyhow::{Context, Result};
use clap::CommandFactory;

use crate::completion_flags::{CompletionsArgs, ManArgs};
use crate::flags::Cli;
use crate::messages::WRITE_ERROR;

/// Runs `parhash completions`.
pub fn run_completions(args: &CompletionsArgs) -> Result<bool> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "parhash", &mut script);
    print(&script)
}

/// Runs `parhash man`.
pub fn run_man(_args: &ManArgs) -> Result<bool> {
    print(&man_page().context("cannot render the manual page")?)
}

fn print(bytes: &[u8]) -> Result<bool> {
    let mut stdout = crate::stdio::stdout();
    stdout.write_all(bytes).context(WRITE_ERROR)?;
    stdout.flush().context(WRITE_ERROR)?;
    Ok(true)
}

/// The manual page, parhash(1): NAME, SYNOPSIS, DESCRIPTION and OPTIONS of `parhash` itself,
/// then one section per subcommand with its synopsis, description and every flag, so that one
/// page (one `/--tag` search) holds everything.
pub fn man_page() -> io::Result<Vec<u8>> {
    let mut cli = Cli::command();
    cli.build();
    let top = clap_mangen::Man::new(cli.clone());
    let mut page = Vec::new();
    top.render_title(&mut page)?;
    top.render_name_section(&mut page)?;
    top.render_synopsis_section(&mut page)?;
    top.render_description_section(&mut page)?;
    top.render_options_section(&mut page)?;
    for sub in documented_subcommands(&cli) {
        writeln!(page, ".SH \"PARHASH {}\"", sub.get_name().to_uppercase())?;
        let man = clap_mangen::Man::new(sub.clone());
        let mut body = Vec::new();
        man.render_synopsis_section(&mut body)?;
        man.render_description_section(&mut body)?;
        man.render_options_section(&mut body)?;
        page.extend_from_slice(&as_subsections(&body));
    }
    page.extend_from_slice(
        b".SH \"SEE ALSO\"\nsha256sum(1), md5sum(1), cksum(1), b2sum(1), b3sum(1)\n",
    );
    top.render_version_section(&mut page)?;
    Ok(page)
}

/// The subcommands the page documents: all but clap's own `help`.
pub fn documented_subcommands(cli: &clap::Command) -> impl Iterator<Item = &clap::Command> {
    cli.get_subcommands()
        .filter(|sub| !sub.is_hide_set() && sub.get_name() != "help")
}

/// A subcommand's sections (`.SH OPTIONS`) as subsections (`.SS OPTIONS`) of its own section.
fn as_subsections(roff: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(roff.len());
    for line in roff.split_inclusive(|&b| b == b'\n') {
        match line.strip_prefix(b".SH ") {
            Some(title) => {
                out.extend_from_slice(b".SS ");
                out.extend_from_slice(title);
            }
            None => out.extend_from_slice(line),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::completion_flags::AlgorithmParser;
    use clap::builder::TypedValueParser;
    use clap_complete::Shell;
    use parhash::Algorithm;
    use std::ffi::OsStr;
    use std::process::{Command, Stdio};

    fn page_text() -> String {
        String::from_utf8(man_page().unwrap()).unwrap()
    }

    /// The page through groff (as `man` formats it), as plain text; `None` without groff.
    fn rendered(page: &[u8]) -> Option<(String, String)> {
        let mut groff = match Command::new("groff")
            .args(["-man", "-Tutf8", "-ww", "-P-cbou"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
        {
            Ok(child) => child,
            Err(_) => {
                assert!(
                    std::env::var_os("CI").is_none(),
                    "groff is not installed, and CI must render the manual page"
                );
                eprintln!("skipped: groff is not installed");
                return None;
            }
        };
        groff.stdin.take().unwrap().write_all(page).unwrap();
        let out = groff.wait_with_output().unwrap();
        assert!(out.status.success(), "{out:?}");
        Some((
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        ))
    }

    /// Every flag of every subcommand, as `--long` and `-s`, and every positional's name: taken
    /// from the definitions, so a flag added tomorrow is expected too.
    fn every_flag() -> Vec<(String, String)> {
        let mut cli = Cli::command();
        cli.build();
        let mut flags = Vec::new();
        for sub in documented_subcommands(&cli) {
            for arg in sub.get_arguments().filter(|a| !a.is_hide_set()) {
                let name = sub.get_name().to_string();
                if let Some(long) = arg.get_long() {
                    flags.push((name.clone(), format!("--{long}")));
                }
                if let Some(short) = arg.get_short() {
                    flags.push((name.clone(), format!("-{short}")));
                }
                if arg.is_positional() {
                    let value = arg.get_value_names().unwrap()[0].to_string();
                    flags.push((name, value));
                }
            }
        }
        flags
    }

    /// The part of the rendered page under a subcommand's heading.
    fn section<'a>(text: &'a str, subcommand: &str) -> &'a str {
        let heading = format!("\nPARHASH {}\n", subcommand.to_uppercase());
        let start = text
            .find(&heading)
            .unwrap_or_else(|| panic!("no section {heading:?} in\n{text}"));
        let rest = &text[start + heading.len()..];
        let end = rest.find("\nPARHASH ").unwrap_or(rest.len());
        &rest[..end]
    }

    #[test]
    fn the_page_renders_without_warnings_and_documents_every_flag() {
        let page = man_page().unwrap();
        let Some((text, warnings)) = rendered(&page) else {
            return;
        };
        assert_eq!(warnings, "", "groff warns about the page");
        assert!(text.contains("PARHASH SUM"), "{text}");
        let flags = every_flag();
        assert!(flags.len() > 30, "{flags:?}");
        for (subcommand, flag) in flags {
            let body = section(&text, &subcommand);
            assert!(
                body.contains(&flag),
                "{flag} of {subcommand} is not in its section:\n{body}"
            );
        }
    }

    #[test]
    fn each_subcommand_has_its_section_in_roff() {
        let page = page_text();
        assert!(page.contains("\n.TH parhash 1 "), "{page}");
        for sub in ["SUM", "CHECK", "LIST", "BENCH", "COMPLETIONS", "MAN"] {
            assert!(page.contains(&format!(".SH \"PARHASH {sub}\"\n")), "{sub}");
        }
        assert!(!page.contains("PARHASH HELP"));
        // Each subcommand's own headings are demoted to subsections.
        assert_eq!(page.matches(".SH SYNOPSIS").count(), 1);
        assert!(page.matches(".SS SYNOPSIS").count() >= 6);
    }

    /// What bash offers for the last word of `words` with the generated script loaded (a real
    /// bash, completion function called as readline calls it).
    fn bash_completes(script: &std::path::Path, words: &[&str]) -> Vec<String> {
        const DRIVER: &str = r#"
            source "$1" || exit 3
            cword=$2; shift 2
            COMP_WORDS=("$@"); COMP_CWORD=$cword
            COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
            _parhash parhash "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
            printf '%s\n' "${COMPREPLY[@]}"
        "#;
        let cword = words.len().to_string();
        let out = Command::new("bash")
            .args(["--norc", "--noprofile", "-c", DRIVER, "bash"])
            .arg(script)
            .arg(cword)
            .arg("parhash")
            .args(words)
            .output()
            .expect("bash runs");
        assert!(out.status.success(), "{out:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        text.lines()
            .filter(|l| !l.is_empty())
            .map(String::from)
            .collect()
    }

    #[test]
    fn bash_completes_subcommands_flags_and_algorithms() {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("parhash.bash");
        let mut bytes = Vec::new();
        clap_complete::generate(Shell::Bash, &mut Cli::command(), "parhash", &mut bytes);
        std::fs::write(&script, bytes).unwrap();
        let mut cli = Cli::command();
        cli.build();

        let offered = bash_completes(&script, &[""]);
        for sub in documented_subcommands(&cli) {
            assert!(offered.iter().any(|w| w == sub.get_name()), "{offered:?}");
        }
        assert_eq!(bash_completes(&script, &["ch"]), ["check"]);
        for sub in documented_subcommands(&cli) {
            let offered = bash_completes(&script, &[sub.get_name(), "--"]);
            for arg in sub.get_arguments().filter(|a| !a.is_hide_set()) {
                if let Some(long) = arg.get_long() {
                    let flag = format!("--{long}");
                    assert!(
                        offered.contains(&flag),
                        "{flag} of {}: {offered:?}",
                        sub.get_name()
                    );
                }
            }
        }
        assert_eq!(bash_completes(&script, &["sum", "--ta"]), ["--tag"]);
        let sha3: Vec<String> = Algorithm::ALL
            .iter()
            .map(|a| a.name().to_string())
            .filter(|name| name.starts_with("sha3-2"))
            .collect();
        assert!(!sha3.is_empty());
        assert_eq!(bash_completes(&script, &["check", "-a", "sha3-2"]), sha3);
        let shells = bash_completes(&script, &["completions", ""]);
        let shells: Vec<&String> = shells.iter().filter(|w| !w.starts_with('-')).collect();
        assert_eq!(shells, ["bash", "elvish", "fish", "powershell", "zsh"]);
    }

    #[test]
    fn every_shell_gets_a_script_naming_every_subcommand() {
        let mut cli = Cli::command();
        cli.build();
        for shell in [
            Shell::Bash,
            Shell::Zsh,
            Shell::Fish,
            Shell::Elvish,
            Shell::PowerShell,
        ] {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "parhash", &mut script);
            let script = String::from_utf8(script).unwrap();
            for sub in documented_subcommands(&cli) {
                assert!(
                    script.contains(sub.get_name()),
                    "{shell}: {}",
                    sub.get_name()
                );
            }
            assert!(script.contains("tree-height"), "{shell}");
        }
    }

    #[test]
    fn subsections_replace_only_section_lines() {
        let roff = b".SH OPTIONS\ntext .SH not\n.SHX\n.SH";
        assert_eq!(
            as_subsections(roff),
            b".SS OPTIONS\ntext .SH not\n.SHX\n.SH"
        );
    }

    #[test]
    fn algorithm_names_and_aliases_parse_and_canonical_names_complete() {
        let cmd = Cli::command();
        let parse = |name: &str| AlgorithmParser.parse_ref(&cmd, None, OsStr::new(name));
        for &alg in Algorithm::ALL {
            assert_eq!(parse(alg.name()).unwrap(), alg);
            assert_eq!(parse(&alg.name().to_uppercase()).unwrap(), alg);
        }
        assert_eq!(parse("SHA-256").unwrap(), parse("sha256").unwrap());
        let err = parse("mdd5").unwrap_err();
        let source = std::error::Error::source(&err).expect("the library's error");
        assert!(
            source.to_string().contains("did you mean 'md5'"),
            "{source}"
        );
        let offered: Vec<String> = AlgorithmParser
            .possible_values()
            .unwrap()
            .map(|v| v.get_name().to_string())
            .collect();
        let names: Vec<String> = Algorithm::ALL.iter().map(|a| a.name().into()).collect();
        assert_eq!(offered, names);
    }
}
