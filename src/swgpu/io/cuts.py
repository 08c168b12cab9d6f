"""Two FASTA files cut into parts at the same record counts, without parsing them: :func:`paired_cuts`.

``swgpu screen -q -t`` pairs record ``i`` of one file with record ``i`` of the
other. To hand the pairs to several processes, each reading its own parts, the
files are cut every ``records`` records: a record starts at a ``>`` that
begins a line, found by array passes over the files read in blocks (no record
is parsed, no letter encoded). Each part is then read alone
(:func:`read_range`), by the same compiled scan as a whole file, which tells
when a part is not of the common case.

>>> import tempfile, os
>>> folder = tempfile.mkdtemp()
>>> q, t = os.path.join(folder, "q.fa"), os.path.join(folder, "t.fa")
>>> for path, letters in ((q, "ACGT"), (t, "ACGTTT")):
...     with open(path, "w") as fh:
...         _ = fh.write("".join(f">r{k} >x\\n{letters}\\n" for k in range(5)))
>>> parts = list(paired_cuts(q, t, 2, block=16))
>>> [(p.first, p.records) for p in parts]
[(0, 2), (2, 2), (4, 1)]
>>> parts[1].query, parts[1].target
((24, 48), (28, 56))
>>> read_range(q, *parts[2].query, "dna").names
['r4']
>>> for path in (q, t):
...     os.unlink(path)
>>> os.rmdir(folder)
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from ..exceptions import InputError
from .alphabet import Alphabet, get_alphabet

__all__ = ["PairCut", "paired_cuts", "record_starts", "read_range", "plain_fasta"]

#: Bytes of a file looked at in one array pass.
BLOCK = 16 << 20


@dataclass(frozen=True)
class PairCut:
    """Part ``index`` of two paired files: ``records`` pairs from pair ``first`` on,
    the bytes ``query[0]:query[1]`` of the query file and ``target[0]:target[1]`` of the target file."""

    index: int
    first: int
    records: int
    query: tuple[int, int]
    target: tuple[int, int]


def plain_fasta(path) -> bool:
    """Whether ``path`` is a regular, uncompressed file that starts as FASTA
    (``>``): what :func:`paired_cuts` can cut (anything else is read as a stream)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):  # (before opening it: a pipe's bytes are not read here)
            return False
        with open(path, "rb") as fh:
            head = fh.read(2)
    except (OSError, TypeError, ValueError):
        return False
    return head[:1] == b">"


def record_starts(path, block: int = BLOCK) -> Iterator[np.ndarray]:
    """Offsets (``int64``, rising) of the record starts of a FASTA file, a block at a time."""
    with open(path, "rb", buffering=0) as fh:
        buf = np.empty(block, dtype=np.uint8)
        pos, before = 0, ord("\n")  # (the file's first byte begins a line)
        while n := fh.readinto(buf):
            view = buf[:n]
            at = np.flatnonzero(view == ord(">"))
            if at.size:
                prev = view[np.maximum(at - 1, 0)]
                if at[0] == 0:
                    prev[0] = before
                at = at[prev == ord("\n")]
            yield at + pos
            before = int(view[-1])
            pos += n


def _cuts(path, records: int, block: int) -> Iterator:
    """The offset of every ``records``-th record start of ``path`` (records
    ``records``, ``2 * records``, ...), then ``None``, then ``(size, record count)``."""
    count = 0
    for starts in record_starts(path, block):
        index = count + np.arange(starts.size, dtype=np.int64)
        yield from starts[(index > 0) & (index % records == 0)].tolist()
        count += starts.size
    yield None
    yield os.path.getsize(path), count


def paired_cuts(query_path, target_path, records: int, block: int = BLOCK) -> Iterator[PairCut]:
    """The parts of ``records`` pairs each (the last may be shorter) of two
    paired FASTA files (:func:`plain_fasta`), in order; both files are looked
    at on threads of their own, ahead of the caller. A file with more records
    than the other is an :class:`~swgpu.exceptions.InputError` that counts both,
    raised once both are counted (after the parts before it)."""
    from .chunks import read_ahead
    from .readers import source_name

    sides = [read_ahead(_cuts(path, records, block), 1 << 12) for path in (query_path, target_path)]
    try:
        ends = [0, 0]
        index = first = 0
        while True:
            got = [next(side) for side in sides]
            if None in got:  # a file ended: both are counted to their ends
                for side, value in zip(sides, got):
                    while value is not None:
                        value = next(side)
                (qsize, qcount), (tsize, tcount) = (next(side) for side in sides)
                if qcount != tcount:
                    raise InputError(f"{source_name(query_path)} has {qcount} records but "
                                     f"{source_name(target_path)} has {tcount}; screen pairs record i with record i")
                if qcount > first:
                    yield PairCut(index, first, qcount - first, (ends[0], qsize), (ends[1], tsize))
                return
            yield PairCut(index, first, records, (ends[0], got[0]), (ends[1], got[1]))
            ends = got
            index += 1
            first += records
    finally:
        for side in sides:
            side.close()


#: Bytes of a range scanned by a thread of its own.
SCAN_LEAST = 2 << 20


def read_range(path, start: int, end: int, alphabet: str | Alphabet, threads: int | None = None):
    """Bytes ``start:end`` of a FASTA file (whole records) as a
    :class:`~swgpu.io.sequence_batch.SequenceBatch`, by the compiled scan (in
    pieces of at least :data:`SCAN_LEAST` bytes on up to ``threads`` threads); ``None``
    where they are not of its common case (read the file as a stream instead)."""
    from .chunks import _fill
    from .scanner import scan_fasta
    from .sequence_batch import SequenceBatch

    alpha = get_alphabet(alphabet)
    data = np.empty(end - start, dtype=np.uint8)
    with open(path, "rb", buffering=0) as fh:
        fh.seek(start)
        if _fill(fh, memoryview(data)) < data.size:
            return None  # (the file changed under us)
    found = scan_fasta(data, alpha.table, threads=threads, least=SCAN_LEAST, compiled=True)
    del data
    return None if found is None else SequenceBatch.from_columns(*found, alpha)
