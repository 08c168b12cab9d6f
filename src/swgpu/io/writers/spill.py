"""Output held back until what goes before it is known: :class:`Spill`.

A SAM header lists the targets of every record, so a stream of records is
written here first and put behind its header at the end: in memory up to a
limit, in an unnamed temporary file (gone when closed, or when the process
dies) past it.

>>> spill = Spill(limit=4)
>>> spill.write(b"abc"); spill.write("déf")
>>> got = []
>>> spill.replay(got.append)
>>> b"".join(got).decode(), spill.size
('abcdéf', 7)
>>> spill.close()
"""

from __future__ import annotations

import os
import tempfile
from typing import Callable

__all__ = ["Spill", "LIMIT", "copy_range"]

#: Bytes held in memory before the rest goes to a temporary file.
LIMIT = 32 << 20

_READ = 16 << 20  # bytes read back at a time


class Spill:
    """Bytes (any buffer, e.g. a NumPy ``uint8`` array; or text, as UTF-8) written now and replayed later, in order:
    in memory up to ``limit`` bytes, then in a temporary file in ``folder``
    (the system's temporary folder when ``None``); ``limit``: :data:`LIMIT`."""

    def __init__(self, folder: str | None = None, limit: int | None = None):
        self.folder, self.limit = folder, LIMIT if limit is None else limit
        self.size = 0
        self._parts: list[bytes] = []
        self._file = None

    def write(self, data) -> None:
        if isinstance(data, str):
            data = data.encode("utf-8")
        size = memoryview(data).nbytes
        self.size += size
        if self._file is None and self.size > self.limit:
            self._file = tempfile.TemporaryFile(dir=self.folder)
            for part in self._parts:
                self._file.write(part)
            self._parts = []
        if self._file is not None:
            self._file.write(data)  # (any buffer, written as it is: no copy)
        else:
            self._parts.append(data if isinstance(data, bytes) else bytes(data))  # (a copy: the caller's may change)

    def flush(self) -> None:
        pass

    def replay(self, write: Callable[[bytes], object], descriptor: int | None = None) -> None:
        """Hand everything written, in order, to ``write`` (in blocks); or, past
        the memory limit, copy it to the open file ``descriptor`` when one is
        given (by the system, no copy through this process: its file position
        is where the bytes go)."""
        if self._file is None:
            for part in self._parts:
                write(part)
            return
        self._file.flush()
        copy_range(self._file.fileno(), 0, self.size, write, descriptor)

    def close(self) -> None:
        self._parts = []
        if self._file is not None:
            self._file.close()
            self._file = None


def _send(source: int, target: int, size: int, start: int = 0) -> int:
    """Bytes ``start:start + size`` of ``source`` copied to ``target`` with ``os.sendfile``:
    how many, fewer down to none where the system cannot or the copy fails.
    The rest is then handed to the output's own writing, which copies it, or
    raises the output's error (a full disk, a closed pipe) with the output named."""
    done = 0
    try:
        while done < size:
            sent = os.sendfile(target, source, start + done, min(size - done, 1 << 30))
            if sent == 0:
                break
            done += sent
    except OSError:
        pass
    return done


def copy_range(source: int, start: int, size: int, write: Callable[[bytes], object],
               descriptor: int | None = None) -> None:
    """Bytes ``start:start + size`` of the open file ``source`` handed to ``write``
    in blocks; or copied to the open file ``descriptor`` by the system, where it can
    (its file position is where they go)."""
    done = 0 if descriptor is None else _send(source, descriptor, size, start)
    while done < size:
        block = os.pread(source, min(size - done, _READ), start + done)
        if not block:
            raise OSError(f"{size - done} bytes expected past {start + done} of a temporary file")
        write(block)
        done += len(block)
