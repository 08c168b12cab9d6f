"""Records to :class:`~swgpu.io.sequence.Sequence` objects, a group at a time
(:func:`encode_batches`), or to one :class:`~swgpu.io.sequence_batch.SequenceBatch`
(:func:`encode_block`).

The letters of a batch of records (:class:`~swgpu.io.batches.RecordBatch`)
are encoded with one ``bytes.translate``, which also drops the marks between
records, so that the codes of all records lie end to end; each record's codes
are a read-only view of the result. Records are checked and made in groups of
:data:`ENCODE_GROUP`; of several problems the first in the file's order is
reported, whatever the groups (a record's missing name or letters before an
invalid letter of it), so that a file read in parts says what it says read whole.
"""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate
from typing import Iterable, Iterator

import numpy as np

from ..exceptions import InputError
from .alphabet import Alphabet
from .batches import SEP, RecordBatch
from .sequence import Sequence, code_views, make_sequences
from .sequence_batch import SequenceBatch

__all__ = ["ENCODE_GROUP", "encode_batches", "encode_block"]


#: Records encoded together (one table look-up for their letters; their names
#: and lengths are checked before their letters).
ENCODE_GROUP = 4096


class _Encoded:
    """A batch with its letters encoded: each record's length, its end in ``codes``
    (the codes of :attr:`RecordBatch.joined` without the marks between records,
    end to end) and its codes (a view, made when asked for)."""

    def __init__(self, batch: RecordBatch, alpha: Alphabet):
        self.batch = batch
        self.lengths = list(map(len, batch.texts))
        self.ends = list(accumulate(self.lengths))
        # one look-up for all letters (255: not a letter of the alphabet), the marks dropped
        self.codes = batch.joined.translate(alpha.table, SEP)
        self._views: list | None = None

    @property
    def views(self) -> list:
        if self._views is None:
            self._views = code_views(self.codes, self.ends, self.lengths)
        return self._views

    def span(self, lo: int, hi: int) -> tuple[int, int]:
        """Where the codes of records ``lo .. hi - 1`` lie in :attr:`codes`."""
        return (self.ends[lo - 1] if lo else 0), (self.ends[hi - 1] if hi else 0)

    def first_bad(self, lo: int, hi: int) -> int | None:
        """The first of records ``lo .. hi - 1`` with a letter that is not of the alphabet, or None."""
        bad = self.codes.find(255, *self.span(lo, hi))
        return None if bad < 0 else bisect_right(self.ends, bad)


def _groups(batches: Iterable[RecordBatch], alpha: Alphabet) -> Iterator[list[tuple[_Encoded, int, int]]]:
    """The records in groups of :data:`ENCODE_GROUP` (the last may be smaller), each
    given as parts of the encoded batches: ``(batch, first record, end)``."""
    group: list[tuple[_Encoded, int, int]] = []
    size = 0
    for batch in batches:
        encoded = _Encoded(batch, alpha)
        lo, n = 0, len(batch)
        while lo < n:
            hi = min(n, lo + ENCODE_GROUP - size)
            group.append((encoded, lo, hi))
            size += hi - lo
            lo = hi
            if size == ENCODE_GROUP:
                yield group
                group, size = [], 0
    if group:
        yield group


def _check(names: list[str], lengths: list[int], count: int, name: str) -> None:
    """Every record of a group (after ``count`` others) has a name and letters."""
    no_name = names.index("") if "" in names else len(names)
    empty = lengths.index(0) if 0 in lengths else len(lengths)
    if no_name < len(names) and no_name <= empty:
        raise InputError(f"{name}: record {count + no_name + 1} has no name")
    if empty < len(lengths):
        raise InputError(f"{name}: record {names[empty]!r} is empty (no sequence letters)")


def _checked(batches: Iterable[RecordBatch], alpha: Alphabet, name: str,
             before: int = 0) -> Iterator[tuple[list, dict]]:
    """The groups of :func:`_groups`, each with its records' fields
    (``names``, ``texts``, ``descriptions``, ``lengths``), once checked: the
    first problem in the file's order is reported, whatever the groups (a
    record's name and length before its letters; records are numbered after
    ``before`` others of the file)."""
    count = before
    for group in _groups(batches, alpha):
        names, texts, descriptions, lengths = [], [], [], []
        for part, lo, hi in group:
            names += part.batch.names[lo:hi]
            texts += part.batch.texts[lo:hi]
            descriptions += part.batch.descriptions[lo:hi]
            lengths += part.lengths[lo:hi]
        bad, first = None, len(names)  # the first record with a letter not of the alphabet, and its place
        at = 0
        for part, lo, hi in group:
            k = part.first_bad(lo, hi)
            if k is not None:
                bad, first = (part, k), at + k - lo
                break
            at += hi - lo
        # the first problem in the file's order: a record without a name or letters before that one
        _check(names[:first + 1], lengths[:first + 1], count, name)
        if bad is not None:  # the record names itself and the position
            part, k = bad
            try:
                alpha.encode(part.batch.texts[k], record=part.batch.names[k])
            except InputError as exc:
                raise InputError(f"{name}: {exc.message}", param=exc.param) from None
        yield group, {"names": names, "texts": texts, "descriptions": descriptions, "lengths": lengths}
        count += len(names)
    if count == before:
        raise InputError(f"{name}: no sequence records found")


def encode_batches(batches: Iterable[RecordBatch], alpha: Alphabet, name: str) -> Iterator[list[Sequence]]:
    """The records as :class:`Sequence` objects, a list per group of :data:`ENCODE_GROUP`.
    The first problem in the file's order is reported (:func:`_checked`)."""
    for group, f in _checked(batches, alpha, name):
        views: list = []
        for part, lo, hi in group:
            views += part.views[lo:hi]
        yield make_sequences(f["names"], f["texts"], views, alpha, f["descriptions"])


def encode_block(batches: Iterable[RecordBatch], alpha: Alphabet, name: str,
                 before: int = 0) -> SequenceBatch:
    """All records as one :class:`SequenceBatch`, checked as :func:`encode_batches`
    checks them (after ``before`` records of the same file)."""
    names, texts, descriptions, lengths, pieces = [], [], [], [], []
    for group, f in _checked(batches, alpha, name, before):
        names += f["names"]
        texts += f["texts"]
        descriptions += f["descriptions"]
        lengths += f["lengths"]
        pieces += [memoryview(part.codes)[slice(*part.span(lo, hi))] for part, lo, hi in group]
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    codes = pieces[0] if len(pieces) == 1 else b"".join(pieces)
    return SequenceBatch(names, descriptions, texts, np.frombuffer(codes, dtype=np.uint8), offsets, alpha)
