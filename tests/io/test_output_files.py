"""Tests of output paths (swgpu.io.writers.output): what is replaced atomically
(regular files, new paths, link targets), what is written straight through
(devices, FIFOs, sockets, /dev/fd), file modes and compressed output."""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import threading
from importlib import resources
from pathlib import Path

import pytest

import swgpu
from swgpu.exceptions import InputError
from swgpu.io.writers import OutputFile
from swgpu.io.writers.output import abort_pending, output_target

EXAMPLES = Path(str(resources.files("swgpu").joinpath("data", "examples")))
TEXT = "".join(f"line {i}\tvalue {i * i}\n" for i in range(2000))


def _write(path, text=TEXT, **kw) -> None:
    with OutputFile(path, **kw) as out:
        out.write(text)


def _identity(st: os.stat_result) -> tuple:
    return stat.S_IFMT(st.st_mode), st.st_ino, st.st_dev, st.st_rdev


def _drain(path_or_fd, into: list) -> threading.Thread:
    """A thread reading everything from a FIFO path or a file descriptor into ``into``."""
    def run():
        with open(path_or_fd, "rb") as fh:
            into.append(fh.read())
    reader = threading.Thread(target=run, daemon=True)
    reader.start()
    return reader


@pytest.fixture
def no_rename_in_dev(monkeypatch):
    """Whatever the implementation does, nothing in /dev is renamed onto (a test
    run as root must never replace the system's /dev/null)."""
    def guard(real):
        def rename(src, dst, *args, **kwargs):
            if os.path.realpath(os.fspath(dst)).startswith("/dev/"):
                raise AssertionError(f"tried to replace {dst}")
            return real(src, dst, *args, **kwargs)
        return rename
    monkeypatch.setattr(os, "replace", guard(os.replace))
    monkeypatch.setattr(os, "rename", guard(os.rename))


def test_dev_null_is_written_to_never_replaced(no_rename_in_dev):
    before = os.stat("/dev/null")
    assert stat.S_ISCHR(before.st_mode)
    assert output_target("/dev/null") == (False, "/dev/null")
    _write("/dev/null")
    _write("/dev/null", b"bytes", binary=True)
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode), "/dev/null was replaced by a regular file"
    assert _identity(after) == _identity(before)


def test_link_to_dev_null_is_written_through(tmp_path, no_rename_in_dev):
    before = os.stat("/dev/null")
    (tmp_path / "sink").symlink_to("/dev/null")
    _write(tmp_path / "sink")
    assert (tmp_path / "sink").is_symlink() and os.readlink(tmp_path / "sink") == "/dev/null"
    assert _identity(os.stat("/dev/null")) == _identity(before)
    assert os.listdir(tmp_path) == ["sink"]


def test_fifo_reader_gets_everything(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got: list = []
    reader = _drain(fifo, got)
    _write(fifo)
    reader.join(10)
    assert got == [TEXT.encode()]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert os.listdir(tmp_path) == ["fifo"]


def test_dev_fd_of_a_pipe_in_process():
    r, w = os.pipe()
    got: list = []
    reader = _drain(r, got)
    try:
        _write(f"/dev/fd/{w}")
    finally:
        os.close(w)
    reader.join(10)
    assert got == [TEXT.encode()]


def test_dev_fd_of_a_file_opened_for_appending_keeps_its_content(tmp_path):
    """A descriptor of this process is duplicated, not reopened: ``>> log`` stays an append."""
    log = tmp_path / "log.txt"
    log.write_text("earlier\n")
    with open(log, "ab") as fh:
        _write(f"/dev/fd/{fh.fileno()}", "more\n")
        _write(f"/proc/self/fd/{fh.fileno()}", "and more\n")
    assert log.read_text() == "earlier\nmore\nand more\n" and os.listdir(tmp_path) == ["log.txt"]


def test_closed_descriptor_is_an_error_naming_the_path(run_cli):
    fd = 987  # far above the descriptors a test opens
    with pytest.raises(OSError):
        os.fstat(fd)
    with pytest.raises(OSError) as info:
        OutputFile(f"/dev/fd/{fd}")
    assert info.value.filename == f"/dev/fd/{fd}"
    code, out, err = run_cli(["align", EXAMPLES / "queries.fasta", EXAMPLES / "targets.fasta", "--device", "cpu",
                              "-o", f"/dev/fd/{fd}"])
    assert (code, out) == (2, "") and err.startswith(f"swgpu: error: /dev/fd/{fd}: ") and err.count("\n") == 1


def test_cli_output_to_dev_fd_of_a_pipe(run_cli, tmp_path):
    """``swgpu align ... -o /dev/fd/N``, as bash's ``-o >(gzip > x.gz)`` gives it."""
    args = ["align", EXAMPLES / "queries.fasta", EXAMPLES / "targets.fasta", "-f", "blast6", "--device", "cpu"]
    code, expected, _ = run_cli(args)
    assert code == 0 and expected
    r, w = os.pipe()
    got: list = []
    reader = _drain(r, got)
    proc = subprocess.run([sys.executable, "-m", "swgpu", *map(str, args), "-o", f"/dev/fd/{w}"], pass_fds=(w,),
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    os.close(w)
    reader.join(10)
    assert proc.returncode == 0, proc.stderr
    assert got == [expected.encode()] and os.listdir(tmp_path) == []


def test_unix_socket_is_written_to(tmp_path):
    path = str(tmp_path / "sock")
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(1)
    got: list = []

    def serve():
        conn, _ = server.accept()
        with conn, conn.makefile("rb") as fh:
            got.append(fh.read())

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    _write(path)
    thread.join(10)
    server.close()
    assert got == [TEXT.encode()]


def test_symlink_is_followed_and_stays_a_link(tmp_path):
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "hits.tsv"
    target.write_text("old\n")
    link = tmp_path / "hits.tsv"
    link.symlink_to(Path("real") / "hits.tsv")
    _write(link)
    assert link.is_symlink() and os.readlink(link) == os.path.join("real", "hits.tsv")
    assert target.read_text() == TEXT
    assert sorted(os.listdir(tmp_path / "real")) == ["hits.tsv"]  # the temporary file was beside the target


def test_dangling_symlink_creates_its_target(tmp_path):
    link = tmp_path / "out.tsv"
    link.symlink_to(tmp_path / "made.tsv")
    _write(link)
    assert link.is_symlink() and (tmp_path / "made.tsv").read_text() == TEXT


def test_new_file_mode_follows_the_umask(tmp_path):
    old = os.umask(0o027)
    try:
        _write(tmp_path / "a.tsv")
        _write(tmp_path / "b.tsv.gz")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "a.tsv").stat().st_mode) == 0o640
    assert stat.S_IMODE((tmp_path / "b.tsv.gz").stat().st_mode) == 0o640


def test_replaced_file_keeps_its_mode(tmp_path):
    out = tmp_path / "a.tsv"
    out.write_text("old\n")
    out.chmod(0o604)
    _write(out)
    assert out.read_text() == TEXT and stat.S_IMODE(out.stat().st_mode) == 0o604


@pytest.mark.parametrize("suffix,opener", [(".gz", gzip.open), (".bz2", bz2.open), (".xz", lzma.open)])
def test_compressed_output_by_suffix(tmp_path, suffix, opener):
    out = tmp_path / f"hits.tsv{suffix}"
    _write(out)
    with opener(out, "rt", encoding="utf-8") as fh:
        assert fh.read() == TEXT
    assert os.listdir(tmp_path) == [out.name]


def test_gzip_output_is_reproducible_and_atomic(tmp_path):
    _write(tmp_path / "a.gz")
    _write(tmp_path / "b.gz")
    assert (tmp_path / "a.gz").read_bytes() == (tmp_path / "b.gz").read_bytes()
    with pytest.raises(RuntimeError):
        with OutputFile(tmp_path / "c.gz") as out:
            out.write(TEXT)
            raise RuntimeError("stop")
    assert sorted(os.listdir(tmp_path)) == ["a.gz", "b.gz"]


def test_binary_output_is_never_compressed(tmp_path):
    _write(tmp_path / "x.gz", b"\x00\x01raw", binary=True)
    assert (tmp_path / "x.gz").read_bytes() == b"\x00\x01raw"


def test_cli_gz_output_equals_plain(run_cli, tmp_path):
    args = ["align", EXAMPLES / "queries.fasta", EXAMPLES / "targets.fasta", "-f", "blast6", "--device", "cpu"]
    assert run_cli([*args, "-o", "hits.tsv"], tmp_path)[0] == 0
    assert run_cli([*args, "-o", "hits.tsv.gz"], tmp_path)[0] == 0
    plain = (tmp_path / "hits.tsv").read_text()
    assert plain and gzip.decompress((tmp_path / "hits.tsv.gz").read_bytes()).decode() == plain


def test_path_that_became_a_fifo_is_not_replaced(tmp_path):
    out = tmp_path / "out.tsv"
    writer = OutputFile(out)
    writer.write(TEXT)
    os.mkfifo(out)  # something other than a regular file appears while writing
    with pytest.raises(InputError) as info:
        writer.close()
    assert info.value.param == "output"
    assert stat.S_ISFIFO(os.lstat(out).st_mode) and os.listdir(tmp_path) == ["out.tsv"]


def test_abort_pending_removes_temporary_files(tmp_path):
    a, b = OutputFile(tmp_path / "a.tsv"), OutputFile(tmp_path / "b.tsv.gz")
    a.write(TEXT)
    b.write(TEXT)
    assert len(os.listdir(tmp_path)) == 2
    abort_pending()
    assert os.listdir(tmp_path) == [] and a.closed and b.closed


def test_directory_is_an_input_error(tmp_path):
    with pytest.raises(InputError) as info:
        OutputFile(tmp_path)
    assert info.value.param == "output" and "directory" in info.value.message


def test_zst_output_is_compressed(tmp_path):
    try:
        from compression import zstd
    except ImportError:
        zstd = pytest.importorskip("backports.zstd")
    out = tmp_path / "hits.tsv.zst"
    _write(out)
    assert zstd.decompress(out.read_bytes()).decode() == TEXT
    assert os.listdir(tmp_path) == [out.name]


_KILLED = """
import os, signal, sys
from swgpu.io.writers import OutputFile
out = OutputFile(sys.argv[1])
out.write("partial\\n")
os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_killed_writers_temporary_is_removed_by_the_next_output(tmp_path):
    out = tmp_path / "out.tsv"
    env = {**os.environ, "PYTHONPATH": str(Path(swgpu.__file__).parent.parent)}
    killed = subprocess.Popen([sys.executable, "-c", _KILLED, str(out)], env=env)
    assert killed.wait() == -signal.SIGKILL
    (left,) = os.listdir(tmp_path)  # named by its writer: host and process
    owner = re.fullmatch(r"\.out\.tsv\.swgpu-(.+)-(\d+)-[0-9a-f]{8}\.tmp", left)
    assert owner and int(owner.group(2)) == killed.pid
    # a live process's leftover, another host's and a name of another form stay
    kept = [f".out.tsv.swgpu-{owner.group(1)}-{os.getpid()}-0123abcd.tmp", ".out.tsv.swgpu-elsewhere-1-0123abcd.tmp",
            ".out.tsv.0123abcd.tmp"]
    for name in kept:
        (tmp_path / name).write_text("x")
    _write(out)
    assert sorted(os.listdir(tmp_path)) == sorted(["out.tsv", *kept])
    assert out.read_text() == TEXT


def test_a_file_output_is_not_forced_to_disk(tmp_path, monkeypatch):
    """The temporary file is renamed into place without ``fsync`` (the system writes it back
    in its own time, as for BLAST+'s and samtools' outputs): a command never waits on the disk."""
    def refuse(fd):
        raise AssertionError("fsync called")

    monkeypatch.setattr(os, "fsync", refuse)
    target = tmp_path / "out.txt"
    with OutputFile(str(target)) as out:
        out.write("line\n")
    assert target.read_text() == "line\n"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]
