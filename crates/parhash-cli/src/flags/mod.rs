//! Command-line definitions. Each flag has a short doc (first paragraph, shown by `-h`) and a
//! long doc (shown by `--help`), and a parse test at the bottom of this file.
//!
//! Parsing only validates; nothing here opens files or hashes.

pub mod cksum;
pub mod multipart;
pub mod pieces;
pub mod range;
#[cfg(feature = "store")]
pub mod store;

use std::ffi::OsString;

use clap::builder::TypedValueParser;
use clap::{Args, Parser, Subcommand};
use parhash::file::ReadStrategy;
use parhash::parsha256::MAX_TREE_HEIGHT;
use parhash::threads::Threads;
use parhash::{Algorithm, Blake3Mode, TreeParams};

/// The algorithm `sum` uses when `-a` is not given.
pub const DEFAULT_ALGORITHM: &str = "sha256";

/// Hash files and check checksum lists with every algorithm parhash implements.
///
/// parhash hashes data as fast as the hardware allows (SIMD, many cores, tree modes). Its
/// `sum` and `check` subcommands read and write the same checksum lines as GNU coreutils'
/// sha256sum, md5sum and friends.
///
/// MD5 and SHA-1 are BROKEN (practical collisions): use them only to compare with old
/// checksum lists, never for security. The checksums crc32, crc32c, crc64nvme, xxh64, xxh3,
/// xxh128 and coreutils' crc, sysv and bsd are not cryptographic (no protection against a
/// deliberate change): they catch accidental damage only. `parhash list` shows every algorithm.
///
/// Exit status: 0 if everything succeeded, 1 if any file could not be read or any checksum
/// did not match, or for a usage error of `sum` or `check` (as in coreutils); 2 for a usage
/// error of the other subcommands.
#[derive(Parser, Debug)]
#[command(name = "parhash", version, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands. (`bench` joins them from the benchmark lab.)
#[derive(Subcommand, Debug)]
pub enum Command {
    Sum(SumArgs),
    Check(CheckArgs),
    List(ListArgs),
    Bench(Box<crate::bench_args::BenchArgs>),
    #[cfg(feature = "store")]
    Store(store::StoreArgs),
    Completions(crate::completion_flags::CompletionsArgs),
    Man(crate::completion_flags::ManArgs),
}

/// Print checksums of files (sha256 unless -a says otherwise), like sha256sum.
///
/// Each line is `HEX  NAME`, exactly as coreutils writes it, or `TAG (NAME) = HEX` with
/// --tag. With no FILE, or when FILE is -, read standard input. Names that contain a
/// newline, backslash or carriage return are escaped (`\n`, `\\`, `\r`) and the line starts
/// with a backslash, as coreutils does; -z turns that off.
///
/// MD5 and SHA-1 are BROKEN (practical collisions): use them only to compare with old
/// checksum lists, never for security. The checksums crc32, crc32c, crc64nvme, xxh64, xxh3,
/// xxh128 and coreutils' crc, sysv and bsd are not cryptographic (no protection against a
/// deliberate change): they catch accidental damage only. `parhash list` shows every algorithm.
#[derive(Args, Debug)]
pub struct SumArgs {
    /// Hash algorithm(s) [default: sha256]; several: -a md5,sha256 or -a md5 -a sha256.
    ///
    /// The algorithm to hash with: a canonical name from `parhash list` or any alias, with
    /// case and separators ignored (`SHA-256`, `sha_256` and `sha256` are the same). The
    /// default is sha256. md5 and sha1 are BROKEN and kept only for compatibility.
    ///
    /// Several algorithms, separated by commas or in repeated -a, are computed from one read
    /// of each file, spread over the cores. Their output is one BSD line per file and
    /// algorithm (`MD5 (NAME) = ...`, which `parhash check` and `cksum -c` read), one list per
    /// algorithm with --lists, or with --json one object per file holding every digest.
    #[arg(short = 'a', long = "algorithm", value_name = "ALG", value_parser = crate::completion_flags::AlgorithmParser, hide_possible_values = true, action = clap::ArgAction::Append, value_delimiter = ',')]
    pub algorithms: Vec<Algorithm>,

    /// Write one checksum list per algorithm into DIR (MD5SUMS, SHA256SUMS, ...).
    ///
    /// Instead of standard output, write each algorithm's lines to a list of its own in DIR
    /// (which must exist), named as distributions name them: MD5SUMS, SHA1SUMS, SHA224SUMS,
    /// SHA256SUMS, SHA384SUMS, SHA512SUMS, B2SUMS (blake2b), B3SUMS (blake3), and TAGSUMS
    /// for the others (SHA3-256SUMS); --list-name changes the names. Each list holds exactly
    /// what `parhash sum -a ALG` would print (GNU lines; --tag, -b and -z apply), so
    /// `sha256sum -c SHA256SUMS` reads it. Errors go to standard error once per file. The
    /// lists are written as -o FILE is, durably: their lines as they are hashed, fsync every
    /// 5 seconds or 64 MiB and at the end, so --resume continues an interrupted run's lists.
    #[arg(long = "lists", value_name = "DIR", conflicts_with_all = ["check", "json"])]
    pub lists: Option<std::path::PathBuf>,

    /// Name the lists of --lists after TEMPLATE ({name}: SHA256SUMS, {alg}: sha256).
    ///
    /// Each list's file name inside the --lists directory: TEMPLATE with `{name}` replaced
    /// by the usual name (SHA256SUMS) and `{alg}` by the algorithm's canonical name
    /// (sha256), e.g. `--list-name 'release-1.0.{alg}'`. Two algorithms must not get the
    /// same name.
    #[arg(long = "list-name", value_name = "TEMPLATE", requires = "lists")]
    pub list_name: Option<String>,

    /// Write the list to FILE instead of standard output, durably (see --resume, --update).
    ///
    /// The lines go to FILE as they are hashed (written within about 0.1 s) and reach the
    /// disk with fsync every 5 seconds or 64 MiB of lines and at the end, so an interrupted
    /// run (killed, a crash, a power cut) leaves a list that --resume continues. Next to it,
    /// FILE.parhash-meta records each hashed file's size, modification and change times, inode
    /// and device, for --update --rehash-changed; FILE itself holds exactly what standard
    /// output would, so `sha256sum -c FILE` reads it. FILE, its side file and their .tmp are
    /// left out of the walk should they lie in the tree.
    #[arg(short = 'o', long = "output", value_name = "FILE", conflicts_with_all = ["check", "lists", "device"])]
    pub output_file: Option<std::path::PathBuf>,

    /// Continue an interrupted `sum -r ... -o FILE`: hash only what FILE lacks.
    ///
    /// Run the same command line again with --resume: FILE's complete lines are compared with
    /// the walk, in order, and kept without reading their files again; an incomplete or
    /// unreadable last line is cut away and written again, and the run goes on from there, so
    /// the finished FILE is byte for byte what an uninterrupted run writes. A file that could
    /// not be read before is tried again: if it can be read now, run --update instead (a --json
    /// list, which records the failure, goes on from that record). A FILE from another command
    /// line, algorithm or style, or naming files the walk no longer has,
    /// is refused and left as it is. One algorithm with -o; every output style (--tag, -b, -z,
    /// --json). With --lists DIR (several algorithms), each list is compared and all go on
    /// from the files every one of them has.
    #[arg(long, conflicts_with_all = ["update", "device"])]
    pub resume: bool,

    /// Bring FILE up to date with the tree: hash new files, drop vanished ones, keep the rest.
    ///
    /// FILE must be a list this command line wrote (same names, algorithm and style). The new
    /// list is in the walk's order, what a fresh run would write if no file changed: files new
    /// to the tree are hashed, entries of files gone are dropped, and every other entry keeps
    /// its digest WITHOUT its file being read. It is written to FILE.tmp, synced and renamed
    /// over FILE, so a crash never loses the old list. Add --rehash-changed to read again the
    /// files whose metadata changed. One algorithm. With no FILE yet, it is written.
    #[arg(long, requires = "output_file", conflicts_with = "device")]
    pub update: bool,

    /// With --update, hash again files whose size, mtime, ctime or inode changed (trusts metadata).
    ///
    /// This TRUSTS FILE METADATA, as rsync and git do: a file whose size, modification time,
    /// change time, inode or device differs from what FILE.parhash-meta recorded when it was
    /// hashed is read again; the others keep their digest unread. A rewrite that keeps the
    /// size and restores the modification time (touch -r, utime) is not detected by the mtime,
    /// but on Linux its change time still moves, which is detected; only copying the tree
    /// elsewhere with its times, or changing the clock, hides a change entirely. Only a full
    /// run (without --update, or `parhash check FILE`) is sure. Entries without a record in
    /// FILE.parhash-meta are read again; with no FILE.parhash-meta at all, changes cannot be
    /// detected and every entry is kept.
    #[arg(long = "rehash-changed", requires = "update")]
    pub rehash_changed: bool,

    /// Write BSD-style lines: `SHA256 (NAME) = HEX`.
    ///
    /// Write BSD-style checksum lines, `TAG (NAME) = HEX`, with the algorithm's tag (SHA256,
    /// MD5, SHA512-256, ...), as `sha256sum --tag` does. `parhash check` and `sha256sum -c`
    /// read these lines too.
    #[arg(long, overrides_with = "untagged")]
    pub tag: bool,

    /// Write GNU lines (`HEX  NAME`) even with several algorithms (cksum's flag).
    ///
    /// The reverse of --tag, as in `cksum --untagged`: GNU lines where parhash would write
    /// BSD lines, i.e. with several algorithms (each file's lines then say nothing of which
    /// algorithm made them). Of --tag and --untagged the last one given wins.
    #[arg(long, overrides_with = "tag")]
    pub untagged: bool,

    /// Write digests in base64 instead of hex (`cksum --base64`).
    ///
    /// Each digest as the base64 of its bytes (standard alphabet, padded), in GNU and BSD
    /// lines alike, as `cksum --base64` (coreutils 9.2) writes it: `SHA256 (f) = 47DEQpj8...=`.
    /// `parhash check` and `cksum -c` read BSD lines with base64 digests. The legacy
    /// checksums (crc, sysv, bsd) print their own lines unchanged, as in cksum.
    #[arg(long, conflicts_with = "json")]
    pub base64: bool,

    /// Write the digest's raw bytes, no line (`cksum --raw`); one file.
    ///
    /// Only the digest, as bytes, with no name and no newline, as `cksum --raw` (coreutils
    /// 9.2) writes it; for the legacy checksums the checksum alone, big-endian (4 bytes for
    /// crc, 2 for sysv and bsd). One input and one algorithm: "the --raw option is not
    /// supported with multiple files".
    #[arg(long, conflicts_with_all = ["json", "lists", "output_file", "recursive"])]
    pub raw: bool,

    /// Mark files as read in binary mode (`HEX *NAME`).
    ///
    /// Write `*` instead of the second space before the name, as `sha256sum -b` does. parhash
    /// always reads bytes as they are, so this changes only the line, for tools that expect
    /// the marker. Of -b and -t the last one given wins, as in coreutils.
    #[arg(short = 'b', long, overrides_with = "text")]
    pub binary: bool,

    /// Mark files as read in text mode (`HEX  NAME`, the default).
    ///
    /// Write the default two spaces before the name. Accepted for compatibility with
    /// sha256sum's -t; the data is hashed as it is either way. Not with --tag.
    #[arg(short = 't', long, overrides_with = "binary")]
    pub text: bool,

    /// Read checksum lists from the FILEs and check them (as `parhash check`).
    ///
    /// Verify instead of printing: each FILE is a list of checksum lines, as in `parhash
    /// check`. The check options below apply only with this flag.
    #[arg(short = 'c', long)]
    pub check: bool,

    /// Hash the files below each directory FILE, in sorted order.
    ///
    /// Walk each directory named as a FILE depth-first, entries in the byte order of their
    /// names, and print a line for every file below it (`DIR/SUB/NAME`). A symbolic link named
    /// on the command line is followed; below it, links to files are hashed (the target's
    /// content, under the link's name), links to directories are not followed, a dangling link
    /// is reported as missing, and FIFOs, sockets and devices are skipped. A directory that
    /// cannot be read is reported in its place and the walk goes on (exit status 1). Without
    /// -r a directory is an error (`Is a directory`), as in sha256sum.
    #[arg(short = 'r', long, conflicts_with = "check")]
    pub recursive: bool,

    /// Hash on this device: cpu (the default), gpu, or auto.
    ///
    /// With gpu, parhash's CUDA backend hashes the files (-r walks as on the CPU): sha256,
    /// sha3-256 and keccak256 in batches of many files (one GPU thread per file; files over
    /// 64 MiB, and files with holes, on the CPU, streamed),
    /// and parsha256 (with --tree-height and --iv-bits) as a tree of GPU threads, each file
    /// read once straight into pinned memory. It needs an NVIDIA GPU with its driver and NVRTC
    /// (CUDA 12); without one parhash stops with `no usable CUDA GPU: <reason>`. The digests
    /// are the same as on the CPU.
    ///
    /// With auto, the GPU hashes exactly where `parhash bench --preset gpu` measured `sum` on
    /// the GPU beating `sum` on the CPU on this machine, process start and all: parsha256 files
    /// from the size it recorded (with the same --tree-height and --iv-bits, on the same GPU;
    /// smaller files on the CPU), and sha256, sha3-256 or keccak256 command lines of at least
    /// the number of files it recorded. With no such record, -r, or no GPU, everything runs on
    /// the CPU. It never fails for want of a GPU.
    #[arg(long, value_enum, default_value_t = Device::Cpu, conflicts_with = "check")]
    pub device: Device,

    #[command(flatten)]
    pub verify: VerifyFlags,

    #[command(flatten)]
    pub output: OutputFlags,

    #[command(flatten)]
    pub hashing: HashOptions,

    #[command(flatten)]
    pub multipart: multipart::MultipartArgs,

    #[command(flatten)]
    pub pieces: pieces::PiecesArgs,

    #[command(flatten)]
    pub ranges: range::SumRangeFlags,

    /// Files to hash; - or none means standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<OsString>,
}

/// Where `sum` hashes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Device {
    /// The CPU (SIMD, all cores).
    Cpu,
    /// An NVIDIA GPU through the CUDA backend.
    Gpu,
    /// The GPU where the lab measured it winning on this machine, else the CPU.
    Auto,
}

/// Check files against checksum lists written by `parhash sum` or coreutils' *sum tools.
///
/// Each FILE (- or none: standard input) holds lines in either format: GNU `HEX  NAME`
/// (also `HEX *NAME`, and escaped `\HEX  NAME` lines) or BSD `TAG (NAME) = HEX`. Lines
/// starting with # are comments. Every named file is hashed and reported as `NAME: OK`,
/// `NAME: FAILED` or `NAME: FAILED open or read`; a summary of problems goes to standard
/// error.
///
/// The algorithm of a BSD line comes from its tag. For a GNU line it comes from the length
/// of the hex digest, and where several algorithms share a length the SHA-2 one wins: 32
/// hex digits is md5, 40 sha1, 56 sha224, 64 sha256, 96 sha384, 128 sha512; 8 is crc32 and
/// 16 xxh64 (as `xxhsum -c` reads them). Use -a to check sha3-256, keccak256, whirlpool,
/// crc32c, xxh128 and other lists of those lengths.
///
/// Object stores' multipart labels (`ETAG (NAME) = HEX-N`, `SHA256-COMPOSITE (NAME) =
/// BASE64-N`, as `sum --etag` and `--composite` write them) are checked by trying the part
/// sizes that give N parts, from one read: `NAME: OK (part size 8 MiB)`.
///
/// MD5 and SHA-1 are BROKEN (practical collisions): a matching md5 or sha1 line shows only
/// that the file was not damaged by accident, not that nobody tampered with it. The same
/// holds for the checksums (crc32, crc32c, crc64nvme, xxh64, xxh3, xxh128): they are not
/// cryptographic (no protection against a deliberate change).
///
/// Exit status: 0 if every listed file was read and matched, 1 otherwise (or, with
/// --strict, if any line was improperly formatted) and for a usage error, as in coreutils.
#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Algorithm of every line (overrides tags and digest lengths).
    ///
    /// Check every line with this algorithm. GNU lines must then have its digest length and
    /// BSD lines its tag; other lines count as improperly formatted. Without -a the algorithm
    /// is read from each line (see above).
    #[arg(short = 'a', long = "algorithm", value_name = "ALG", value_parser = crate::completion_flags::AlgorithmParser, hide_possible_values = true)]
    pub algorithm: Option<Algorithm>,

    /// Audit the tree against the one list: every file matched, changed, missing, new or moved.
    ///
    /// Walk the current directory (as `sum -r .` does; --audit-path narrows it), hash every
    /// file and report each one: `NAME: OK` (matched: listed, same digest; not with --quiet),
    /// `NAME: CHANGED` (listed, other digest), `NAME: MISSING` (listed, not on disk), `NAME:
    /// NEW` (on disk, not listed), `NAME: MOVED from OLD` (not listed, with the digest of a
    /// listed name that is gone), `NAME: FAILED open or read`. Names compare without a leading
    /// `./`, so lists of `sum -r .`, `sha256sum *` and `find . -type f | xargs sha256sum` all
    /// work; the list itself, its side file (FILE.parhash-meta) and their .tmp are not reported.
    ///
    /// A duplicate is never taken for missing or moved: a file found under its listed name is
    /// matched or changed whatever other names share its digest. The listed names that are gone and the
    /// new files are then paired by digest, one to one, each side in byte order of the names:
    /// pairs are moved, the rest missing or new. A missing name whose content is still on
    /// disk under another name says so (`MISSING, content at OTHER`), and a new file that
    /// copies a listed one too (`NEW, copy of OTHER`); --json gives each file's number of
    /// `copies` and its `group`, listed once (`audit_group`). A summary with the counts goes to standard error (not with
    /// --status).
    ///
    /// Exit status: 0 if every file matched, 1 if anything else was found (or the list
    /// could not be read; with --strict, if a line was improperly formatted). The list holds
    /// one algorithm (lines of another are improperly formatted); -a sets it as for `check`.
    #[arg(long, conflicts_with = "ignore_missing")]
    pub audit: bool,

    /// Audit only the files below PATH (repeatable), against the whole list.
    ///
    /// A subset audit: only PATH (a directory or a file, relative to the list's names) is
    /// walked, and only listed names below it can be missing. A new file below PATH whose
    /// digest a listed name outside it has is still found moved, if that name is gone from
    /// disk (it is looked up, not hashed), and new if it is still there (a copy). What a subset
    /// cannot tell: whether files outside it changed or vanished, nor whether a file of the
    /// subset was moved out of it (it is missing; audit a larger part to see where it went).
    #[arg(long = "audit-path", value_name = "PATH", requires = "audit")]
    pub audit_paths: Vec<OsString>,

    #[command(flatten)]
    pub locate: pieces::LocateArgs,

    #[command(flatten)]
    pub ranges: range::CheckRangeFlags,

    #[command(flatten)]
    pub verify: VerifyFlags,

    #[command(flatten)]
    pub output: OutputFlags,

    #[command(flatten)]
    pub hashing: HashOptions,

    /// `sum`'s output flags, accepted only to be refused in coreutils' words (`sha256sum -c
    /// --tag`: "the --tag option is meaningless when verifying checksums").
    #[arg(long, hide = true)]
    pub tag: bool,
    #[arg(short = 'b', long, hide = true)]
    pub binary: bool,
    #[arg(short = 't', long, hide = true)]
    pub text: bool,

    /// Checksum lists; - or none means standard input.
    #[arg(value_name = "FILE")]
    pub files: Vec<OsString>,
}

/// How `check` reports (shared by `check` and `sum -c`).
#[derive(Args, Debug, Default, Clone)]
pub struct VerifyFlags {
    /// Don't print OK for each successfully verified file.
    ///
    /// Print only failures (`NAME: FAILED`, `NAME: FAILED open or read`) and the warnings
    /// on standard error. Of --quiet, --status and --warn the last one given wins, as in
    /// coreutils.
    #[arg(long, overrides_with_all = ["status", "warn"])]
    pub quiet: bool,

    /// Print nothing; the exit status tells the result.
    ///
    /// Don't print the per-file report or the WARNING summary. Files that cannot be opened
    /// and lists without any checksum line are still reported on standard error. Of --quiet,
    /// --status and --warn the last one given wins.
    #[arg(long, overrides_with_all = ["quiet", "warn"])]
    pub status: bool,

    /// Exit non-zero for improperly formatted checksum lines.
    ///
    /// Normally a malformed line only earns a warning; with --strict it also makes the exit
    /// status 1.
    #[arg(long)]
    pub strict: bool,

    /// Warn about each improperly formatted checksum line.
    ///
    /// Print `parhash: FILE: LINE: improperly formatted SHA256 checksum line` on standard
    /// error for every line that is neither a GNU nor a BSD checksum line, word for word what
    /// coreutils' sha256sum, md5sum, cksum ... print. The algorithm named is the one -a gives;
    /// without -a, as cksum -c does, that of the last properly formatted line (sha256 before
    /// any). Of --quiet, --status and --warn the last one given wins.
    #[arg(short = 'w', long, overrides_with_all = ["quiet", "status"])]
    pub warn: bool,

    /// Don't fail or report for missing files.
    ///
    /// Skip listed files that do not exist, silently. A list in which no file at all could
    /// be verified is still an error (`no file was verified`).
    #[arg(long)]
    pub ignore_missing: bool,
}

impl VerifyFlags {
    /// The first of these flags that is set, in the order coreutils checks them.
    fn first_set(&self) -> Option<&'static str> {
        [
            (self.ignore_missing, "--ignore-missing"),
            (self.status, "--status"),
            (self.warn, "--warn"),
            (self.quiet, "--quiet"),
            (self.strict, "--strict"),
        ]
        .into_iter()
        .find_map(|(set, name)| set.then_some(name))
    }
}

/// Output format shared by `sum` and `check`.
#[derive(Args, Debug, Default, Clone)]
pub struct OutputFlags {
    /// End each output line with NUL instead of newline; don't escape names.
    ///
    /// End each line with a NUL byte instead of a newline and write names as they are (no
    /// escaping), as `sha256sum -z` does. For `check` the checksum lists are then read as
    /// NUL-terminated records too, so `parhash sum -z | parhash check -z` round-trips any
    /// name.
    #[arg(short = 'z', long)]
    pub zero: bool,

    /// Write JSON Lines: one object per file (sum) or per checksum line (check).
    ///
    /// Instead of checksum lines (sum) or `NAME: OK` reports (check), write one JSON object
    /// per line on standard output, with the fields docs/lists.md describes ("JSON records"):
    /// `path`, `algorithm`, `digest` or `error` and `errno` for sum (with --etag or
    /// --composite: `form`, `part_size`, `parts` and `value` as the store shows it); `type`,
    /// `list`, `line`,
    /// `status` (ok, failed, missing, unreadable, improper), `path`, `algorithm`, `expected`,
    /// `actual` for check, and a `"type": "summary"` object after each list (with --audit:
    /// `"type": "audit"` objects, `status`, `from`, `group`, `copies`..., then one
    /// `"audit_group"` per group of names sharing a digest, then `"audit_summary"`). Names
    /// that are not UTF-8 also come as `path_bytes` (base64). Standard error and the exit status
    /// are as without --json.
    #[arg(long, conflicts_with_all = ["zero", "tag", "binary", "text"])]
    pub json: bool,
}

/// How data is hashed (shared by `sum` and `check`). Engine options (threads, tree modes)
/// join here.
#[derive(Args, Debug, Default, Clone)]
pub struct HashOptions {
    /// Never show a progress bar.
    ///
    /// A progress bar (bytes, rate, time left) appears on standard error for files over
    /// 64 MiB when standard error is a terminal. This flag turns it off.
    #[arg(long)]
    pub no_progress: bool,

    /// Threads to use [default: all cores].
    ///
    /// How many threads hash at once: on one long file for the algorithms that split a
    /// message (BLAKE3, SANDstorm, PARSHA-256), and across files. The digests never depend on
    /// it. 0 means all cores. A large file may also get one reader thread beside them, which
    /// reads or maps its next pieces in ahead of the hashing (waiting for the disk, or filling
    /// the page tables), so `-j 1` can keep a little more than one core busy; to hold parhash
    /// to one core, run it under `taskset -c 0`.
    #[arg(short = 'j', long = "threads", value_name = "N", default_value = "0", value_parser = parse_threads)]
    pub threads: Threads,

    /// How a large file is read: auto, sequential or parallel [default: auto].
    ///
    /// parallel: the hashing threads read their own pieces of the file, so no thread waits
    /// for a reader (fastest where the file is in the page cache or on an SSD or NVMe drive).
    /// sequential: one stream from start to end, read ahead of the hashing threads (what a
    /// spinning disk or a network file system serves best: several streams make it seek).
    /// auto decides per file: parallel when the file is in the page cache, on tmpfs or on a
    /// device that says it is not rotational; one stream on rotational devices, network file
    /// systems and where the system cannot tell. Only blake3, sandstorm* and parsha256 on
    /// more than one thread split one file; the digest never depends on it.
    #[arg(
        long = "read",
        value_name = "HOW",
        default_value = "auto",
        value_parser = clap::builder::PossibleValuesParser::new(["auto", "sequential", "parallel"])
            .map(|s| s.parse::<ReadStrategy>().expect("one of the possible values")),
    )]
    pub read: ReadStrategy,

    /// Read large files, never map them (b3sum's flag).
    ///
    /// By default two kinds of large files are mapped into memory and hashed in place, without
    /// copying them into buffers: one that blake3, sandstorm* or parsha256 read in parallel from the
    /// page cache or tmpfs, and one they read as a single stream from a disk (a reader thread
    /// maps its pieces in ahead of the hashing). A file truncated meanwhile is still an error, not a
    /// crash: parhash catches the faults in its own maps. With this flag every byte is copied
    /// out with reads instead.
    #[arg(long)]
    pub no_mmap: bool,

    /// The store's smallest part, in bytes, for multipart values [default: 5 MiB, S3's].
    ///
    /// `ETAG (NAME) = HEX-N` and `ALG-COMPOSITE (NAME) = BASE64-N` values (check, sum --match)
    /// are checked by trying the part sizes that give N parts; sizes under this one are not
    /// tried. S3 takes parts of 5 MiB and up (all but the last); a store that allows smaller
    /// ones (Ceph's rgw_multipart_min_part_size) needs its own here.
    #[arg(long, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(1..))]
    pub min_part_size: Option<u64>,

    /// PARSHA-256 tree height T, 1 to 40 [default: 13].
    ///
    /// The digest depends on it (and on --iv-bits); `--tag` lines record both, e.g.
    /// `PARSHA256-T13-IV256 (file) = ...`, and `check` reads them back. 13 gives every
    /// message from about 384 KiB on 4096 independent compressions per round. The tree's
    /// chaining values take about 72 bytes x 2^t of memory, t <= T shrinking with short
    /// messages (T = 13: 0.6 MiB; T = 20: 75 MiB). PARSHA-256 needs the length first: standard
    /// input is read into memory, up to 1 GiB (more is refused: hash a regular file).
    #[arg(long, value_name = "T", value_parser = parse_tree_height)]
    pub tree_height: Option<u32>,

    /// PARSHA-256 IV length l in bits: 0, 128 or 256 [default: 256].
    ///
    /// Every leaf input ends with the first l bits of SHA-256's initial value; 0 puts more
    /// message bytes in each compression (faster), 256 is the paper's most conservative choice.
    #[arg(long, value_name = "BITS", value_parser = parse_iv_bits)]
    pub iv_bits: Option<u32>,

    /// Digest length in bits for blake2b, blake2s, blake3, shake128, shake256.
    ///
    /// The length of each digest, in BITS (a multiple of 8), as b2sum -l and cksum -l count
    /// it: blake2b 8 to 512 (default 512), blake2s 8 to 256 (256), blake3, shake128 and
    /// shake256 8 to 8388608, i.e. 1 MiB (default 256, 256 and 512); with -a. 0 means the
    /// default. b3sum's --length counts BYTES: `b3sum --length 64` is `-l 512` here. A BLAKE2 digest of another length is
    /// another hash (not a prefix); blake3's and SHAKE's shorter digests are prefixes of their
    /// longer ones. `--tag` lines name the length (`BLAKE2b-256 (NAME) = ...`). When checking,
    /// each line's digest says its length, as in `b2sum -c`: -l is accepted and ignored.
    #[arg(short = 'l', long = "length", value_name = "BITS", value_parser = parhash_format::length::parse_bits)]
    pub length: Option<usize>,

    /// blake3's keyed hash (a MAC), the 32-byte key read from standard input, as b3sum --keyed.
    ///
    /// The key is exactly 32 raw bytes on standard input (b3sum's rule), so the files to hash
    /// are named as arguments (standard input cannot be one). Only with -a blake3. BLAKE2's
    /// keys are offered by the Python package (`parhash.blake2b(key=...)`), not here: b2sum
    /// and cksum have no key option to match.
    #[arg(long, conflicts_with = "derive_key")]
    pub keyed: bool,

    /// blake3's key derivation with this context string, as b3sum --derive-key.
    ///
    /// Each input is key material; the output is a key for the purpose CONTEXT names (a
    /// hardcoded, globally unique, application-specific string: BLAKE3's requirement). Only
    /// with -a blake3.
    #[arg(long, value_name = "CONTEXT")]
    pub derive_key: Option<String>,

    /// The mode `--keyed` and `--derive-key` resolve to (the key read from standard input by
    /// `input::resolve_blake3_mode` before any hashing).
    #[arg(skip)]
    pub blake3_mode: Blake3Mode,
}

impl HashOptions {
    /// PARSHA-256's parameters: `--tree-height` and `--iv-bits`, or the defaults.
    pub fn tree_params(&self) -> TreeParams {
        let default = TreeParams::DEFAULT;
        TreeParams::new(
            self.tree_height.unwrap_or(default.tree_height()),
            self.iv_bits.unwrap_or(default.iv_bits()),
        )
        .expect("each flag is checked when parsed")
    }

    /// The digest size `-l` asks of `alg`, when it is not the default (checked when parsed).
    pub fn digest_size(&self, alg: Algorithm) -> Option<usize> {
        parhash_format::length::size_for(alg, self.length)
    }

    /// These options with a digest of `size` bytes (what a check line asks for).
    pub fn with_digest_size(&self, size: usize) -> HashOptions {
        HashOptions {
            length: Some(size * 8),
            ..self.clone()
        }
    }

    /// These options with `params` instead of the flags' (what a tag line of `check` asks for).
    pub fn with_tree_params(&self, params: TreeParams) -> HashOptions {
        HashOptions {
            tree_height: Some(params.tree_height()),
            iv_bits: Some(params.iv_bits()),
            ..self.clone()
        }
    }
}

/// `-j` value parser: the library's thread policy, `0` = all cores.
fn parse_threads(s: &str) -> Result<Threads, std::num::ParseIntError> {
    s.parse::<usize>().map(Threads::from)
}

/// `--tree-height` value parser: T as the library checks it ([`TreeParams::new`]).
fn parse_tree_height(s: &str) -> Result<u32, String> {
    let iv_bits = TreeParams::DEFAULT.iv_bits();
    s.parse::<u32>()
        .ok()
        .filter(|&t| TreeParams::new(t, iv_bits).is_ok())
        .ok_or_else(|| format!("the tree height must be 1 to {MAX_TREE_HEIGHT}"))
}

/// `--iv-bits` value parser: l as the library checks it ([`TreeParams::new`]).
fn parse_iv_bits(s: &str) -> Result<u32, String> {
    let tree_height = TreeParams::DEFAULT.tree_height();
    s.parse::<u32>()
        .ok()
        .filter(|&l| TreeParams::new(tree_height, l).is_ok())
        .ok_or_else(|| "the IV length must be 0, 128 or 256 bits".to_string())
}

/// List every algorithm with its sizes, family, aliases, notes and implementations.
///
/// One block per algorithm: digest and block size, family, the aliases accepted by -a, a
/// note (the standard it follows), a BROKEN marker for md5 and sha1, a "not cryptographic"
/// one for the checksums (CRCs, xxHash), the implementation
/// variants compiled in, with the default one and those this CPU cannot run marked, and how
/// the multi-message engine runs it (SIMD lanes and threads, or threads only).
#[derive(Args, Debug)]
pub struct ListArgs {
    /// Write JSON Lines: one object per algorithm.
    ///
    /// One JSON object per algorithm on standard output: `name`, `tag`, `aliases`, `family`,
    /// `digest_bits`, `digest_size`, `block_size`, `broken`, `cryptographic`, `note`,
    /// `variants` (each with `name`, `available`, `default`, `summary`) and `batch` (`lanes`
    /// and `kernel`, or null where many messages are hashed across threads only). See docs/lists.md ("JSON records").
    #[arg(long)]
    pub json: bool,
}

/// A command line that cannot run.
#[derive(Debug)]
pub enum ParseError {
    /// clap's own report (an unknown flag, a bad value; also `--help` and `--version`).
    Clap(clap::Error),
    /// Flags of `sum` or `check` that do not go together, worded as coreutils words them.
    Refused(String),
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ParseError::Clap(err) => write!(f, "{err}"),
            ParseError::Refused(message) => f.write_str(message),
        }
    }
}

impl From<clap::Error> for ParseError {
    fn from(err: clap::Error) -> ParseError {
        ParseError::Clap(err)
    }
}

/// The exit status of a usage error: 1 for `sum` and `check`, as their coreutils twins exit,
/// 2 for the other subcommands (and a missing or unknown one).
pub fn usage_status<T: AsRef<std::ffi::OsStr>>(args: &[T]) -> u8 {
    match args.get(1).and_then(|a| a.as_ref().to_str()) {
        Some("sum" | "check") => 1,
        _ => 2,
    }
}

/// Parses and validates the command line: what clap cannot express is checked here, in
/// coreutils' order and words (`--tag` with `-c` or `--text`, check-only flags without `-c`).
pub fn parse_from<I, T>(args: I) -> Result<Cli, ParseError>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let cli = Cli::try_parse_from(args)?;
    let refused = match &cli.command {
        Command::Sum(sum) => refused_sum_flags(sum),
        Command::Check(check) => cksum::refused_check(check.algorithm)
            .or_else(|| refused_check_flags(check.tag, check.binary || check.text))
            // `-l` against `-a` (see `length`).
            .or_else(|| {
                parhash_format::length::length_error(check.algorithm, check.hashing.length, true)
            }),
        _ => None,
    };
    match refused {
        Some(message) => Err(ParseError::Refused(message)),
        None => Ok(cli),
    }
}

/// Why output flags cannot go with checking (coreutils' words).
fn refused_check_flags(tag: bool, binary_or_text: bool) -> Option<String> {
    if tag {
        return Some("the --tag option is meaningless when verifying checksums".into());
    }
    binary_or_text
        .then(|| "the --binary and --text options are meaningless when verifying checksums".into())
}

/// Why `sum`'s flags cannot go together, if they cannot (coreutils' checks, in its order).
fn refused_sum_flags(sum: &SumArgs) -> Option<String> {
    if let Some(message) = cksum::refused(sum) {
        return Some(message);
    }
    if sum.tag && sum.text {
        return Some("--tag does not support --text mode".into());
    }
    if sum.check {
        if let Some(message) = refused_check_flags(sum.tag, sum.binary || sum.text) {
            return Some(message);
        }
    }
    if let (false, Some(flag)) = (sum.check, sum.verify.first_set()) {
        return Some(format!(
            "the {flag} option is meaningful only when verifying checksums"
        ));
    }
    if let Some(message) = multipart::refused(sum) {
        return Some(message);
    }
    if sum.resume && sum.output_file.is_none() && sum.lists.is_none() {
        return Some("--resume continues a list of -o FILE or --lists DIR".into());
    }
    if sum.algorithms().len() > 1 && sum.output_file.is_some() && (sum.resume || sum.update) {
        return Some("--resume and --update of -o FILE take one algorithm".into());
    }
    if sum.algorithms.len() > 1 {
        if sum.check {
            return Some("-a takes one algorithm when verifying checksums".into());
        }
        if sum.device == Device::Gpu {
            return Some("--device gpu hashes with one algorithm at a time".into());
        }
    }
    let params_given = sum.hashing.tree_height.is_some() || sum.hashing.iv_bits.is_some();
    let parsha = (sum.algorithms.iter().copied()).any(|alg| alg.takes_tree_params());
    if params_given && !parsha && !sum.check {
        return Some("--tree-height and --iv-bits apply only to -a parsha256".into());
    }
    // `-l` against `-a` (see `length`): with several algorithms, it sets the length of those
    // that have a choice of lengths, and at least one must.
    match sum.algorithms.as_slice() {
        [] => parhash_format::length::length_error(None, sum.hashing.length, sum.check),
        [one] => parhash_format::length::length_error(Some(*one), sum.hashing.length, sum.check),
        several => parhash_format::length::several_length_error(several, sum.hashing.length),
    }
}

impl SumArgs {
    /// The algorithms of -a, each once, in the order first given (the default when none).
    pub fn algorithms(&self) -> Vec<Algorithm> {
        let mut algorithms: Vec<Algorithm> = Vec::new();
        for &alg in &self.algorithms {
            if !algorithms.contains(&alg) {
                algorithms.push(alg);
            }
        }
        algorithms
    }

    /// The one algorithm of -a, if exactly one was given.
    pub fn algorithm(&self) -> Option<Algorithm> {
        match self.algorithms().as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use clap::CommandFactory;

    pub(crate) fn parse(args: &[&str]) -> Result<Cli, ParseError> {
        parse_from(std::iter::once("parhash").chain(args.iter().copied()))
    }

    pub(crate) fn sum(args: &[&str]) -> SumArgs {
        match parse(&[&["sum"], args].concat()).unwrap().command {
            Command::Sum(a) => a,
            other => panic!("{other:?}"),
        }
    }

    fn check(args: &[&str]) -> CheckArgs {
        match parse(&[&["check"], args].concat()).unwrap().command {
            Command::Check(a) => a,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn definitions_are_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn algorithm_flag() {
        assert_eq!(sum(&[]).algorithm(), None);
        assert_eq!(sum(&["-a", "MD-5"]).algorithm(), Some(Algorithm::Md5));
        assert_eq!(sum(&["--algorithm=md5"]).algorithm(), Some(Algorithm::Md5));
        let (md5, sha256) = (Algorithm::Md5, Algorithm::Sha256);
        assert_eq!(sum(&["-a", "md5,SHA-256"]).algorithms(), [md5, sha256]);
        assert_eq!(
            sum(&["-a", "sha256", "-a", "md5,sha256"]).algorithms(),
            [sha256, md5]
        );
        assert_eq!(sum(&["-a", "md5,sha256"]).algorithm(), None);
        assert!(parse(&["sum", "-a", "md5,nope"]).is_err());
        assert!(parse(&["sum", "-c", "-a", "md5,sha256", "l"]).is_err());
        assert!(parse(&["sum", "--device", "gpu", "-a", "sha256,sha3-256"]).is_err());
        // -l sets the length of those algorithms that have a choice.
        assert!(parse(&["sum", "-a", "sha256,blake2b", "-l", "256"]).is_ok());
        assert!(parse(&["sum", "-a", "sha256,blake2b", "-l", "520"]).is_err());
        assert!(parse(&["sum", "-a", "sha256,md5", "-l", "128"]).is_err());
        assert_eq!(check(&["-a", "md5"]).algorithm, Some(Algorithm::Md5));
        let err = parse(&["sum", "-a", "mdd5"]).unwrap_err();
        assert!(err.to_string().contains("did you mean 'md5'"), "{err}");
    }

    #[test]
    fn tag_flag() {
        assert!(sum(&["--tag"]).tag);
        assert!(!sum(&[]).tag);
        let err = parse(&["sum", "--tag", "-c"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the --tag option is meaningless when verifying checksums"
        );
    }

    #[test]
    fn binary_and_text_flags() {
        assert!(sum(&["-b"]).binary);
        assert!(sum(&["--text"]).text);
        // The last of -b and -t wins, as in coreutils.
        let last_text = sum(&["-b", "-t"]);
        assert!(last_text.text && !last_text.binary);
        let last_binary = sum(&["-t", "-b"]);
        assert!(last_binary.binary && !last_binary.text);
        let err = parse(&["sum", "--tag", "-t"]).unwrap_err();
        assert_eq!(err.to_string(), "--tag does not support --text mode");
        assert!(sum(&["--tag", "-b"]).binary);
        assert!(parse(&["sum", "-c", "-b"]).is_err());
    }

    #[test]
    fn lists_flags() {
        let s = sum(&[
            "-a",
            "md5,sha256",
            "--lists",
            "out",
            "--list-name",
            "{alg}.txt",
        ]);
        assert_eq!(s.lists, Some("out".into()));
        assert_eq!(s.list_name.as_deref(), Some("{alg}.txt"));
        assert!(parse(&["sum", "--list-name", "x"]).is_err());
        assert!(parse(&["sum", "--lists", "d", "--json"]).is_err());
        assert!(parse(&["sum", "--lists", "d", "-c"]).is_err());
    }

    #[test]
    fn output_resume_update_flags() {
        let s = sum(&["-r", "d", "-o", "LIST", "--resume"]);
        assert_eq!(s.output_file, Some("LIST".into()));
        assert!(s.resume && !s.update);
        let s = sum(&["--output=LIST", "--update", "--rehash-changed", "d"]);
        assert!(s.update && s.rehash_changed);
        assert!(parse(&["sum", "--resume", "d"]).is_err());
        assert!(parse(&["sum", "--update", "d"]).is_err());
        assert!(parse(&["sum", "-o", "L", "--rehash-changed", "d"]).is_err());
        assert!(parse(&["sum", "-o", "L", "--resume", "--update", "d"]).is_err());
        assert!(parse(&["sum", "-o", "L", "--lists", "x", "d"]).is_err());
        assert!(parse(&["sum", "-o", "L", "-c", "d"]).is_err());
        let err = parse(&["sum", "-a", "md5,sha1", "-o", "L", "--resume", "d"]).unwrap_err();
        assert_eq!(
            err.to_string(),
            "--resume and --update of -o FILE take one algorithm"
        );
        assert!(sum(&["-a", "md5,sha1", "--lists", "D", "--resume", "d"]).resume);
    }

    #[test]
    fn check_flag() {
        assert!(sum(&["-c", "list"]).check);
        assert!(sum(&["--check"]).check);
    }

    #[test]
    fn recursive_flag() {
        assert!(sum(&["-r", "d"]).recursive);
        assert!(sum(&["--recursive"]).recursive);
        assert!(!sum(&["d"]).recursive);
        assert!(parse(&["sum", "-r", "-c", "l"]).is_err());
        assert!(parse(&["check", "-r", "l"]).is_err());
    }

    #[test]
    fn device_flags() {
        assert_eq!(sum(&[]).device, Device::Cpu);
        let s = sum(&["--device", "gpu", "-a", "parsha256", "--tree-height", "13"]);
        assert_eq!((s.device, s.hashing.tree_height), (Device::Gpu, Some(13)));
        assert_eq!(sum(&["--device", "auto", "a", "b"]).device, Device::Auto);
        assert_eq!(
            sum(&["--device", "auto", "-a", "sha256,md5"]).device,
            Device::Auto
        );
        assert!(parse(&["sum", "--device", "tpu"]).is_err());
        assert!(parse(&["sum", "-c", "--device", "gpu"]).is_err());
    }

    #[test]
    fn tree_parameter_flags() {
        let s = sum(&["-a", "parsha256", "--tree-height", "16", "--iv-bits", "0"]);
        assert_eq!(s.hashing.tree_params(), TreeParams::new(16, 0).unwrap());
        assert_eq!(
            sum(&["-a", "parsha256"]).hashing.tree_params(),
            TreeParams::DEFAULT
        );
        assert!(parse_iv_bits("64").is_err());
        assert!(parse_tree_height("0").is_err());
        assert!(parse_tree_height("41").is_err());
        assert_eq!(parse_tree_height("16"), Ok(16));
    }

    #[test]
    fn threads_flag() {
        assert_eq!(sum(&[]).hashing.threads, Threads::ALL);
        assert_eq!(sum(&["-j", "0"]).hashing.threads, Threads::ALL);
        assert_eq!(check(&["-j", "3"]).hashing.threads, Threads::new(3));
        assert!(parse(&["sum", "-j", "x"]).is_err());
    }

    #[test]
    fn zero_flag() {
        assert!(sum(&["-z"]).output.zero);
        assert!(check(&["--zero"]).output.zero);
    }

    #[test]
    fn no_progress_flag() {
        assert!(sum(&["--no-progress"]).hashing.no_progress);
        assert!(check(&["--no-progress"]).hashing.no_progress);
        assert!(!sum(&[]).hashing.no_progress);
    }

    #[test]
    fn verify_flags() {
        let v = check(&["--strict", "--ignore-missing", "l"]).verify;
        assert!(v.strict && v.ignore_missing && !v.quiet && !v.status && !v.warn);
        assert!(check(&["--quiet"]).verify.quiet);
        assert!(check(&["--status"]).verify.status);
        assert!(check(&["--warn"]).verify.warn);
        let s = sum(&["-c", "--quiet", "--ignore-missing", "l"]);
        assert!(s.verify.quiet && s.verify.ignore_missing && !s.verify.strict);
    }

    #[test]
    fn audit_flags() {
        let a = check(&["--audit", "--audit-path", "x", "--audit-path", "y/z", "L"]);
        assert!(a.audit);
        assert_eq!(a.audit_paths, ["x", "y/z"]);
        assert_eq!(a.files, ["L"]);
        assert!(!check(&["L"]).audit);
        // A subset needs the audit; an audit reports missing files, so it cannot ignore them.
        assert!(parse(&["check", "--audit-path", "x", "L"]).is_err());
        assert!(parse(&["check", "--audit", "--ignore-missing", "L"]).is_err());
        // Not on `sum -c`.
        assert!(parse(&["sum", "-c", "--audit", "L"]).is_err());
    }

    #[test]
    fn last_of_quiet_status_warn_wins() {
        let v = check(&["-w", "--quiet"]).verify;
        assert!(v.quiet && !v.warn && !v.status);
        let v = check(&["--quiet", "-w"]).verify;
        assert!(v.warn && !v.quiet && !v.status);
        let v = check(&["-w", "--status"]).verify;
        assert!(v.status && !v.warn && !v.quiet);
        let v = check(&["--status", "--quiet"]).verify;
        assert!(v.quiet && !v.status);
    }

    #[test]
    fn verify_flags_need_check_mode_on_sum() {
        for (flag, name) in [
            ("--quiet", "--quiet"),
            ("--status", "--status"),
            ("--strict", "--strict"),
            ("-w", "--warn"),
            ("--ignore-missing", "--ignore-missing"),
        ] {
            let err = parse(&["sum", flag, "f"]).unwrap_err();
            assert_eq!(
                err.to_string(),
                format!("the {name} option is meaningful only when verifying checksums")
            );
        }
        // coreutils' order when several are given.
        let err = parse(&["sum", "--strict", "--ignore-missing"]).unwrap_err();
        assert!(err.to_string().contains("--ignore-missing"), "{err}");
    }

    #[test]
    fn usage_errors_of_sum_and_check_exit_1() {
        assert_eq!(usage_status(&["parhash", "sum", "--nope"]), 1);
        assert_eq!(usage_status(&["parhash", "check"]), 1);
        assert_eq!(usage_status(&["parhash", "bench", "-t", "0"]), 2);
        assert_eq!(usage_status(&["parhash"]), 2);
    }

    #[test]
    fn files_keep_order_and_dash() {
        let s = sum(&["b", "-", "a"]);
        assert_eq!(s.files, ["b", "-", "a"]);
        assert_eq!(sum(&["--", "-a"]).files, ["-a"]);
        assert_eq!(check(&["x", "y"]).files, ["x", "y"]);
    }

    #[test]
    fn list_takes_no_arguments() {
        assert!(matches!(
            parse(&["list"]).unwrap().command,
            Command::List(_)
        ));
        assert!(parse(&["list", "extra"]).is_err());
    }
}
