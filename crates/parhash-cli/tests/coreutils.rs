//! GNU coreutils' own tests of its `*sum` tools, transcribed: `tests/misc/` of coreutils 9.1 (the
//! version of Debian 12, which CI runs; `tests/cksum/` in later releases): `md5sum.pl`,
//! `md5sum-bsd.sh`, `md5sum-newline.pl`, `sha1sum.pl`, `sha224sum.pl` ... `sha512sum.pl`,
//! `cksum-a.sh` and `cksum-c.sh`. Test names, inputs, arguments and expected outputs are
//! coreutils' (the `.pl` tables, the shell scripts step by step).
//!
//! Every case runs twice: against the GNU tool itself, the control that checks the
//! transcription (a missing tool skips with a message, and fails under `CI`), and against
//! parhash's twin of the command:
//!
//! - `md5sum ARGS` is `parhash sum -a md5 ARGS` (sha1sum ... sha512sum alike);
//! - `cksum ARGS` is `parhash sum --tag ARGS` (`--untagged`: without `--tag`), and with
//!   `-c`/`--check` it is `parhash check ARGS`.
//!
//! Messages are compared with the program's name as each prints it (`md5sum: ` and `parhash: `,
//! `Try 'md5sum --help'` and `Try 'parhash sum --help'`). Cases parhash deliberately does
//! differently are listed in [`DIFFERENCES`] and in docs/cli.md's "Differences from GNU
//! coreutils" table; for them the test asserts parhash's documented behaviour instead.

use std::fs;
use std::io::Write;
use std::path::Path;

use parhash::Algorithm;

mod support;
use support::{require_tool, run_in_locale, Run};

/// Cases parhash does differently on purpose: (id, parhash's behaviour and why). docs/cli.md's
/// table names each id.
const DIFFERENCES: &[(&str, &str)] = &[(
    "cksum -a sm3",
    "parhash has no SM3: an unknown algorithm, status 1",
)];

/// Whether the CLI guide lists every difference.
#[test]
fn cli_guide_lists_every_difference() {
    let guide = fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/cli.md"))
        .unwrap();
    let table = guide
        .split("## Differences from GNU coreutils")
        .nth(1)
        .expect("docs/cli.md has a 'Differences from GNU coreutils' section");
    for (id, _) in DIFFERENCES {
        assert!(
            table.contains(&format!("`{id}`")),
            "docs/cli.md does not list `{id}`"
        );
    }
}

/// Which implementation a case runs against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Under {
    Gnu,
    Parhash,
}

/// One run of a case: a fresh directory and the implementation under test.
struct Env {
    dir: tempfile::TempDir,
    under: Under,
}

impl Env {
    fn new(under: Under) -> Env {
        Env {
            dir: tempfile::tempdir().unwrap(),
            under,
        }
    }

    fn path(&self, name: &str) -> std::path::PathBuf {
        self.dir.path().join(name)
    }

    fn write(&self, name: &str, content: impl AsRef<[u8]>) {
        fs::write(self.path(name), content).unwrap();
    }

    fn append(&self, name: &str, content: &[u8]) {
        let mut file = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.path(name))
            .unwrap();
        file.write_all(content).unwrap();
    }

    fn read(&self, name: &str) -> Vec<u8> {
        fs::read(self.path(name)).unwrap()
    }

    /// Whether this run checks the documented difference `id` instead of coreutils' behaviour.
    fn differs(&self, id: &str) -> bool {
        assert!(
            DIFFERENCES.iter().any(|(known, _)| *known == id),
            "{id} is not in DIFFERENCES"
        );
        self.under == Under::Parhash
    }

    /// The program name as messages of `prog` (a coreutils tool) show it in this run.
    fn prog(&self, prog: &str) -> String {
        match self.under {
            Under::Gnu => prog.to_string(),
            Under::Parhash => "parhash".to_string(),
        }
    }

    /// `template` with `{prog}` (the program's name in messages) and `{try}` (its pointer to
    /// --help) as `prog` prints them in this run.
    fn text(&self, prog: &str, template: &str) -> String {
        let try_line = match self.under {
            Under::Gnu => format!("Try '{prog} --help' for more information."),
            Under::Parhash => "Try 'parhash sum --help' for more information.".to_string(),
        };
        template
            .replace("{prog}", &self.prog(prog))
            .replace("{try}", &try_line)
    }

    /// Runs the coreutils command `prog ARGS` (or parhash's twin of it) with `stdin`.
    fn run(&self, prog: &str, args: &[&str], stdin: &[u8]) -> Run {
        match self.under {
            Under::Gnu => run_in(self.dir.path(), prog, args, stdin),
            Under::Parhash => {
                let twin = parhash_twin(prog, args);
                let twin: Vec<&str> = twin.iter().map(String::as_str).collect();
                run_in(self.dir.path(), env!("CARGO_BIN_EXE_parhash"), &twin, stdin)
            }
        }
    }

    /// `prog ARGS` must succeed (`|| fail=1` in the scripts); returns its run.
    fn ok(&self, prog: &str, args: &[&str], stdin: &[u8]) -> Run {
        let run = self.run(prog, args, stdin);
        assert_eq!(run.code, Some(0), "{prog} {args:?}: {run:?}");
        run
    }

    /// `returns_ 1 prog ARGS`.
    fn fails(&self, prog: &str, args: &[&str], stdin: &[u8]) -> Run {
        let run = self.run(prog, args, stdin);
        assert_eq!(run.code, Some(1), "{prog} {args:?}: {run:?}");
        run
    }
}

/// parhash's command line for the coreutils command `prog ARGS`.
fn parhash_twin(prog: &str, args: &[&str]) -> Vec<String> {
    let owned = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    if prog != "cksum" {
        let alg = prog.strip_suffix("sum").expect("a *sum tool");
        return [owned(&["sum", "-a", alg]), owned(args)].concat();
    }
    let checking = args.iter().any(|a| *a == "-c" || *a == "--check");
    let untagged = args.contains(&"--untagged");
    let mut twin = if checking {
        owned(&["check"])
    } else if untagged {
        owned(&["sum"])
    } else {
        owned(&["sum", "--tag"])
    };
    for arg in args {
        match *arg {
            "-c" | "--check" | "--untagged" => {}
            _ => match arg.strip_prefix("--algorithm=") {
                Some(alg) => twin.extend(owned(&["-a", alg])),
                None => twin.push(arg.to_string()),
            },
        }
    }
    twin
}

/// Runs `program ARGS` with localization off, as coreutils' tests do.
fn run_in(dir: &Path, program: &str, args: &[&str], stdin: &[u8]) -> Run {
    run_in_locale(dir, "C", program, args, stdin)
}

fn have_algorithm(name: &str) -> bool {
    let built = Algorithm::from_name(name).is_ok();
    if !built {
        eprintln!("skipped: parhash has no {name} yet");
    }
    built
}

/// Runs `case` against each implementation (GNU when all of `tools` are installed); every
/// failure is reported, with the implementation, before the test fails. The case itself skips
/// (or, under CI, fails) what needs a GNU tool that is missing.
fn against_both(what: &str, tools: &[&str], case: impl Fn(&Env)) {
    let mut failures = Vec::new();
    for under in [Under::Gnu, Under::Parhash] {
        if under == Under::Gnu && !tools.iter().all(|t| require_tool(t)) {
            continue;
        }
        let env = Env::new(under);
        if let Err(panic) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| case(&env))) {
            let message = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            failures.push(format!("{what} under {under:?}: {message}"));
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n\n"));
}

// ---- the .pl tables ----

/// One entry of a coreutils `.pl` table: arguments, `IN` files (created and named on the
/// command line after the arguments), `AUX` files (created only), and the expected standard
/// output, standard error (`{prog}`, `{try}`: see [`Env::text`]) and exit status.
struct Pl {
    id: String,
    args: Vec<&'static str>,
    input: Vec<(&'static str, Vec<u8>)>,
    aux: Vec<(&'static str, Vec<u8>)>,
    out: Vec<u8>,
    err: String,
    exit: i32,
}

impl Pl {
    /// `[id, ARGS..., {IN=> {name=> content}}, {OUT=> out}]`.
    fn new(
        id: impl Into<String>,
        args: &[&'static str],
        name: &'static str,
        content: impl Into<Vec<u8>>,
    ) -> Pl {
        Pl {
            id: id.into(),
            args: args.to_vec(),
            input: vec![(name, content.into())],
            aux: Vec::new(),
            out: Vec::new(),
            err: String::new(),
            exit: 0,
        }
    }

    fn aux(mut self, name: &'static str, content: impl Into<Vec<u8>>) -> Pl {
        self.aux.push((name, content.into()));
        self
    }

    fn out(mut self, out: impl Into<Vec<u8>>) -> Pl {
        self.out = out.into();
        self
    }

    fn err(mut self, err: impl Into<String>) -> Pl {
        self.err = err.into();
        self
    }

    fn exit(mut self, exit: i32) -> Pl {
        self.exit = exit;
        self
    }
}

/// Runs a `.pl` table of `prog`, inserting `--text` first where the table's own loop does
/// (every test whose first argument is not `--check`).
fn run_table(file: &str, prog: &str, table: Vec<Pl>) {
    for case in table {
        let mut args = case.args.clone();
        if args.first() != Some(&"--check") {
            args.insert(0, "--text");
        }
        against_both(&format!("{file} {}", case.id), &[prog], |env| {
            for (name, content) in case.aux.iter().chain(&case.input) {
                env.write(name, content);
            }
            let mut all: Vec<&str> = args.clone();
            all.extend(case.input.iter().map(|(name, _)| *name));
            let run = env.run(prog, &all, b"");
            let expected_err = env.text(prog, &case.err);
            assert_eq!(
                (
                    String::from_utf8_lossy(&run.stdout),
                    run.stderr.as_str(),
                    run.code
                ),
                (
                    String::from_utf8_lossy(&case.out),
                    expected_err.as_str(),
                    Some(case.exit)
                ),
                "{prog} {all:?}"
            );
        });
    }
}

const MD5_EMPTY: &str = "d41d8cd98f00b204e9800998ecf8427e";

fn md5sum_table() -> Vec<Pl> {
    let d = MD5_EMPTY;
    let check = |id, extra: &[&'static str], list: &'static str, content: String| {
        Pl::new(id, &[&["--check"], extra].concat(), list, content)
    };
    let mut table = vec![
        Pl::new("1", &[], "f", "").out(format!("{d}  f\n")),
        Pl::new("2", &[], "f", "a").out("0cc175b9c0f1b6a831c399e269772661  f\n"),
        Pl::new("3", &[], "f", "abc").out("900150983cd24fb0d6963f7d28e17f72  f\n"),
        Pl::new("4", &[], "f", "message digest").out("f96b697d7cb7938d525a2f31aaf161d0  f\n"),
        Pl::new("5", &[], "f", "abcdefghijklmnopqrstuvwxyz")
            .out("c3fcd3d76192e4007dfb496cca67e13b  f\n"),
        Pl::new("6", &[], "f", alphanumerics()).out("d174ab98d277d9f5a5611c2c9f419d9f  f\n"),
        Pl::new("7", &[], "f", "1234567890".repeat(8)).out("57edf4a22be3c955ac49da2e2107b67a  f\n"),
        Pl::new("backslash-1", &[], ".\nfoo", "").out(format!("\\{d}  .\\nfoo\n")),
        Pl::new("backslash-2", &[], ".\\foo", "").out(format!("\\{d}  .\\\\foo\n")),
        Pl::new("backslash-3", &[], ".\rfoo", "").out(format!("\\{d}  .\\rfoo\n")),
        check("check-1", &[], "f.md5", format!("{d}  f\n"))
            .aux("f", "")
            .out("f: OK\n"),
        check("check-windows", &[], "f.md5", format!("{d}  f\r\n"))
            .aux("f", "")
            .out("f: OK\n"),
        check("ck-strict-1", &["--strict"], "f.md5", format!("{d}  f\n\n"))
            .aux("f", "")
            .out("f: OK\n"),
        check(
            "ck-strict-2",
            &["--strict"],
            "in.md5",
            format!("ERR\n{d}  f\n"),
        )
        .aux("f", "")
        .out("f: OK\n")
        .err("{prog}: WARNING: 1 line is improperly formatted\n")
        .exit(1),
        check("check-2", &["--status"], "f.md5", format!("{d}  f\n"))
            .aux("f", "foo")
            .exit(1),
        check("check-quiet1", &["--quiet"], "f.md5", format!("{d}  f\n")).aux("f", ""),
        check("check-quiet2", &["--quiet"], "f.md5", format!("{d}  f\n"))
            .aux("f", "foo")
            .out("f: FAILED\n")
            .err("{prog}: WARNING: 1 computed checksum did NOT match\n")
            .exit(1),
        check(
            "check-multifail",
            &[],
            "f.md5",
            format!("{d}  f\n{d}  f\ninvalid\n"),
        )
        .aux("f", "foo")
        .out("f: FAILED\nf: FAILED\n")
        .err(
            "{prog}: WARNING: 1 line is improperly formatted\n\
                 {prog}: WARNING: 2 computed checksums did NOT match\n",
        )
        .exit(1),
        check(
            "check-multifail-warn",
            &["--warn"],
            "f.md5",
            format!("{d}  f\n{d}  f\ninvalid\n"),
        )
        .aux("f", "foo")
        .out("f: FAILED\nf: FAILED\n")
        .err(
            "{prog}: f.md5: 3: improperly formatted MD5 checksum line\n\
                 {prog}: WARNING: 1 line is improperly formatted\n\
                 {prog}: WARNING: 2 computed checksums did NOT match\n",
        )
        .exit(1),
    ];
    table.extend(bsd_forms(("MD5", "f.md5"), ("SHA1", "f.sha1"), d));
    // check-ignore-missing-1 and -2 are the same test in coreutils' table.
    table.extend(
        ["check-ignore-missing-1", "check-ignore-missing-2"].map(|id| {
            check(
                id,
                &["--ignore-missing"],
                "f.md5",
                format!("{d}  f\n{d}  f.missing\n"),
            )
            .aux("f", "")
            .out("f: OK\n")
        }),
    );
    table.extend([
        check(
            "check-ignore-missing-3",
            &["--quiet", "--ignore-missing"],
            "f.md5",
            format!("{d}  missing/f\n{d}  f\n"),
        )
        .aux("f", ""),
        Pl::new("check-ignore-missing-4", &["--ignore-missing"], "f", "")
            .err(
                "{prog}: the --ignore-missing option is meaningful only when verifying \
                 checksums\n{try}\n",
            )
            .exit(1),
        check(
            "check-ignore-missing-5",
            &["--ignore-missing"],
            "f.md5",
            format!("{d}  missing\n"),
        )
        .aux("f", "")
        .err("{prog}: f.md5: no file was verified\n")
        .exit(1),
        check(
            "check-ignore-missing-6",
            &["--ignore-missing"],
            "f.md5",
            "006999e6df389641adf1fa3a74801d9d  f\n".into(),
        )
        .aux("f", "9t")
        .out("f: OK\n"),
        check("bsd-segv", &[], "z", "MD5 (".into())
            .err("{prog}: z: no properly formatted checksum lines found\n")
            .exit(1),
        Pl::new(
            "nul-in-cksum",
            &["--check"],
            "h",
            [vec![0u8; 32], b"  h\n".to_vec()].concat(),
        )
        .err("{prog}: h: no properly formatted checksum lines found\n")
        .exit(1),
    ]);
    table
}

/// The six BSD-format cases md5sum.pl and sha1sum.pl share, for the tool of tag `own` (and its
/// list's name), with `other` the other tool's: BSD (`TAG (f) = HEX`) and OpenSSL (`TAG(f)= HEX`)
/// lines of the tool's own tag check, the other tool's are no checksum lines at all.
fn bsd_forms(own: (&str, &'static str), other: (&str, &'static str), d: &str) -> Vec<Pl> {
    let (own_tag, own_list) = own;
    let (other_tag, other_list) = other;
    let none_found =
        |list: &str| format!("{{prog}}: {list}: no properly formatted checksum lines found\n");
    let mut cases = Vec::new();
    for (suffix, form) in [("bsd", " (f) = "), ("openssl", "(f)= ")] {
        let id = |n: &str| format!("check-{suffix}{n}");
        cases.extend([
            Pl::new(
                id(""),
                &["--check"],
                other_list,
                format!("{other_tag}{form}{d}\n"),
            )
            .aux("f", "")
            .err(none_found(other_list))
            .exit(1),
            Pl::new(
                id("2"),
                &["--check"],
                own_list,
                format!("{own_tag}{form}{d}\n"),
            )
            .aux("f", "")
            .out("f: OK\n"),
            Pl::new(
                id("3"),
                &["--check", "--status"],
                own_list,
                format!("{own_tag}{form}{d}\n"),
            )
            .aux("f", "bar")
            .exit(1),
        ]);
    }
    cases
}

/// `join ('', 'A'..'Z', 'a'..'z', '0'..'9')`.
fn alphanumerics() -> String {
    ('A'..='Z').chain('a'..='z').chain('0'..='9').collect()
}

#[test]
fn md5sum_pl() {
    run_table("md5sum.pl", "md5sum", md5sum_table());
}

#[test]
fn md5sum_newline_pl() {
    let d = MD5_EMPTY;
    run_table(
        "md5sum-newline.pl",
        "md5sum",
        vec![
            Pl::new("newline", &[], "a\nb", "").out(format!("\\{d}  a\\nb\n")),
            Pl::new("zero", &["--zero"], "a\nb", "").out(format!("{d}  a\nb\0")),
        ],
    );
}

#[test]
fn sha1sum_pl() {
    let d = "da39a3ee5e6b4b0d3255bfef95601890afd80709";
    let check = |id, extra: &[&'static str], list: &'static str, content: String| {
        Pl::new(id, &[&["--check"], extra].concat(), list, content)
    };
    let mut table = vectors(&[
        ("s1", "".into(), d),
        ("s2", "a".into(), "86f7e437faa5a7fce15d1ddcb9eaeaea377667b8"),
        (
            "s3",
            "abc".into(),
            "a9993e364706816aba3e25717850c26c9cd0d89d",
        ),
        (
            "s4",
            ABC_448.into(),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1",
        ),
        (
            "s5",
            "abcdefghijklmnopqrstuvwxyz".into(),
            "32d10c7b8cf96570ca04ce37f2a19d84240d3a89",
        ),
        (
            "s6",
            alphanumerics(),
            "761c457bf73b14d27e9e9265c46f4b4dda11f940",
        ),
        (
            "s7",
            "1234567890".repeat(8),
            "50abf5706a150990a08b2c5ea40fa0e585554732",
        ),
        (
            "million-a",
            "a".repeat(1_000_000),
            "34aa973cd4c4daa4f61eeb2bdbad27316534016f",
        ),
    ]);
    table.extend([
        Pl::new("bs-sha-1", &[], ".\nfoo", "").out(format!("\\{d}  .\\nfoo\n")),
        Pl::new("bs-sha-2", &[], ".\\foo", "").out(format!("\\{d}  .\\\\foo\n")),
        Pl::new("bs-sha-3", &[], ".\rfoo", "").out(format!("\\{d}  .\\rfoo\n")),
    ]);
    table.extend(bsd_forms(("SHA1", "f.sha1"), ("MD5", "f.md5"), d));
    table.extend([check("bsd-segv", &[], "z", "SHA1 (".into())
        .err("{prog}: z: no properly formatted checksum lines found\n")
        .exit(1)]);
    run_table("sha1sum.pl", "sha1sum", table);
}

/// FIPS 180's two-block message.
const ABC_448: &str = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
/// FIPS 180's two-block message for the 1024-bit-block members.
const ABC_896: &str = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";

/// Table entries `[id, {IN=> {f=> input}}, {OUT=> "digest  f\n"}]`.
fn vectors(entries: &[(&'static str, String, &str)]) -> Vec<Pl> {
    entries
        .iter()
        .map(|(id, input, digest)| {
            Pl::new(*id, &[], "f", input.as_bytes()).out(format!("{digest}  f\n"))
        })
        .collect()
}

#[test]
fn sha224sum_pl() {
    run_table(
        "sha224sum.pl",
        "sha224sum",
        vectors(&[
            (
                "s3",
                "abc".into(),
                "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7",
            ),
            (
                "s4",
                ABC_448.into(),
                "75388b16512776cc5dba5da1fd890150b0c6455cb4f58b1952522525",
            ),
            (
                "s8",
                "a".repeat(1_000_000),
                "20794655980c91d8bbb4c1ea97618a4bf03f42581948b2ee4ee7ad67",
            ),
        ]),
    );
}

/// The table of sha256sum.pl, sha384sum.pl and sha512sum.pl: s1 "", s2 "a", s3 "abc", s4
/// `two_blocks` (FIPS 180's two-block message), s8 a million "a", with these digests.
fn fips_table(two_blocks: &str, digests: [&str; 5]) -> Vec<Pl> {
    let inputs = [
        ("s1", String::new()),
        ("s2", "a".into()),
        ("s3", "abc".into()),
        ("s4", two_blocks.into()),
        ("s8", "a".repeat(1_000_000)),
    ];
    let entries: Vec<_> = inputs
        .into_iter()
        .zip(digests)
        .map(|((id, input), digest)| (id, input, digest))
        .collect();
    vectors(&entries)
}

/// sha256sum.pl, sha384sum.pl and sha512sum.pl: (file, tool, its two-block message, digests).
const SHA2_TABLES: [(&str, &str, &str, [&str; 5]); 3] = [
    (
        "sha256sum.pl",
        "sha256sum",
        ABC_448,
        [
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
            "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb",
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
            "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0",
        ],
    ),
    (
        "sha384sum.pl",
        "sha384sum",
        ABC_896,
        [
            "38b060a751ac96384cd9327eb1b1e36a21fdb71114be07434c0cc7bf63f6e1da274edebfe76f65fbd51ad2f14898b95b",
            "54a59b9f22b0b80880d8427e548b7c23abd873486e1f035dce9cd697e85175033caa88e6d57bc35efae0b5afd3145f31",
            "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7",
            "09330c33f71147e83d192fc782cd1b4753111b173b3b05d22fa08086e3b0f712fcc7c71a557e2db966c3e9fa91746039",
            "9d0e1809716474cb086e834e310a4a1ced149e9c00f248527972cec5704c2a5b07b8b3dc38ecc4ebae97ddd87f3d8985",
        ],
    ),
    (
        "sha512sum.pl",
        "sha512sum",
        ABC_896,
        [
            "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e",
            "1f40fc92da241694750979ee6cf582f2d5d7d28e18335de05abc54d0560e0f5302860c652bf08d560252aa5e74210546f369fbbbce8c12cfc7957b2652fe9a75",
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
            "8e959b75dae313da8cf4f72814fc143f8f7779c6eb9f7fa17299aeadb6889018501d289e4900f7e4331b99dec4b5433ac7d329eeb6dd26545e96e55b874be909",
            "e718483d0ce769644e2e42c7bc15b4638e1f98b13b2044285632a803afa973ebde0ff244877ea60a4cb0432ce577c31beb009c5c2c49aa2e4eadb217ad8cc09b",
        ],
    ),
];

#[test]
fn sha256sum_sha384sum_sha512sum_pl() {
    for (file, tool, two_blocks, digests) in SHA2_TABLES {
        run_table(file, tool, fips_table(two_blocks, digests));
    }
}

// ---- the shell scripts, step by step ----

/// `sed 's/  / /'`: the first two-space run of each line becomes one space.
fn sed_first_double_space(text: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(text);
    text.split_inclusive('\n')
        .map(|line| line.replacen("  ", " ", 1))
        .collect::<String>()
        .into_bytes()
}

#[test]
fn md5sum_bsd_sh() {
    against_both("md5sum-bsd.sh", &["md5sum"], |env| {
        let md5 = "md5sum";
        // BSD alternate format (`HEX NAME`): a list that starts with a name unambiguous in it.
        for name in ["a", " b", "*c", "dd", " "] {
            env.write(name, format!("{name}\n"));
            let run = env.ok(md5, &["--text", name], b"");
            env.append("check.md5sum", &run.stdout);
        }
        env.write(
            "check.md5",
            sed_first_double_space(&env.read("check.md5sum")),
        );
        // Only a single format is supported per run.
        env.ok(md5, &["--strict", "-c", "check.md5sum"], b"");
        env.ok(md5, &["--strict", "-c", "check.md5"], b"");

        // BSD reversed format is not triggered by GPG headers etc.
        let mut check2 = b"____not_all_hex_so_no_match_____ blah\n".to_vec();
        check2.extend(env.read("check.md5sum"));
        env.write("check2.md5sum", check2);
        let run = env.ok(md5, &["-c", "check2.md5sum"], b"");
        assert_eq!(
            run.stderr,
            env.text(md5, "{prog}: WARNING: 1 line is improperly formatted\n")
        );

        // Skipping the first BSD line makes the list look like the standard format: an error.
        let check_md5 = env.read("check.md5");
        let tail: Vec<u8> = check_md5
            .splitn(2, |&b| b == b'\n')
            .nth(1)
            .unwrap_or_default()
            .to_vec();
        env.fails(md5, &["--strict", "-c"], &tail);

        // BSD traditional format (--tag): not with --check, not with --text.
        env.fails(md5, &["--tag", "--check", "/dev/null"], b"");
        env.fails(md5, &["--tag", "--text", "/dev/null"], b"");

        // --check reads the BSD traditional format it writes.
        fs::remove_file(env.path("check.md5")).unwrap();
        for name in ["a", " b", "*c", "dd", " "] {
            env.write(name, format!("{name}\n"));
            let run = env.ok(md5, &["--tag", name], b"");
            env.append("check.md5", &run.stdout);
        }
        env.ok(md5, &["--strict", "-c", "check.md5"], b"");

        // ... with the GNU extension of escaped names.
        fs::remove_file(env.path("check.md5")).unwrap();
        for name in ["a\\b", "a\\", "a\nb", "a\tb"] {
            env.write(name, "");
            let run = env.ok(md5, &["--tag", name], b"");
            env.append("check.md5", &run.stdout);
        }
        env.ok(md5, &["--strict", "-c", "check.md5"], b"");

        // The escapes of the BSD traditional format, exactly.
        let ex_file = "test\n\\\\file";
        env.write(ex_file, "");
        let run = env.ok(md5, &["--tag", ex_file], b"");
        assert_eq!(
            String::from_utf8_lossy(&run.stdout),
            format!("\\MD5 (test\\n\\\\\\\\file) = {MD5_EMPTY}\n")
        );
    });
}

#[test]
fn cksum_a_sh() {
    // (cksum's algorithm, the single-algorithm tool and its flags)
    let input_options: &[(&str, &[&str])] = &[
        ("bsd", &["sum", "-r"]),
        ("sysv", &["sum", "-s"]),
        ("crc", &["cksum"]),
        ("md5", &["md5sum", "-t"]),
        ("sha1", &["sha1sum", "-t"]),
        ("sha224", &["sha224sum", "-t"]),
        ("sha256", &["sha256sum", "-t"]),
        ("sha384", &["sha384sum", "-t"]),
        ("sha512", &["sha512sum", "-t"]),
        ("blake2b", &["b2sum", "-t"]),
    ];
    against_both("cksum-a.sh", &["cksum"], |env| {
        for (algo, prog) in input_options {
            if env.under == Under::Parhash && *algo == "blake2b" && !have_algorithm("blake2b") {
                continue;
            }
            // `$prog /dev/null >> out || continue`: the single tool's line, from GNU itself
            // (the reference parhash's cksum twin must equal too).
            if !require_tool(prog[0]) {
                continue;
            }
            let expected = run_in(
                env.dir.path(),
                prog[0],
                &[&prog[1..], &["/dev/null"]].concat(),
                b"",
            );
            assert_eq!(expected.code, Some(0), "{prog:?}");
            let algorithm = format!("--algorithm={algo}");
            let args = ["--untagged", &algorithm, "/dev/null"];
            let run = env.ok("cksum", &args, b"");
            env.write("out-c", &run.stdout);
            if !matches!(*algo, "bsd" | "sysv" | "crc") {
                env.ok("cksum", &["--check", &algorithm, "out-c"], b"");
            }
            assert_eq!(
                String::from_utf8_lossy(&run.stdout),
                String::from_utf8_lossy(&expected.stdout),
                "cksum -a {algo} against {prog:?}"
            );
        }
        // --check is not allowed with the older (untagged) algorithms.
        env.fails("cksum", &["-a", "bsd", "--check"], b"");
        // Abbreviations are not supported for algorithm selection.
        env.fails("cksum", &["-a", "sha22"], b"");
    });
}

#[test]
fn cksum_c_sh() {
    against_both("cksum-c.sh", &["cksum"], |env| {
        // `shuf -i 1-10`: one order of 1..10 (the content is arbitrary).
        env.write("input", "4\n9\n1\n7\n10\n3\n6\n2\n8\n5\n");
        for args in [
            &["-a", "sha384"][..],
            &["-a", "blake2b"],
            &["-a", "blake2b", "-l", "384"],
            &["-a", "sm3"],
        ] {
            let alg = args[1];
            if alg == "sm3" && env.differs("cksum -a sm3") {
                env.fails("cksum", &[args, &["input"]].concat(), b"");
                continue;
            }
            if env.under == Under::Parhash && !have_algorithm(alg) {
                continue;
            }
            let run = env.ok("cksum", &[args, &["input"]].concat(), b"");
            env.append("CHECKSUMS", &run.stdout);
        }
        env.ok("cksum", &["--strict", "--check", "CHECKSUMS"], b"");

        // Leading blanks and a backslash are ignored.
        let indented: Vec<u8> = String::from_utf8_lossy(&env.read("CHECKSUMS"))
            .split_inclusive('\n')
            .map(|line| format!(" \\{line}"))
            .collect::<String>()
            .into_bytes();
        env.ok("cksum", &["--strict", "-c"], &indented);

        // The common signed checksums format works in non-strict mode.
        let mut signed =
            b"-----BEGIN PGP SIGNED MESSAGE-----\nHash: SHA384\n\n# ignored comment\n".to_vec();
        signed.extend(env.read("CHECKSUMS"));
        env.write("signed_CHECKSUMS", signed);
        // (The script appends the signature to `signed_input`, a file nothing reads.)
        env.write(
            "signed_input",
            "-----BEGIN PGP SIGNATURE-----\n\n\
             # Note base64 doesn't have ambiguous delimiters in its charset\n\
             SHA384+BCAAdFiEEjFummQvbJuGfKhqAEWGuaUVxmjkFAmCDId0ACgkQEWGuaUVx\n\
             BLAKE2b/00001EuON62pTEnqrJ5lav61QxRByiuDp/6VODrRL2JWM6Stxu1Myws=\n\
             =AWU7\n-----END PGP SIGNATURE-----\n",
        );
        env.ok("cksum", &["--check", "signed_CHECKSUMS"], b"");

        // Individual digests of a mixed file can be checked.
        if env.differs("cksum -a sm3") {
            env.fails("cksum", &["--check", "-a", "sm3", "CHECKSUMS"], b"");
        } else {
            env.ok("cksum", &["--check", "-a", "sm3", "CHECKSUMS"], b"");
        }

        // Checks against the older (non-hex) checksum formats are not supported.
        env.fails("cksum", &["-a", "crc", "-c", "CHECKSUMS"], b"");
        let run = env.ok("cksum", &["-a", "crc", "input"], b"");
        env.write("CHECKSUMS.crc", &run.stdout);
        env.fails("cksum", &["-c", "CHECKSUMS.crc"], b"");
    });
}

#[test]
fn parhash_twins_of_coreutils_commands() {
    assert_eq!(
        parhash_twin("md5sum", &["--text", "f"]),
        ["sum", "-a", "md5", "--text", "f"]
    );
    assert_eq!(
        parhash_twin("cksum", &["-a", "sha384", "f"]),
        ["sum", "--tag", "-a", "sha384", "f"]
    );
    assert_eq!(
        parhash_twin("cksum", &["--untagged", "--algorithm=md5", "f"]),
        ["sum", "-a", "md5", "f"]
    );
    assert_eq!(
        parhash_twin("cksum", &["--strict", "-c", "L"]),
        ["check", "--strict", "L"]
    );
}
