"""parhash.distributed on a real local Ray (started here with 2 CPUs), the Rust CLI as the
control: many files (mixed sizes, odd names, missing and unreadable ones) give `parhash sum`'s
lines and messages, `parhash-dist check` reports as `parhash check`, one file in tree parts
equals `parhash sum` for every part count, a worker killed mid-task is retried (and without
retries the job names the files it could not hash), bad partial states are refused, and Ray
Data gets a digest column."""

import base64
import errno as errno_codes
import hashlib
import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time

import pytest

ray = pytest.importorskip("ray", reason="parhash.distributed needs the ray extra")

import parhash  # noqa: E402
import parhash.format as fmt  # noqa: E402
from conftest import cli_path  # noqa: E402
from parhash import distributed  # noqa: E402
from parhash.distributed import _engine, _lines  # noqa: E402

pytestmark = pytest.mark.ray

IS_ROOT = os.geteuid() == 0


@pytest.fixture(scope="module")
def cluster():
    """A local Ray with 2 CPUs (the CLI runs join it with --address): a new instance, never one
    already running on this machine (address="local"; conftest drops RAY_ADDRESS)."""
    assert not ray.is_initialized()
    ray.init(address="local", num_cpus=2, include_dashboard=False, object_store_memory=100 << 20,
             logging_level="error", log_to_driver=False)
    yield ray.get_runtime_context().gcs_address
    ray.shutdown()


def run_cli(*args, stdin=None):
    """`parhash ARGS` (the Rust CLI): (status, stdout, stderr)."""
    done = subprocess.run([str(cli_path()), *args], capture_output=True, input=stdin)
    return done.returncode, done.stdout, done.stderr


def run_dist(address, *args, stdin=None, env=None):
    """`parhash-dist ARGS --address ADDRESS`, its messages prefixed as the CLI's for comparing."""
    command = [sys.executable, "-m", "parhash.distributed.cli", *args]
    if address is not None:
        command[4:4] = ["--address", address]
    done = subprocess.run(command, capture_output=True, input=stdin, env=env)
    return done.returncode, done.stdout, done.stderr.replace(b"parhash-dist: ", b"parhash: ")


def odd_names():
    names = [b"plain", b"a b", b"it's", b"n\nl", b"back\\slash", b"c\rr", b"tab\tx", b"\xff\xferaw",
             "é".encode(), b"-dash", b"#hash", b"~tilde", b"colon:x", b"q\"uote", b"d$ollar"]
    return names


@pytest.fixture(scope="module")
def tree(tmp_path_factory):
    """Thousands of files of mixed sizes in nested directories, odd names, a dangling link, a
    link to a file and one to a directory, an unreadable file and directory (when not root)."""
    rng = random.Random(19)
    root = tmp_path_factory.mktemp("tree")
    sizes = [rng.choice([0, 1, 55, 64, 4096, 4097]) for _ in range(1500)]
    sizes += [rng.randrange(0, 70_000) for _ in range(1200)]
    sizes += [rng.randrange(70_000, 3 << 20) for _ in range(12)]
    for i, size in enumerate(sizes):
        folder = root / f"d{i % 7}" / f"s{i % 3}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"f{i}").write_bytes(rng.randbytes(size))
    odd = root / "odd"
    odd.mkdir()
    for name in odd_names():
        with open(os.path.join(bytes(odd), name), "wb") as f:
            f.write(name * 3)
    os.symlink(root / "nowhere", root / "dangling")
    os.symlink(root / "d0" / "s0" / "f0", root / "link-to-file")
    os.symlink(root / "d1", root / "link-to-dir")
    if not IS_ROOT:
        (root / "locked-file").write_bytes(b"x")
        os.chmod(root / "locked-file", 0)
        (root / "locked-dir").mkdir()
        os.chmod(root / "locked-dir", 0)
    yield root
    if not IS_ROOT:
        os.chmod(root / "locked-dir", stat.S_IRWXU)


def test_sum_recursive_equals_the_cli(cluster, tree):
    names = [str(tree / "d3" / "s0"), str(tree), "missing file", str(tree / "d1"), str(tree / "odd" / "a b")]
    for extra in ([], ["--tag", "-a", "md5"], ["-z", "-a", "sha3-256"], ["-b", "-a", "sandstorm256"]):
        want = run_cli("sum", "--no-progress", "-r", *extra, *names)
        # Small tasks: many of them in flight, results must still come in input order.
        got = run_dist(cluster, "sum", "-r", "--task-bytes", "200000", "--task-files", "97", *extra, *names)
        assert got == want, extra
        assert want[0] == 1 and want[1].count(b"\0" if "-z" in extra else b"\n") > 2700


def test_sum_without_r_reports_directories_and_odd_names(cluster, tree):
    odd = [os.path.join(bytes(tree / "odd"), name) for name in odd_names()]
    names = [bytes(tree / "d2"), *odd, b"it's missing", b"a\nmissing", bytes(tree / "dangling")]
    want = run_cli("sum", *map(os.fsdecode, names))
    got = run_dist(cluster, "sum", *map(os.fsdecode, names))
    assert got == want
    assert b"Is a directory" in want[2] and b"'a'$'\\n''missing'" in want[2]


def test_files_split_into_parts_give_the_cli_lines_and_errors(cluster, tree):
    """--split-bytes 1: every file of sandstorm/parsha in parts over the tasks; a directory
    (split too: it has a size) is the file's error, as the CLI says it."""
    files = [str(p) for p in sorted((tree / "d1" / "s2").iterdir())[:25]]
    names = [*files[:10], str(tree / "d1"), "missing", *files[10:]]
    for algorithm in ("sandstorm384", "parsha256"):
        want = run_cli("sum", "-a", algorithm, *names)
        got = run_dist(cluster, "sum", "-a", algorithm, "--split-bytes", "1", "--parts", "3", *names)
        assert got == want
        assert b"Is a directory" in want[2]


def test_parsha_lines_record_the_tree_parameters(cluster, tree):
    folder = str(tree / "d5")
    for extra in (["--tree-height", "7", "--iv-bits", "128", "--tag"], ["--iv-bits", "0"], []):
        want = run_cli("sum", "--no-progress", "-r", "-a", "parsha256", *extra, folder)
        got = run_dist(cluster, "sum", "-r", "-a", "parsha256", *extra, folder)
        assert got == want, extra


def test_stdin_and_usage_errors(cluster):
    data = random.Random(3).randbytes(100_000)
    assert run_dist(cluster, "sum", "-a", "sha512", stdin=data) == run_cli("sum", "-a", "sha512", stdin=data)
    assert run_dist(cluster, "sum", "-", stdin=data) == run_cli("sum", "-", stdin=data)
    # Usage errors of sum and check exit 1, as the CLI's (coreutils'); no subcommand is 2.
    status, out, err = run_dist(cluster, "sum", "-a", "sha265", "x")
    assert status == run_cli("sum", "-a", "sha265", "x")[0] == 1 and out == b"" and b"sha256" in err
    status, _, err = run_dist(cluster, "sum", "-a", "parsha256", "--tree-height", "41", "x")
    assert status == run_cli("sum", "-a", "parsha256", "--tree-height", "41", "x")[0] == 1 and err
    assert run_dist(cluster, "check", "--no-such-flag")[0] == run_cli("check", "--no-such-flag")[0] == 1
    assert run_dist(None)[0] == run_cli()[0] == 2


def test_library_hash_files_in_order_with_errors(cluster, tree):
    files = sorted((tree / "d4" / "s1").iterdir())[:300]
    paths = [*files[:100], tree / "missing", str(tree / "d0"), *map(bytes, files[100:])]
    got = list(distributed.hash_files(iter(paths), "sha1", task_files=13))
    assert [path for path, _ in got] == paths
    for path, result in got:
        if os.path.isfile(path):
            assert result == hashlib.sha1(open(path, "rb").read()).digest()
        else:
            assert isinstance(result, OSError) and result.errno is not None
    assert isinstance(got[100][1], FileNotFoundError)
    assert isinstance(got[101][1], IsADirectoryError)
    # One path is one path, not an iterable of characters; Ray stays up (the caller's).
    [(single, digest)] = distributed.hash_files(str(files[0]), "md5")
    assert single == str(files[0]) and digest == hashlib.md5(files[0].read_bytes()).digest()
    assert ray.is_initialized()
    with pytest.raises(ValueError, match="sha256"):
        distributed.hash_files(paths, "sha265")
    # A digest size (parhash-dist sum -l), hashlib as the control; checked before any task.
    got = list(distributed.hash_files(files[:50], "blake2b", digest_size=20, task_files=7))
    assert got == [(path, hashlib.blake2b(path.read_bytes(), digest_size=20).digest()) for path in files[:50]]
    with pytest.raises(ValueError):
        distributed.hash_files(paths, "blake2s", digest_size=33)


def test_recursive_walk_order_and_errors_match_the_cli(cluster, tree):
    walked = [(path, result) for path, result in distributed.hash_files([tree], "md5", recursive=True)]
    status, out, _ = run_cli("sum", "--no-progress", "-r", "-a", "md5", str(tree))
    lines = [line for line in out.split(b"\n") if line]
    digests = [(os.fsencode(p), r) for p, r in walked if isinstance(r, bytes)]
    assert len(digests) == len(lines)
    for (path, digest), line in zip(digests, lines):
        assert line == fmt.checksum_line("md5", digest, path).rstrip(b"\n")


def test_check_equals_the_cli(cluster, tree, tmp_path):
    files = [str(p) for p in sorted((tree / "d6" / "s2").iterdir())[:40]]
    odd = [os.fsdecode(os.path.join(bytes(tree / "odd"), name)) for name in odd_names()]
    lists = []
    for extra in (["-a", "sha256"], ["-a", "md5", "--tag"], ["-a", "parsha256", "--tree-height", "5", "--tag"],
                  ["-a", "sandstorm384"], ["-a", "sha3-256"]):
        lists.append(run_cli("sum", *extra, *files[:20], *odd)[1])
    # Damage: a changed file, a missing one, improper lines, a comment, CRLF.
    changed = tmp_path / "changed"
    changed.write_bytes(b"before")
    missing = tmp_path / "gone"
    missing.write_bytes(b"soon gone")
    lists.append(run_cli("sum", str(changed), str(missing))[1])
    changed.write_bytes(b"after")
    missing.unlink()
    text = b"".join(lists) + b"# comment\nnot a checksum line\n" + b"00ff  short\r\n"
    checklist = tmp_path / "SUMS"
    checklist.write_bytes(text)
    for extra in ([], ["--quiet"], ["--status"], ["-w"], ["--strict"], ["--ignore-missing", "--quiet"],
                  ["-a", "sha3-256", "-w"]):
        want = run_cli("check", *extra, str(checklist))
        got = run_dist(cluster, "check", *extra, str(checklist))
        assert got == want, extra
        assert want[0] == 1
        if not extra:
            # The changed file's GNU line: sha256 inferred from its length, as the CLI's note says.
            assert b"no algorithm tag, and sha256 was assumed from" in want[2]
    ok_list = tmp_path / "OK"
    ok_list.write_bytes(lists[0])
    assert run_dist(cluster, "check", str(ok_list)) == run_cli("check", str(ok_list))
    assert run_dist(cluster, "check", str(ok_list))[0] == 0
    assert run_dist(cluster, "check", "no such list") == run_cli("check", "no such list")


def test_tags_of_every_algorithm_equal_the_cli(tmp_path):
    """No Ray needed: the BSD tag and GNU line of every algorithm as the CLI writes them."""
    path = tmp_path / "m"
    path.write_bytes(b"abc")
    for name in sorted(parhash.algorithms_available):
        digest = parhash.hash_file(path, name)
        for tag in (False, True):
            want = run_cli("sum", "-a", name, *(["--tag"] if tag else []), str(path))[1]
            params = (13, 256) if name == "parsha256" else None
            assert fmt.checksum_line(name, digest, os.fsencode(path), tag=tag, tree_params=params) == want, name
        # The tag names the library's algorithm (`sha3-224`), the same one as Python's name
        # (hashlib's spelling, `sha3_224`).
        tagged, params, size = fmt.from_tag(fmt.tag(name))
        assert parhash.new(tagged).name == name
        assert (params, size) == ((13, 256) if name == "parsha256" else None,
                                  _lines.digest_size(name))


# --- -l/--length ----------------------------------------------------------------------------

#: Lengths in bits worth trying with every algorithm: 0 (the default), the smallest, around the
#: defaults of each kind, BLAKE2b's limit and one past it, the XOFs' limit and one past it.
PROBE_BITS = [0, 8, 128, 160, 224, 256, 264, 384, 512, 520, 4096, 8 << 20, (8 << 20) + 8]

#: (-a, -l, style flags) that parhash-dist and the CLI must print alike.
LENGTH_CASES = [
    ("blake2b", "256", []),
    ("blake2b", "256", ["--tag"]),
    ("blake2s", "128", ["-b"]),
    ("blake3", "512", ["--tag", "-z"]),
    ("shake128", "8", []),
    ("shake256", "4096", ["--tag"]),
    ("blake3", "0", ["--tag"]),
    ("blake2b", "512", ["--tag"]),
    ("sha256", "256", []),
]


def _hashlib_digest(algorithm, bits, data):
    """hashlib's digest where it has the algorithm (BLAKE3 it has not: b3sum is its control)."""
    size = int(bits) // 8
    if algorithm in ("blake2b", "blake2s"):
        return getattr(hashlib, algorithm)(data, digest_size=size or getattr(hashlib, algorithm)().digest_size).digest()
    if algorithm in ("shake128", "shake256"):
        return getattr(hashlib, algorithm.replace("shake", "shake_"))(data).digest(size or (32 if algorithm == "shake128" else 64))
    if algorithm == "sha256":
        return hashlib.sha256(data).digest()
    return None


def test_lengths_of_every_algorithm_as_the_cli_takes_and_tags_them(tmp_path):
    """No Ray: for every algorithm and many lengths, `-l`'s verdict (the CLI's message, word
    for word) and the line of an accepted one (--tag names the length) equal the CLI's."""
    path = tmp_path / "m"
    path.write_bytes(b"abc")
    for name in sorted(parhash.algorithms_available):
        for bits in PROBE_BITS:
            status, out, err = run_cli("sum", "-a", name, "-l", str(bits), "--tag", str(path))
            problem = fmt.length_error(name, bits, checking=False)
            if status:
                assert err == f"parhash: {problem}\nTry 'parhash sum --help' for more information.\n".encode(), (name, bits)
                continue
            assert problem is None, (name, bits)
            size = fmt.length_digest_size(name, bits)
            digest = parhash.hash_file(path, name, **({} if size is None else {"digest_size": size}))
            params = (13, 256) if name == "parsha256" else None
            assert fmt.checksum_line(name, digest, os.fsencode(path), tag=True, tree_params=params) == out, (name, bits)
            # check reads the tag back, with the length it names (coreutils' legacy checksums'
            # lines are never checked).
            if name in ("crc", "crc32b", "sysv", "bsd"):
                assert fmt.parse_list(out) == [], name
                continue
            [entry] = fmt.parse_list(out)
            assert entry.expected == digest, (name, bits)
    assert fmt.length_error(None, 256, checking=False).startswith("-l needs -a")
    assert fmt.length_error(None, 256, checking=True) is None


def test_bad_lengths_exit_and_say_what_the_cli_does(tmp_path):
    """A length the algorithm cannot make, -l without -a, and values that are no number of
    bits: status 1 and the CLI's reason (Ray is never reached)."""
    path = str(tmp_path / "f")
    for args in (["sum", "-a", "blake2b", "-l", "520"], ["sum", "-l", "256"], ["sum", "-a", "sha256", "-l", "128"],
                 ["sum", "-a", "shake256", "-l", str((8 << 20) + 8)], ["sum", "-a", "sandstorm256", "-l", "128"],
                 ["check", "-a", "sha256", "-l", "128"]):
        want = run_cli(*args, path)
        status, out, err = run_dist(None, *args, path)
        assert want[0] == 1 and (status, out) == (1, b""), args
        assert err.replace(b"parhash-dist", b"parhash") == want[2], args
    for bits in ("255", "x", "-8", "99999999999999999999999", ""):
        status, _, cli_err = run_cli("sum", "-a", "blake3", f"--length={bits}", path)
        reason = cli_err.split(b"\n")[0].split(b"': ", 1)[1]  # clap: error: invalid value 'V' for '...': REASON
        got = run_dist(None, "sum", "-a", "blake3", f"--length={bits}", path)
        assert status == got[0] == 1 and got[1] == b"" and reason in got[2], (bits, reason, got[2])


def test_sum_with_lengths_equals_the_cli_and_the_controls(cluster, tree, tmp_path):
    """Every style with -l: parhash-dist prints the CLI's bytes (odd names, a missing file,
    standard input); hashlib, b2sum and b3sum agree on the digests."""
    odd = [os.fsdecode(os.path.join(bytes(tree / "odd"), name)) for name in odd_names()[:6]]
    plain = [str(p) for p in sorted((tree / "d2" / "s0").iterdir())[:30]]
    names = [*plain[:10], *odd, "missing", "-", *plain[10:]]
    data = random.Random(7).randbytes(5000)
    for algorithm, bits, style in LENGTH_CASES:
        args = ["sum", "-a", algorithm, "-l", bits, *style]
        want = run_cli(*args, *names, stdin=data)
        assert run_dist(cluster, *args, *names, stdin=data) == want, (algorithm, bits, style)
        assert want[0] == 1 and b"missing: No such file" in want[2]
        # Standard input's line: after the 16 files before it ("missing" has none).
        stdin_line = want[1].split(b"\0" if "-z" in style else b"\n")[16]
        if "--tag" in style:
            assert b" (-) = " in stdin_line, stdin_line
            hexdigest = stdin_line.rsplit(b" = ", 1)[1]
        else:
            hexdigest, name = stdin_line.split(b" ", 1)
            assert name in (b" -", b"*-"), stdin_line
        control = _hashlib_digest(algorithm, bits, data)
        if control is not None:
            assert bytes.fromhex(hexdigest.decode()) == control, (algorithm, bits)
    # GNU's and BLAKE3's own tools, byte for byte on plain names.
    controls = [(["b2sum", "-l", "256"], ["-a", "blake2b", "-l", "256"]),
                (["b2sum", "-l", "160", "--tag"], ["-a", "blake2b", "-l", "160", "--tag"]),
                (["b3sum", "--length", "64"], ["-a", "blake3", "-l", "512"])]
    for tool, ours in controls:
        if shutil.which(tool[0]) is None:
            continue
        want = subprocess.run([*tool, *plain], capture_output=True, check=True).stdout
        assert run_dist(cluster, "sum", *ours, *plain) == (0, want, b""), tool


def test_lists_with_lengths_check_as_with_the_cli(cluster, tree, tmp_path):
    """Round trips: lists of many lengths and tags (the CLI's, b2sum's, parhash-dist's) check
    alike with both tools: OK lines, a changed file, lines improper for -a, a GNU line of
    another length whose algorithm is inferred (and the CLI's note about it)."""
    files = [str(p) for p in sorted((tree / "d3" / "s1").iterdir())[:12]]
    changed = tmp_path / "changed"
    changed.write_bytes(b"before")
    made = [run_cli("sum", *extra, *files, str(changed))[1] for extra in (
        ["-a", "blake2b", "-l", "256"], ["-a", "blake2b", "-l", "256", "--tag"], ["-a", "blake3", "-l", "512", "--tag"],
        ["-a", "shake128", "-l", "1024", "--tag"], ["-a", "blake2s", "-l", "160", "--tag"], ["-a", "shake256", "-l", "8"])]
    # parhash-dist's own list, checked by the CLI.
    status, dist_list, _ = run_dist(cluster, "sum", "-a", "blake2b", "-l", "384", "--tag", *files)
    assert status == 0 and dist_list.startswith(b"BLAKE2b-384 (")
    assert run_cli("check", "--strict", "-", stdin=dist_list) == (0, b"".join(f.encode() + b": OK\n" for f in files), b"")
    if shutil.which("b2sum"):
        made.append(subprocess.run(["b2sum", "-l", "128", "--tag", *files], capture_output=True, check=True).stdout)
    made.append(dist_list)
    changed.write_bytes(b"after")
    checklist = tmp_path / "LENGTHS"
    checklist.write_bytes(b"".join(made))
    for extra in ([], ["-w"], ["-a", "blake2b", "-w"], ["-a", "blake2b", "-l", "256", "--quiet"],
                  ["-a", "blake3", "-l", "0", "--strict"], ["-l", "256", "--status"]):
        want = run_cli("check", *extra, str(checklist))
        assert run_dist(cluster, "check", *extra, str(checklist)) == want, extra
        assert want[0] == 1
    # Without -a, the GNU BLAKE2b-256 lines read as sha256 lines: they fail, with the note.
    assert b"failed lines have no algorithm tag, and sha256 was assumed" in run_cli("check", str(checklist))[2]


# --- --json -----------------------------------------------------------------------------------


def json_names():
    """Names whose JSON needs care: odd_names() (newline, backslash, quote, non-UTF-8 bytes),
    every control character, DEL, U+2028 and an emoji (left as UTF-8 by serde_json), and
    invalid UTF-8 of the kinds `from_utf8_lossy` replaces (one U+FFFD per maximal subpart)."""
    return [*odd_names(), bytes(range(1, 32)), b"del\x7f", "sep\u2028 \U0001f600".encode(),
            b"\xed\xa0\x80surrogate", b"\xf0\x9f\x98cut", b"\xc0\xafoverlong", b"\xf4\x90\x80\x80big", b"end\xe2\x82"]


def json_folder(folder):
    """A file for each of json_names() in `folder` (made if need be); their paths, as bytes."""
    os.makedirs(folder, exist_ok=True)
    paths = []
    for i, name in enumerate(json_names()):
        path = os.path.join(bytes(folder), name)
        with open(path, "wb") as f:
            f.write(name * i)
        paths.append(path)
    return paths


def json_records(out):
    """JSON Lines as parsed objects (each line must be one)."""
    import json

    assert out.endswith(b"\n")
    return [json.loads(line) for line in out.split(b"\n")[:-1]]


def test_json_of_odd_names_and_errors_equals_the_cli(tmp_path):
    """No Ray needed: `sum --json`'s record of every kind of name, a missing file and a
    directory, serialized byte for byte as the CLI's serde_json writes them."""
    paths = [*json_folder(tmp_path / "odd"), bytes(tmp_path / "missing"), bytes(tmp_path / "odd")]
    for algorithm, options, params in (("sha256", [], None), ("parsha256", ["--tree-height", "9"], (9, 256))):
        status, want, _ = run_cli("sum", "--json", "-a", algorithm, *options, *map(os.fsdecode, paths))
        got = []
        for path in paths:
            try:
                result = parhash.hash_file(path, algorithm, **({"tree_height": 9} if params else {}))
            except OSError as err:
                result = err
            got.append(fmt.sum_record(algorithm, result, path, params))
        assert b"".join(got) == want, algorithm
        assert status == 1
    records = json_records(want)
    assert {record.get("errno") for record in records} == {None, errno_codes.ENOENT, errno_codes.EISDIR}
    assert sum("path_bytes" in record for record in records) == 6
    assert "\\u0001" in want.decode() and "\U0001f600" in want.decode()


def test_sum_json_equals_the_cli(cluster, tmp_path, tree_files):
    """`parhash-dist sum --json` prints the CLI's bytes: odd names, errors, standard input, -l,
    -r, and files split into tree parts (SANDstorm, PARSHA-256 with its parameters)."""
    odd = json_folder(tmp_path / "odd")
    names = [*map(os.fsdecode, odd), "missing", str(tmp_path / "odd"), "-"]
    walked = [str(tmp_path), "missing"]
    if not IS_ROOT:
        locked = tmp_path / "locked"
        locked.mkdir()
        os.chmod(locked, 0)
        names.append(str(locked))
    split = [str(tree_files[n]) for n in sandstorm_boundaries(64)]
    data = random.Random(8).randbytes(3000)
    cases = [
        ([], [], names),
        (["-a", "blake2b", "-l", "256"], [], names),
        (["-r", "-a", "md5"], ["--task-files", "5"], walked),
        (["-a", "sandstorm256"], ["--split-bytes", "1000", "--parts", "3"], split),
        (["-a", "parsha256", "--tree-height", "7", "--iv-bits", "128"], ["--split-bytes", "1", "--parts", "2"], split),
    ]
    try:
        for options, dist_only, files in cases:
            want = run_cli("sum", "--json", *options, *files, stdin=data)
            assert run_dist(cluster, "sum", "--json", *options, *dist_only, *files, stdin=data) == want, options
            records = json_records(want[1])
            if files is names:
                assert want[0] == 1 and len(records) == len(names) and records[-1 if IS_ROOT else -2]["path"] == "-"
                assert sum("error" in record for record in records) == (2 if IS_ROOT else 3)
            elif files is walked:
                assert len(records) > len(odd) and records[-1]["errno"] == errno_codes.ENOENT
            else:
                assert want[0] == 0 and len(records) == len(split)
    finally:
        if not IS_ROOT:
            os.chmod(locked, stat.S_IRWXU)
    assert records[0]["tree_height"] == 7 and records[0]["iv_bits"] == 128


def test_check_json_equals_the_cli(cluster, tmp_path):
    """`parhash-dist check --json` prints the CLI's records and summaries: ok, failed (an
    inferred algorithm too), missing, unreadable and improper lines, a list named in bytes that
    are not UTF-8, lists that fail as a whole, a list on standard input, with --quiet,
    --ignore-missing, --status, -w, --strict and -a (PARSHA-256's parameters recorded)."""
    odd = [os.fsdecode(path) for path in json_folder(tmp_path / "odd")]
    changed = tmp_path / "changed"
    changed.write_bytes(b"before")
    gone = tmp_path / "gone"
    gone.write_bytes(b"soon gone")
    made = [run_cli("sum", *options, *files)[1] for options, files in (
        ([], odd), (["-a", "md5", "--tag"], odd[:8]), (["-a", "blake2b", "-l", "256", "--tag"], odd[8:]),
        (["-a", "parsha256", "--tree-height", "5", "--tag"], odd[:5]), (["-a", "sha3-256"], odd[:1]),
        ([], [str(changed), str(gone)]))]
    changed.write_bytes(b"after")
    gone.unlink()
    directory_line = b"00" * 32 + b"  " + bytes(tmp_path / "odd") + b"\n"
    sums = os.path.join(bytes(tmp_path), b"SUMS\xff")
    with open(sums, "wb") as f:
        f.write(b"".join(made) + directory_line + b"# comment\nnot a checksum line\n00ff  short\r\n\n")
    only_missing = tmp_path / "ONLY-MISSING"
    only_missing.write_bytes(made[-1].split(b"\n")[1] + b"\n")
    garbage = tmp_path / "GARBAGE"
    garbage.write_bytes(b"junk\n")
    lists = [os.fsdecode(sums), str(only_missing), str(garbage), "no such list", str(tmp_path), "-"]
    for options in ([], ["--quiet", "--ignore-missing"], ["--status"], ["-w", "--strict"],
                    ["-a", "parsha256", "--tree-height", "5"]):
        want = run_cli("check", "--json", *options, *lists, stdin=made[0])
        assert run_dist(cluster, "check", "--json", *options, *lists, stdin=made[0]) == want, options
        assert want[0] == 1
        if not options:
            records = json_records(want[1])
            assert {r["status"] for r in records if r["type"] == "line"} == {
                "ok", "failed", "missing", "unreadable", "improper"}
            assert [r["list"] for r in records if r["type"] == "summary"][-1] == "-"
            assert sum(r["type"] == "summary" for r in records) == len(lists)
            assert records[0]["list_bytes"] == base64.b64encode(sums).decode()
    # --json writes no checksum lines or reports: their styles are usage errors, as in the CLI.
    for args in (["sum", "--json", "-z"], ["sum", "--json", "--tag"], ["sum", "-t", "--json"], ["check", "--json", "-z"]):
        status, out, err = run_dist(cluster, *args, str(changed))
        assert status == run_cli(*args, str(changed))[0] == 1 and out == b"" and b"--json" in err, args


def test_a_closed_standard_input_fails_as_in_the_cli(cluster):
    """A parent that closed standard input: `sum -` fails for that file, `check -` for that list
    (`Bad file descriptor`, errno 9), as the CLI says it, with and without --json."""
    def closed(command):
        done = subprocess.run(["sh", "-c", 'exec "$@" <&-', "sh", *command], capture_output=True)
        return done.returncode, done.stdout, done.stderr.replace(b"parhash-dist: ", b"parhash: ")

    dist = [sys.executable, "-m", "parhash.distributed.cli"]
    for args, message in ((["sum", "--json", "-a", "md5", "-"], b"parhash: -: Bad file descriptor\n"),
                          (["check", "--json"], b"parhash: 'standard input': read error\n"),
                          (["check", "-"], b"parhash: 'standard input': read error\n")):
        want = closed([str(cli_path()), *args])
        assert closed([*dist, *args, "--address", cluster]) == want, args
        assert want[0] == 1 and want[2] == message, args
        if "--json" in args:
            assert json_records(want[1])[0]["errno"] == errno_codes.EBADF


# --- one file in parts ----------------------------------------------------------------------


def parsha_boundaries(iv_bits):
    """Lengths around PARSHA-256's shape changes: the leaf, delta(t) = 2^t (128 - l/8) - 32."""
    leaf = 96 - iv_bits // 8
    lengths = [0, 1, leaf, leaf + 1, 2 * leaf + 64]
    for t in (3, 6, 7):
        delta = (1 << t) * (128 - iv_bits // 8) - 32
        lengths += [delta - 1, delta, delta + 1]
    return lengths


def sandstorm_boundaries(block):
    """Lengths around SANDstorm's blocks and superblocks (1000 blocks) and 16,448 bytes."""
    return [0, 1, block - 1, block + 1, 16_448, 1000 * block, 1000 * block + 1, 2001 * block - 1]


TREE_CASES = [("parsha256", params, parsha_boundaries(params[1])) for params in ((13, 256), (3, 0), (7, 128), (1, 256))]
TREE_CASES += [(f"sandstorm{bits}", None, sandstorm_boundaries(64 if bits <= 256 else 128))
               for bits in (224, 256, 384, 512)]


@pytest.fixture(scope="module")
def tree_files(tmp_path_factory):
    rng = random.Random(20)
    folder = tmp_path_factory.mktemp("tree-mode")
    made = {}
    for length in sorted({n for _, _, lengths in TREE_CASES for n in lengths} | {3_000_017}):
        path = folder / f"len{length}"
        path.write_bytes(rng.randbytes(length))
        made[length] = path
    return made


@pytest.mark.parametrize("algorithm,params,lengths", TREE_CASES, ids=[
    f"{a}-{p}" if p else a for a, p, _ in TREE_CASES])
def test_hash_file_in_parts_equals_the_cli(cluster, tree_files, algorithm, params, lengths):
    paths = [tree_files[n] for n in lengths + [3_000_017]]
    options = ["--tree-height", str(params[0]), "--iv-bits", str(params[1])] if params else []
    kwargs = {"tree_height": params[0], "iv_bits": params[1]} if params else {}
    status, out, _ = run_cli("sum", "-a", algorithm, *options, *map(str, paths))
    assert status == 0
    want = [bytes.fromhex(line.split(b"  ")[0].decode()) for line in out.splitlines()]
    for parts in (1, 2, 7, 64):
        for path, digest in zip(paths, want):
            got = distributed.hash_file(path, algorithm, parts=parts, **kwargs)
            assert got == digest, (path.name, parts)
    # Without parts: one per CPU.
    assert distributed.hash_file(paths[-1], algorithm, **kwargs) == want[-1]


def test_part_counts_the_plans_accept(cluster, tree_files):
    """PARSHA-256 plans use a power of two (7 asked: 4), SANDstorm any count; none is an
    error, as 0 parts is."""
    length = 3_000_017
    assert parhash.PartPlan("parsha256", length, 7).parts == 4
    assert parhash.PartPlan("sandstorm256", length, 7).parts == 7
    assert parhash.PartPlan("parsha256", length, 64, tree_height=3).parts == 4
    with pytest.raises(ValueError, match="at least one part"):
        distributed.hash_file(tree_files[length], "sandstorm256", parts=0)
    with pytest.raises(ValueError, match="no tree mode"):
        distributed.hash_file(tree_files[length], "sha256", parts=2)
    with pytest.raises(FileNotFoundError):
        distributed.hash_file(tree_files[length].with_name("missing"), "sandstorm256", parts=2)


def test_hash_file_from_an_fsspec_url(cluster, tree_files):
    """A URL: each task copies only its part's ranges into a sparse local file. (The local
    file system through fsspec's file:// here; s3://, gs://... take the same path.)"""
    path = tree_files[3_000_017]
    for algorithm in ("parsha256", "sandstorm512"):
        want = parhash.hash_file(path, algorithm)
        assert distributed.hash_file(f"file://{path}", algorithm, parts=4) == want


def test_partial_states_are_checked(cluster, tree_files):
    """States that come back from Ray tasks: a missing, repeated, damaged or foreign one is
    refused by combine, never turned into a digest."""
    path = tree_files[3_000_017]
    for algorithm in ("parsha256", "sandstorm256"):
        plan = _engine.make_plan(str(path), _engine.Spec(algorithm), 4, {})
        states = ray.get(_engine.submit_parts(plan, str(path), {}, 0))
        assert _engine.combine(plan, states[::-1], str(path), {}) == parhash.hash_file(path, algorithm)
        damaged = bytearray(states[1])
        damaged[len(damaged) // 2] ^= 1
        other = _engine.make_plan(str(tree_files[16_448]), _engine.Spec(algorithm), 4, {})
        foreign = ray.get(_engine.submit_parts(other, str(tree_files[16_448]), {}, 0))
        for bad in (states[:3], states + states[:1], [states[0], bytes(damaged), *states[2:]],
                    [*states[:3], foreign[-1]], [states[0], states[0], states[2], states[3]]):
            with pytest.raises(ValueError):
                _engine.combine(plan, bad, str(path), {})


# --- files that change while their parts are hashed ----------------------------------------


@pytest.mark.parametrize("algorithm", ["sandstorm256", "parsha256"])
def test_an_fsspec_object_changed_between_parts_is_refused(tmp_path, algorithm):
    """Parts read through fsspec (on this process: the memory file system is per process)
    record the object's version from ``info()``; an object rewritten between two parts, with
    its size kept, does not combine, and the error names the URL. Unchanged, the parts give
    the sequential digest."""
    import fsspec

    memory = fsspec.filesystem("memory")
    data = random.Random(31).randbytes(3_000_017)
    local = tmp_path / "object"
    local.write_bytes(data)
    for url in ("memory://parhash-versions/object", f"file://{local}"):
        if url.startswith("memory"):
            memory.pipe("/parhash-versions/object", data)
        plan = _engine.make_plan(url, _engine.Spec(algorithm), 2, {})
        states = [_engine._hash_part(plan, i, url, {}) for i in range(plan.parts)]
        assert _engine.combine(plan, states, url, {}) == parhash.new(algorithm, data).digest()
        first = states[0]
        time.sleep(0.01)  # the memory file system's version is its time, in microseconds
        if url.startswith("memory"):
            memory.pipe("/parhash-versions/object", bytes(b ^ 0xA5 for b in data))
        else:  # the same size and inode, a later modification time
            before = os.stat(local)
            local.write_bytes(bytes(b ^ 0xA5 for b in data))
            os.utime(local, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_007))
        second = _engine._hash_part(plan, 1, url, {})
        with pytest.raises(parhash.FileChanged, match="different versions") as caught:
            _engine.combine(plan, [first, second], url, {})
        assert caught.value.filename == url and url in str(caught.value)
        if plan.top_ranges():
            # The combine step reads the new version; the parts read the old one.
            with pytest.raises(parhash.FileChanged, match="combine step"):
                _engine.combine(plan, states, url, {})
    memory.rm("/parhash-versions/object")


def rewriting_part_task(folder, rewrites):
    """A stand-in for the engine's part task (pickled by value to the workers, which run the
    real one): on each of the first `rewrites` tries of a file in two parts, part 1 waits
    until part 0 has been hashed, then rewrites the file (same size, a later modification
    time) and hashes its part from the new version. Each try leaves a mark in `folder`."""

    # Everything it uses is defined or imported in here: pickled by value, it needs nothing
    # of this module on the workers.
    def part(plan, index, path, storage_options):
        import os
        import time

        from parhash.distributed import _engine as engine

        def rewrite_same_size(path, step_ns):
            before = os.stat(path)
            with open(path, "r+b") as f:
                data = f.read()
                f.seek(0)
                f.write(bytes(b ^ 0xA5 for b in data))
            os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + step_ns))

        def marks(kind):
            return len([name for name in os.listdir(folder) if name.startswith(kind)])

        this_try = marks(f"part{index}-")
        open(os.path.join(folder, f"part{index}-{this_try}"), "w").close()
        if index == 1 and this_try < rewrites:
            deadline = time.monotonic() + 120
            while not os.path.exists(os.path.join(folder, f"hashed0-{this_try}")):
                assert time.monotonic() < deadline, "part 0 never ran"
                time.sleep(0.02)
            rewrite_same_size(path, 1_000_000_007 * (this_try + 1))
        state = engine._hash_part(plan, index, path, storage_options)
        if index == 0:
            open(os.path.join(folder, f"hashed0-{this_try}"), "w").close()
        return state

    return part


@pytest.mark.parametrize("rewrites,version_retries", [(1, 1), (2, 1), (1, 0)])
def test_a_file_rewritten_while_its_parts_are_hashed_is_retried_then_reported(
        cluster, tmp_path, monkeypatch, rewrites, version_retries):
    """The real Ray hashes a file in two parts, rewritten (same size) between them on the
    first `rewrites` tries: the parts do not combine, the whole file is hashed again up to
    `version_retries` times, and then it is reported as changed: a digest only ever of one
    version (the one it is now)."""
    folder = tmp_path / "marks"
    folder.mkdir()
    path = tmp_path / "big"
    path.write_bytes(random.Random(32).randbytes(3_000_017))
    monkeypatch.setattr(_engine, "_hash_part", rewriting_part_task(str(folder), rewrites))
    tries = min(rewrites, version_retries) + 1
    for algorithm in ("sandstorm256", "parsha256"):
        for name in os.listdir(folder):
            os.remove(folder / name)
        if rewrites <= version_retries:
            digest = distributed.hash_file(path, algorithm, parts=2, version_retries=version_retries)
            assert digest == parhash.hash_file(path, algorithm)
        else:
            with pytest.raises(parhash.FileChanged, match="different versions") as caught:
                distributed.hash_file(path, algorithm, parts=2, version_retries=version_retries)
            assert caught.value.filename == str(path)
        assert len(list(folder.glob("part1-*"))) == tries, algorithm
    # The same through hash_files (a split file among others), results in input order.
    for name in os.listdir(folder):
        os.remove(folder / name)
    small = tmp_path / "small"
    small.write_bytes(b"not split")
    results = list(distributed.hash_files([str(small), str(path)], "sandstorm256", split_bytes=1 << 20,
                                          parts=2, version_retries=version_retries))
    assert [name for name, _ in results] == [str(small), str(path)]
    assert results[0][1] == parhash.hash_file(small, "sandstorm256")
    if rewrites <= version_retries:
        assert results[1][1] == parhash.hash_file(path, "sandstorm256")
    else:
        assert isinstance(results[1][1], parhash.FileChanged), results[1][1]
        assert str(path) in str(results[1][1])
    assert len(list(folder.glob("part1-*"))) == tries


# --- faults ---------------------------------------------------------------------------------


def _fifo_reader_pid(fifo, exclude):
    """The process (not this one, not `exclude`) that has `fifo` open."""
    target = os.path.realpath(fifo)
    for pid in filter(str.isdigit, os.listdir("/proc")):
        if int(pid) in (os.getpid(), exclude):
            continue
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{pid}/fd/{fd}") == target:
                    return int(pid)
            except OSError:
                continue
    return None


def _wait_for_reader(fifo, exclude=None, timeout=120):
    """Opens `fifo` for writing once a worker opens it for reading; (write fd, reader pid)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:
            time.sleep(0.05)
            continue
        while time.monotonic() < deadline:
            pid = _fifo_reader_pid(fifo, exclude)
            if pid is not None:
                return fd, pid
            time.sleep(0.02)
    raise AssertionError(f"no worker opened {fifo}")


def files_around_a_fifo(folder, count, seed):
    """`count` files with a FIFO in the middle (they fit in one task): the worker hashing them
    blocks on the FIFO, so a test knows which process to kill and when (surely mid-task)."""
    rng = random.Random(seed)
    files = []
    for i in range(count):
        path = folder / f"f{i}"
        path.write_bytes(rng.randbytes(rng.randrange(0, 200_000)))
        files.append(str(path))
    fifo = str(folder / "fifo")
    os.mkfifo(fifo)
    files.insert(count // 2, fifo)
    return files, fifo


@pytest.fixture
def fifo_job(tmp_path):
    return files_around_a_fifo(tmp_path, 30, 21)


def survives_a_loss(files, fifo, lose, run=None, **options):
    """Runs ``hash_files(files)`` (or `run()`, returning ``(path, digest)`` pairs) in a thread;
    once a worker blocks on the FIFO, `lose(pid)` (kill it, or its node); then feeds the FIFO
    to the retried task and checks every digest. Returns what `lose` returned."""
    results = []
    run = run or (lambda: distributed.hash_files(files, "sha256", **options))
    job = threading.Thread(target=lambda: results.extend(run()))
    job.start()
    fd, pid = _wait_for_reader(fifo)
    lost = lose(pid)
    os.close(fd)
    # Ray runs the task again, on a new worker: it opens the FIFO again.
    fd, _ = _wait_for_reader(fifo, exclude=pid, timeout=240)
    data = b"fed to the retried task"
    os.write(fd, data)
    os.close(fd)
    job.join(timeout=180)
    assert [path for path, _ in results] == files
    for path, digest in results:
        want = hashlib.sha256(data if path == fifo else open(path, "rb").read()).digest()
        assert digest == want, path
    return lost


def test_a_killed_worker_is_retried_and_the_digests_are_right(cluster, fifo_job):
    files, fifo = fifo_job
    survives_a_loss(files, fifo, lambda pid: os.kill(pid, signal.SIGKILL), max_retries=2)


def test_without_retries_the_job_names_the_files_it_lost(cluster, fifo_job):
    files, fifo = fifo_job
    outcome = {}

    def run():
        outcome["result"] = run_dist(cluster, "sum", "--max-retries", "0", *files)

    job = threading.Thread(target=run)
    job.start()
    fd, pid = _wait_for_reader(fifo)
    os.kill(pid, signal.SIGKILL)
    os.close(fd)
    job.join(timeout=180)
    status, out, err = outcome["result"]
    assert status == 1
    # Every file of the lost task is named on standard error; none gets a line.
    lost = [line for line in err.splitlines() if b"not hashed: task failed" in line]
    assert lost and any(fifo.encode() in line for line in lost)
    assert all(b"  " in line for line in out.splitlines()), out
    listed = {line.split(b"  ", 1)[1] for line in out.splitlines()}
    named = {line.split(b": ")[1] for line in lost}
    assert listed.isdisjoint(named) and len(listed) + len(named) == len(files)


# --- Ray Data -------------------------------------------------------------------------------


def test_ray_data_digest_column(cluster, tree):
    import ray.data

    folder = tree / "d2" / "s1"
    want = {str(p): hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.iterdir()}
    ds = ray.data.read_binary_files(str(folder), include_paths=True)
    rows = ds.map_batches(distributed.DigestColumn("sha256")).take_all()
    assert {row["path"].lstrip("/"): row["digest"] for row in rows} == {p.lstrip("/"): d for p, d in want.items()}
    # As a class (actors), bytes digests, pandas batches, another algorithm.
    rows = ds.map_batches(distributed.DigestColumn, fn_constructor_kwargs={
        "algorithm": "sandstorm512", "hexdigest": False, "output": "h"}, concurrency=1,
        batch_format="pandas").take_all()
    assert {row["path"].lstrip("/"): row["h"] for row in rows} == {
        p.lstrip("/"): parhash.hash_file(p, "sandstorm512") for p in want}


@pytest.mark.slow
def test_a_file_of_hundreds_of_mib_in_parts_equals_the_cli(cluster, tmp_path):
    path = tmp_path / "large"
    rng = random.Random(24)
    with open(path, "wb") as f:
        for _ in range(25):
            f.write(rng.randbytes(8 << 20))
        f.write(rng.randbytes(1_000_013))
    try:
        for algorithm, part_counts in (("sandstorm256", (7, 64)), ("parsha256", (8, 64)), ("sandstorm512", (2,))):
            status, out, _ = run_cli("sum", "-a", algorithm, str(path))
            want = bytes.fromhex(out.split(b" ")[0].decode())
            for parts in part_counts:
                assert distributed.hash_file(path, algorithm, parts=parts) == want, (algorithm, parts)
        # parhash-dist splits it (it is over --split-bytes) and prints the CLI's line.
        for algorithm in ("sandstorm256", "parsha256"):
            want = run_cli("sum", "-a", algorithm, str(path))
            assert run_dist(cluster, "sum", "-a", algorithm, "--split-bytes", str(64 << 20), str(path)) == want
    finally:
        path.unlink()


@pytest.mark.slow
def test_without_an_address_the_command_starts_its_own_ray(cluster, tree):
    """No --address and no RAY_ADDRESS: a local Ray of its own (Ray's default), gone afterwards."""
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    folder = str(tree / "d0" / "s1")
    assert run_dist(None, "sum", "-r", "-a", "md5", folder, env=env) == run_cli("sum", "-r", "-a", "md5", folder)


def test_a_ray_it_starts_runs_the_workers_at_the_callers_priority(tmp_path):
    """Ray renices its workers by 15 by default; a local Ray that parhash starts does not (the
    hashing would otherwise lose to any other process on a shared machine)."""
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    script = (
        "import os, ray\n"
        "from parhash.distributed import _engine\n"
        "assert _engine.connect(None, num_cpus=1, logging_level='error', log_to_driver=False)\n"
        "print(os.nice(0), ray.get(ray.remote(lambda: os.nice(0)).remote()))\n"
    )
    done = subprocess.run(["nice", "-n", "3", sys.executable, "-c", script], capture_output=True,
                          env=env, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [b"3", b"3"]


def test_the_tests_never_join_a_ray_running_here():
    """A Ray already running on this machine is never joined by these tests (conftest drops
    RAY_ADDRESS and gives Ray a temp folder of the test run's own; the fixtures start Ray with
    address="local"): a fresh pytest whose RAY_ADDRESS, and whose `ray start` record
    (RAY_TMPDIR/ray/ray_current_cluster), name an address where no Ray listens still starts
    its own Ray, in its fixture and in `parhash-dist` without --address."""
    nowhere = "127.0.0.1:9"
    machine_tmp = tempfile.mkdtemp(prefix="m-", dir="/tmp")
    try:
        os.mkdir(os.path.join(machine_tmp, "ray"))
        with open(os.path.join(machine_tmp, "ray", "ray_current_cluster"), "w") as record:
            record.write(nowhere + "\n")
        env = {**os.environ, "RAY_ADDRESS": nowhere, "RAY_TMPDIR": machine_tmp,
               "PARHASH_TEST_RAY_NOWHERE": nowhere, "PARHASH_TEST_RAY_TMPDIR": machine_tmp}
        try:
            done = subprocess.run(
                [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "ray_isolation_probe.py"],
                cwd=os.path.dirname(os.path.abspath(__file__)), capture_output=True, env=env, timeout=300,
            )
        except subprocess.TimeoutExpired:
            # Ray keeps trying to reach an address it was told to join.
            pytest.fail(f"not done in 300 s: the tests are trying to join the Ray at {nowhere}")
    finally:
        shutil.rmtree(machine_tmp, ignore_errors=True)
    assert done.returncode == 0, (done.stdout + done.stderr).decode(errors="replace")[-4000:]
    assert b"1 passed" in done.stdout, done.stdout


def test_digest_column_on_a_batch_directly():
    """The callable itself (as Ray Data calls it): a numpy batch, PARSHA-256 with its own
    parameters, hashlib as the control where it can be."""
    import numpy as np

    messages = [b"", b"abc", random.Random(5).randbytes(100_000)]
    batch = {"bytes": np.array(messages, dtype=object), "path": np.array(["a", "b", "c"], dtype=object)}
    out = distributed.DigestColumn("parsha256", tree_height=5, iv_bits=0)(batch)
    assert list(out["path"]) == ["a", "b", "c"]
    assert list(out["digest"]) == [parhash.new("parsha256", m, tree_height=5, iv_bits=0).hexdigest() for m in messages]
    out = distributed.DigestColumn("sha3-256", hexdigest=False, output="d")(batch)
    assert list(out["d"]) == [hashlib.sha3_256(m).digest() for m in messages]


def test_several_algorithms_equal_the_cli_in_every_output_form(cluster, tree, tmp_path):
    """Issue 28 on the cluster: `parhash-dist sum -a md5,sha256,...` gives the CLI's BSD lines,
    JSON records and --lists files byte for byte (errors once per file, on standard error),
    and the lists verify with coreutils."""
    names = [str(tree / "d2"), str(tree / "odd"), "missing file"]
    for algorithms, extra in (("md5,sha256,sha512", []), ("sha1,blake2b", ["-l", "256", "--tag"]),
                              ("parsha256,md5", ["--tree-height", "7"]), ("blake3,sha1", ["-z"])):
        want = run_cli("sum", "--no-progress", "-r", "-a", algorithms, *extra, *names)
        got = run_dist(cluster, "sum", "-r", "-a", algorithms, "--task-files", "61", *extra, *names)
        assert got == want, (algorithms, extra)
        assert want[0] == 1 and b"missing file" in want[2] and want[2].count(b"missing file") == 1
    # Repeated -a, as the CLI takes it; the JSON record holds every digest.
    want = run_cli("sum", "--no-progress", "-r", "--json", "-a", "md5", "-a", "sha256", *names)
    got = run_dist(cluster, "sum", "-r", "--json", "-a", "md5", "-a", "sha256", *names)
    assert got == want and b'"digests"' in want[1]
    # --lists: one GNU list per algorithm, as the CLI writes them.
    mine, theirs = tmp_path / "dist", tmp_path / "cli"
    mine.mkdir()
    theirs.mkdir()
    folder = str(tree / "d4")
    status, _, _ = run_cli("sum", "--no-progress", "-r", "-a", "md5,sha256,blake2b", "--lists", str(theirs), folder)
    got_status, out, _ = run_dist(cluster, "sum", "-r", "-a", "md5,sha256,blake2b", "--lists", str(mine), folder)
    assert status == got_status == 0 and out == b""
    assert sorted(os.listdir(mine)) == sorted(os.listdir(theirs)) == ["B2SUMS", "MD5SUMS", "SHA256SUMS"]
    for name in os.listdir(theirs):
        assert (mine / name).read_bytes() == (theirs / name).read_bytes(), name
    for tool, name in (("md5sum", "MD5SUMS"), ("sha256sum", "SHA256SUMS"), ("b2sum", "B2SUMS")):
        if shutil.which(tool):
            assert subprocess.run([tool, "--quiet", "-c", str(mine / name)], capture_output=True).returncode == 0
    # Standard input, several algorithms from one read on the driver.
    data = random.Random(28).randbytes(50_000)
    assert run_dist(cluster, "sum", "-a", "md5,sha3-256", stdin=data) == run_cli("sum", "-a", "md5,sha3-256", stdin=data)
    # Usage errors as the CLI's.
    for bad in (["-a", "md5,sha1", "-l", "256"], ["-a", "md5,sha1", "--tree-height", "5"],
                ["--lists", str(mine), "--json", "-a", "md5,sha1"], ["--list-name", "x", "-a", "md5"]):
        got = run_dist(cluster, "sum", *bad, folder)
        want = run_cli("sum", *bad, folder)
        assert got[0] == want[0] == 1 and got[1] == b"" and got[2], bad


def test_library_hash_files_with_several_algorithms(cluster, tree):
    files = sorted((tree / "d6" / "s1").iterdir())[:120]
    paths = [*files[:40], tree / "missing", *files[40:]]
    got = list(distributed.hash_files(paths, ["md5", "sha256", "blake2b"], task_files=17, digest_size=20))
    assert [path for path, _ in got] == paths
    for path, result in got:
        if path == tree / "missing":
            assert isinstance(result, FileNotFoundError)
            continue
        data = path.read_bytes()
        assert result == {"md5": hashlib.md5(data).digest(), "sha256": hashlib.sha256(data).digest(),
                          "blake2b": hashlib.blake2b(data, digest_size=20).digest()}
    # Tree-mode files of several algorithms are never split (one task reads each once).
    big = [p for p in sorted((tree / "d0").rglob("*")) if p.is_file() and p.stat().st_size > 70_000][:2]
    got = dict(distributed.hash_files(big, ["parsha256", "sha1"], split_bytes=1, parts=3))
    for path in big:
        assert got[path]["parsha256"] == parhash.hash_file(path, "parsha256")
        assert got[path]["sha1"] == hashlib.sha1(path.read_bytes()).digest()
    with pytest.raises(ValueError, match="named twice"):
        distributed.hash_files(paths, ["md5", "MD5"])
    with pytest.raises(TypeError, match="parsha256"):
        distributed.hash_files(paths, ["md5", "sha1"], tree_height=5)
    with pytest.raises(ValueError, match="no algorithm"):
        distributed.hash_files(paths, [])


def _store_value(alg: str, data: bytes, part_size: int) -> str:
    """An S3 multipart value from hashlib: the digest of the parts' digests, hex (ETag) or
    base64, then -N."""
    parts = [data[i:i + part_size] for i in range(0, len(data), part_size)] or [b""]
    combined = hashlib.new(alg, b"".join(hashlib.new(alg, p).digest() for p in parts)).digest()
    text = combined.hex() if alg == "md5" else base64.b64encode(combined).decode()
    return f"{text}-{len(parts)}"


def test_library_hash_files_with_the_multipart_forms(cluster, tmp_path):
    mib = 1 << 20
    rng = random.Random()
    seed = rng.randrange(1 << 30)
    rng.seed(seed)
    lengths = [0, 1, 5 * mib, 10 * mib + 1, rng.randrange(1, 12 * mib), rng.randrange(1, 100_000)]
    paths = []
    for n, length in enumerate(lengths):
        path = tmp_path / f"f{n}"
        path.write_bytes(rng.randbytes(length))
        paths.append(path)
    paths.insert(2, tmp_path / "missing")
    size = 5 * mib + rng.randrange(mib)
    got = list(distributed.hash_files(paths, ["etag", "sha256-composite", "md5"], part_size=size, task_files=2))
    assert [path for path, _ in got] == paths
    for path, result in got:
        if path.name == "missing":
            assert isinstance(result, FileNotFoundError)
            continue
        data = path.read_bytes()
        assert result == {"etag": _store_value("md5", data, size),
                          "sha256-composite": _store_value("sha256", data, size),
                          "md5": hashlib.md5(data).digest()}, seed
    # One form: its value; "etag" without a part size: a one-piece upload's, the MD5.
    present = [p for p in paths if p.name != "missing"]
    got = dict(distributed.hash_files(present, "sha1-composite", part_size=size))
    assert got == {p: _store_value("sha1", p.read_bytes(), size) for p in present}, seed
    got = dict(distributed.hash_files(present, "etag"))
    assert got == {p: hashlib.md5(p.read_bytes()).hexdigest() for p in present}
    # Refused on the driver, before any task runs, as parhash.hash_files refuses them.
    with pytest.raises(ValueError, match="needs part_size"):
        distributed.hash_files(paths, "sha256-composite")
    with pytest.raises(ValueError, match="under S3's smallest part"):
        distributed.hash_files(paths, "etag", part_size=mib)
    with pytest.raises(TypeError, match="do not go with"):
        distributed.hash_files(paths, "etag", part_size=size, digest_size=20)
    with pytest.raises(ValueError, match="not split over the cluster"):
        distributed.hash_file(paths[0], "etag")


def test_sum_etag_and_composite_equal_the_cli(cluster, tmp_path):
    mib = 1 << 20
    rng = random.Random()
    seed = rng.randrange(1 << 30)
    rng.seed(seed)
    names = []
    for n, length in enumerate([0, 5 * mib, 10 * mib + 1, rng.randrange(1, 12 * mib)]):
        (tmp_path / f"f {n}").write_bytes(rng.randbytes(length))
        names.append(str(tmp_path / f"f {n}"))
    names.insert(1, str(tmp_path / "missing"))
    for args in (["--etag", "--composite", "-a", "crc32c,sha1", "--part-size", "5MiB"],
                 ["--etag", "--part-size", "8MiB", "--json"],
                 ["--composite", "--part-size", "6MiB", "--json", "-a", "crc32"],
                 ["--etag"], ["--etag", "-z"]):
        want = run_cli("sum", *args, *names)
        got = run_dist(cluster, "sum", *args, *names)
        assert want[0] == 1 and got == want, (seed, args, got, want)
    # Too many parts for S3 (a sparse file, never read): that file's error, in the CLI's words.
    with open(tmp_path / "huge", "wb") as huge:
        huge.truncate(10_000 * 5 * mib + 1)
    for json_flag in ([], ["--json"]):
        args = ["sum", "--etag", "--part-size", "5MiB", *json_flag, names[0], str(tmp_path / "huge")]
        assert run_dist(cluster, *args) == run_cli(*args)
    for args in (["--composite", names[0]], ["--etag", "--part-size", "1MiB", names[0]],
                 ["--etag", "-a", "sha1", "--part-size", "8MiB", names[0]],
                 ["--composite", "-a", "crc64nvme", "--part-size", "8MiB", names[0]],
                 ["--part-size", "8MiB", names[0]], ["--etag", "--tag", names[0]]):
        status, out, err = run_dist(cluster, "sum", *args)
        assert status != 0 and out == b"" and err, (args, err)
