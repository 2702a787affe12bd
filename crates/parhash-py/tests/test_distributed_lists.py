"""parhash-dist sum -o [--resume | --update] and check --audit, and parhash.distributed's
write_list/update_list/audit_list, against the Rust CLI as the control: lists, side files
and reports byte for byte, the driver killed (SIGKILL) and resumed."""

import os
import random
import signal
import subprocess
import sys
import time

import pytest

ray = pytest.importorskip("ray", reason="parhash.distributed needs the ray extra")

from parhash import distributed  # noqa: E402
from test_distributed import cluster  # noqa: E402,F401 - the module's own local Ray
from test_lists import IS_ROOT, audit_tree, change_tree, cli_update, make_tree, read, run_cli  # noqa: E402

pytestmark = pytest.mark.ray


def run_dist(address, *args, cwd):
    command = [sys.executable, "-m", "parhash.distributed.cli", args[0], "--address", address, *args[1:]]
    done = subprocess.run(command, capture_output=True, cwd=cwd)
    return done.returncode, done.stdout, done.stderr.replace(b"parhash-dist: ", b"parhash: ")


@pytest.mark.parametrize("flags", [[], ["--tag", "-a", "md5"], ["-z"], ["--json"]])
def test_sum_o_equals_the_cli(cluster, tmp_path, flags):  # noqa: F811
    make_tree(tmp_path / "data")
    if not IS_ROOT:
        (tmp_path / "data" / "locked").write_bytes(b"x")
        os.chmod(tmp_path / "data" / "locked", 0)
    want = run_cli("sum", "--no-progress", "-r", *flags, "-o", "want", "data", cwd=tmp_path)
    got = run_dist(cluster, "sum", "-r", "--task-files", "37", *flags, "-o", "got", "data", cwd=tmp_path)
    assert got == want
    assert read(tmp_path / "got") == read(tmp_path / "want")
    assert read(tmp_path / "got.parhash-meta") == read(tmp_path / "want.parhash-meta")
    assert len(read(tmp_path / "want").split(b"\0" if "-z" in flags else b"\n")) > 400


# The driver with Ctrl-C's handler even when this test runs with SIGINT ignored (a job started
# in the background, as CI's), which Python would otherwise keep.
DRIVER_WITH_SIGINT = (
    "import runpy, signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
    "runpy.run_module('parhash.distributed.cli', run_name='__main__', alter_sys=True)"
)


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGINT])
def test_sum_o_driver_killed_and_resumed(cluster, tmp_path, sig):  # noqa: F811
    """The driver killed (SIGKILL: a torn last line likely) or interrupted (SIGINT, as Ctrl-C:
    exit status 130) at random points of the list, resumed each time: the CLI's
    uninterrupted list and side file."""
    make_tree(tmp_path / "data", files=1500)
    run_cli("sum", "--no-progress", "-r", "-o", "want", "data", cwd=tmp_path)
    total = read(tmp_path / "want").count(b"\n")
    args = ["sum", "--address", cluster, "-r", "--task-files", "4", "-o", "got", "data", "--resume"]
    rng = random.Random(23)
    kills = 0
    for target in sorted(rng.sample(range(50, total - 50), 3)):
        command = [sys.executable, "-c", DRIVER_WITH_SIGINT, *args]
        process = subprocess.Popen(command, cwd=tmp_path, stderr=subprocess.DEVNULL)
        while process.poll() is None:
            if os.path.exists(tmp_path / "got") and read(tmp_path / "got").count(b"\n") >= target:
                process.send_signal(sig)
                kills += 1
                break
            time.sleep(0.005)
        status = process.wait()
        assert status == (-signal.SIGKILL if sig == signal.SIGKILL else 130)
        assert read(tmp_path / "got") != read(tmp_path / "want")
    done = run_dist(cluster, *args, cwd=tmp_path)
    assert done[0] == 0
    assert read(tmp_path / "got") == read(tmp_path / "want")
    assert read(tmp_path / "got.parhash-meta") == read(tmp_path / "want.parhash-meta")
    assert kills == 3


def test_sum_lists_on_disk_while_the_driver_waits_and_after_it_is_killed(cluster, tmp_path):  # noqa: F811
    """--lists writes its lists as -o writes its list (DurableFile: every line handed to the
    kernel at once): while the run waits on a FIFO no one writes, every list holds the lines
    of the 40 files before it, and the driver killed there (SIGKILL) loses none of them: the
    CLI's lists of those files, byte for byte."""
    files = []
    for i in range(40):
        (tmp_path / f"f{i:02}").write_bytes(f"file {i}\n".encode() * (i + 1))
        files.append(str(tmp_path / f"f{i:02}"))  # the workers' directory is not this one
    (tmp_path / "want").mkdir()
    (tmp_path / "got").mkdir()
    assert run_cli("sum", "--no-progress", "-a", "md5,sha256", "--lists", "want", *files, cwd=tmp_path)[0] == 0
    names = ["MD5SUMS", "SHA256SUMS"]
    want = [read(tmp_path / "want" / name) for name in names]
    assert all(text.endswith(b"f39\n") for text in want)

    def got():
        return [read(tmp_path / "got" / name) if (tmp_path / "got" / name).exists() else b"" for name in names]

    fifo = tmp_path / "zz"
    os.mkfifo(fifo)
    command = [sys.executable, "-m", "parhash.distributed.cli", "sum", "--address", cluster, "--task-files", "1",
               "-a", "md5,sha256", "--lists", "got", *files, str(fifo)]
    with open(tmp_path / "stderr", "wb") as errors:
        process = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=errors)
    try:
        deadline = time.monotonic() + 60
        while got() != want and time.monotonic() < deadline:
            assert process.poll() is None, read(tmp_path / "stderr")
            time.sleep(0.02)
        process.kill()
        assert process.wait() == -signal.SIGKILL
        lists = got()
        assert lists == want, f"{[len(text) for text in lists]} bytes of {[len(text) for text in want]}"
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
        # A worker still waiting to open the FIFO reads an end of file and ends.
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass


def test_sum_lists_that_cannot_be_written_are_named_as_the_cli_names_them(cluster, tmp_path):  # noqa: F811
    """A list of --lists on a full disk (a link to /dev/full): ``cannot write FILE: REASON``,
    status 1, as the CLI says it."""
    (tmp_path / "f").write_bytes(b"data\n")
    (tmp_path / "full").mkdir()
    os.symlink("/dev/full", tmp_path / "full" / "SHA256SUMS")
    args = ["sum", "-a", "md5,sha256", "--lists", "full", str(tmp_path / "f")]
    want = run_cli(*args, cwd=tmp_path)
    assert want == (1, b"", b"parhash: cannot write full/SHA256SUMS: No space left on device\n")
    assert run_dist(cluster, *args, cwd=tmp_path) == want


@pytest.mark.parametrize("rehash", [False, True])
def test_update_equals_the_cli(cluster, tmp_path, rehash):  # noqa: F811
    flags = ["--rehash-changed"] if rehash else []
    want = cli_update(tmp_path, flags)
    got = run_dist(cluster, "sum", "-r", "-o", "got", "--update", *flags, "data", cwd=tmp_path)
    assert (got[0], got[1], got[2].replace(b"got:", b"cli:")) == want
    assert read(tmp_path / "got") == read(tmp_path / "cli")
    assert read(tmp_path / "got.parhash-meta") == read(tmp_path / "cli.parhash-meta")
    assert b"2 added" in want[2]


@pytest.mark.parametrize("flags", [[], ["--json"], ["--audit-path", "data/d3", "--audit-path", "data/odd"]])
def test_check_audit_equals_the_cli(cluster, tmp_path, flags):  # noqa: F811
    audit_tree(tmp_path)
    want = run_cli("check", "--no-progress", "--audit", *flags, "LIST", cwd=tmp_path)
    got = run_dist(cluster, "check", "--audit", *flags, "LIST", cwd=tmp_path)
    assert got == want
    assert want[0] == 1 and b"MOVED" in want[1].upper()


def test_python_api_on_the_cluster(cluster, tmp_path, monkeypatch):  # noqa: F811
    make_tree(tmp_path / "data", files=80)
    monkeypatch.chdir(tmp_path)
    run_cli("sum", "--no-progress", "-r", "-o", "want", "data", cwd=tmp_path)
    assert distributed.write_list("got", ["data"], address=cluster, task_files=5).ok
    assert read(tmp_path / "got") == read(tmp_path / "want")
    change_tree(tmp_path / "data")
    run_cli("sum", "--no-progress", "-r", "-o", "want", "--update", "--rehash-changed", "data", cwd=tmp_path)
    result = distributed.update_list("got", ["data"], rehash_changed=True, address=cluster)
    assert result.ok and read(tmp_path / "got") == read(tmp_path / "want")
    audit = distributed.audit_list("got", ["data"], address=cluster)
    assert audit.passed and audit.counts["matched"] == len(read(tmp_path / "got").splitlines())


def test_usage_errors_exit_1_before_connecting(tmp_path):
    """Flags that do not go together are refused in the CLI's words, before Ray is reached."""
    for args, text in ((["sum", "-r", "--update", "d"], b"'--update' requires '--output <FILE>'"),
                       (["sum", "-r", "-o", "L", "--resume", "--update", "d"], b"cannot be used with '--update'"),
                       (["sum", "-r", "-o", "L", "--rehash-changed", "d"], b"requires '--update'"),
                       (["sum", "-a", "md5,sha1", "-o", "L", "d"], b"take one algorithm"),
                       (["check", "--audit", "A", "B"], b"--audit takes exactly one checksum list"),
                       (["check", "--audit-path", "x", "L"], b"requires '--audit'")):
        done = subprocess.run([sys.executable, "-m", "parhash.distributed.cli", *args], capture_output=True,
                              cwd=tmp_path, timeout=60)
        assert done.returncode == 1 and text in done.stderr, args
        assert b"Try 'parhash-dist" in done.stderr
