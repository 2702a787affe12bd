"""parhash.format's list files, the code ``parhash sum -o`` writes its lists with: DurableFile
(written at once, cut and continued), replace, the own files left out of a walk, the lists of
``--lists DIR --list-name``, the digest size ``-l`` gives each of several algorithms. No Ray."""

import errno
import os
import subprocess

import pytest

import parhash.format as fmt
from conftest import cli_path


def test_durable_file_writes_at_once_and_continues_at_a_cut(tmp_path):
    path = tmp_path / "SUMS"
    out = fmt.DurableFile(path)
    assert out.path == os.fsencode(path) and not out.closed
    out.write(b"one\n")
    out.write(b"")
    out.write(b"two\ntorn")
    # Handed to the kernel at once: there before any sync or close.
    assert path.read_bytes() == b"one\ntwo\ntorn"
    out.sync()
    out.close()
    out.close()
    assert out.closed
    with pytest.raises(ValueError):
        out.write(b"late\n")
    with pytest.raises(ValueError):
        out.sync()
    with fmt.DurableFile.continue_at(os.fsencode(path), 8) as out:
        assert path.read_bytes() == b"one\ntwo\n"
        out.write(b"three\n")
        out.sync()
    assert out.closed
    assert path.read_bytes() == b"one\ntwo\nthree\n"
    fmt.DurableFile(str(path)).close()
    assert path.read_bytes() == b""


def test_errors_are_oserrors_with_errno_and_filename(tmp_path):
    missing = tmp_path / "gone" / "SUMS"
    for make in (lambda: fmt.DurableFile(missing), lambda: fmt.DurableFile.continue_at(missing, 0),
                 lambda: fmt.replace(tmp_path / "none", missing)):
        with pytest.raises(FileNotFoundError) as raised:
            make()
        assert raised.value.errno == errno.ENOENT
        assert os.fsencode(raised.value.filename) == os.fsencode(missing)


def test_replace_and_temporary_path(tmp_path):
    path = tmp_path / "SUMS"
    tmp = fmt.temporary_path(path)
    assert tmp == os.fsencode(path) + b".tmp"
    path.write_bytes(b"old\n")
    with fmt.DurableFile(tmp) as out:
        out.write(b"new\n")
    fmt.replace(tmp, path)
    assert path.read_bytes() == b"new\n" and not os.path.exists(tmp)


def test_own_files_are_left_out_by_identity(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert fmt.own_files("data/L") == [b"data/L", b"data/L.tmp", b"data/L.parhash-meta.tmp",
                                       b"data/L.parhash-meta", b"data/L.parhash-pieces.tmp",
                                       b"data/L.parhash-pieces"]
    os.makedirs("data/sub")
    for name in fmt.own_files("data/L") + [b"data/sub/L", b"data/sub/L.parhash-meta", b"data/x"]:
        with open(name, "wb") as f:
            f.write(b"x")
    walk = list(fmt.walk([b"data"]))
    kept = list(fmt.WithoutOwnFiles(iter(walk), "data/L"))
    # The same-named files elsewhere are data; only the list's own files go.
    assert [name for name, _ in kept] == [b"data/sub/L", b"data/sub/L.parhash-meta", b"data/x"]
    # A namesake that is the list under another way to it goes too.
    assert list(fmt.WithoutOwnFiles([(b"data/sub/../L", None)], b"data/L")) == []
    # An error is passed on as it is, whatever the name.
    failed = (b"data/L", OSError(errno.EACCES, "Permission denied"))
    assert list(fmt.WithoutOwnFiles([failed], "data/L")) == [failed]
    # Not there yet: nothing is left out.
    assert list(fmt.WithoutOwnFiles([(b"other/L", None)], "other/L")) == [(b"other/L", None)]


def test_list_paths_are_the_clis(tmp_path):
    (tmp_path / "out").mkdir()
    subprocess.run([str(cli_path()), "sum", "--no-progress", "-a", "sha256,blake2b", "--lists", "out",
                    "--list-name", "r.{alg}.{name}", os.devnull], cwd=tmp_path, check=True,
                   capture_output=True)
    paths = fmt.list_paths("out", "r.{alg}.{name}", ["sha256", "blake2b"])
    assert paths == [b"out/r.sha256.SHA256SUMS", b"out/r.blake2b.B2SUMS"]
    assert sorted(os.listdir(tmp_path / "out")) == sorted(os.path.basename(os.fsdecode(p)) for p in paths)
    assert fmt.list_paths(b"d", None, ["md5"]) == [b"d/MD5SUMS"]
    with pytest.raises(ValueError, match="two lists would be named d/S: see --list-name"):
        fmt.list_paths("d", "S", ["md5", "sha1"])


def test_digest_size_for_each_of_several_algorithms():
    assert fmt.digest_size_for("blake2b", 256) == 32
    assert fmt.digest_size_for("blake2b", 512) is None
    assert fmt.digest_size_for("blake2b", None) is None
    assert fmt.digest_size_for("md5", 256) is None
    assert fmt.digest_size_for("shake128", 512) == 64
    with pytest.raises(ValueError):
        fmt.digest_size_for("nonesuch", 256)
