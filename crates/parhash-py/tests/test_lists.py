"""parhash.lists (write, resume, update, audit) against the Rust CLI as the control: lists,
side files and audit reports byte for byte those of `parhash sum -o` and `parhash check
--audit`, over a tree with odd names (newlines, bytes that are not UTF-8)."""

import os
import random
import shutil
import signal
import subprocess
import sys
import time

import pytest

import parhash.lists
from conftest import cli_path

IS_ROOT = os.geteuid() == 0
ODD = [b"a b", b"n\nl", b"back\\slash", b"c\rr", b"\xff\xferaw", "é".encode(), b"-dash", b"it's"]


def run_cli(*args, cwd):
    done = subprocess.run([str(cli_path()), *args], capture_output=True, cwd=cwd)
    return done.returncode, done.stdout, done.stderr


def make_tree(root, files=400, seed=5):
    rng = random.Random(seed)
    for i in range(files):
        folder = os.path.join(root, f"d{i % 5}", f"s{i % 3}")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, f"f{i}"), "wb") as f:
            f.write(rng.randbytes(rng.choice([0, 1, 64, 5000, 70_000])))
    odd = os.path.join(os.fsencode(root), b"odd")
    os.makedirs(odd)
    for name in ODD:
        with open(os.path.join(odd, name), "wb") as f:
            f.write(name * 5)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def cli_messages(messages):
    """What the CLI prints on standard error for these messages."""
    return "".join(f"parhash: {m}\n" for m in messages).encode()


def events_as_cli(events):
    out = b"".join(payload for is_out, payload in events if is_out)
    err = "".join(f"parhash: {payload}\n" for is_out, payload in events if not is_out).encode()
    return out, err


STYLES = [([], {}), (["--tag"], {"tag": True}), (["-z"], {"zero": True}), (["--json"], {"json": True}),
          (["-a", "md5", "-b"], {"algorithm": "md5", "binary": True}),
          (["-a", "blake2b", "-l", "256", "--tag"], {"algorithm": "blake2b", "digest_size": 32, "tag": True}),
          (["-a", "parsha256", "--tag"], {"algorithm": "parsha256", "tag": True})]


def python_write(list_path, style, **extra):
    options = dict(style)
    algorithm = options.pop("algorithm", "sha256")
    return parhash.lists.write(list_path, ["data"], algorithm, **options, **extra)


@pytest.mark.parametrize("flags,style", STYLES)
def test_write_equals_the_cli(tmp_path, monkeypatch, flags, style):
    make_tree(tmp_path / "data")
    monkeypatch.chdir(tmp_path)
    status, out, err = run_cli("sum", "--no-progress", "-r", *flags, "-o", "want", "data", cwd=tmp_path)
    assert (status, out, err) == (0, b"", b"")
    result = python_write("got", style)
    assert result.ok and result.messages == []
    assert read(tmp_path / "got") == read(tmp_path / "want")
    assert read(tmp_path / "got.parhash-meta") == read(tmp_path / "want.parhash-meta")
    assert read(tmp_path / "want").count(b"\0" if style.get("zero") else b"\n") >= 400


def test_write_skips_its_own_files_and_reports_failures(tmp_path, monkeypatch):
    make_tree(tmp_path / "data", files=30)
    monkeypatch.chdir(tmp_path)
    if not IS_ROOT:
        (tmp_path / "data" / "locked").write_bytes(b"x")
        os.chmod(tmp_path / "data" / "locked", 0)
    (tmp_path / "data" / "L.tmp").write_bytes(b"left by an update")
    want = run_cli("sum", "--no-progress", "-r", "-o", "data/L", "data", cwd=tmp_path)
    os.rename("data/L", "want")
    os.rename("data/L.parhash-meta", "want.parhash-meta")
    result = parhash.lists.write("data/L", ["data"])
    # The list lies in the tree and does not list itself, its side file or their .tmp.
    assert read(tmp_path / "data" / "L") == read(tmp_path / "want")
    assert b"data/L" not in read(tmp_path / "data" / "L") and b"data/d0" in read(tmp_path / "want")
    assert (result.ok, cli_messages(result.messages)) == (want[0] == 0, want[2])
    if not IS_ROOT:
        assert b"Permission denied" in want[2]


@pytest.mark.parametrize("flags,style", STYLES)
def test_resume_of_a_cut_list_equals_an_uninterrupted_run(tmp_path, monkeypatch, flags, style):
    """A list and side file cut anywhere (a torn last line, or whole lines), as a killed run
    leaves them: resumed, byte for byte the CLI's uninterrupted list, and the same messages
    as the CLI's --resume of the same cut."""
    make_tree(tmp_path / "data")
    monkeypatch.chdir(tmp_path)
    run_cli("sum", "--no-progress", "-r", *flags, "-o", "want", "data", cwd=tmp_path)
    want, want_meta = read(tmp_path / "want"), read(tmp_path / "want.parhash-meta")
    rng = random.Random(len(flags))
    for cut in [0, 1, len(want) - 1, *rng.sample(range(len(want)), 5)]:
        meta_cut = rng.randrange(len(want_meta))
        for name in ("cli", "got"):
            (tmp_path / name).write_bytes(want[:cut])
            (tmp_path / f"{name}.parhash-meta").write_bytes(want_meta[:meta_cut])
        cli = run_cli("sum", "--no-progress", "-r", *flags, "-o", "cli", "--resume", "data", cwd=tmp_path)
        result = python_write("got", style, resume=True)
        assert read(tmp_path / "got") == want, cut
        assert read(tmp_path / "got") == read(tmp_path / "cli")
        assert read(tmp_path / "got.parhash-meta") == read(tmp_path / "cli.parhash-meta")
        assert cli_messages(result.messages).replace(b"got:", b"cli:") == cli[2]
        assert result.ok == (cli[0] == 0)


SLOW_WRITE = """
import sys, time, parhash, parhash.lists
def hasher(names):
    for name, result in parhash.hash_files(names, "sha256"):
        time.sleep(0.002)
        yield name, result
parhash.lists.write("got", ["data"], hasher=hasher)
"""


def test_resume_after_sigkill(tmp_path):
    """parhash.lists.write killed (SIGKILL) at random points, resumed until done: the CLI's
    uninterrupted list and side file."""
    make_tree(tmp_path / "data", files=600)
    run_cli("sum", "--no-progress", "-r", "-o", "want", "data", cwd=tmp_path)
    rng = random.Random(11)
    kills = 0
    for attempt in range(4):
        process = subprocess.Popen([sys.executable, "-c", SLOW_WRITE], cwd=tmp_path)
        time.sleep(rng.uniform(0.3, 1.2))
        if process.poll() is None:
            process.send_signal(signal.SIGKILL)
            kills += 1
        process.wait()
        lines = read(tmp_path / "got").count(b"\n")
        assert 0 < lines <= 600 + len(ODD)
        cwd = os.getcwd()
        os.chdir(tmp_path)
        try:
            parhash.lists.write("got", ["data"], resume=True)
        finally:
            os.chdir(cwd)
        assert read(tmp_path / "got") == read(tmp_path / "want")
        assert read(tmp_path / "got.parhash-meta") == read(tmp_path / "want.parhash-meta")
    assert kills >= 2


def test_resume_refuses_another_list(tmp_path, monkeypatch):
    make_tree(tmp_path / "data", files=20)
    monkeypatch.chdir(tmp_path)
    run_cli("sum", "--no-progress", "-r", "-o", "cli", "data", cwd=tmp_path)
    shutil.copy(tmp_path / "cli", tmp_path / "got")
    want = run_cli("sum", "--no-progress", "-r", "-a", "md5", "-o", "cli", "--resume", "data", cwd=tmp_path)
    with pytest.raises(ValueError) as raised:
        parhash.lists.write("got", ["data"], "md5", resume=True)
    assert want[0] == 1
    assert cli_messages([str(raised.value)]).replace(b"got:", b"cli:") == want[2]


def change_tree(data):
    """Adds, deletes, touches and rewrites files (one with the same size and its mtime
    restored: undetected by metadata)."""
    os.remove(data / "d0" / "s0" / "f0")
    shutil.rmtree(data / "d4" / "s1")
    (data / "d1" / "new file").write_bytes(b"new")
    with open(os.path.join(os.fsencode(data / "odd"), b"new\nline\xff"), "wb") as f:
        f.write(b"x")
    touched = data / "d2" / "s2" / "f2"
    os.utime(touched, ns=(0, 1_000_000_000))
    rewritten = data / "d3" / "s0" / "f3"
    before = os.stat(rewritten)
    rewritten.write_bytes(bytes(len(rewritten.read_bytes())))
    os.utime(rewritten, ns=(before.st_atime_ns, before.st_mtime_ns))


def cli_update(tmp_path, flags):
    """The tree ``data`` listed by the CLI in ``cli`` and that list copied to ``got`` (side
    file too), then the tree changed and ``cli`` brought up to date by the CLI (``--update
    FLAGS``): the CLI's result, for an update of ``got`` to equal."""
    make_tree(tmp_path / "data")
    run_cli("sum", "--no-progress", "-r", "-o", "cli", "data", cwd=tmp_path)
    shutil.copy(tmp_path / "cli", tmp_path / "got")
    shutil.copy(tmp_path / "cli.parhash-meta", tmp_path / "got.parhash-meta")
    time.sleep(0.01)
    change_tree(tmp_path / "data")
    return run_cli("sum", "--no-progress", "-r", "-o", "cli", "--update", *flags, "data", cwd=tmp_path)


@pytest.mark.parametrize("rehash", [False, True])
def test_update_equals_the_cli(tmp_path, monkeypatch, rehash):
    monkeypatch.chdir(tmp_path)
    want = cli_update(tmp_path, ["--rehash-changed"] if rehash else [])
    result = parhash.lists.update("got", ["data"], rehash_changed=rehash)
    assert read(tmp_path / "got") == read(tmp_path / "cli")
    assert read(tmp_path / "got.parhash-meta") == read(tmp_path / "cli.parhash-meta")
    assert cli_messages(result.messages).replace(b"got:", b"cli:") == want[2]
    assert result.ok and want[0] == 0
    # The touched file and the one rewritten with its mtime restored (its ctime moved on).
    assert b"2 added" in want[2] and (b"2 hashed again" in want[2]) == rehash
    assert not os.path.exists(tmp_path / "got.tmp")
    # What a fresh run writes, but without --rehash-changed for the rewritten file.
    fresh = run_cli("sum", "--no-progress", "-r", "data", cwd=tmp_path)[1]
    differ = set(read(tmp_path / "got").splitlines()) ^ set(fresh.splitlines())
    assert len(differ) == (0 if rehash else 2) and all(b"d3/s0/f3" in line for line in differ)


def test_update_without_a_side_file(tmp_path, monkeypatch):
    make_tree(tmp_path / "data", files=20)
    monkeypatch.chdir(tmp_path)
    run_cli("sum", "--no-progress", "-r", "-o", "cli", "data", cwd=tmp_path)
    shutil.copy(tmp_path / "cli", tmp_path / "got")
    os.remove(tmp_path / "cli.parhash-meta")
    want = run_cli("sum", "--no-progress", "-r", "-o", "cli", "--update", "--rehash-changed", "data", cwd=tmp_path)
    result = parhash.lists.update("got", ["data"], rehash_changed=True)
    assert read(tmp_path / "got") == read(tmp_path / "cli")
    assert read(tmp_path / "got.parhash-meta") == read(tmp_path / "cli.parhash-meta")
    assert cli_messages(result.messages).replace(b"got", b"cli") == want[2]
    assert b"not found" in want[2]


def audit_tree(tmp_path):
    """A listed tree changed so that every status shows: changed, missing (one with a copy on
    disk), new (one a copy), moved, duplicates on both sides, unreadable (when not root), odd
    names."""
    data = tmp_path / "data"
    make_tree(data, files=60)
    (data / "dup1").write_bytes(b"same")
    (data / "dup2").write_bytes(b"same")
    (data / "twin1").write_bytes(b"twins")
    (data / "twin2").write_bytes(b"twins")
    if not IS_ROOT:
        (data / "locked").write_bytes(b"locked")
    run_cli("sum", "--no-progress", "-r", "-o", "LIST", "data", cwd=tmp_path)
    (data / "d0" / "s0" / "f0").write_bytes(b"changed")
    os.remove(data / "d1" / "s1" / "f1")
    os.remove(data / "dup1")
    os.remove(data / "twin1")  # missing, its content still on disk as twin2
    (data / "brand new").write_bytes(b"brand new")
    (data / "copy of dup").write_bytes(b"same")
    odd = os.fsencode(data / "odd")
    os.rename(os.path.join(odd, b"n\nl"), os.path.join(odd, b"moved\n\xff"))
    os.rename(data / "d2" / "s2" / "f2", data / "d3" / "moved f2")
    if not IS_ROOT:
        os.chmod(data / "locked", 0)
    # Unreadable even by root: a link to nothing.
    os.symlink(tmp_path / "nowhere", data / "dangling")


AUDITS = [([], {}), (["--json"], {"json": True}), (["--quiet"], {"quiet": True}), (["-z"], {"zero": True}),
          (["--audit-path", "data/d3", "--audit-path", "data/odd"], {"paths": ["data/d3", "data/odd"]}),
          (["--status"], {"status": True})]


@pytest.mark.parametrize("flags,options", AUDITS)
def test_audit_equals_the_cli(tmp_path, monkeypatch, flags, options):
    audit_tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    want = run_cli("check", "--no-progress", "--audit", *flags, "LIST", cwd=tmp_path)
    options = dict(options)
    result = parhash.lists.audit("LIST", options.pop("paths", None), **options)
    assert (0 if result.passed else 1, *events_as_cli(result.events)) == want
    assert want[0] == 1
    if not flags:
        assert len(want[1].splitlines()) > 60
        statuses = {v["status"] for v in result.verdicts}
        assert statuses >= {"matched", "changed", "missing", "new", "moved", "unreadable"}
        assert all(result.counts[s] > 0 for s in ("matched", "changed", "missing", "missing_with_copy", "new", "moved",
                                                  "unreadable", "duplicates"))
        assert b"MOVED from" in want[1] and b"copy of" in want[1]
        # Each group of names sharing a digest once; a verdict names its group by index.
        assert result.groups and all(v["group"] is None or 0 <= v["group"] < len(result.groups)
                                     for v in result.verdicts)


def test_audit_of_an_unchanged_tree_passes(tmp_path, monkeypatch):
    make_tree(tmp_path / "data", files=40)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "LIST").write_bytes(run_cli("sum", "--no-progress", "-r", "data", cwd=tmp_path)[1])
    want = run_cli("check", "--no-progress", "--audit", "LIST", cwd=tmp_path)
    result = parhash.lists.audit("LIST")
    assert want[0] == 0 and result.passed
    assert events_as_cli(result.events) == want[1:]
    assert result.counts["matched"] == 40 + len(ODD)


def test_audit_leaves_out_the_files_sum_o_writes_beside_the_list(tmp_path, monkeypatch):
    # A list written with -o inside the audited tree: it, its side file and a .tmp left by a
    # crashed update are not data (neither the CLI nor Python reports them as new).
    make_tree(tmp_path / "data", files=10)
    monkeypatch.chdir(tmp_path)
    run_cli("sum", "--no-progress", "-r", "-o", "LIST", "data", cwd=tmp_path)
    assert (tmp_path / "LIST.parhash-meta").exists()
    (tmp_path / "LIST.tmp").write_bytes(b"torn")
    want = run_cli("check", "--no-progress", "--audit", "LIST", cwd=tmp_path)
    result = parhash.lists.audit("LIST")
    assert want[0] == 0 and result.passed, want
    assert events_as_cli(result.events) == want[1:]
    assert b"parhash-meta" not in want[1]


def test_audit_of_a_list_that_is_not_there(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    want = run_cli("check", "--no-progress", "--audit", "nothing", cwd=tmp_path)
    result = parhash.lists.audit("nothing")
    assert (0 if result.passed else 1, *events_as_cli(result.events)) == want
    assert want[0] == 1 and want[2]


def test_kept_entries_past_the_window_restart_the_hasher(tmp_path, monkeypatch):
    """At most MAX_WAITING records wait for a file being hashed: past it the hasher is drained
    and started again, and the list is still the CLI's."""
    make_tree(tmp_path / "data")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(parhash.lists, "MAX_WAITING", 7)
    run_cli("sum", "--no-progress", "-r", "-o", "cli", "data", cwd=tmp_path)
    shutil.copy(tmp_path / "cli", tmp_path / "got")
    shutil.copy(tmp_path / "cli.parhash-meta", tmp_path / "got.parhash-meta")
    change_tree(tmp_path / "data")
    calls = []

    def hasher(names):
        calls.append(1)
        return parhash.hash_files(names, "sha256")

    run_cli("sum", "--no-progress", "-r", "-o", "cli", "--update", "--rehash-changed", "data", cwd=tmp_path)
    assert parhash.lists.update("got", ["data"], rehash_changed=True, hasher=hasher).ok
    assert read(tmp_path / "got") == read(tmp_path / "cli")
    assert read(tmp_path / "got.parhash-meta") == read(tmp_path / "cli.parhash-meta")
    assert len(calls) > 40


def test_resume_passes_over_a_file_that_still_cannot_be_read(tmp_path, monkeypatch):
    """A file the first run could not read (a dangling link) has no line: resumed, it is tried
    again and reported again, as the CLI's --resume does."""
    make_tree(tmp_path / "data", files=60)
    os.symlink(tmp_path / "nowhere", tmp_path / "data" / "d1" / "dangling")
    monkeypatch.chdir(tmp_path)
    first = run_cli("sum", "--no-progress", "-r", "-o", "want", "data", cwd=tmp_path)
    assert first[0] == 1 and b"dangling" in first[2]
    want = read(tmp_path / "want")
    for cut in (len(want) // 2, len(want) - 3):
        for name in ("cli", "got"):
            (tmp_path / name).write_bytes(want[:cut])
            shutil.copy(tmp_path / "want.parhash-meta", tmp_path / f"{name}.parhash-meta")
        cli = run_cli("sum", "--no-progress", "-r", "-o", "cli", "--resume", "data", cwd=tmp_path)
        result = parhash.lists.write("got", ["data"], resume=True)
        assert read(tmp_path / "got") == want == read(tmp_path / "cli")
        assert read(tmp_path / "got.parhash-meta") == read(tmp_path / "cli.parhash-meta")
        assert (0 if result.ok else 1, cli_messages(result.messages).replace(b"got:", b"cli:")) == (cli[0], cli[2])
        assert cli[0] == 1 and b"dangling" in cli[2]


def test_audit_of_improper_lines_with_warn_and_strict(tmp_path, monkeypatch):
    make_tree(tmp_path / "data", files=20)
    monkeypatch.chdir(tmp_path)
    listed = run_cli("sum", "--no-progress", "-r", "data", cwd=tmp_path)[1]
    md5 = run_cli("sum", "--no-progress", "-a", "md5", "data/d0/s0/f0", cwd=tmp_path)[1]
    (tmp_path / "LIST").write_bytes(b"garbage\n" + listed + md5 + b"# comment\nmore garbage\n")
    for flags, options in (([], {}), (["-w"], {"warn": True}), (["--strict"], {"strict": True}),
                           (["--json", "-w"], {"json": True, "warn": True})):
        want = run_cli("check", "--no-progress", "--audit", *flags, "--audit-path", "data", "LIST", cwd=tmp_path)
        result = parhash.lists.audit("LIST", ["data"], **options)
        assert (0 if result.passed else 1, *events_as_cli(result.events)) == want, flags
        assert b"3 lines are improperly formatted" in want[2]
        assert want[0] == (1 if flags == ["--strict"] else 0)


def test_a_hasher_that_raises_leaves_a_list_to_resume(tmp_path, monkeypatch):
    make_tree(tmp_path / "data", files=100)
    monkeypatch.chdir(tmp_path)
    run_cli("sum", "--no-progress", "-r", "-o", "want", "data", cwd=tmp_path)

    def failing(names):
        for count, item in enumerate(parhash.hash_files(names, "sha256")):
            if count == 37:
                raise RuntimeError("the cluster went away")
            yield item

    with pytest.raises(RuntimeError):
        parhash.lists.write("got", ["data"], hasher=failing)
    assert read(tmp_path / "got").count(b"\n") == 37
    assert parhash.lists.write("got", ["data"], resume=True).ok
    assert read(tmp_path / "got") == read(tmp_path / "want")
    assert read(tmp_path / "got.parhash-meta") == read(tmp_path / "want.parhash-meta")


def test_side_file_records_found_in_list_order(tmp_path, monkeypatch):
    """parhash.format's side-file bindings read the CLI's side file: each list entry's record
    by name (passing over names gone), the record of a file as it is now, a line parsed."""
    from parhash import format as fmt

    make_tree(tmp_path / "data", files=30)
    monkeypatch.chdir(tmp_path)
    run_cli("sum", "--no-progress", "-r", "-o", "LIST", "data", cwd=tmp_path)
    lines = read(tmp_path / "LIST.parhash-meta").splitlines(keepends=True)
    assert lines[0] == fmt.META_HEADER
    records = [fmt.parse_meta_record(line) for line in lines[1:]]
    assert None not in records and fmt.parse_meta_record(lines[0]) is None
    side = fmt.SideFile(fmt.meta_path(b"LIST"), [b"data"])
    names = [name for name, _ in records]
    for name, meta in records[::3]:
        assert side.find(name) == meta
        assert fmt.meta_record(name) == lines[names.index(name) + 1]
    assert side.find(b"data/zzz") is None and side.taken_end > len(lines[0])
    odd = [name for name in names if b"\n" in name]
    assert odd and fmt.meta_record(odd[0]) == lines[names.index(odd[0]) + 1]
