"""Shared helpers: the Rust CLI as the control for algorithms hashlib does not have."""

import os
import pathlib
import subprocess

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]


def cli_path() -> pathlib.Path:
    """The `parhash` binary (scripts/test-python.sh builds it; PARHASH_CLI overrides)."""
    return pathlib.Path(os.environ.get("PARHASH_CLI", REPO / "target" / "debug" / "parhash"))


@pytest.fixture(scope="session")
def cli():
    path = cli_path()
    if not path.exists():
        pytest.fail(f"{path} is missing: build it with `cargo build -p parhash-cli` "
                    "(scripts/test-python.sh does) or point PARHASH_CLI at it")

    def sum_files(algorithm, files, *extra):
        """Digests of `files` as `parhash sum -a ALGORITHM` prints them, in order."""
        out = subprocess.run(
            [str(path), "sum", "-a", algorithm, "--no-progress", *extra, "--", *map(str, files)],
            check=True, capture_output=True,
        ).stdout
        return [bytes.fromhex(line.split(b"  ", 1)[0].decode()) for line in out.splitlines()]

    return sum_files
