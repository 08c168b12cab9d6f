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

import tempfile
from typing import Callable

__all__ = ["Spill", "LIMIT"]

#: Bytes held in memory before the rest goes to a temporary file.
LIMIT = 32 << 20

_READ = 16 << 20  # bytes read back at a time


class Spill:
    """Bytes (or text, as UTF-8) written now and replayed later, in order:
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
        elif not isinstance(data, bytes):
            data = bytes(data)
        self.size += len(data)
        if self._file is None and self.size > self.limit:
            self._file = tempfile.TemporaryFile(dir=self.folder)
            for part in self._parts:
                self._file.write(part)
            self._parts = []
        if self._file is not None:
            self._file.write(data)
        else:
            self._parts.append(data)

    def flush(self) -> None:
        pass

    def replay(self, write: Callable[[bytes], object]) -> None:
        """Hand everything written, in order, to ``write`` (in blocks)."""
        if self._file is None:
            for part in self._parts:
                write(part)
            return
        self._file.flush()
        self._file.seek(0)
        while block := self._file.read(_READ):
            write(block)

    def close(self) -> None:
        self._parts = []
        if self._file is not None:
            self._file.close()
            self._file = None
