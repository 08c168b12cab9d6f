"""Text output that appears whole or not at all: :class:`OutputFile` and its ``with`` base."""

from __future__ import annotations

import io
import os
import secrets
import sys
from typing import IO

from ...exceptions import InputError

__all__ = ["AtomicOutput", "OutputFile"]


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


class OutputFile(AtomicOutput):
    """A text output that appears whole or not at all.

    ``path`` ``None`` or ``"-"`` is standard output, an object with ``write`` is
    written to (never closed); a file path is written through a temporary file
    in the same directory, renamed onto ``path`` by :meth:`close`. :meth:`abort`
    (or an exception inside ``with``) removes the temporary file and leaves an
    existing ``path`` as it was. A ``path`` that is a directory, or whose
    directory does not exist, is an :class:`~swgpu.exceptions.InputError` with
    ``param="output"``.

    >>> import io
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

    def __init__(self, path: str | os.PathLike | IO[str] | None):
        self.path: str | None = None
        self._tmp: str | None = None
        self._own = False
        if path is None or (isinstance(path, str) and path == "-"):
            self._fh: IO[str] = sys.stdout
        elif hasattr(path, "write"):
            self._fh = path  # type: ignore[assignment]
        else:
            self.path = os.fspath(path)
            self._fh, self._tmp = self._open_temp(self.path)
            self._own = True
        self._closed = False

    @staticmethod
    def _open_temp(path: str) -> tuple[IO[str], str]:
        directory, base = os.path.split(os.path.abspath(path))
        if os.path.isdir(path):
            raise InputError(f"{path!r} is a directory, not a file", param="output")
        if not os.path.isdir(directory):
            raise InputError(f"the folder of {path!r} does not exist", param="output")
        while True:
            tmp = os.path.join(directory, f".{base}.{secrets.token_hex(4)}.tmp")
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            except FileExistsError:
                continue
            break
        return io.open(fd, "w", encoding="utf-8", newline="\n"), tmp

    @property
    def closed(self) -> bool:
        return self._closed

    def write(self, text: str) -> None:
        try:
            self._fh.write(text)
        except BaseException:
            self.abort()
            raise

    def close(self) -> None:
        if self._closed:
            return
        if not self._own:
            self._closed = True
            self._fh.flush()
            return
        fh, tmp = self._fh, self._tmp
        try:
            fh.flush()
            os.fsync(fh.fileno())
            fh.close()
            os.replace(tmp, self.path)  # type: ignore[arg-type]
            self._tmp = None
        except BaseException:
            self.abort()
            raise
        self._closed = True

    def abort(self) -> None:
        if self._closed:
            return
        self._closed = True
        if not self._own:
            try:
                self._fh.flush()
            except Exception:
                pass
            return
        try:
            self._fh.close()
        except Exception:
            pass
        try:
            if self._tmp is not None:
                os.unlink(self._tmp)
        except FileNotFoundError:
            pass
        self._tmp = None
