"""A 1 GiB file is hashed with bounded memory (its peak RSS measured in a fresh process)."""

import hashlib
import subprocess
import sys
import textwrap

import pytest

GIB = 1 << 30
# The interpreter and the extension take ~20 MiB; a file read whole would take 1 GiB more.
RSS_LIMIT_MIB = 200

CHILD = textwrap.dedent("""
    import resource, sys
    import parhash
    digest = parhash.hash_file(sys.argv[1], sys.argv[2])
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(digest.hex(), peak_mib)
""")


@pytest.fixture(scope="module")
def big_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("big") / "one-gib"
    with open(path, "wb") as f:
        # Sparse: no disk space, and reading it gives zeros at memory speed.
        f.truncate(GIB)
    return path


@pytest.mark.parametrize("name", ["sha256", "sandstorm256", "parsha256"])
def test_one_gib_file_in_bounded_memory(name, big_file):
    out = subprocess.run([sys.executable, "-c", CHILD, str(big_file), name],
                         check=True, capture_output=True, text=True).stdout.split()
    digest, peak_mib = out[0], float(out[1])
    assert peak_mib < RSS_LIMIT_MIB, f"{name}: peak RSS {peak_mib:.0f} MiB"
    if name == "sha256":
        h = hashlib.sha256()
        zeros = bytes(1 << 24)
        for _ in range(GIB // len(zeros)):
            h.update(zeros)
        assert digest == h.hexdigest()
