"""Output files: :class:`OutputFile` — atomic where the path is a regular file (or nothing yet), straight through
to devices, FIFOs, sockets and ``/dev/fd/N``, compressed by suffix — its ``with`` base, and :func:`check_output`,
the checks a command makes before its work (docs/formats.md, "Output files").

A temporary file is named ``.NAME.swgpu-HOST-PID-XXXXXXXX.tmp``: the host and process that write it. One whose
process is gone (killed by SIGKILL or for lack of memory) is removed by the next output of the same file on that host.
"""

from __future__ import annotations

import bz2
import contextlib
import gzip
import importlib
import io
import lzma
import os
import re
import secrets
import socket
import stat
import sys
import weakref
from typing import IO

from ...exceptions import InputError

__all__ = ["AtomicOutput", "OutputFile", "output_target", "check_output", "probe_folder", "abort_pending",
           "COMPRESSED"]

#: Name endings of compressed text output (and input), the compression by each.
COMPRESSED = (".gz", ".bz2", ".xz", ".zst")

# /proc/self/fd, /proc/thread-self/fd, /proc/PID/fd, /proc/PID/task/TID/fd: what /dev/fd resolves to
_FD_DIR = re.compile(r"^/proc/(self|thread-self|\d+)(/task/\d+)?/fd$")
# for abort_pending(): file outputs not yet closed or aborted, and the names of their temporary
# files, each noted before the file is made (so that no interruption can leave one behind unnoted)
_PENDING: "weakref.WeakSet[OutputFile]" = weakref.WeakSet()
_TEMPS: set[str] = set()


class AtomicOutput:
    """``with`` support: :meth:`close` on success, :meth:`abort` on an exception."""

    def close(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def abort(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


def _descriptor(path: str) -> tuple[int, int] | None:
    """``(process id, descriptor)`` when ``path`` (``/dev/fd/3``,
    ``/dev/stdout``, a link to one) names an open file descriptor: its folder,
    link by link, is a ``/proc/*/fd``; else ``None``."""
    p = os.path.abspath(path)
    for _ in range(40):  # the kernel's limit on links followed
        found = _FD_DIR.match(os.path.realpath(os.path.dirname(p)))
        if found:
            name, pid = os.path.basename(p), found.group(1)
            return (int(pid) if pid.isdigit() else os.getpid(), int(name)) if name.isdigit() else None
        try:
            link = os.readlink(p)
        except OSError:
            return None
        p = os.path.normpath(os.path.join(os.path.dirname(p), link))
    return None


def output_target(path: str | os.PathLike) -> tuple[bool, str]:
    """How ``path`` is written: ``(True, file)`` — atomically, replacing
    ``file`` (``path`` with its links resolved) — or ``(False, path)``,
    straight through (a device, FIFO, socket or file descriptor).

    >>> output_target("/dev/null")
    (False, '/dev/null')
    >>> output_target("/dev/fd/1")
    (False, '/dev/fd/1')
    >>> output_target("not-there-yet.tsv") == (True, os.path.realpath("not-there-yet.tsv"))
    True
    """
    path = os.fspath(path)
    if not path:
        raise InputError("an empty name is not a file: give a file name, or - for standard output", param="output")
    if _descriptor(path):
        return False, path
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:  # nothing there yet, or a link to nothing: created where it points
        mode = None
    if mode is not None and stat.S_ISDIR(mode):
        raise InputError(f"{path!r} is a directory, not a file", param="output")
    if mode is not None and not stat.S_ISREG(mode):
        return False, path
    target = os.path.realpath(path)
    if not os.path.isdir(os.path.dirname(target)):
        raise InputError(f"the folder of {path!r} does not exist", param="output")
    return True, target


def check_output(path: str | os.PathLike) -> None:
    """Refuse, before any work is done, an output that cannot be written: an
    empty name, a directory, a missing folder, a folder where no file can be
    made (read-only: a file is made and removed to find out), a ``.zst`` name
    without a zstd module. Devices, FIFOs and descriptors are not opened here.

    >>> check_output("/nonexistent-folder/out.txt")
    Traceback (most recent call last):
    ...
    swgpu.exceptions.InputError: output: the folder of '/nonexistent-folder/out.txt' does not exist
    """
    path = os.fspath(path)
    atomic, target = output_target(path)
    if not atomic:
        return
    if path.lower().endswith(".zst"):
        _zstd()
    directory, base = os.path.split(target)
    try:
        probe_folder(directory, base)
    except OSError as exc:
        raise InputError(f"cannot write {path!r}: {exc.strerror or exc} (in its folder "
                         f"{directory!r})", param="output") from None


def probe_folder(directory: str, base: str = "") -> None:
    """Make and remove a file in ``directory``, named as a temporary file of
    ``base``; an ``OSError`` when none can be made (read-only, no permission)."""
    probe = _temp_name(directory, base)
    try:
        os.close(os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
    except FileExistsError:
        return
    os.unlink(probe)


def _zstd():
    """A module with ``ZstdFile`` (Python 3.14's ``compression.zstd``, or
    ``backports.zstd``), or ``zstandard``; an error when there is none."""
    for name in ("compression.zstd", "backports.zstd", "zstandard"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    raise InputError("writing .zst needs a zstd module: pip install backports.zstd (or zstandard), "
                     "or choose .gz, .bz2 or .xz", param="output")


def _host() -> str:
    """This host's name as temporary files hold it: letters, digits and dots
    kept, others ``_``, at most 40 characters."""
    return re.sub(r"[^A-Za-z0-9.]", "_", socket.gethostname())[:40] or "_"


def _temp_name(directory: str, base: str) -> str:
    """A new name for a temporary file of this process for ``base``:
    ``.BASE.swgpu-HOST-PID-XXXXXXXX.tmp`` (see the module notes)."""
    return os.path.join(directory, f".{base}.swgpu-{_host()}-{os.getpid()}-{secrets.token_hex(4)}.tmp")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process
        pass
    return True


def _remove_dead_temps(directory: str, base: str) -> None:
    """Remove the temporary files of ``base`` left by processes of this host
    that no longer run; those of other hosts, of live processes and names of
    another form are left alone."""
    prefix, host = f".{base}.swgpu-", _host()
    try:
        names = [e.name for e in os.scandir(directory) if e.name.startswith(prefix) and e.name.endswith(".tmp")]
    except OSError:
        return
    for name in names:
        owner = name[len(prefix):-len(".tmp")].rsplit("-", 2)
        if len(owner) != 3 or owner[0] != host or not owner[1].isdigit() or _alive(int(owner[1])):
            continue
        with contextlib.suppress(OSError):
            os.unlink(os.path.join(directory, name))


def _open_through(path: str) -> IO[bytes]:
    """``path`` opened for writing as it is: a device, FIFO, socket or
    descriptor (one of this process is duplicated, so that it keeps its
    offset and append mode and may be a socket)."""
    found = _descriptor(path)
    if found and found[0] == os.getpid():
        try:
            return os.fdopen(os.dup(found[1]), "wb")
        except OSError as exc:
            raise OSError(exc.errno, exc.strerror, path) from None
    try:
        is_socket = stat.S_ISSOCK(os.stat(path).st_mode)
    except FileNotFoundError:
        is_socket = False
    if is_socket:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            sock.connect(path)
        except BaseException:
            sock.close()
            raise
        return os.fdopen(sock.detach(), "wb")
    return os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666), "wb")


def _text_layer(raw: IO[bytes], path: str) -> IO[str]:
    """UTF-8 text over ``raw``, compressed when ``path`` ends in one of :data:`COMPRESSED`."""
    suffix = os.path.splitext(path)[1].lower()
    inner: IO[bytes] = raw
    if suffix == ".gz":  # no name and time 0 in the header: the same output gives the same bytes
        inner = gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=6, mtime=0)
    elif suffix == ".bz2":
        inner = bz2.BZ2File(raw, "wb")
    elif suffix == ".xz":
        inner = lzma.LZMAFile(raw, "wb")
    elif suffix == ".zst":  # level 3, zstd's default; closing it leaves ``raw`` open
        zstd = _zstd()
        if hasattr(zstd, "ZstdFile"):
            inner = zstd.ZstdFile(raw, "wb", level=3)
        else:
            inner = zstd.ZstdCompressor(level=3).stream_writer(raw, closefd=False)
    return io.TextIOWrapper(inner, encoding="utf-8", newline="\n")  # type: ignore[arg-type]


def _replace(tmp: str, target: str, path: str) -> None:
    """Rename ``tmp`` onto ``target``, unless something other than a regular
    file has appeared there since the output was opened."""
    try:
        mode = os.lstat(target).st_mode
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        raise InputError(f"{path!r} is no longer a regular file; it was not replaced", param="output")
    os.replace(tmp, target)


def _remove(tmp: str) -> None:
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)
    _TEMPS.discard(tmp)


def abort_pending() -> None:
    """Abort every file output not yet closed and remove their temporary files
    (the command line calls this when it is interrupted or terminated)."""
    for out in list(_PENDING):
        out.abort()
    for tmp in list(_TEMPS):
        _remove(tmp)


class OutputFile(AtomicOutput):
    """An output that, written to a file, appears whole or not at all.

    ``path`` ``None`` or ``"-"`` is standard output, an object with ``write`` is
    written to (never closed). A path of a regular file, or of nothing yet, is
    written through a temporary file beside it, renamed onto it by
    :meth:`close` (symbolic links are followed, so a link stays a link; an
    existing file keeps its mode, a new one gets the umask's); :meth:`abort`
    (or an exception inside ``with``) removes the temporary file and leaves an
    existing file as it was. A character device, FIFO or socket is written
    straight through, as is a ``/dev/fd/N`` path (bash's ``>(command)``; a
    descriptor of this process is duplicated, keeping its offset). Text to a path ending in ``.gz``,
    ``.bz2``, ``.xz`` or ``.zst`` is compressed. ``binary=True`` takes ``bytes`` (never
    compressed). A ``path`` that is a directory, or whose directory does not
    exist, is an :class:`~swgpu.exceptions.InputError` with ``param="output"``.
    Nothing is forced to the disk (no ``fsync``, as BLAST+ and samtools): the system writes it back in its own time.

    >>> buf = io.StringIO()
    >>> with OutputFile(buf) as out:
    ...     out.write("hello\\n")
    >>> buf.getvalue(), out.closed, buf.closed
    ('hello\\n', True, False)
    >>> OutputFile("/nonexistent-folder/out.txt")
    Traceback (most recent call last):
    ...
    swgpu.exceptions.InputError: output: the folder of '/nonexistent-folder/out.txt' does not exist
    """

    def __init__(self, path: str | os.PathLike | IO | None, *, binary: bool = False):
        self.path: str | None = None
        self._tmp: str | None = None
        self._target: str | None = None
        self._raw: IO[bytes] | None = None
        self._closed = False
        if path is None or (isinstance(path, str) and path == "-"):
            self._fh: IO = sys.stdout.buffer if binary else sys.stdout
            return
        if hasattr(path, "write"):
            self._fh = path  # type: ignore[assignment]
            return
        self.path = os.fspath(path)
        atomic, target = output_target(self.path)
        self._fh = None  # type: ignore[assignment]
        _PENDING.add(self)
        try:
            if atomic:
                self._open_temp(target)
            else:
                self._raw = _open_through(self.path)
            self._fh = self._raw if binary else _text_layer(self._raw, self.path)  # type: ignore[arg-type]
        except BaseException:
            self.abort()
            raise

    def _open_temp(self, target: str) -> None:
        """A new temporary file beside ``target``, with the mode ``target`` has
        (or, for a new file, the umask's, as ``open()`` would give)."""
        try:
            mode = stat.S_IMODE(os.stat(target).st_mode)
        except FileNotFoundError:
            mode = None
        directory, base = os.path.split(target)
        self._target = target
        _remove_dead_temps(directory, base)
        while self._raw is None:
            self._tmp = _temp_name(directory, base)
            _TEMPS.add(self._tmp)
            try:
                fd = os.open(self._tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            except FileExistsError:  # another's file: not ours to remove
                _TEMPS.discard(self._tmp)
                continue
            except OSError as exc:  # named by the path asked for, not the temporary file's
                _TEMPS.discard(self._tmp)
                raise OSError(exc.errno, exc.strerror, self.path) from None
            try:
                if mode is not None:
                    os.fchmod(fd, mode)
                self._raw = os.fdopen(fd, "wb")
            except BaseException:
                os.close(fd)
                raise

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def atomic(self) -> bool:
        """Whether this writes a temporary file that only :meth:`close` puts in place."""
        return self._tmp is not None

    def write(self, data) -> None:
        try:
            self._fh.write(data)
        except BaseException as exc:
            raise self._failed(exc)

    def write_bytes(self, data: bytes) -> None:
        """Write UTF-8 text given as bytes (past the text layer, flushed first)."""
        try:
            fh = self._fh
            if isinstance(fh, io.TextIOBase):
                fh.flush()
                fh = getattr(fh, "buffer", None) or fh  # (a caller's text stream may have no bytes below it)
            fh.write(bytes(data).decode("utf-8") if isinstance(fh, io.TextIOBase) else data)
        except BaseException as exc:
            raise self._failed(exc)

    def descriptor(self) -> int | None:
        """The descriptor of a plain file or device output, with everything written so far
        flushed to it (bytes written there follow it), or None (compressed, or a caller's stream)."""
        if self._raw is None or getattr(self._fh, "buffer", self._fh) is not self._raw:
            return None
        try:
            self._fh.flush()  # (the text layer, and the file's buffer below it)
        except BaseException as exc:
            raise self._failed(exc)
        return self._raw.fileno()

    def _failed(self, exc: BaseException) -> BaseException:
        """``exc``, raised while writing: the output aborted, and named in it."""
        self.abort()
        self._name(exc)
        return exc

    def _name(self, exc: BaseException) -> None:
        """Name this output in an error of the system that names no file (``-o /dev/full``)."""
        stdout = self._fh is sys.stdout or self._fh is getattr(sys.stdout, "buffer", None)
        if isinstance(exc, OSError) and exc.filename is None and (self.path is not None or stdout):
            exc.filename = self.path or "standard output"

    def _finish_layers(self) -> None:
        """Flush the text layer and end the compressed stream, leaving the file open."""
        if self._fh is self._raw:
            return
        self._fh.flush()
        inner = self._fh.detach()  # type: ignore[union-attr]
        self._fh = self._raw  # type: ignore[assignment]
        if inner is not self._raw:
            inner.close()  # writes the compressed stream's end; the file itself stays open

    def close(self) -> None:
        if self._closed:
            return
        if self.path is None:  # standard output or a caller's stream
            self._closed = True
            try:
                self._fh.flush()
            except OSError as exc:
                self._name(exc)
                raise
            return
        try:
            self._finish_layers()
            if self._tmp is not None:
                self._raw.flush()  # type: ignore[union-attr]
                self._raw.close()  # type: ignore[union-attr]  (not forced to disk: see the class notes)
                _replace(self._tmp, self._target, self.path)  # type: ignore[arg-type]
                _TEMPS.discard(self._tmp)
                self._tmp = None
            else:
                self._raw.close()  # type: ignore[union-attr]
        except BaseException as exc:
            raise self._failed(exc)
        self._closed = True
        _PENDING.discard(self)

    def abort(self) -> None:
        if self._closed:
            return
        self._closed = True
        _PENDING.discard(self)
        if self.path is None:  # standard output or a caller's stream
            with contextlib.suppress(Exception):
                self._fh.flush()
            return
        for fh in (fh for fh in (self._fh, self._raw) if fh is not None):
            with contextlib.suppress(Exception):
                fh.close()
        if self._tmp is not None:
            _remove(self._tmp)
        self._tmp = None
