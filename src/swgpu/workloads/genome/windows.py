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

__all__ = ["genome_codes", "record_bounds", "record_of", "window_starts", "trace_windows", "end_windows",
           "finish_traces", "TracedScoreMismatch"]


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


def window_starts(bounds: np.ndarray, columns: np.ndarray, spans: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(records, starts)`` of the windows that end at genome ``columns``: the
    record holding each column, and the window's first column (genome
    coordinates), ``spans[k]`` letters before the end (the most an alignment of
    the end point's score can span; -1: unbounded) but not before the record's start."""
    columns = np.asarray(columns, dtype=np.int64)
    spans = np.asarray(spans, dtype=np.int64)
    records = np.asarray(record_of(bounds, columns), dtype=np.int64).reshape(columns.shape)
    lo = np.asarray(bounds, dtype=np.int64)[records]
    return records, np.where(spans < 0, lo, np.maximum(lo, columns - spans + 1))


def end_windows(genome: Seq[Sequence], bounds: np.ndarray, ends, span_of) -> tuple[list, list]:
    """The pairs to trace for end points ``(query, strand, column, score)``
    (``query`` as oriented for the strand, ``column`` in genome coordinates):
    the query against the window of the record that ends at the column and
    starts ``span_of(len(query), score)`` letters before it (the most an
    alignment of the end point's score can span; the record's start when
    None): :func:`window_starts`. Returns ``(pairs, meta)`` for :func:`finish_traces`."""
    pairs, meta = [], []
    if not len(ends):
        return pairs, meta
    cols = np.fromiter((e[2] for e in ends), dtype=np.int64, count=len(ends))
    spans: dict = {}  # span_of of each distinct (query length, score): end points share them
    for q, _, _, score in ends:
        key = (len(q), score)
        if key not in spans:
            found = span_of(*key)
            spans[key] = -1 if found is None else found
    records, starts = window_starts(bounds, cols, np.array([spans[(len(e[0]), e[3])] for e in ends], np.int64))
    lows = np.asarray(bounds, dtype=np.int64)[records].tolist()
    for (q, sign, col, score), r, start, lo in zip(ends, records.tolist(), starts.tolist(), lows):
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


def trace_windows(tracer, qcodes: np.ndarray, qoffsets: np.ndarray, codes: np.ndarray, bounds: np.ndarray,
                  query_index, columns, scores, spans, strand, names, unknown: int):
    """The alignments of end points as an :class:`~swgpu.align.batch.AlignmentBatch`,
    with no object per end point: end point ``k`` of the query ``query_index[k]``
    (codes ``qcodes[qoffsets[i]:qoffsets[i + 1]]``, as oriented for ``strand[k]``)
    ends at genome column ``columns[k]`` scoring ``scores[k]``; it is traced by
    ``tracer.trace_packed`` in its window (:func:`window_starts` of ``spans``), the best
    alignment ending with a pair at the window's last letter. The batch's
    targets are the records (``target_index``), its coordinates the record's;
    a traced score other than the end point's is a :class:`TracedScoreMismatch`
    (``names[i]``: query ``i``'s name)."""
    from ...align.batch import AlignmentBatch

    qi = np.asarray(query_index, dtype=np.int64)
    columns, scores = np.asarray(columns, dtype=np.int64), np.asarray(scores, dtype=np.int64)
    records, starts = window_starts(bounds, columns, spans)
    qlen = np.diff(qoffsets)
    paths = tracer.trace_packed(qcodes, qoffsets[qi], qlen[qi], codes, starts, columns - starts + 1, expected=scores,
                                end_at_last=True)
    window_offsets = np.append(starts, 0)  # (window k starts at window_offsets[k]; its length is set below)
    batch = AlignmentBatch.from_paths(qcodes, qoffsets, codes, window_offsets, qi, np.arange(qi.size), paths.i0,
                                      paths.j0, paths.ops, paths.off, paths.best, unknown, strand, runs=paths.runs)
    wrong = np.flatnonzero(batch.score != scores)
    if wrong.size:
        k = int(wrong[0])
        raise TracedScoreMismatch(names[int(qi[k])], int(batch.score[k]), int(scores[k]), int(qlen[qi[k]]))
    shift = starts - np.asarray(bounds, dtype=np.int64)[records]
    batch.target_start += shift
    batch.target_end += shift
    batch.target_index = records
    batch.target_length = np.diff(np.asarray(bounds, dtype=np.int64))[records]
    return batch
