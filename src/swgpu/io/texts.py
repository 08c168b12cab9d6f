"""A column of byte strings: :class:`Texts` (names, letters, formatted fields).

>>> t = Texts.from_strings(["r1", "", "read3"])
>>> t.offsets.tolist(), bytes(t.buffer), t.strings()
([0, 2, 2, 7], b'r1read3', ['r1', '', 'read3'])
"""

from __future__ import annotations

import numpy as np

from .compiled import read_only, read_only_codes, worth

__all__ = ["Texts", "put_segments", "gather_segments", "reversed_segments", "hash_groups", "take_segments",
           "scatter_parts"]


class Texts:
    """Byte strings end to end: string ``k`` is ``buffer[offsets[k]:offsets[k + 1]]``."""

    __slots__ = ("buffer", "offsets")

    def __init__(self, buffer: np.ndarray, offsets: np.ndarray):
        self.buffer = np.ascontiguousarray(buffer, dtype=np.uint8)
        self.offsets = np.ascontiguousarray(offsets, dtype=np.int64)

    def __len__(self) -> int:
        return self.offsets.size - 1

    @classmethod
    def from_strings(cls, strings, encoding: str = "utf-8") -> "Texts":
        """The strings (without ``\\0``) encoded; one join and one search for all."""
        strings = strings if isinstance(strings, list) else list(strings)
        raw = ("\0".join(strings) + "\0").encode(encoding) if strings else b""
        buf = np.frombuffer(raw, dtype=np.uint8)
        ends = np.flatnonzero(buf == 0)
        offsets = np.zeros(len(strings) + 1, dtype=np.int64)
        offsets[1:] = ends
        offsets[2:] -= np.arange(1, len(strings))  # the separators dropped
        return cls(buf[buf != 0] if strings else buf, offsets)

    def strings(self, encoding: str = "utf-8") -> list[str]:
        """Every string, decoded."""
        text = self.buffer.tobytes().decode(encoding)
        if encoding not in ("ascii", "latin-1") and len(text) != self.buffer.size:
            return [self.buffer[a:b].tobytes().decode(encoding) for a, b in zip(self.offsets[:-1].tolist(),
                                                                                self.offsets[1:].tolist())]
        return [text[a:b] for a, b in zip(self.offsets[:-1].tolist(), self.offsets[1:].tolist())]

    def string(self, k: int, encoding: str = "utf-8") -> str:
        """String ``k``, decoded."""
        return self.buffer[int(self.offsets[k]):int(self.offsets[k + 1])].tobytes().decode(encoding)

    def slice(self, a: int, b: int) -> "Texts":
        """Strings ``a`` to ``b`` (a view of the buffer)."""
        lo, hi = int(self.offsets[a]), int(self.offsets[b])
        return Texts(self.buffer[lo:hi], self.offsets[a:b + 1] - lo)

    @classmethod
    def concat(cls, parts: list["Texts"]) -> "Texts":
        """The strings of ``parts``, in order, as one column."""
        if len(parts) == 1:
            return parts[0]
        sizes = [int(p.offsets[-1] - p.offsets[0]) for p in parts]
        shifts = np.cumsum([0] + sizes)
        offsets = np.concatenate([p.offsets[:-1] - p.offsets[0] + s for p, s in zip(parts, shifts)]
                                 + [shifts[-1:]]).astype(np.int64)
        return cls(np.concatenate([p.buffer[p.offsets[0]:p.offsets[-1]] for p in parts]), offsets)

    def take(self, index: np.ndarray) -> "Texts":
        """Strings ``index`` (in that order) as a new column."""
        index = np.asarray(index, dtype=np.int64)
        return take_segments(self.buffer, self.offsets[index], self.offsets[index + 1])


def take_segments(pool: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> Texts:
    """The bytes ``pool[starts[k]:ends[k]]`` as a column: compiled, in ranges on
    threads (a random order's copy waits on the memory), where
    :func:`~.compiled.worth` says so; else by array operations."""
    starts, ends = np.asarray(starts, dtype=np.int64), np.asarray(ends, dtype=np.int64)
    if starts.size <= FEW or not worth(starts.size):  # a few strings (no threads to start), or no Numba to load
        return Texts(*gather_segments(pool, starts, ends))
    from . import kernels as K
    from .ranges import ranges, run_ranges

    offsets = np.zeros(starts.size + 1, dtype=np.int64)
    np.cumsum(ends - starts, out=offsets[1:])
    out = np.empty(int(offsets[-1]), dtype=np.uint8)
    pool = read_only(np.ascontiguousarray(pool, dtype=np.uint8))  # (one compiled version)

    run_ranges(lambda a, b: K.scatter(pool, starts[a:b], ends[a:b], offsets[a:b], out), ranges(starts.size))
    return Texts(out, offsets)


def scatter_parts(parts: list[np.ndarray], offsets: np.ndarray, at: np.ndarray, out: np.ndarray) -> None:
    """Segment ``k`` of the pools ``parts`` laid end to end -- ``offsets[k]:offsets[k + 1]``
    of their join, never inside two parts -- written at ``out[at[k]:]``, with no join made:
    each part's segments by a compiled copy, the parts on threads (or by array operations
    where :func:`~.compiled.worth` says so)."""
    firsts = np.concatenate([[0], np.cumsum([p.size for p in parts])]).astype(np.int64)  # (each part's first byte)
    bounds = np.searchsorted(offsets[:-1], firsts)  # (and first segment)
    compiled = worth(offsets.size - 1)
    if compiled:
        from . import kernels as K
    from .ranges import ranges, run_ranges

    def some(a: int, b: int) -> None:
        for p in range(a, b):
            lo, hi = int(bounds[p]), int(bounds[p + 1])
            starts, ends = offsets[lo:hi] - firsts[p], offsets[lo + 1:hi + 1] - firsts[p]
            pool = np.ascontiguousarray(parts[p], dtype=np.uint8)
            if compiled:
                K.scatter(read_only(pool), starts, ends, at[lo:hi], out)
            else:
                put_segments(pool, starts, ends, at[lo:hi], out)

    run_ranges(some, ranges(len(parts), least=1) if compiled else [(0, len(parts))])


def hash_groups(texts: Texts) -> np.ndarray:
    """The positions (rising) of the strings of ``texts`` whose 64-bit hash
    (FNV-1a, compiled) another string shares: every string given twice is
    among them, and in practice nothing else. A few strings: all of them.

    >>> hash_groups(Texts.from_strings(["a", "b", "a"] * 100)).size, hash_groups(Texts.from_strings(["x"])).tolist()
    (300, [])
    """
    n = len(texts)
    if n < 2 or not worth(n):
        return np.arange(n if n > 1 else 0, dtype=np.int64)
    from . import kernels as K

    hashes = np.empty(n, dtype=np.uint64)
    K.hashes(read_only(texts.buffer), texts.offsets[:-1], texts.offsets[1:], hashes)
    order = np.argsort(hashes)  # (any order of equal hashes: the positions are sorted below)
    same = hashes[order[1:]] == hashes[order[:-1]]
    shared = np.zeros(n, dtype=bool)
    shared[1:] |= same
    shared[:-1] |= same
    return np.sort(order[shared])


#: Letters copied per round of :func:`put_segments` (its index arrays: 8 bytes a letter each).
SEGMENT_BLOCK = 1 << 22
#: Strings taken by array operations whatever else (a compiled copy on threads costs more to start).
FEW = 16


def put_segments(pool: np.ndarray, starts: np.ndarray, ends: np.ndarray, at: np.ndarray, out: np.ndarray) -> None:
    """``pool[starts[k]:ends[k]]`` written at ``out[at[k]:]`` for every ``k``, by
    array operations (what the compiled kernels do in a loop), about
    :data:`SEGMENT_BLOCK` letters a round, so that the index arrays stay small."""
    starts = np.asarray(starts, dtype=np.int64)
    at = np.asarray(at, dtype=np.int64)
    lengths = np.asarray(ends, dtype=np.int64) - starts
    if lengths.size == 0:
        return
    done = np.cumsum(lengths)
    a = 0
    while a < lengths.size:
        b = max(a + 1, int(np.searchsorted(done, (done[a - 1] if a else 0) + SEGMENT_BLOCK, side="right")))
        if b == a + 1:  # one segment: a slice
            n = int(lengths[a])
            out[at[a]:at[a] + n] = pool[starts[a]:starts[a] + n]
        else:
            lens = lengths[a:b]
            first = np.zeros(lens.size, dtype=np.int64)
            np.cumsum(lens[:-1], out=first[1:])
            step = np.arange(int(first[-1] + lens[-1]), dtype=np.int64) - np.repeat(first, lens)
            out[np.repeat(at[a:b], lens) + step] = pool[np.repeat(starts[a:b], lens) + step]
        a = b


def gather_segments(pool: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The bytes ``pool[starts[k]:ends[k]]`` end to end, and their offsets."""
    lengths = np.asarray(ends, dtype=np.int64) - np.asarray(starts, dtype=np.int64)
    offsets = np.zeros(lengths.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    out = np.empty(int(offsets[-1]), dtype=np.uint8)
    put_segments(pool, starts, ends, offsets[:-1], out)
    return out, offsets


def reversed_segments(pool: np.ndarray, starts: np.ndarray, ends: np.ndarray,
                      table: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The bytes ``pool[starts[k]:ends[k]]``, each segment reversed and every byte
    translated by ``table`` (256 ``uint8``: a complement), end to end, and their
    offsets. Compiled, in ranges on threads, where :func:`~.compiled.worth`
    says so; else by array operations about :data:`SEGMENT_BLOCK` bytes a round.

    >>> out, off = reversed_segments(np.frombuffer(b"ACGTTA", np.uint8), np.array([0, 4]), np.array([3, 6]),
    ...                              np.frombuffer(bytes.maketrans(b"ACGT", b"TGCA"), np.uint8))
    >>> bytes(out), off.tolist()
    (b'CGTTA', [0, 3, 5])
    """
    starts = np.asarray(starts, dtype=np.int64)
    lengths = np.asarray(ends, dtype=np.int64) - starts
    offsets = np.zeros(lengths.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    out = np.empty(int(offsets[-1]), dtype=np.uint8)
    if lengths.size == 0:
        return out, offsets
    if worth(lengths.size):
        from . import kernels as K
        from .ranges import ranges, run_ranges

        last = starts + lengths
        pool, table = read_only_codes(pool), read_only_codes(table)
        run_ranges(lambda a, b: K.reverse_fill(pool, starts[a:b], last[a:b], table, offsets[a:b], out),
                   ranges(lengths.size, least=1 << 14))
        return out, offsets
    a = 0
    while a < lengths.size:
        b = max(a + 1, int(np.searchsorted(offsets[1:], offsets[a] + SEGMENT_BLOCK, side="right")))
        lens = lengths[a:b]
        step = np.arange(int(offsets[b] - offsets[a]), dtype=np.int64) - np.repeat(offsets[a:b] - offsets[a], lens)
        out[offsets[a]:offsets[b]] = table[pool[np.repeat(starts[a:b] + lens - 1, lens) - step]]
        a = b
    return out, offsets
