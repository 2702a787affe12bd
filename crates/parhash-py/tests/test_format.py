"""parhash.format, the CLI's checksum-list code for Python programs, against the CLI itself: the
lines it writes, the lists it reads, a whole check run driven from Python, the ``-r``
walk, the quoting of names in messages. No Ray."""

import os
import subprocess

import pytest

import parhash
import parhash.format as fmt
from conftest import cli_path

NAMES = [b"plain", b"a b", b"it's", b"n\nl", b"back\\slash", b"c\rr", b"tab\tx", b"\xff\xferaw",
         "é".encode(), b"-dash", b"#hash", b"colon:x"]


def run_cli(*args, cwd=None, stdin=None):
    done = subprocess.run([str(cli_path()), *args], capture_output=True, cwd=cwd, input=stdin)
    return done.returncode, done.stdout, done.stderr


@pytest.fixture()
def folder(tmp_path):
    for i, name in enumerate(NAMES):
        (tmp_path / os.fsdecode(name)).write_bytes(b"x" * i)
    return tmp_path


@pytest.mark.parametrize("algorithm", ["sha256", "md5", "blake2b", "parsha256", "sandstorm256"])
@pytest.mark.parametrize("style", [[], ["--tag"], ["-b"], ["-z"], ["--tag", "-z"]])
def test_checksum_lines_are_the_clis(folder, algorithm, style):
    status, want, _ = run_cli("sum", "-a", algorithm, *style, "--", *map(os.fsdecode, NAMES), cwd=folder)
    assert status == 0
    params = (13, 256) if algorithm == "parsha256" else None
    got = b"".join(
        fmt.checksum_line(algorithm, parhash.hash_file(folder / os.fsdecode(name), algorithm), name,
                          tag="--tag" in style, binary="-b" in style, zero="-z" in style, tree_params=params)
        for name in NAMES
    )
    assert got == want


def test_parse_list_reads_what_the_cli_writes(folder):
    lists = [run_cli("sum", "-a", a, *s, "--", *map(os.fsdecode, NAMES), cwd=folder)[1]
             for a, s in (("sha256", []), ("md5", ["--tag"]), ("blake2s", ["-l", "128", "--tag"]))]
    entries = fmt.parse_list(b"".join(lists) + b"# a comment\nnot a line\n")
    assert [e.name for e in entries] == NAMES * 3
    assert [e.algorithm for e in entries] == ["sha256"] * len(NAMES) + ["md5"] * len(NAMES) + ["blake2s"] * len(NAMES)
    assert [e.line for e in entries] == list(range(1, 3 * len(NAMES) + 1))
    assert all(e.inferred for e in entries[:len(NAMES)]) and not any(e.inferred for e in entries[len(NAMES):])
    assert {e.digest_size for e in entries[-len(NAMES):]} == {16}
    for entry in entries:
        size = {} if entry.digest_size is None else {"digest_size": entry.digest_size}
        assert parhash.hash_file(folder / os.fsdecode(entry.name), entry.algorithm, **size) == entry.expected
    with pytest.raises(ValueError, match="line 1: improperly formatted SHA256 checksum line"):
        fmt.parse_list(b"not a line\n", strict=True)
    assert fmt.parse_list(b"", strict=True) == []


def _check_from_python(lists, folder, **options):
    """`parhash check` run from Python: the check run of parhash.format, files hashed here."""
    out, err = bytearray(), []
    checker = fmt.Checker(**options)
    all_ok = True

    def emit(events):
        for is_output, payload in events:
            if is_output:
                out.extend(payload)
            else:
                err.append(f"parhash: {payload}\n")

    for name in lists:
        list_check = checker.start(name)
        try:
            data = (folder / os.fsdecode(name)).read_bytes()
        except OSError as error:
            passed, events = checker.open_failed(list_check, error)
            emit(events)
            all_ok &= passed
            continue
        for record in data.split(list_check.terminator):
            step = list_check.record(record)
            if step is None:
                continue
            result = None
            if step.entry is not None:
                entry = step.entry
                size = {} if entry.digest_size is None else {"digest_size": entry.digest_size}
                try:
                    result = parhash.hash_file(folder / os.fsdecode(entry.name), entry.algorithm, **size)
                except OSError as error:
                    result = error
            emit(list_check.report(step, result))
        passed, events = checker.finish(list_check)
        emit(events)
        all_ok &= passed
    return (0 if all_ok else 1), bytes(out), "".join(err).encode()


@pytest.mark.parametrize("options,flags", [
    ({}, []),
    ({"quiet": True}, ["--quiet"]),
    ({"status": True}, ["--status"]),
    ({"warn": True}, ["-w"]),
    ({"strict": True, "warn": True}, ["--strict", "-w"]),
    ({"ignore_missing": True}, ["--ignore-missing"]),
    ({"json": True}, ["--json"]),
    ({"algorithm": "md5", "warn": True}, ["-a", "md5", "-w"]),
])
def test_a_check_run_driven_from_python_prints_what_the_cli_prints(folder, options, flags):
    good = run_cli("sum", "-a", "md5", "--", *map(os.fsdecode, NAMES), cwd=folder)[1]
    tagged = run_cli("sum", "--tag", "--", *map(os.fsdecode, NAMES[:4]), cwd=folder)[1]
    (folder / "GOOD").write_bytes(good)
    (folder / "MIXED").write_bytes(
        tagged + b"# comment\nnot a checksum line\n" + b"0" * 32 + b"  plain\n" + b"1" * 32 + b"  gone\n")
    lists = [b"GOOD", b"MIXED", b"NO SUCH LIST"]
    want = run_cli("check", *flags, *map(os.fsdecode, lists), cwd=folder)
    got = _check_from_python(lists, folder, **options)
    assert got == want


def test_failure_messages_and_quoting_are_the_clis(tmp_path):
    for name in NAMES:
        path = tmp_path / os.fsdecode(name)
        status, _, err = run_cli("sum", "--", os.fsdecode(name), cwd=tmp_path)
        assert status == 1
        with pytest.raises(OSError) as caught:
            parhash.hash_file(path, "sha256")
        # The exception names the full path; the message, as the CLI's, the name given.
        assert f"parhash: {fmt.failure_message(caught.value, name)}\n".encode() == err, name
        assert err.startswith(b"parhash: " + fmt.quote(name).encode() + b": "), name


def test_walk_is_sum_r_order(tmp_path):
    for d in ["b", "b/c", "a", "B"]:
        (tmp_path / d).mkdir()
    for f in ["z", "b/y", "b/c/x", "b/a", "a/q", "B/p", "_"]:
        (tmp_path / f).write_bytes(f.encode())
    (tmp_path / "link").symlink_to(tmp_path / "b")
    status, out, _ = run_cli("sum", "-r", "-a", "md5", str(tmp_path))
    assert status == 0
    want = [line.split(b"  ", 1)[1] for line in out.splitlines()]
    got = [path for path, error in fmt.walk([str(tmp_path)])]
    assert all(isinstance(path, str) and error is None for path, error in fmt.walk([str(tmp_path)]))
    assert [os.fsencode(p) for p in got] == want
    assert [p for p, _ in fmt.walk([bytes(tmp_path)])] == want
    # Not recursive: names as given.
    assert list(fmt.walk([tmp_path, "-"], recursive=False)) == [(tmp_path, None), ("-", None)]


def test_lengths_and_tags_in_the_clis_words():
    assert fmt.parse_bits("256") == 256
    with pytest.raises(ValueError, match="multiple of 8"):
        fmt.parse_bits("12")
    assert fmt.length_digest_size("blake2b", 256) == 32
    assert fmt.length_digest_size("blake2b", 512) is None
    with pytest.raises(ValueError, match="blake2b digests are 8 to 512 bits"):
        fmt.length_digest_size("blake2b", 520)
    assert fmt.tag("blake2b", size=32) == "BLAKE2b-256"
    assert fmt.tag("parsha256") == "PARSHA256-T13-IV256"
    assert fmt.from_tag("BLAKE2b-256") == ("blake2b", None, 32)
    assert fmt.from_tag("PARSHA256-T7-IV128") == ("parsha256", (7, 128), 32)
    assert fmt.from_tag("NOSUCH") is None
    assert fmt.infer_algorithm(32) == "sha256" and fmt.infer_algorithm(3) is None
    with pytest.raises(ValueError, match="unknown algorithm"):
        fmt.checksum_line("nosuch", b"", b"x")
