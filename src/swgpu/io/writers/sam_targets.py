"""A SAM header's targets gathered part by part: :class:`HeaderTargets`.

The ``@SQ`` lines of a stream of records are known only when its last part
is: each part's lines are written as the part comes (to a
:class:`~.spill.Spill`), and only a 64-bit hash of each name is kept to see,
at the end, that no name came twice. When one did (or two hashes meet), the
lines are read back and merged as :func:`~.sam.sam_header` merges targets:
one line for a name given twice with one length, an error for two lengths.

>>> from swgpu.io.texts import Texts
>>> targets = HeaderTargets()
>>> targets.add(Texts.from_strings(["t1", "t2", "t3"]), np.array([0, 2]), np.array([100, 80]))
>>> targets.add(Texts.from_strings(["t1"]), np.array([0]), np.array([100]))
>>> out = []
>>> targets.write(out.append, "swgpu screen ...")
>>> print(b"".join(out).decode().replace("\\t", " "), end="")  # doctest: +ELLIPSIS
@HD VN:1.6 SO:unsorted
@SQ SN:t1 LN:100
@SQ SN:t3 LN:80
@PG ID:swgpu PN:swgpu VN:... CL:swgpu screen ...
>>> targets.close()
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from ..compiled import worth
from ..texts import Texts
from .sam import _header, _target_lengths
from .spill import Spill

__all__ = ["HeaderTargets"]


class HeaderTargets:
    """The targets of a SAM header, in order of first appearance, added a part at a time (:meth:`add`)."""

    def __init__(self, folder: str | None = None, limit: int = 64 << 20):
        self._lines = Spill(folder, limit)
        self._hashes: list[np.ndarray] = []  # (compiled) or
        self._names: list[str] | None = []  # (until the first part worth compiled code)

    @staticmethod
    def prepare(names: Texts, index: np.ndarray, lengths: np.ndarray, force: bool = False):
        """What :meth:`add` makes of these targets in compiled code (their ``@SQ``
        lines and the hashes of their names), on any thread; ``None`` where
        :meth:`add` would take them one by one (a few, without compiled code; ``force``: never)."""
        index = np.asarray(index, dtype=np.int64)
        if not (force or worth(index.size)):
            return None
        from .. import kernels as K
        from .rows import Rows

        rows = Rows(index.size)
        rows.const("@SQ\tSN:")
        rows.text(names, index)
        rows.const("\tLN:")
        rows.int(np.asarray(lengths, dtype=np.int64))
        rows.const("\n")
        return rows.render(), _hashes(names, index, K)

    def add(self, names: Texts, index: np.ndarray, lengths: np.ndarray, prepared=None) -> None:
        """Targets ``index`` of ``names`` (rising), of lengths ``lengths``
        (``prepared``: what :meth:`prepare` made of them)."""
        index = np.asarray(index, dtype=np.int64)
        if not index.size:
            return
        if prepared is None:
            prepared = self.prepare(names, index, lengths)
        if prepared is not None:
            self.add_prepared(prepared)
            return
        every = names.strings()
        picked = [every[i] for i in index.tolist()]
        self._lines.write("".join(f"@SQ\tSN:{n}\tLN:{k}\n" for n, k in zip(picked, np.asarray(lengths).tolist())))
        if self._names is not None:
            self._names += picked
        else:
            self._hashes.append(_hashes(Texts.from_strings(picked), np.arange(len(picked))))

    def add_prepared(self, prepared) -> None:
        """Targets as :meth:`prepare` made them (on another thread, or in another process)."""
        if self._names is not None:  # from now on hashes only
            if self._names:
                self._hashes.append(_hashes(Texts.from_strings(self._names), np.arange(len(self._names))))
            self._names = None
        lines, hashes = prepared
        self._lines.write(lines)
        self._hashes.append(np.sort(hashes))  # (sorted runs: the check at the end merges them)

    def _distinct(self) -> bool:
        if self._names is not None:
            return len(set(self._names)) == len(self._names)
        hashes = np.concatenate(self._hashes) if self._hashes else np.zeros(0, np.uint64)
        hashes.sort(kind="stable")
        return not np.any(hashes[1:] == hashes[:-1])

    def write(self, write: Callable[[bytes], object], program_line: str | None = None,
              descriptor: Callable[[], int | None] | None = None) -> None:
        """The whole header, to ``write`` in blocks (an :class:`~swgpu.exceptions.InputError`
        when a name comes with two lengths, before anything is written); ``descriptor``:
        the output's file descriptor once what ``write`` took is flushed, or None (the
        ``@SQ`` lines past the memory limit are then copied to it by the system)."""
        if not self._distinct():  # merged (or refused) as the record-by-record header does
            out: list[bytes] = []
            self._lines.replay(out.append)
            pairs = [(line[7:].rsplit("\tLN:", 1)[0], int(line.rsplit("\tLN:", 1)[1]))
                     for line in b"".join(out).decode("utf-8").splitlines()]
            write(_header(_target_lengths(pairs), program_line).encode("utf-8"))
            return
        text = _header({}, program_line)
        first = text.index("\n") + 1
        write(text[:first].encode("utf-8"))
        self._lines.replay(write, None if descriptor is None else descriptor())
        write(text[first:].encode("utf-8"))

    def close(self) -> None:
        self._lines.close()


def _hashes(names: Texts, index: np.ndarray, K=None) -> np.ndarray:
    if K is None:
        from .. import kernels as K
    out = np.empty(index.size, dtype=np.uint64)
    K.hashes(names.buffer, names.offsets[index], names.offsets[index + 1], out)
    return out
