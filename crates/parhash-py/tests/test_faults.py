"""`parhash.hash_file` on a file whose reads go wrong: the `seekfs` binary (crates/seekfs)
serves it with faults injected. A read error raises OSError (never a digest), short reads give
the file's digest, and a file that changes under the reader gets no digest that is neither its
old nor its new version.

Mounting needs root and /dev/fuse: elsewhere these tests skip, saying why; under the environment
variable CI they fail instead. The binary is REPO/target/debug/seekfs (scripts/test-python.sh
builds it) or the one SEEKFS names."""

import hashlib
import os
import pathlib
import signal
import subprocess
import time

import pytest

import parhash
from conftest import REPO

SIZES = [40_000, 9 * 2**20 + 321]
ALGORITHMS = ["sha256", "blake3"]


def seekfs_path() -> pathlib.Path:
    return pathlib.Path(os.environ.get("SEEKFS", REPO / "target" / "debug" / "seekfs"))


def cannot_mount(reason):
    if os.environ.get("CI"):
        pytest.fail(f"cannot mount seekfs under CI: {reason}")
    pytest.skip(f"cannot mount seekfs here: {reason}")


def data_of(size):
    return bytes((i * 7 + i // 4099) & 0xFF for i in range(size))


class Mount:
    """`data` served by the seekfs binary from TMP/backing/f on TMP/m, with `flags`."""

    def __init__(self, tmp, data, flags):
        if os.geteuid() != 0 or not os.path.exists("/dev/fuse"):
            cannot_mount("needs root and /dev/fuse")
        binary = seekfs_path()
        if not binary.exists():
            cannot_mount(f"{binary} is missing: build it with `cargo build -p seekfs`")
        (tmp / "backing").mkdir()
        (tmp / "m").mkdir()
        (tmp / "backing" / "f").write_bytes(data)
        self.path = tmp / "m" / "f"
        self.process = subprocess.Popen(
            [str(binary), "--backing", str(tmp / "backing" / "f"), "--mount", str(tmp / "m"),
             "--seek-ms", "0", "--rate-mb-s", "inf", *flags],
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 20
        while not self.path.exists():
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.close()
                cannot_mount(self.process.stderr.read().decode(errors="replace"))
            time.sleep(0.02)

    def close(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=20)


@pytest.fixture
def mount(tmp_path):
    """Starts a mount (each in a folder of its own); all are unmounted after the test."""
    mounts = []

    def start(data, *flags):
        directory = tmp_path / str(len(mounts))
        directory.mkdir()
        mounts.append(Mount(directory, data, flags))
        return mounts[-1]

    yield start
    for m in mounts:
        m.close()


def in_memory(algorithm, data):
    return parhash.new(algorithm, data).digest()


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_read_error_raises_oserror(mount, size, algorithm):
    m = mount(data_of(size), "--fail-at", str(size // 2 + 17))
    with pytest.raises(OSError) as raised:
        parhash.hash_file(m.path, algorithm)
    assert str(m.path) in str(raised.value) or raised.value.filename is not None


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_short_reads_give_the_digest(mount, size, algorithm):
    data = data_of(size)
    m = mount(data, "--short-reads", str(4097 * 3))
    expected = in_memory(algorithm, data)
    if algorithm == "sha256":
        assert expected == hashlib.sha256(data).digest()
    assert parhash.hash_file(m.path, algorithm) == expected


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_a_file_changing_under_the_reader_gets_no_wrong_digest(mount, algorithm):
    size = SIZES[1]
    old = data_of(size)
    # Every byte inverted: what was read before the change differs from the new version.
    new = bytes(b ^ 0xFF for b in old)
    m = mount(old, "--change-after", str(size // 4), "--change-flip-from", "0", "--change-mtime")
    try:
        digest = parhash.hash_file(m.path, algorithm)
    except OSError:
        return
    assert digest in (in_memory(algorithm, old), in_memory(algorithm, new))
