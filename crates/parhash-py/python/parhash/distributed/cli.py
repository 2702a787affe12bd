"""``parhash-dist``: ``parhash sum`` and ``parhash check`` with the hashing done on a Ray cluster.

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
from typing import Any, Iterator, List, Optional

import ray

import parhash

from . import _lines, _walk
from ._engine import DEFAULT_MAX_RETRIES, DEFAULT_TASK_BYTES, DEFAULT_TASK_FILES, Item, Pipeline, Progress, Spec, connect
from . import DEFAULT_SPLIT_BYTES

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

        self.bar = tqdm(unit="B", unit_scale=True, unit_divisor=1024, file=sys.stderr, leave=False,
                        dynamic_ncols=True, total=0)
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


def _bits(text: str) -> int:
    try:
        return _lines.parse_bits(text)
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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="parhash sum and check with the hashing done on a Ray cluster: the same lines "
        "as `parhash sum` / `parhash check`, so either tool (or sha256sum -c) verifies the other's lists.",
        epilog="Exit status: 0 if everything succeeded; 1 if a file could not be hashed, a checksum "
        "did not match or Ray could not be reached, and for a usage error of sum or check (as `parhash sum` "
        "and `parhash check`); 2 for a missing or unknown subcommand.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="{sum,check}")

    def common(sub: argparse.ArgumentParser, json_help: str, json_excludes: str) -> None:
        sub.add_argument("--address", metavar="ADDR",
                         help="Ray to use: unset starts a local one (or joins $RAY_ADDRESS), 'auto' joins the "
                         "cluster `ray start` runs on this machine, ray://HOST:10001 connects through Ray Client")
        sub.add_argument("-z", "--zero", action="store_true", help="NUL-terminated lines, names not escaped")
        sub.add_argument("--json", action="store_true",
                         help=f"JSON Lines, byte for byte as `parhash {sub.prog.split()[-1]} --json`: {json_help}. "
                         f"Standard error and the exit status are as without --json. Not with {json_excludes}. See "
                         "README.md (JSON output)")
        sub.add_argument("--no-progress", action="store_true", help="no progress bar (there is one only on a terminal)")
        sub.add_argument("--task-bytes", type=_positive, default=DEFAULT_TASK_BYTES, metavar="N",
                         help=f"bytes of files per task (default {DEFAULT_TASK_BYTES >> 20} MiB)")
        sub.add_argument("--task-files", type=_positive, default=DEFAULT_TASK_FILES, metavar="N",
                         help=f"at most N files per task (default {DEFAULT_TASK_FILES})")
        sub.add_argument("--max-retries", type=int, default=DEFAULT_MAX_RETRIES, metavar="N",
                         help=f"retries of a task whose worker died (default {DEFAULT_MAX_RETRIES})")

    hashing = argparse.ArgumentParser(add_help=False)
    hashing.add_argument("--tree-height", type=int, metavar="T", help="PARSHA-256's tree height T (1..=40, default 13)")
    hashing.add_argument("--iv-bits", type=int, metavar="BITS", help="PARSHA-256's IV length l: 0, 128 or 256 (default)")

    sum_parser = commands.add_parser(
        "sum", parents=[hashing], help="print checksums of files, as `parhash sum`",
        description="Print checksum lines of files (sha256 unless -a says otherwise) exactly as `parhash sum` "
        "does, hashed on a Ray cluster. Files of parsha256/sandstorm* of at least --split-bytes are split into "
        "parts over the cluster. With no FILE, or FILE -, standard input is hashed here.",
    )
    sum_parser.add_argument("-a", "--algorithm", type=_algorithm, metavar="ALG",
                            help="hash algorithm (default sha256); see `parhash list`")
    sum_parser.add_argument("-l", "--length", type=_bits, metavar="BITS",
                            help="digest length in bits, with -a blake2b (8..512: BLAKE2's own digest size, not a "
                            "prefix), blake2s (8..256), blake3, shake128 or shake256 (8..8388608); a multiple of 8 "
                            "as b2sum -l counts it (b3sum --length 64 is -l 512), 0 for the default; --tag lines "
                            "name it: BLAKE2b-256 (NAME) = HEX")
    style = sum_parser.add_mutually_exclusive_group()
    style.add_argument("--tag", action="store_true", help="BSD-style lines: SHA256 (NAME) = HEX")
    style.add_argument("-b", "--binary", action="store_true", help="mark files as read in binary mode (HEX *NAME)")
    sum_parser.add_argument("-t", "--text", action="store_true", help="HEX  NAME (the default)")
    sum_parser.add_argument("-r", "--recursive", action="store_true",
                            help="hash the files below each directory FILE, in `parhash sum -r`'s order")
    sum_parser.add_argument("--split-bytes", type=_positive, default=DEFAULT_SPLIT_BYTES, metavar="N",
                            help=f"split parsha256/sandstorm* files of at least N bytes into parts "
                            f"(default {DEFAULT_SPLIT_BYTES >> 20} MiB)")
    sum_parser.add_argument("--parts", type=_positive, metavar="N",
                            help="parts of a split file (default: one per CPU of the cluster)")
    sum_parser.add_argument("files", nargs="*", metavar="FILE", help="files to hash; - or none: standard input")
    common(sum_parser, "an object per file (path, algorithm, digest; or error and errno); a name that is not "
           "UTF-8 also as path_bytes (base64)", "-z, --tag, -b or -t")

    check_parser = commands.add_parser(
        "check", parents=[hashing], help="check files against checksum lists, as `parhash check`",
        description="Verify files against checksum lists (GNU `HEX  NAME` or BSD `TAG (NAME) = HEX` lines) "
        "exactly as `parhash check` does, hashed on a Ray cluster.",
    )
    check_parser.add_argument("-a", "--algorithm", type=_algorithm, metavar="ALG",
                              help="algorithm of every line (overrides tags and digest lengths); GNU lines may "
                              "then have any length it can make (blake2b, blake2s, blake3, shake128, shake256)")
    check_parser.add_argument("-l", "--length", type=_bits, metavar="BITS",
                              help="accepted and ignored, as by b2sum -c: each line's digest says its length "
                              "(checked against -a all the same)")
    check_parser.add_argument("--quiet", dest="report", action="store_const", const="quiet",
                              help="don't print OK for each verified file")
    check_parser.add_argument("--status", dest="report", action="store_const", const="status",
                              help="print nothing; the exit status tells the result")
    check_parser.add_argument("-w", "--warn", dest="report", action="store_const", const="warn",
                              help="warn about improperly formatted lines")
    check_parser.add_argument("--strict", action="store_true", help="exit non-zero for improperly formatted lines")
    check_parser.add_argument("--ignore-missing", action="store_true", help="don't fail or report for missing files")
    check_parser.add_argument("lists", nargs="*", metavar="FILE", help="checksum lists; - or none: standard input")
    common(check_parser, "an object per checksum line (type, list, line, status: ok, failed, missing, "
           "unreadable or improper; path, algorithm, algorithm_from, expected, actual), then a summary object per "
           "list (its counts, passed); names that are not UTF-8 also as path_bytes/list_bytes (base64); --quiet "
           "leaves out the ok lines, --status prints nothing", "-z")
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


def _stdin_bytes():
    """Standard input as bytes; the CLI's error (``Bad file descriptor``) when the parent
    closed it (Python then has no ``sys.stdin``)."""
    if sys.stdin is None:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))
    return sys.stdin.buffer


def _stdin_digest(spec: Spec) -> Any:
    """Standard input's digest, hashed on the driver (or its OSError)."""
    try:
        hasher = parhash.new(spec.algorithm, **spec.hash_kwargs())
        read = _stdin_bytes().read
        while True:
            chunk = read(1 << 20)
            if not chunk:
                return hasher.digest()
            hasher.update(chunk)
    except OSError as err:
        return err


def _spec(args) -> Spec:
    """sum's spec: -a (default sha256), PARSHA-256's parameters, -l (checked by _run)."""
    algorithm = args.algorithm or "sha256"
    size = _lines.length_digest_size(algorithm, args.length)
    if algorithm == "parsha256":
        return Spec(algorithm, args.tree_height, args.iv_bits)
    return Spec(algorithm, digest_size=size)


def _pipeline(args, spec: Spec, bar: Optional[_Bar], split_bytes: Optional[int]) -> Pipeline:
    return Pipeline(spec, task_bytes=args.task_bytes, task_files=args.task_files,
                    max_retries=args.max_retries, split_bytes=split_bytes,
                    parts=getattr(args, "parts", None), progress=bar)


def _sum(args, bar: Optional[_Bar], out: _Output) -> bool:
    spec = _spec(args)
    style = _lines.LineStyle(
        tag=args.tag, binary=args.binary, zero=args.zero,
        tree_params=(args.tree_height or 13, 256 if args.iv_bits is None else args.iv_bits)
        if spec.algorithm == "parsha256" else None,
    )
    names = [os.fsencode(name) for name in args.files] or [b"-"]

    def items() -> Iterator[Item]:
        for name in names:
            if name == b"-":
                yield Item(key=name, preset=_stdin_digest(spec))
                continue
            for path, error in _walk.expand([name], args.recursive):
                yield Item(key=path, path=path) if error is None else Item(key=path, preset=error)

    all_ok = True
    for name, result in _pipeline(args, spec, bar, args.split_bytes).run(items()):
        if args.json:
            out.write(_lines.sum_json(spec.algorithm, result, name, style.tree_params))
        if isinstance(result, bytes):
            if not args.json:
                out.write(_lines.sum_line(spec.algorithm, result, name, style))
        else:
            out.message(f"{_lines.quote(name)}: {_lines.error_text(result, name)}")
            all_ok = False
    return all_ok


def _check(args, bar: Optional[_Bar], out: _Output) -> bool:
    all_ok = True
    last_algorithm: dict = {}  # the last proper line's algorithm, over all lists
    for list_name in [os.fsencode(name) for name in args.lists] or [b"-"]:
        all_ok &= _check_list(args, list_name, bar, out, last_algorithm)
    return all_ok


def _line_spec(line: _lines.Entry) -> Spec:
    """A checked line's spec: its digest says its length (BLAKE2, BLAKE3, SHAKE), as in
    ``parhash check`` and ``b2sum -c``."""
    size = len(line.expected)
    return Spec(line.algorithm, digest_size=None if size == _lines.digest_size(line.algorithm) else size)


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


#: The reason a list with no checksum line fails (the CLI's words).
_NONE_FOUND = "no properly formatted checksum lines found"


def _check_list(args, list_name: bytes, bar: Optional[_Bar], out: _Output, last_algorithm: dict) -> bool:
    is_stdin = list_name == b"-"
    shown = _lines.quote(b"standard input" if is_stdin else list_name)
    report = args.report
    # With --json (and not --status), the list's records instead of the NAME: OK report.
    records = _lines.CheckJson(list_name) if args.json and report != "status" else None
    tally = {"improper": 0, "mismatched": 0, "unreadable": 0, "missing": 0, "verified": 0, "proper": False,
             "read_error": None}

    def counts() -> dict:
        return {"ok": tally["verified"] - tally["mismatched"], "failed": tally["mismatched"],
                "missing": tally["missing"], "unreadable": tally["unreadable"] - tally["missing"],
                "improper": tally["improper"]}

    def list_failed(problem) -> bool:
        """The list failed as a whole; with --json its summary says why."""
        if records is not None:
            out.write(records.summary(counts(), False, problem))
        return False

    try:
        stream = _stdin_bytes() if is_stdin else open(list_name, "rb")
    except OSError as err:
        # The CLI opens a directory (and a closed standard input) and fails reading it.
        if is_stdin or isinstance(err, IsADirectoryError):
            out.message(f"{shown}: read error")
        else:
            out.message(f"{shown}: {_lines.error_text(err, list_name)}")
        return list_failed(err)
    terminator = b"\0" if args.zero else b"\n"
    parser = _lines.Parser(args.algorithm, args.zero)
    default_params = (args.tree_height, args.iv_bits)
    # The parameters --json records for a parsha256 line without its own (the defaults filled in).
    default_json_params = (_lines.DEFAULT_TREE_PARAMS[0] if args.tree_height is None else args.tree_height,
                           _lines.DEFAULT_TREE_PARAMS[1] if args.iv_bits is None else args.iv_bits)
    last_seen = [last_algorithm.get("name", "sha256")]
    # Mismatches of lines whose algorithm was inferred from the digest's length, by algorithm.
    inferred_mismatches: dict = {}

    def items() -> Iterator[Item]:
        try:
            for number, record in enumerate(_records(stream, terminator), start=1):
                line = parser.parse(record)
                if line == _lines.SKIP:
                    continue
                if line == _lines.IMPROPER:
                    tally["improper"] += 1
                    if report == "warn" or records is not None:
                        # Named as coreutils names it: -a's algorithm, else the last proper
                        # line's, else sum's default.
                        named = args.algorithm or last_seen[0]
                        yield Item(key=("improper", (number, named)), preset=None)
                    continue
                tally["proper"] = True
                last_seen[0] = last_algorithm["name"] = line.algorithm
                params = line.tree_params or default_params
                spec = Spec(line.algorithm, *params) if line.algorithm == "parsha256" else _line_spec(line)
                key = ("entry", (number, line, line.tree_params or default_json_params))
                if line.name == b"-":
                    yield Item(key=key, preset=_stdin_digest(spec))
                else:
                    yield Item(key=key, path=line.name, spec=spec)
        except OSError as err:
            tally["read_error"] = err
        finally:
            if not is_stdin:
                stream.close()

    for (kind, payload), result in _pipeline(args, Spec("sha256"), bar, DEFAULT_SPLIT_BYTES).run(items()):
        if kind == "improper":
            number, named = payload
            if report == "warn":
                out.message(f"{shown}: {number}: improperly formatted {_lines.tag(named)} checksum line")
            if records is not None:
                out.write(records.improper(number))
            continue
        number, entry, json_params = payload
        if isinstance(result, bytes):
            tally["verified"] += 1
            if result == entry.expected:
                if report in ("quiet", "status"):
                    continue
                verdict = "OK"
            else:
                tally["mismatched"] += 1
                if entry.inferred:
                    inferred_mismatches[entry.algorithm] = inferred_mismatches.get(entry.algorithm, 0) + 1
                verdict = "FAILED"
        else:
            if args.ignore_missing and _lines.is_not_found(result):
                continue
            out.message(f"{_lines.quote(entry.name)}: {_lines.error_text(result, entry.name)}")
            tally["unreadable"] += 1
            tally["missing"] += int(_lines.is_not_found(result))
            verdict = "FAILED open or read"
        if records is not None:
            algorithm_from = "length" if entry.inferred else "option" if args.algorithm else "tag"
            out.write(records.line(number, entry, algorithm_from, json_params, result))
        elif report != "status":
            out.write(_lines.report_line(entry.name, verdict, args.zero))

    if tally["read_error"] is not None:
        out.message(f"{shown}: read error")
        return list_failed(tally["read_error"])
    if not tally["proper"]:
        out.message(f"{shown}: {_NONE_FOUND}")
        return list_failed(_NONE_FOUND)
    none_verified = args.ignore_missing and tally["verified"] == 0
    if report != "status":
        def plural(n: int, one: str, many: str) -> str:
            return f"WARNING: {n} {one if n == 1 else many}"

        if tally["improper"]:
            out.message(plural(tally["improper"], "line is improperly formatted", "lines are improperly formatted"))
        if tally["unreadable"]:
            out.message(plural(tally["unreadable"], "listed file could not be read", "listed files could not be read"))
        if tally["mismatched"]:
            out.message(plural(tally["mismatched"], "computed checksum did NOT match", "computed checksums did NOT match"))
            for algorithm, count in inferred_mismatches.items():
                note = _lines.inferred_algorithm_note(algorithm, count)
                if note is not None:
                    out.message(note)
        if none_verified:
            out.message(f"{shown}: no file was verified")
    passed = (tally["mismatched"] == 0 and tally["unreadable"] == 0
              and (not args.strict or tally["improper"] == 0) and not none_verified)
    if records is not None:
        out.write(records.summary(counts(), passed, "no file was verified" if none_verified else None))
    return passed


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


def _usage_error(args, text: str) -> int:
    """A usage error as the CLI reports it: the reason, then where to read more."""
    _message(text)
    with contextlib.suppress(OSError):
        sys.stderr.write(f"Try '{PROG} {args.command} --help' for more information.\n")
    return USAGE_STATUS


def _run(args) -> int:
    try:
        if args.algorithm == "parsha256" or args.tree_height is not None or args.iv_bits is not None:
            if args.algorithm != "parsha256" and args.command == "sum":
                return _usage_error(args, f"{args.algorithm or 'sha256'} takes no --tree-height or --iv-bits "
                                    "(only parsha256 does)")
            if args.tree_height is not None or args.iv_bits is not None:
                parhash.new("parsha256", tree_height=args.tree_height, iv_bits=args.iv_bits)
    except ValueError as err:
        return _usage_error(args, str(err))
    # --json writes neither checksum lines nor reports, so their styles make no sense with it.
    if args.json:
        for flag, given in (("--zero", args.zero), ("--tag", getattr(args, "tag", False)),
                            ("--binary", getattr(args, "binary", False)), ("--text", getattr(args, "text", False))):
            if given:
                return _usage_error(args, f"the argument '--json' cannot be used with '{flag}'")
    # -l against -a, in the CLI's words (when checking, -l is accepted and ignored).
    length_problem = _lines.length_error(args.algorithm, args.length, checking=args.command == "check")
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
