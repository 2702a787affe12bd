"""Not collected by a plain pytest run (no `test_` prefix): test_distributed.py's
`test_the_tests_never_join_a_ray_running_here` runs it in a fresh pytest whose environment
points at a Ray that is not there (RAY_ADDRESS, and `ray start`'s record in RAY_TMPDIR). The
tests' fixtures and the `parhash-dist` runs without --address must start Ray of their own."""

import os

import pytest

pytest.importorskip("ray", reason="parhash.distributed needs the ray extra")

from test_distributed import cluster, run_cli, run_dist  # noqa: E402,F401  (a fixture)

pytestmark = pytest.mark.ray


def test_the_fixture_and_the_command_start_their_own_ray(cluster, tmp_path):  # noqa: F811
    nowhere = os.environ["PARHASH_TEST_RAY_NOWHERE"]
    assert cluster != nowhere
    path = tmp_path / "f"
    path.write_bytes(b"abc" * 1000)
    want = run_cli("sum", "-a", "md5", str(path))
    assert want[0] == 0
    assert run_dist(cluster, "sum", "-a", "md5", str(path)) == want
    # No --address: a Ray of its own, as in test_without_an_address_the_command_starts_its_own_ray.
    assert run_dist(None, "sum", "-a", "md5", str(path)) == want
    # What made it so: conftest dropped RAY_ADDRESS and gave Ray a temp folder of its own.
    assert "RAY_ADDRESS" not in os.environ
    assert os.path.dirname(os.environ["RAY_TMPDIR"]) == os.environ["PARHASH_TEST_RAY_TMPDIR"]
