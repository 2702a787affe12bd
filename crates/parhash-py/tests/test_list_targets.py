"""What parhash.lists writes a list to, as ``parhash sum -o`` does (the CLI as the control): a
symbolic link followed to the list it names (written, updated and resumed beside it, the link
left a link), a device or a pipe written once without a side file (update and resume of one
refused), and a list another run is writing left alone (BlockingIOError)."""

import fcntl
import os
import shutil
import stat
import threading

import pytest

import parhash.lists
from test_lists import cli_messages, make_tree, read, run_cli


def snapshot(*paths):
    return [read(path) for path in paths]


def lines_of(path):
    return read(path).count(b"\n")


def test_a_link_is_followed_to_its_list_in_another_folder(tmp_path, monkeypatch):
    make_tree(tmp_path / "data", files=60)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "lists").mkdir()
    # A relative link, read from the link's own folder.
    os.symlink(os.path.join("lists", "SUMS"), tmp_path / "link")
    real, side = tmp_path / "lists" / "SUMS", tmp_path / "lists" / "SUMS.parhash-meta"

    def beside_the_link():
        return sorted(name for name in os.listdir(tmp_path) if name.startswith("link"))

    assert run_cli("sum", "--no-progress", "-r", "-o", "link", "data", cwd=tmp_path) == (0, b"", b"")
    written = snapshot(real, side)
    os.remove(real)
    os.remove(side)
    result = parhash.lists.write("link", ["data"])
    assert result.ok and result.messages == []
    assert snapshot(real, side) == written
    assert os.path.islink(tmp_path / "link") and beside_the_link() == ["link"]

    # --update through the link: the list replaced beside itself, the link kept.
    (tmp_path / "data" / "d1" / "new file").write_bytes(b"new")
    os.remove(tmp_path / "data" / "d0" / "s0" / "f0")
    want = run_cli("sum", "--no-progress", "-r", "-o", "link", "--update", "data", cwd=tmp_path)
    assert want[0] == 0 and b"parhash: link: updated: " in want[2]
    updated = snapshot(real, side)
    real.write_bytes(written[0])
    side.write_bytes(written[1])
    result = parhash.lists.update("link", ["data"])
    assert result.ok and cli_messages(result.messages) == want[2]
    assert snapshot(real, side) == updated
    assert os.path.islink(tmp_path / "link") and beside_the_link() == ["link"]
    assert sorted(os.listdir(tmp_path / "lists")) == ["SUMS", "SUMS.parhash-meta"]

    # --resume through the link: the list cut short (a torn last line) and continued there.
    whole = snapshot(real, side)
    cut = whole[0].index(b"\n", len(whole[0]) // 2) + 5
    real.write_bytes(whole[0][:cut])
    want = run_cli("sum", "--no-progress", "-r", "-o", "link", "--resume", "data", cwd=tmp_path)
    assert want[0] == 0 and snapshot(real, side) == whole
    real.write_bytes(whole[0][:cut])
    result = parhash.lists.write("link", ["data"], resume=True)
    assert result.ok and cli_messages(result.messages) == want[2]
    assert b"written again" in want[2]
    assert snapshot(real, side) == whole
    assert os.path.islink(tmp_path / "link") and beside_the_link() == ["link"]


def test_a_link_to_no_list_yet_is_written_where_it_points(tmp_path, monkeypatch):
    make_tree(tmp_path / "data", files=10)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "lists").mkdir()
    os.symlink(tmp_path / "lists" / "SUMS", tmp_path / "link")
    # update with no list yet writes one, as `sum --update` does.
    assert parhash.lists.update("link", ["data"]).ok
    assert os.path.islink(tmp_path / "link")
    assert sorted(os.listdir(tmp_path / "lists")) == ["SUMS", "SUMS.parhash-meta"]
    assert read(tmp_path / "lists" / "SUMS") == run_cli("sum", "--no-progress", "-r", "data", cwd=tmp_path)[1]


def test_dev_null_is_written_once_and_not_resumed_or_updated(tmp_path, monkeypatch):
    make_tree(tmp_path / "data", files=10)
    monkeypatch.chdir(tmp_path)
    result = parhash.lists.write("/dev/null", ["data"])
    assert result.ok and result.messages == []
    # No side file, .tmp or rename beside a device (which root could otherwise make there).
    assert not os.path.lexists("/dev/null.parhash-meta") and not os.path.lexists("/dev/null.tmp")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    for flag, call in [("--update", lambda: parhash.lists.update("/dev/null", ["data"])),
                       ("--resume", lambda: parhash.lists.write("/dev/null", ["data"], resume=True))]:
        want = run_cli("sum", "--no-progress", "-r", "-o", "/dev/null", flag, "data", cwd=tmp_path)
        with pytest.raises(ValueError) as raised:
            call()
        assert want[0] == 1 and cli_messages([str(raised.value)]) == want[2]
        assert f"cannot {flag} /dev/null: not a regular file" in str(raised.value)


def test_a_fifo_gets_the_lines_once(tmp_path, monkeypatch):
    make_tree(tmp_path / "data", files=40)
    monkeypatch.chdir(tmp_path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got = []
    reader = threading.Thread(target=lambda: got.append(read(fifo)), daemon=True)
    reader.start()
    try:
        result = parhash.lists.write("fifo", ["data"])
        reader.join(timeout=60)
    finally:
        if reader.is_alive():
            # Lets a reader still waiting for a writer go.
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
    assert result.ok and result.messages == []
    assert got == [run_cli("sum", "--no-progress", "-r", "data", cwd=tmp_path)[1]]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert sorted(os.listdir(tmp_path)) == ["data", "fifo"]
    # Refused before the pipe is opened: nothing waits for a reader.
    with pytest.raises(ValueError, match="cannot --update .*fifo: not a regular file"):
        parhash.lists.update("fifo", ["data"])
    with pytest.raises(ValueError, match="cannot --resume .*fifo: not a regular file"):
        parhash.lists.write("fifo", ["data"], resume=True)


def locked_out(path):
    """BlockingIOError's check: the list named, the CLI's reason."""
    def check(raised):
        assert os.fsdecode(raised.value.filename) == os.fsdecode(path)
        assert "another run is writing it" in str(raised.value)
    return check


def test_a_list_another_run_writes_is_left_alone(tmp_path, monkeypatch):
    """A list flock(2)ed by someone else, as the CLI's File::try_lock locks it on Linux: every
    writer refuses with BlockingIOError before it cuts or writes anything."""
    make_tree(tmp_path / "data", files=20)
    monkeypatch.chdir(tmp_path)
    assert parhash.lists.write("SUMS", ["data"]).ok
    (tmp_path / "data" / "new").write_bytes(b"new")
    before = snapshot("SUMS", "SUMS.parhash-meta")
    os.symlink("SUMS", tmp_path / "link")
    fd = os.open("SUMS", os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        for name in ("SUMS", "link"):
            for call in (lambda: parhash.lists.write(name, ["data"]),
                         lambda: parhash.lists.write(name, ["data"], resume=True),
                         lambda: parhash.lists.update(name, ["data"]),
                         lambda: parhash.lists.update(name, ["data"], rehash_changed=True)):
                with pytest.raises(BlockingIOError) as raised:
                    call()
                locked_out(b"SUMS")(raised)
        # The CLI, another process, sees the same lock.
        for flags in ([], ["--resume"], ["--update"]):
            status, out, err = run_cli("sum", "--no-progress", "-r", "-o", "SUMS", *flags, "data", cwd=tmp_path)
            assert status == 1 and err == b"parhash: cannot write SUMS: another run is writing it\n"
        assert snapshot("SUMS", "SUMS.parhash-meta") == before
        assert sorted(os.listdir(tmp_path)) == ["SUMS", "SUMS.parhash-meta", "data", "link"]
    finally:
        os.close(fd)
    # Let go: written again.
    assert parhash.lists.update("SUMS", ["data"]).ok
    assert read("SUMS") == run_cli("sum", "--no-progress", "-r", "data", cwd=tmp_path)[1]


@pytest.mark.parametrize("how", ["write", "resume", "update"])
def test_a_list_being_written_locks_out_a_second_writer(tmp_path, monkeypatch, how):
    """While a list is written, resumed or updated here (the new list, and for an update the
    old one too, are locked until both renames are done), another writer of it is refused, and
    the first one's list comes out whole."""
    make_tree(tmp_path / "data", files=30)
    monkeypatch.chdir(tmp_path)
    run_cli("sum", "--no-progress", "-r", "-o", "want", "data", cwd=tmp_path)
    if how != "write":
        shutil.copy("want", "SUMS")
        shutil.copy("want.parhash-meta", "SUMS.parhash-meta")
        # Last in the walk's order.
        (tmp_path / "data" / "zz-added").write_bytes(b"added")
        if how == "resume":
            # Cut after the first line: resuming hashes the rest, the file added with it.
            with open("SUMS", "r+b") as f:
                f.truncate(read("want").index(b"\n") + 1)
        run_cli("sum", "--no-progress", "-r", "-o", "want", "--update", "data", cwd=tmp_path)
    refused = []

    def second_writer(names):
        if not refused:
            for call in (lambda: parhash.lists.write("SUMS", ["data"]),
                         lambda: parhash.lists.write("SUMS", ["data"], resume=True),
                         lambda: parhash.lists.update("SUMS", ["data"])):
                with pytest.raises(BlockingIOError) as raised:
                    call()
                locked_out(b"SUMS")(raised)
                refused.append(True)
            status, _, err = run_cli("sum", "--no-progress", "-r", "-o", "SUMS", "data", cwd=tmp_path)
            assert status == 1 and b"another run is writing it" in err
        return parhash.hash_files(names, "sha256")

    if how == "update":
        result = parhash.lists.update("SUMS", ["data"], hasher=second_writer)
    else:
        result = parhash.lists.write("SUMS", ["data"], resume=how == "resume", hasher=second_writer)
    assert result.ok and len(refused) == 3
    assert read("SUMS") == read("want")
    assert lines_of("SUMS") >= 30
    assert not os.path.exists("SUMS.tmp") and not os.path.exists("SUMS.parhash-meta.tmp")
