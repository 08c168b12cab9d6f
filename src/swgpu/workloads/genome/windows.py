"""Hits at end points along long targets: the records of a genome as one
code array, and the alignment that ends at each end point, traced in the
window of the target that ends there (``scan`` and genome-scale ``align``).

>>> from swgpu import Scoring, Sequence
>>> genome = [Sequence.from_text("a", "TTTTGATTACA"), Sequence.from_text("b", "GATTACATT")]
>>> codes, bounds = genome_codes(genome)
>>> bounds.tolist(), record_of(bounds, 12)
([0, 11, 20], 1)
"""

from __future__ import annotations

from typing import Sequence as Seq

import numpy as np

from ...align.alignment import Alignment
from ...io.sequence import Sequence

__all__ = ["genome_codes", "record_bounds", "record_of", "end_windows", "finish_traces", "TracedScoreMismatch"]


class TracedScoreMismatch(RuntimeError):
    """An alignment traced in an end point's window scored ``traced``, not the
    end point's ``score``: a bug, unless the caller cut the window shorter than
    an alignment of that score can span (``query_length``: the query's)."""

    def __init__(self, query: str, traced: int, score: int, query_length: int):
        super().__init__(f"{query}: traced score {traced} != end point score {score}; this is a bug")
        self.query, self.traced, self.score, self.query_length = query, traced, score, query_length


def genome_codes(genome: Seq[Sequence]) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, bounds)``: the records' codes end to end (read-only: a GPU
    engine may keep them on the device between calls), and where each
    record starts (``bounds[r]``) and the last ends (``bounds[-1]``)."""
    codes = (np.concatenate([r.codes for r in genome]) if genome else np.zeros(0)).astype(np.uint8, copy=False)
    codes.flags.writeable = False
    return codes, record_bounds(genome)


def record_bounds(genome: Seq[Sequence]) -> np.ndarray:
    """Where each record starts in the genome's columns (``bounds[r]``), and where the last ends (``bounds[-1]``)."""
    bounds = np.zeros(len(genome) + 1, dtype=np.int64)
    np.cumsum([len(r) for r in genome], out=bounds[1:])
    return bounds


def record_of(bounds: np.ndarray, column):
    """The record holding genome column ``column`` (an ``int``; for an array of columns, each one's)."""
    found = np.searchsorted(bounds, column, side="right") - 1
    return int(found) if np.ndim(found) == 0 else found


def end_windows(genome: Seq[Sequence], bounds: np.ndarray, ends, span_of) -> tuple[list, list]:
    """The pairs to trace for end points ``(query, strand, column, score)``
    (``query`` as oriented for the strand, ``column`` in genome coordinates):
    the query against the window of the record that ends at the column and
    starts ``span_of(len(query), score)`` letters before it (the most an
    alignment of the end point's score can span; the record's start when
    None). Returns ``(pairs, meta)`` for :func:`finish_traces`."""
    pairs, meta = [], []
    if not len(ends):
        return pairs, meta
    cols = np.fromiter((e[2] for e in ends), dtype=np.int64, count=len(ends))
    records = record_of(bounds, cols).tolist()
    starts = np.asarray(bounds, dtype=np.int64).tolist()
    spans: dict = {}  # span_of of each distinct (query length, score): end points share them
    for (q, sign, col, score), r in zip(ends, records):
        lo = starts[r]
        key = (len(q), score)
        if key not in spans:
            spans[key] = span_of(*key)
        span = spans[key]
        start = lo if span is None else max(lo, col - span + 1)
        rec = genome[r]
        window = Sequence(rec.name, rec.text[start - lo:col + 1 - lo], rec.codes[start - lo:col + 1 - lo],
                          rec.alphabet, rec.description)
        pairs.append((q, window))
        meta.append((q.name, sign, score, start - lo, len(rec), len(q)))
    return pairs, meta


def finish_traces(alns: list[Alignment], meta: list) -> list[Alignment]:
    """Alignments of the windows of :func:`end_windows` (each the best ending
    with a pair at the window's last letter) in record coordinates, with
    their strand; a traced score other than the end point's is a
    :class:`TracedScoreMismatch`."""
    for aln, (name, sign, score, shift, length, query_length) in zip(alns, meta):
        if aln.score != score:
            raise TracedScoreMismatch(name, aln.score, score, query_length)
        aln.target_start += shift
        aln.target_end += shift
        aln.target_length = length
        aln.strand = sign
    return alns
