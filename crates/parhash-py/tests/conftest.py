"""Shared helpers: the Rust CLI as the control for algorithms hashlib does not have; a Ray of
the tests' own."""

import atexit
import json
import os
import pathlib
import shutil
import subprocess
import tempfile

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]


def _isolate_ray():
    """The tests never join a Ray that runs on this machine: Ray's `ray.init()` (and
    `parhash-dist` without --address, which the tests run) would join the cluster named by
    RAY_ADDRESS, or else the one `ray start` recorded in Ray's temp folder
    (RAY_TMPDIR/ray/ray_current_cluster). So RAY_ADDRESS is dropped and Ray gets a fresh temp
    folder for this test run, inherited by every process the tests start; the fixtures also
    start Ray with address="local" (a new instance, never an existing one)."""
    os.environ.pop("RAY_ADDRESS", None)
    # Under the folder the user chose for Ray, if any, else Ray's own; a short name: Ray's
    # socket paths below it must stay under 108 bytes.
    private = tempfile.mkdtemp(prefix="pr-", dir=os.environ.get("RAY_TMPDIR") or "/tmp")
    os.environ["RAY_TMPDIR"] = private
    atexit.register(shutil.rmtree, private, ignore_errors=True)
    return private


# At import, before any test module starts Ray.
RAY_TMPDIR = _isolate_ray()


def cli_path() -> pathlib.Path:
    """The `parhash` binary (scripts/test-python.sh builds it; PARHASH_CLI overrides)."""
    return pathlib.Path(os.environ.get("PARHASH_CLI", REPO / "target" / "debug" / "parhash"))


def control_tool(name: str, package: str) -> str:
    """The path of the control tool `name`: where it is missing, a test fails under CI (which
    installs `package`: scripts/install-test-deps.sh) and is skipped elsewhere."""
    path = shutil.which(name)
    if path is None:
        if os.environ.get("CI"):
            pytest.fail(f"CI must compare with {name}: scripts/install-test-deps.sh installs {package}")
        pytest.skip(f"{name} is not installed (apt-get install {package})")
    return path


@pytest.fixture(scope="session")
def cli():
    path = cli_path()
    if not path.exists():
        pytest.fail(f"{path} is missing: build it with `cargo build -p parhash-cli` "
                    "(scripts/test-python.sh does) or point PARHASH_CLI at it")

    def sum_files(algorithm, files, *extra):
        """Digests of `files` as `parhash sum -a ALGORITHM` prints them, in order."""
        # coreutils' legacy checksums print `SUM COUNT NAME`, not their digest: JSON has it.
        legacy = algorithm in ("crc", "crc32b", "sysv", "bsd")
        out = subprocess.run(
            [str(path), "sum", "-a", algorithm, "--no-progress", *(["--json"] if legacy else []),
             *extra, "--", *map(str, files)],
            check=True, capture_output=True,
        ).stdout
        if legacy:
            return [bytes.fromhex(json.loads(line)["digest"]) for line in out.splitlines()]
        return [bytes.fromhex(line.split(b"  ", 1)[0].decode()) for line in out.splitlines()]

    return sum_files
