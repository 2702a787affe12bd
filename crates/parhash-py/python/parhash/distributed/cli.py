"""``parhash-dist``: ``parhash sum`` and ``parhash check`` with the hashing done on a Ray cluster
(and ``verify``: ``parhash-store verify``, the files hashed on the workers).

Standard output is byte for byte what ``parhash sum`` / ``parhash check`` print (GNU or BSD
lines, escaped names, the ``NAME: OK`` report; with ``--json`` the CLI's JSON Lines), so
``parhash check`` and ``sha256sum -c`` verify a cluster's lists and the other way round.
Messages on standard error are the CLI's, prefixed ``parhash-dist:``. Exit status, as the
CLI's: 0 when everything succeeded, 1 when a file could not be hashed, a checksum did not match
or Ray could not be reached, and for a usage error of ``sum`` or ``check``; 2 for a missing or
unknown subcommand.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import logging
import os
import sys
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple

import ray

import parhash
import parhash.format as fmt
import parhash.lists

from . import DEFAULT_SPLIT_BYTES, _lines
from ._engine import (
    DEFAULT_MAX_RETRIES,
    DEFAULT_TASK_BYTES,
    DEFAULT_TASK_FILES,
    Item,
    Pipeline,
    Progress,
    Spec,
    connect,
)

PROG = "parhash-dist"

#: The exit status of a usage error of `sum` or `check`: 1, as `parhash sum`/`check` (and
#: coreutils' sha256sum) exit; argparse's 2 remains for a missing or unknown subcommand.
USAGE_STATUS = 1

#: Standard output, for the checksum lines only: Ray prints its own error reports ("(raylet) A
#: worker died...") to whatever ``sys.stdout`` is, which main() points at standard error.
_stdout = sys.stdout


def _message(text: str) -> None:
    """``parhash-dist: TEXT`` on standard error (after what standard output holds so far)."""
    with contextlib.suppress(OSError):
        _stdout.flush()
    with contextlib.suppress(OSError):
        sys.stderr.write(f"{PROG}: {text}\n")
        sys.stderr.flush()


class _Bar(Progress):
    """Files, bytes and running tasks on standard error (tqdm), when it is a terminal."""

    def __init__(self) -> None:
        from tqdm import tqdm

        self.bar = tqdm(
            unit="B", unit_scale=True, unit_divisor=1024, file=sys.stderr, leave=False, dynamic_ncols=True, total=0
        )
        self.files_done = self.files_seen = self.tasks = 0

    def submitted(self, files: int, nbytes: int) -> None:
        self.files_seen += files
        self.bar.total += nbytes
        self._show()

    def finished(self, files: int, nbytes: int) -> None:
        self.files_done += files
        self.bar.update(nbytes)
        self._show()

    def running(self, tasks: int) -> None:
        if tasks != self.tasks:
            self.tasks = tasks
            self._show()

    def _show(self) -> None:
        self.bar.set_postfix_str(f"{self.files_done}/{self.files_seen} files, {self.tasks} tasks running")

    def pause(self):
        return self.bar.external_write_mode(file=sys.stderr)

    def close(self) -> None:
        self.bar.close()


def _progress(no_progress: bool) -> Optional[_Bar]:
    if no_progress or not sys.stderr.isatty():
        return None
    try:
        return _Bar()
    except ImportError:
        return None


def _algorithm(text: str) -> str:
    try:
        return _lines.canonical_name(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _algorithms(text: str) -> List[str]:
    """sum's -a: one algorithm or a comma-separated list of them (-a may also be repeated)."""
    return [_algorithm(name) for name in text.split(",")]


def _part_sizes(text: str) -> List[int]:
    """--part-size: one size or a comma-separated list (--part-size may also be repeated)."""
    try:
        return [fmt.parse_part_size(size) for size in text.split(",")]
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _range(text: str) -> Tuple[int, int]:
    """check's --range OFFSET:LENGTH, as the CLI reads it."""
    try:
        return fmt.parse_range(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _chunk_group(text: str) -> int:
    try:
        return fmt.parse_chunk_group(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _bits(text: str) -> int:
    try:
        return fmt.parse_bits(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"'{text}' is not a positive whole number")
    return value


def _task_options(to: "argparse._ActionsContainer", task_bytes: int, task_files: int, files: str) -> None:
    """Adds how the work is cut into tasks (--task-bytes, --task-files: `files` per task) and
    --max-retries to `to`, with these defaults."""
    to.add_argument(
        "--task-bytes",
        type=_positive,
        default=task_bytes,
        metavar="N",
        help=f"bytes of files per task (default {task_bytes >> 20} MiB)",
    )
    to.add_argument(
        "--task-files", type=_positive, default=task_files, metavar="N", help=f"{files} per task (default {task_files})"
    )
    to.add_argument(
        "--max-retries",
        type=int,
        default=DEFAULT_MAX_RETRIES,
        metavar="N",
        help=f"retries of a task whose worker died (default {DEFAULT_MAX_RETRIES})",
    )


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="parhash sum and check with the hashing done on a Ray cluster: the same lines "
        "as `parhash sum` / `parhash check`, so either tool (or sha256sum -c) verifies the other's lists.",
        epilog="Exit status: 0 if everything succeeded; 1 if a file could not be hashed, a checksum "
        "did not match or Ray could not be reached, and for a usage error of sum or check (as `parhash sum` "
        "and `parhash check`); 2 for a missing or unknown subcommand.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="{sum,check,verify}")

    def common(sub: argparse.ArgumentParser, json_help: str, json_excludes: str) -> None:
        sub.add_argument(
            "--address",
            metavar="ADDR",
            help="Ray to use: unset starts a local one (or joins $RAY_ADDRESS), 'auto' joins the "
            "cluster `ray start` runs on this machine, ray://HOST:10001 connects through Ray Client",
        )
        sub.add_argument("-z", "--zero", action="store_true", help="NUL-terminated lines, names not escaped")
        sub.add_argument(
            "--json",
            action="store_true",
            help=f"JSON Lines, byte for byte as `parhash {sub.prog.split()[-1]} --json`: {json_help}. "
            f"Standard error and the exit status are as without --json. Not with {json_excludes}. See "
            "docs/lists.md (JSON records)",
        )
        sub.add_argument("--no-progress", action="store_true", help="no progress bar (there is one only on a terminal)")
        _task_options(sub, DEFAULT_TASK_BYTES, DEFAULT_TASK_FILES, "at most N files")

    hashing = argparse.ArgumentParser(add_help=False)
    hashing.add_argument("--tree-height", type=int, metavar="T", help="PARSHA-256's tree height T (1..=40, default 13)")
    hashing.add_argument(
        "--iv-bits", type=int, metavar="BITS", help="PARSHA-256's IV length l: 0, 128 or 256 (default)"
    )

    sum_parser = commands.add_parser(
        "sum",
        parents=[hashing],
        help="print checksums of files, as `parhash sum`",
        description="Print checksum lines of files (sha256 unless -a says otherwise) exactly as `parhash sum` "
        "does, hashed on a Ray cluster. Files of at least --split-bytes of an algorithm that splits "
        "(parhash.splits) are split into parts over the cluster. With no FILE, or FILE -, standard input "
        "is hashed here.",
    )
    sum_parser.add_argument(
        "-a",
        "--algorithm",
        type=_algorithms,
        action="extend",
        metavar="ALG",
        help="hash algorithm (default sha256); see `parhash list`. Several (-a md5,sha256 "
        "or -a repeated): each file is read once for all of them, and standard output has "
        "BSD lines (one per file and algorithm), one JSON object per file with --json, or "
        "one list per algorithm with --lists",
    )
    sum_parser.add_argument(
        "--lists",
        metavar="DIR",
        help="write one list per algorithm into the directory DIR (which must exist), named "
        "as distributions name them: MD5SUMS, SHA1SUMS, SHA256SUMS, SHA512SUMS, B2SUMS "
        "(blake2b), B3SUMS (blake3), TAGSUMS for the others; each list holds what `parhash "
        "sum -a ALG` prints (GNU lines; --tag, -b, -z apply); as `parhash sum --lists`",
    )
    sum_parser.add_argument(
        "--list-name",
        metavar="TEMPLATE",
        help="name the lists of --lists after TEMPLATE ({name}: SHA256SUMS, {alg}: sha256)",
    )
    sum_parser.add_argument(
        "-l",
        "--length",
        type=_bits,
        metavar="BITS",
        help="digest length in bits, with -a blake2b (8..512: BLAKE2's own digest size, not a "
        "prefix), blake2s (8..256), blake3, shake128 or shake256 (8..8388608); a multiple of 8 "
        "as b2sum -l counts it (b3sum --length 64 is -l 512), 0 for the default; --tag lines "
        "name it: BLAKE2b-256 (NAME) = HEX",
    )
    style = sum_parser.add_mutually_exclusive_group()
    style.add_argument("--tag", action="store_true", help="BSD-style lines: SHA256 (NAME) = HEX")
    style.add_argument("-b", "--binary", action="store_true", help="mark files as read in binary mode (HEX *NAME)")
    sum_parser.add_argument("-t", "--text", action="store_true", help="HEX  NAME (the default)")
    sum_parser.add_argument(
        "-r",
        "--recursive",
        action="store_true",
        help="hash the files below each directory FILE, in `parhash sum -r`'s order",
    )
    sum_parser.add_argument(
        "--split-bytes",
        type=_positive,
        default=DEFAULT_SPLIT_BYTES,
        metavar="N",
        help=f"split files of at least N bytes (of an algorithm that splits) into parts "
        f"(default {DEFAULT_SPLIT_BYTES >> 20} MiB)",
    )
    sum_parser.add_argument(
        "--parts", type=_positive, metavar="N", help="parts of a split file (default: one per CPU of the cluster)"
    )
    sum_parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write the list to FILE instead of standard output, durably (written as hashed, "
        "fsync every 5 s and at the end), with FILE.parhash-meta beside it (each file's size, "
        "times, inode, device): byte for byte as `parhash sum -o`",
    )
    sum_parser.add_argument(
        "--resume",
        action="store_true",
        help="continue the list FILE an interrupted run of the same command line left: its "
        "files are not hashed again, a torn last line is written again",
    )
    sum_parser.add_argument(
        "--update",
        action="store_true",
        help="bring FILE up to date with the tree: new files hashed, entries of files gone "
        "dropped, the others kept without reading them (FILE.tmp renamed over FILE)",
    )
    sum_parser.add_argument(
        "--rehash-changed",
        action="store_true",
        help="with --update, hash again files whose size, mtime, ctime, inode or device "
        "changed since FILE.parhash-meta recorded them. This trusts file metadata, as rsync "
        "and git do: a file rewritten with the same size and its mtime restored is not seen",
    )
    sum_parser.add_argument(
        "--etag",
        action="store_true",
        help="S3's ETag of each file uploaded in parts of --part-size (without it: in one "
        "piece, the MD5): ETAG (NAME) = HEX-N, as `parhash sum --etag`; with --composite too, "
        "both from one read",
    )
    sum_parser.add_argument(
        "--composite",
        action="store_true",
        help="S3's composite checksums of -a's algorithms (sha1, sha256, crc32, crc32c; "
        "default sha256) for parts of --part-size: SHA256-COMPOSITE (NAME) = BASE64-N",
    )
    sum_parser.add_argument(
        "--part-size",
        type=_part_sizes,
        action="extend",
        metavar="SIZE",
        help="part size(s) of --etag and --composite: 8MiB (KiB, MiB, GiB; 5 MiB to 5 GiB); "
        "several: 8MiB,16MiB or --part-size repeated, a line for each, as `parhash sum`. With "
        "several, and for files of at least --split-bytes, each file's parts are spread over "
        "the cluster (--parts runs of whole parts) and combined here",
    )
    sum_parser.add_argument("files", nargs="*", metavar="FILE", help="files to hash; - or none: standard input")
    common(
        sum_parser,
        "an object per file (path, algorithm, digest; or error and errno); a name that is not "
        "UTF-8 also as path_bytes (base64)",
        "-z, --tag, -b or -t",
    )

    check_parser = commands.add_parser(
        "check",
        parents=[hashing],
        help="check files against checksum lists, as `parhash check`",
        description="Verify files against checksum lists (GNU `HEX  NAME` or BSD `TAG (NAME) = HEX` lines) "
        "exactly as `parhash check` does, hashed on a Ray cluster.",
    )
    check_parser.add_argument(
        "-a",
        "--algorithm",
        type=_algorithm,
        metavar="ALG",
        help="algorithm of every line (overrides tags and digest lengths); GNU lines may "
        "then have any length it can make (blake2b, blake2s, blake3, shake128, shake256)",
    )
    check_parser.add_argument(
        "-l",
        "--length",
        type=_bits,
        metavar="BITS",
        help="accepted and ignored, as by b2sum -c: each line's digest says its length "
        "(checked against -a all the same)",
    )
    check_parser.add_argument(
        "--quiet", dest="report", action="store_const", const="quiet", help="don't print OK for each verified file"
    )
    check_parser.add_argument(
        "--status",
        dest="report",
        action="store_const",
        const="status",
        help="print nothing; the exit status tells the result",
    )
    check_parser.add_argument(
        "-w", "--warn", dest="report", action="store_const", const="warn", help="warn about improperly formatted lines"
    )
    check_parser.add_argument("--strict", action="store_true", help="exit non-zero for improperly formatted lines")
    check_parser.add_argument("--ignore-missing", action="store_true", help="don't fail or report for missing files")
    check_parser.add_argument(
        "--audit",
        action="store_true",
        help="audit the current directory's tree against the one list: every file matched, "
        "changed, missing, new, moved or unreadable, with its copies; as `parhash check --audit`",
    )
    check_parser.add_argument(
        "--audit-path",
        action="append",
        default=[],
        metavar="PATH",
        help="with --audit, audit only PATH (repeatable) against the whole list",
    )
    check_parser.add_argument(
        "--range",
        type=_range,
        metavar="OFFSET:LENGTH",
        help="verify only these bytes of each BLAKE3 line's file (1GiB:4MiB) with its outboard, "
        "on the workers; as `parhash check --range`",
    )
    check_parser.add_argument(
        "--outboard", metavar="DIR", help="where --range finds the outboards (DIR/NAME.obao), as `sum --outboard=DIR`"
    )
    check_parser.add_argument(
        "--chunk-group", type=_chunk_group, metavar="K", help="the outboards' chunk group (0: bao's, 4: iroh's)"
    )
    check_parser.add_argument("lists", nargs="*", metavar="FILE", help="checksum lists; - or none: standard input")
    common(
        check_parser,
        "an object per checksum line (type, list, line, status: ok, failed, missing, "
        "unreadable or improper; path, algorithm, algorithm_from, expected, actual), then a summary object per "
        "list (its counts, passed); names that are not UTF-8 also as path_bytes/list_bytes (base64); --quiet "
        "leaves out the ok lines, --status prints nothing",
        "-z",
    )
    # Listed for --help; main() hands `verify` to _store_verify before this parser sees it.
    commands.add_parser(
        "verify",
        add_help=False,
        help="check a local tree against s3://bucket/prefix, as `parhash-store verify` (`parhash-dist verify --help`)",
    )
    return parser


class _Output:
    """Standard output as bytes, with the bar (if any) kept out of the way."""

    def __init__(self, bar: Optional[_Bar]):
        self.bar = bar
        self.out = _stdout.buffer

    def write(self, data: bytes) -> None:
        if self.bar is not None and self.out.isatty():
            with self.bar.pause():
                self.out.write(data)
                self.out.flush()
        else:
            self.out.write(data)

    def message(self, text: str) -> None:
        if self.bar is not None:
            with self.bar.pause():
                self.out.flush()
                _message(text)
        else:
            self.out.flush()
            _message(text)

    def events(self, events) -> None:
        """What a check run said: bytes for standard output, messages for standard error."""
        for is_output, payload in events:
            if is_output:
                self.write(payload)
            else:
                self.message(payload)

    def ended(self, outcome) -> bool:
        """A list's end, ``(passed, events)``: the events printed, whether it passed."""
        passed, events = outcome
        self.events(events)
        return passed


def _stdin_bytes():
    """Standard input as bytes; the CLI's error (``Bad file descriptor``) when the parent
    closed it (Python then has no ``sys.stdin``)."""
    if sys.stdin is None:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))
    return sys.stdin.buffer


def _stdin_digest(spec: Spec) -> Any:
    """Standard input's digest, hashed on the driver (or its OSError); with several
    algorithms, ``{name: digest}`` from one read."""
    try:
        hashers = {
            name: _lines.new(name, **_options_for(spec, name))
            for name in (spec.algorithms if spec.several else (spec.algorithm,))
        }
        read = _stdin_bytes().read
        while True:
            chunk = read(1 << 20)
            if not chunk:
                break
            for hasher in hashers.values():
                hasher.update(chunk)
    except OSError as err:
        return err
    digests = {name: hasher.digest() for name, hasher in hashers.items()}
    return digests if spec.several else digests[spec.algorithm]


def _options_for(spec: Spec, name: str) -> dict:
    """The options of `spec` that apply to the algorithm `name` (of several: PARSHA-256's
    parameters to parsha256, the digest size to those that can make it)."""
    if not spec.several:
        return spec.hash_kwargs()
    options: dict = {}
    if parhash.takes_tree_params(name):
        options.update(spec.tree_kwargs())
    if spec.digest_size is not None:
        # None for one of the algorithms with a single length (as the CLI's hashers).
        size = fmt.digest_size_for(name, spec.digest_size * 8)
        if size is not None:
            options["digest_size"] = size
    return options


def _sum_algorithms(args) -> List[str]:
    """sum's -a: each algorithm once, in the order first given (sha256 when none)."""
    return list(dict.fromkeys(args.algorithm or ["sha256"]))


def _spec(args) -> Spec:
    """sum's spec: -a (default sha256), PARSHA-256's parameters, -l (checked by _run)."""
    algorithms = _sum_algorithms(args)
    if len(algorithms) > 1:
        size = args.length // 8 if args.length else None
        return Spec(algorithms[0], args.tree_height, args.iv_bits, size, algorithms=tuple(algorithms))
    algorithm = algorithms[0]
    size = fmt.length_digest_size(algorithm, args.length)
    if parhash.takes_tree_params(algorithm):
        return Spec(algorithm, args.tree_height, args.iv_bits)
    return Spec(algorithm, digest_size=size)


class _Lists:
    """``--lists DIR``: one list per algorithm, created empty before anything is hashed, each
    holding what ``parhash sum -a ALG`` prints (as ``parhash sum --lists``), written as ``-o``
    writes its list (``DurableFile``: every line handed to the kernel at once, so a killed run
    loses nothing written; fsync every few seconds and at the end, ``sync``)."""

    def __init__(self, args, algorithms: List[str]) -> None:
        try:
            self.paths: List[bytes] = fmt.list_paths(args.lists, args.list_name, algorithms)
        except ValueError as err:  # two lists of the same name, in the CLI's words
            raise _ListsError(str(err)) from None
        self.files: List[fmt.DurableFile] = []
        try:
            for path in self.paths:
                self.files.append(fmt.DurableFile(path))
        except OSError as err:
            self.close()
            raise _cannot_write(err, path) from None

    def write(self, index: int, line: bytes) -> None:
        try:
            self.files[index].write(line)
        except OSError as err:
            raise _cannot_write(err, self.paths[index]) from err

    def sync(self) -> None:
        """Forces every list to the disk (at the end of a run that ended well, as ``-o``)."""
        for path, file in zip(self.paths, self.files):
            try:
                file.sync()
            except OSError as err:
                raise _cannot_write(err, path) from err

    def close(self) -> None:
        """Closes every list (what was written stays; nothing more is synced)."""
        for file in self.files:
            file.close()


def _cannot_write(err: OSError, path: bytes) -> _ListsError:
    """`err` writing the list at `path`, in the CLI's words: ``cannot write FILE: REASON``."""
    return _ListsError(f"cannot write {os.fsdecode(err.filename or path)}: {err.strerror or err}")


class _ListsError(Exception):
    """A list of -o or --lists that cannot be named, created, written or resumed (status 1)."""


def _tasks(args, bar: Optional[_Bar]) -> Dict[str, Any]:
    """How the command line cuts the work into tasks (`_task_options`), with the progress bar:
    keyword arguments of Pipeline and cluster_hasher."""
    return dict(task_bytes=args.task_bytes, task_files=args.task_files, max_retries=args.max_retries, progress=bar)


def _pipeline(args, spec: Spec, bar: Optional[_Bar], split_bytes: Optional[int]) -> Pipeline:
    return Pipeline(spec, split_bytes=split_bytes, parts=getattr(args, "parts", None), **_tasks(args, bar))


def _tree_params(algorithms: Sequence[str], args) -> Optional[Tuple[int, int]]:
    """The tree parameters as the library fills them in (its defaults where none were given),
    if one of `algorithms` takes them."""
    for name in algorithms:
        if parhash.takes_tree_params(name):
            tree = parhash.new(name, tree_height=args.tree_height, iv_bits=args.iv_bits)
            assert isinstance(tree, parhash.Hash) and tree.tree_height is not None and tree.iv_bits is not None
            return (tree.tree_height, tree.iv_bits)
    return None


def _multipart_forms(args) -> List[str]:
    """The forms of --etag and --composite, as ``parhash.hash_files`` names them, in `parhash
    sum`'s order: the ETag, then each -a's composite."""
    forms = ["etag"] if args.etag else []
    if args.composite:
        forms += [f"{name}-composite" for name in _sum_algorithms(args)]
    return forms


def _multipart_usage(args) -> Optional[str]:
    """What --etag, --composite and --part-size do not go with, in the CLI's words."""
    if not (args.etag or args.composite):
        if args.part_size is not None:
            return "--part-size and --match go with --etag or --composite"
        return None
    flag = "--etag" if args.etag else "--composite"
    for other, given in (
        ("--lists <DIR>", args.lists),
        ("--output <FILE>", args.output),
        ("--recursive", args.recursive),
        ("--tag", args.tag),
        ("--binary", args.binary),
        ("--text", args.text),
        ("--length <BITS>", args.length),
        ("--tree-height <T>", args.tree_height),
        ("--iv-bits <BITS>", args.iv_bits),
    ):
        if given not in (None, False):
            return f"the argument '{flag}' cannot be used with '{other}'"
    if args.algorithm and not args.composite:
        return "-a names the algorithms of --composite; --etag is MD5's"
    if args.composite and args.part_size is None:
        return "--composite needs --part-size"
    if not args.files or b"-" in map(os.fsencode, args.files):
        return f"{flag} in parhash-dist hashes files on the cluster, not standard input (`parhash sum {flag}` reads it)"
    try:
        _multipart_spec(args)
    except (ValueError, TypeError) as err:
        return str(err)
    return None


def _multipart_spec(args) -> Spec:
    from . import _spec as checked_spec

    forms = _multipart_forms(args)
    specs = [
        checked_spec(forms if len(forms) > 1 else forms[0], None, None, part_size=size)
        for size in (args.part_size or [None])
    ]
    return specs[0]


def _sum_multipart(args, bar: Optional[_Bar], out: _Output) -> bool:
    """``sum --etag/--composite``: a line (or a --json record) per file and form, as `parhash
    sum` writes them; each file one task's, its parts on that worker's cores."""
    forms = _multipart_forms(args)
    spec = _multipart_spec(args)
    sizes = args.part_size or [None]

    def items() -> Iterator[Item]:
        for name in map(os.fsencode, args.files):
            for path, error in fmt.walk([name], False):
                yield Item(key=path, path=path) if error is None else Item(key=path, preset=error)

    def split(item: Item) -> bool:
        if item.path is None or sizes == [None]:
            return False
        if len(sizes) > 1:
            return True
        try:
            return os.stat(item.path).st_size >= args.split_bytes
        except OSError:
            return False

    listed = list(items())
    results: Iterator[Tuple[Any, Any]]
    if any(map(split, listed)):
        results = ((item.key, _spread(args, item, forms, sizes)) for item in listed)
    else:
        results = _pipeline(args, spec, bar, None).run(iter(listed))
    all_ok = True
    for name, result in results:
        failed = isinstance(result, BaseException)
        if failed:
            values = {}
        elif isinstance(result, dict) and all(isinstance(key, tuple) for key in result):
            values = result
        else:
            one = result if isinstance(result, dict) else {forms[0]: result}
            values = {(form, sizes[0]): value for form, value in one.items()}
        refused = []
        for form in forms:
            for size in sizes:
                value = result if failed else values[(form, size)]
                if isinstance(value, BaseException) and not failed:
                    refused.append(value)
                if args.json:
                    out.write(fmt.multipart_record(form, size, value, name))
                elif not isinstance(value, BaseException):
                    out.write(fmt.multipart_line(form, value, name, zero=args.zero))
        errors = [result] if failed else [ValueError(text) for text in dict.fromkeys(map(str, refused))]
        for error in errors:
            out.message(fmt.failure_message(error, name))
        all_ok &= not failed and not any(isinstance(v, BaseException) for v in values.values())
    return all_ok


def _spread(args, item: Item, forms: List[str], sizes: List[int]) -> Any:
    """One file's forms for every part size, its parts spread over the cluster
    (``_multipart.multipart_values``): ``{(form, size): value or ValueError}``, or the file's
    error."""
    from . import _multipart
    from ._engine import DistributedError

    if item.path is None:
        return item.preset
    try:
        return _multipart.multipart_values(item.path, forms, sizes, runs=args.parts, max_retries=args.max_retries)
    except (OSError, DistributedError) as err:
        return err


def _sum(args, bar: Optional[_Bar], out: _Output) -> bool:
    if args.etag or args.composite:
        return _sum_multipart(args, bar, out)
    if args.output is not None:
        return _sum_to_file(args, bar, out)
    spec = _spec(args)
    tree_params = _tree_params(spec.algorithms or (spec.algorithm,), args)
    names = [os.fsencode(name) for name in args.files] or [b"-"]

    def items() -> Iterator[Item]:
        for name in names:
            if name == b"-":
                yield Item(key=name, preset=_stdin_digest(spec))
                continue
            for path, error in fmt.walk([name], args.recursive):
                yield Item(key=path, path=path) if error is None else Item(key=path, preset=error)

    algorithms = list(spec.algorithms) if spec.several else [spec.algorithm]
    lists = _Lists(args, algorithms) if args.lists is not None else None
    all_ok = True
    try:
        for name, result in _pipeline(args, spec, bar, args.split_bytes).run(items()):
            if args.json:
                out.write(fmt.sum_record(algorithms if spec.several else spec.algorithm, result, name, tree_params))
            if isinstance(result, (bytes, dict)):
                digests = result if isinstance(result, dict) else {spec.algorithm: result}
                for index, algorithm in enumerate(algorithms):
                    if args.json:
                        break
                    # Several algorithms' lines on one stream say which is which: BSD lines.
                    line = fmt.checksum_line(
                        algorithm,
                        digests[algorithm],
                        name,
                        tag=args.tag or (spec.several and lists is None),
                        binary=args.binary,
                        zero=args.zero,
                        tree_params=tree_params if parhash.takes_tree_params(algorithm) else None,
                    )
                    if lists is not None:
                        lists.write(index, line)
                    else:
                        out.write(line)
            else:
                out.message(fmt.failure_message(result, name))
                all_ok = False
        if lists is not None:
            lists.sync()
    finally:
        if lists is not None:
            lists.close()
    return all_ok


def _sum_to_file(args, bar: Optional[_Bar], out: _Output) -> bool:
    """``sum -o FILE [--resume | --update [--rehash-changed]]``: parhash.lists with the
    cluster's hasher."""
    from . import cluster_hasher

    spec = _spec(args)
    tree_params = _tree_params((spec.algorithm,), args)
    hasher = cluster_hasher(
        spec.algorithm,
        tree_params=tree_params,
        digest_size=spec.digest_size,
        split_bytes=args.split_bytes,
        parts=args.parts,
        **_tasks(args, bar),
    )
    options: dict = dict(
        tag=args.tag,
        binary=args.binary,
        zero=args.zero,
        json=args.json,
        tree_params=tree_params,
        recursive=args.recursive,
        hasher=hasher,
        on_message=out.message,
    )
    roots = [os.fsencode(name) for name in args.files]
    try:
        if args.update:
            result = parhash.lists.update(
                args.output, roots, spec.algorithm, rehash_changed=args.rehash_changed, **options
            )
        else:
            result = parhash.lists.write(args.output, roots, spec.algorithm, resume=args.resume, **options)
    except ValueError as err:  # a list that is not this command line's, in the CLI's words
        raise _ListsError(str(err)) from err
    except OSError as err:
        raise _ListsError(f"cannot write {args.output}: {err.strerror or err}") from err
    return result.ok


def _check_options(args) -> Dict[str, Any]:
    """The options of `check` and `check --audit` alike, as keyword arguments of fmt.Checker and
    parhash.lists.audit."""
    report = args.report
    return dict(
        algorithm=args.algorithm,
        zero=args.zero,
        warn=report == "warn",
        quiet=report == "quiet",
        status=report == "status",
        strict=args.strict,
        json=args.json,
        tree_height=args.tree_height,
        iv_bits=args.iv_bits,
    )


def _audit(args, bar: Optional[_Bar], out: _Output) -> bool:
    """``check --audit [--audit-path PATH]... LIST``: parhash.lists.audit with the cluster's hasher."""
    from . import cluster_hasher

    def hasher_for(algorithm: str, **spec: Any):
        return cluster_hasher(algorithm, **spec, **_tasks(args, bar))

    result = parhash.lists.audit(
        args.lists[0], [os.fsencode(p) for p in args.audit_path] or None, hasher_for=hasher_for, **_check_options(args)
    )
    out.events(result.events)
    return result.passed


def _check(args, bar: Optional[_Bar], out: _Output) -> bool:
    if args.audit:
        return _audit(args, bar, out)
    options = _check_options(args)
    if args.range is not None:
        # --range: untagged lines are BLAKE3's (their 64 hex digits would otherwise say sha256).
        options["algorithm"] = "blake3"
    checker = fmt.Checker(ignore_missing=args.ignore_missing, **options)
    all_ok = True
    check_list = _check_list if args.range is None else _check_ranges
    for list_name in [os.fsencode(name) for name in args.lists] or [b"-"]:
        all_ok &= check_list(args, checker, list_name, bar, out)
    return all_ok


def _range_usage(args) -> Optional[str]:
    """What `parhash check --range` refuses on this command line, in its words."""
    if args.command != "check" or args.range is None:
        return None
    if args.algorithm not in (None, "blake3"):
        return "--range verifies BLAKE3 lines with their outboards: leave out -a or give -a blake3"
    return fmt.range_refusal(*args.range)


def _open_list(checker: fmt.Checker, list_check: Any, list_name: bytes, out: _Output) -> Any:
    """The list's stream, or None where it could not be opened (its end reported)."""
    is_stdin = list_name == b"-"
    try:
        return _stdin_bytes() if is_stdin else open(list_name, "rb")
    except OSError as err:
        # The CLI opens a directory (and a closed standard input) and fails reading it.
        if is_stdin or isinstance(err, IsADirectoryError):
            out.ended(checker.read_failed(list_check, err))
        else:
            out.ended(checker.open_failed(list_check, err))
        return None


def _check_ranges(args, checker: fmt.Checker, list_name: bytes, bar: Optional[_Bar], out: _Output) -> bool:
    """``check --range``: one list's lines read on the driver, their ranges verified on the
    workers (``_ranges.verify_lines``), the verdicts reported in the list's order as `parhash
    check --range` reports them."""
    from . import _ranges

    list_check = checker.start(list_name)
    stream = _open_list(checker, list_check, list_name, out)
    if stream is None:
        return False
    steps: List[Any] = []
    read_error: Optional[OSError] = None
    try:
        for record in _records(stream, list_check.terminator):
            step = list_check.record(record)
            if step is not None:
                steps.append(step)
    except OSError as err:
        read_error = err
    finally:
        if list_name != b"-":
            stream.close()
    lines = [(step.entry.algorithm, step.entry.expected, step.entry.name) for step in steps if step.entry is not None]
    offset, length = args.range
    outboard = None if args.outboard is None else os.fsdecode(args.outboard)
    verdicts = iter(_ranges.verify_lines(lines, offset, length, outboard_dir=outboard, chunk_group=args.chunk_group,
                                         max_retries=args.max_retries))  # fmt: skip
    note = fmt.range_note(offset, length)
    for step in steps:
        if step.entry is None:
            out.events(list_check.report(step))
            continue
        digest, error, damage = next(verdicts)
        if damage is not None:
            out.message(damage)
        result: Any = digest
        if error is not None:
            errno, reason = error
            result = OSError(errno, reason) if errno is not None else OSError(reason)
        out.events(list_check.report(step, result, note=note))
    if read_error is not None:
        return out.ended(checker.read_failed(list_check, read_error))
    return out.ended(checker.finish(list_check))


def _entry_spec(entry: fmt.Entry) -> Spec:
    """How a checked line's file is hashed: PARSHA-256's parameters, or the digest's own
    length where the algorithm's varies (BLAKE2, BLAKE3, SHAKE), as in ``parhash check``."""
    if entry.tree_params is not None:
        return Spec(entry.algorithm, *entry.tree_params)
    size = entry.digest_size
    return Spec(entry.algorithm, digest_size=None if size == _lines.digest_size(entry.algorithm) else size)


def _records(stream, terminator: bytes) -> Iterator[bytes]:
    if terminator == b"\n":
        yield from stream
        return
    pending = b""
    while True:
        chunk = stream.read(1 << 16)
        if not chunk:
            break
        pending += chunk
        *records, pending = pending.split(terminator)
        for record in records:
            yield record + terminator
    if pending:
        yield pending


def _check_list(args, checker: fmt.Checker, list_name: bytes, bar: Optional[_Bar], out: _Output) -> bool:
    """One list through the CLI's check run (parhash.format): this function reads the list
    and has the files hashed; the check run says what to print and whether the list passed."""
    list_check = checker.start(list_name)
    is_stdin = list_name == b"-"
    stream = _open_list(checker, list_check, list_name, out)
    if stream is None:
        return False
    read_error: List[OSError] = []

    def items() -> Iterator[Item]:
        try:
            for record in _records(stream, list_check.terminator):
                step = list_check.record(record)
                if step is None:
                    continue
                entry = step.entry
                if entry is None:
                    # An improperly formatted line: reported in its turn.
                    yield Item(key=step, preset=None)
                elif entry.name == b"-":
                    yield Item(key=step, preset=_stdin_digest(_entry_spec(entry)))
                else:
                    yield Item(key=step, path=entry.name, spec=_entry_spec(entry))
        except OSError as err:
            read_error.append(err)
        finally:
            if not is_stdin:
                stream.close()

    for step, result in _pipeline(args, Spec("sha256"), bar, DEFAULT_SPLIT_BYTES).run(items()):
        out.events(list_check.report(step, result if step.entry is not None else None))
    if read_error:
        return out.ended(checker.read_failed(list_check, read_error[0]))
    return out.ended(checker.finish(list_check))


def _connect(address: Optional[str]) -> bool:
    """Connects to Ray; whether this call started the connection (and so must end it)."""
    if address is not None and address.startswith("ray://"):
        return connect(address)
    # Ray's own chatter (and the workers' output) would mix with the checksum lines.
    return connect(address, logging_level=logging.ERROR, log_to_driver=False)


def _disconnect() -> None:
    """Ends the connection while ``sys.stdout`` is still standard error: Ray's error listener
    thread prints late reports ("(raylet) A worker died...") to ``sys.stdout``, and one that
    came after main() restored it would land among the checksum lines."""
    with contextlib.suppress(Exception):
        ray.shutdown()


def main(argv: Optional[List[str]] = None) -> int:
    global _stdout
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["verify"]:
        return _store_verify(argv[1:])
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exit:
        # argparse exits 2 for a usage error (0 for --help); sum's and check's exit 1.
        if exit.code == 2 and argv[:1] in (["sum"], ["check"]):
            return USAGE_STATUS
        raise
    _stdout, sys.stdout = sys.stdout, sys.stderr
    try:
        return _run(args)
    finally:
        sys.stdout = _stdout


def _store_verify(argv: List[str]) -> int:
    """``verify LOCAL_DIR s3://BUCKET/PREFIX``: ``parhash-store verify``'s options, output and
    exit status (2 for its usage errors), with --address, --task-files, --task-bytes and
    --max-retries for the cluster's part."""
    from . import _store

    own = argparse.ArgumentParser(prog=f"{PROG} verify", add_help=False, usage=argparse.SUPPRESS)
    group = own.add_argument_group("the cluster's options")
    group.add_argument("--address", metavar="ADDR", help="Ray to use, as `parhash-dist sum --address`")
    _task_options(group, _store.DEFAULT_TASK_BYTES, _store.DEFAULT_TASK_FILES, "files with an object")
    try:
        ours, rest = own.parse_known_args(argv)
    except SystemExit as exit:
        return int(exit.code or 0)
    if "-h" in rest or "--help" in rest:
        import parhash.store

        parhash.store.main(["verify", "--help"], prog=PROG)
        sys.stdout.write("\n" + own.format_help())
        return 0
    started: List[bool] = []

    def verifier(*args: Any, **kwargs: Any):
        # Ray is joined once the command line is known to be right, and its failure to
        # connect ends the run as the store's failures do (status 2, said on standard error).
        try:
            started.append(_connect(ours.address))
        except Exception as err:  # noqa: BLE001 - whatever Ray raises
            raise RuntimeError(f"cannot connect to Ray ({ours.address or 'local'}): {err}") from err
        return _store.verify(
            *args, **kwargs, task_files=ours.task_files, task_bytes=ours.task_bytes, max_retries=ours.max_retries
        )

    import parhash.store

    try:
        return parhash.store.main(["verify", *rest], prog=PROG, verifier=verifier)
    finally:
        if any(started):
            _disconnect()


def _usage_error(args, text: str) -> int:
    """A usage error as the CLI reports it: the reason, then where to read more."""
    _message(text)
    with contextlib.suppress(OSError):
        sys.stderr.write(f"Try '{PROG} {args.command} --help' for more information.\n")
    return USAGE_STATUS


def _list_file_usage(args) -> Optional[str]:
    """What is wrong with -o/--resume/--update/--audit on this command line, as the CLI says it."""
    if args.command == "check":
        if args.range is None:
            for flag, given in (("--outboard <DIR>", args.outboard), ("--chunk-group <K>", args.chunk_group)):
                if given is not None:
                    return f"the argument '{flag}' requires '--range <OFFSET:LENGTH>'"
        elif args.audit:
            return "the argument '--range <OFFSET:LENGTH>' cannot be used with '--audit'"
        if args.audit_path and not args.audit:
            return "the argument '--audit-path <PATH>' requires '--audit'"
        if args.audit and args.ignore_missing:
            return "the argument '--audit' cannot be used with '--ignore-missing'"
        if args.audit and len(args.lists) != 1:
            return "--audit takes exactly one checksum list"
        return None
    if args.resume and args.update:
        return "the argument '--resume' cannot be used with '--update'"
    if args.rehash_changed and not args.update:
        return "the argument '--rehash-changed' requires '--update'"
    if args.update and args.output is None:
        return "the argument '--update' requires '--output <FILE>'"
    if args.resume and args.output is None:
        return "--resume continues a list of -o FILE (parhash-dist has no --resume of --lists DIR)"
    if args.output is not None and len(_sum_algorithms(args)) > 1:
        return "--resume and --update of -o FILE take one algorithm"
    if args.output is not None and args.lists is not None:
        return "the argument '--output <FILE>' cannot be used with '--lists <DIR>'"
    if args.output is not None and (not args.files or b"-" in map(os.fsencode, args.files)):
        return "-o FILE lists files and directories: standard input cannot be resumed or updated"
    return None


def _run(args) -> int:
    several = args.command == "sum" and len(_sum_algorithms(args)) > 1
    try:
        if args.command == "sum" and (args.tree_height is not None or args.iv_bits is not None):
            algorithms = _sum_algorithms(args)
            if not any(parhash.takes_tree_params(name) for name in algorithms):
                if several:
                    return _usage_error(args, "--tree-height and --iv-bits apply only to -a parsha256")
                return _usage_error(args, f"{algorithms[0]} takes no --tree-height or --iv-bits (only parsha256 does)")
        if args.tree_height is not None or args.iv_bits is not None:
            _tree_params(sorted(parhash.algorithms_available), args)  # ValueError when out of range
    except ValueError as err:
        return _usage_error(args, str(err))
    if args.command == "sum" and args.lists is not None and args.json:
        return _usage_error(args, "the argument '--lists <DIR>' cannot be used with '--json'")
    usage = _list_file_usage(args) or (_multipart_usage(args) if args.command == "sum" else _range_usage(args))
    if usage is not None:
        return _usage_error(args, usage)
    if args.command == "sum" and args.list_name is not None and args.lists is None:
        return _usage_error(args, "the argument '--list-name <TEMPLATE>' requires '--lists <DIR>'")
    # --json writes neither checksum lines nor reports, so their styles make no sense with it.
    if args.json:
        for flag, given in (
            ("--zero", args.zero),
            ("--tag", getattr(args, "tag", False)),
            ("--binary", getattr(args, "binary", False)),
            ("--text", getattr(args, "text", False)),
        ):
            if given:
                return _usage_error(args, f"the argument '--json' cannot be used with '{flag}'")
    # -l against -a, in the CLI's words (when checking, -l is accepted and ignored).
    if several:
        length_problem = fmt.several_length_error(_sum_algorithms(args), args.length)
    else:
        algorithm = _sum_algorithms(args)[0] if args.command == "sum" and args.algorithm else args.algorithm
        length_problem = fmt.length_error(algorithm, args.length, checking=args.command == "check")
    if length_problem is not None:
        return _usage_error(args, length_problem)
    try:
        started = _connect(args.address)
    except Exception as err:  # noqa: BLE001 - whatever Ray raises, one line and status 1
        _message(f"cannot connect to Ray ({args.address or 'local'}): {err}")
        return 1
    try:
        return _hash(args)
    finally:
        if started:
            _disconnect()


def _hash(args) -> int:
    global _stdout
    bar = _progress(args.no_progress)
    out = _Output(bar)
    try:
        ok = _sum(args, bar, out) if args.command == "sum" else _check(args, bar, out)
        _stdout.flush()
    except _ListsError as err:
        _message(str(err))
        return 1
    except BrokenPipeError:
        # The reader went away (`parhash-dist sum ... | head -1`): nothing left to tell anyone.
        _stdout = open(os.devnull, "w")
        return 0
    except KeyboardInterrupt:
        return 130
    finally:
        if bar is not None:
            bar.close()
    return 0 if ok else 1


def entry_point() -> None:
    sys.exit(main())


if __name__ == "__main__":
    entry_point()
