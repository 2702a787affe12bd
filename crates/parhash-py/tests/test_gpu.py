"""The GPU from Python (``device="gpu"``): where there is no usable GPU every call says why with
one RuntimeError and nothing else changes; where there is one (``scripts/gpu-check.sh`` runs
``scripts/gpu-check-python.py`` on the GPU machine too) the digests are the CPU's."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

import parhash


def gpu_name() -> str | None:
    try:
        return parhash.gpu_device()
    except RuntimeError as e:
        assert str(e).startswith("no usable CUDA GPU: "), e
        return None


def test_the_device_is_checked() -> None:
    with pytest.raises(ValueError, match="device must be 'cpu' or 'gpu'"):
        parhash.hash_many([b"a"], "sha256", device="tpu")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="device must be 'cpu' or 'gpu'"):
        parhash.hash_file(__file__, "sha256", device="TPU")  # type: ignore[arg-type]
    assert parhash.hash_many([b"abc"], "sha256", device="cpu") == [hashlib.sha256(b"abc").digest()]


def test_what_the_gpu_does_not_run_is_refused_before_it_is_asked(tmp_path: Path) -> None:
    # The same refusal with or without a GPU: the request, not the machine, is wrong.
    with pytest.raises(ValueError, match="not md5"):
        parhash.hash_many([b"a"], "md5", device="gpu")
    path = tmp_path / "f"
    path.write_bytes(b"x" * 1000)
    with pytest.raises(ValueError, match="hashes parsha256, not sha256"):
        parhash.hash_file(path, "sha256", device="gpu")
    with pytest.raises(TypeError, match="takes tree_height and iv_bits"):
        parhash.hash_file(path, "parsha256", 2, device="gpu")
    with pytest.raises(TypeError, match="one algorithm name"):
        parhash.hash_file(path, ["parsha256"], device="gpu")  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="tree_height"):
        parhash.hash_file(path, "parsha256", tree_height=99, device="gpu")


def test_the_gpu_gives_the_cpu_digests_or_says_why_it_cannot(tmp_path: Path) -> None:
    messages = [bytes(range(n % 256)) * (n // 256 + 1) for n in range(0, 3000, 37)] + [b""]
    path = tmp_path / "big"
    path.write_bytes(bytes(i % 251 for i in range(300_000)))
    name = gpu_name()
    if name is None:
        for call in (
            lambda: parhash.hash_many(messages, "sha256", device="gpu"),
            lambda: parhash.hash_file(path, "parsha256", device="gpu"),
        ):
            with pytest.raises(RuntimeError, match="^no usable CUDA GPU: "):
                call()
        return
    for alg in ("sha256", "sha3_256", "keccak256", "parsha256"):
        assert parhash.hash_many(messages, alg, device="gpu") == parhash.hash_many(messages, alg), alg
    assert parhash.hash_many(messages, "sha256", device="gpu") == [hashlib.sha256(m).digest() for m in messages]
    for t, iv in ((13, 256), (4, 0)):
        assert parhash.hash_file(path, "parsha256", tree_height=t, iv_bits=iv, device="gpu") == parhash.hash_file(
            path, "parsha256", tree_height=t, iv_bits=iv
        )
    with pytest.raises(FileNotFoundError):
        parhash.hash_file(tmp_path / "missing", "parsha256", device="gpu")
