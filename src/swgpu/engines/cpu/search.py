"""Numba kernel for database search: one query against many database sequences,
``LANES`` sequences at a time (inter-sequence SIMD, as SWIPE does on CPUs).

Each lane scores one *window* of the database, ``(start, length)`` in its
residues, read in place (the database is never copied or padded). Windows
are laid out in batches of ``LANES``, by increasing length, so a batch's lanes
have similar lengths; past its window's end a lane reads the pad letter of
:mod:`swgpu.engines.layout` (padding can never raise a maximum). Every
operation of the DP cell update runs across the lanes, which the compiler
turns into vector instructions; batches run in parallel on all cores,
interleaved so every thread gets long and short ones. Scores are exact
``int32``.

A sequence is one window, unless it is longer than :data:`LONG`: then, per
query, it is cut into overlapping windows (:func:`split_windows`) so that its
columns fill all lanes and no batch is as wide as the sequence. Any local
alignment scoring above 0 spans at most ``span = m + m * max // gap_extend +
1`` residues of the sequence (``m`` the query length, ``max`` the largest
matrix entry: every gap column costs at least ``gap_extend``), so windows of
``stride + span - 1`` residues every ``stride`` hold every such alignment
whole, and the sequence's score is its best window's. Without gap costs
(``gap_extend == 0``) spans are unbounded and the sequence is one window.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numba as nb
import numpy as np

from ...align.overflow import OverflowPolicy
from ...align.span import alignment_span, window_geometry
from ...io.database import length_order
from ..layout import padded_matrix

__all__ = ["LANES", "LONG", "STRIDE", "Windows", "split_windows", "CpuSearchEngine"]

LANES = 32
#: Sequences longer than this are scored on overlapping windows.
LONG = 1 << 17
#: Least stride of those windows (at least 4 spans, so overlaps cost under a quarter).
STRIDE = 1 << 16


@dataclass
class Windows:
    """Windows in batches: ``seq``, ``start``, ``length`` are (batches, LANES)
    int64 arrays (``seq == -1`` and ``length == 0`` in empty lanes)."""

    seq: np.ndarray
    start: np.ndarray
    length: np.ndarray

    @classmethod
    def of(cls, seq: np.ndarray, start: np.ndarray, length: np.ndarray) -> "Windows":
        """Windows listed in order, ``LANES`` to a batch."""
        nbatch = -(-len(seq) // LANES)
        arrays = []
        for values, fill in ((seq, -1), (start, 0), (length, 0)):
            out = np.full(nbatch * LANES, fill, dtype=np.int64)
            out[: len(values)] = values
            arrays.append(out.reshape(nbatch, LANES))
        return cls(*arrays)

    def select(self, seqs: np.ndarray) -> "Windows":
        """The windows of the sequences ``seqs``, in the same order, re-batched."""
        keep = np.isin(self.seq, seqs) & (self.seq >= 0)
        return Windows.of(self.seq[keep], self.start[keep], self.length[keep])

    @property
    def columns(self) -> int:
        """Columns of all batches (each as wide as its longest window)."""
        return int(self.length.max(axis=1).sum()) if self.length.size else 0


def split_windows(offsets: np.ndarray, ids: np.ndarray, span: int | None, stride: int = STRIDE) -> Windows:
    """Windows of the sequences ``ids``: ``stride + span - 1`` residues every
    ``stride`` (``stride`` raised to ``4 * span``); a sequence that fits one
    window, or any sequence when ``span`` is None, is one window."""
    ids = np.asarray(ids, dtype=np.int64)
    lengths = offsets[ids + 1] - offsets[ids]
    if span is None:
        return Windows.of(ids, offsets[ids], lengths)
    stride, width = window_geometry(span, stride)
    count = np.where(lengths > width, -(-(lengths - width) // stride) + 1, 1)
    seq = np.repeat(ids, count)
    first = np.repeat(np.cumsum(count) - count, count)
    skip = (np.arange(seq.size) - first) * stride  # window k of its sequence starts at k * stride
    length = np.minimum(width, np.repeat(lengths, count) - skip)
    return Windows.of(seq, offsets[seq] + skip, length)


def _schedule(nbatch: int) -> np.ndarray:
    """Batch order that gives each thread's contiguous share every
    ``threads``-th batch (batches are sorted by width)."""
    threads = max(1, nb.get_num_threads())
    return np.concatenate([np.arange(t, nbatch, threads) for t in range(threads)]).astype(np.int64)


@nb.njit(cache=True, parallel=True, boundscheck=False)
def _search(T, neg, query, matrix, gap_open, gap_extend, residues, wstart, wlen, pad, order, out):
    """Best local score of ``query`` against every window, in lanes of type ``T``
    (``np.int16`` or ``np.int32``): ``out[b, lane]`` for the window of lane
    ``lane`` of batch ``b``; batches run in the order ``order``."""
    m = query.shape[0]
    k = matrix.shape[0]
    go = T(gap_open)
    ge = T(gap_extend)
    zero = T(0)
    for ii in nb.prange(order.shape[0]):
        b = order[ii]
        width = 0
        for lane in range(LANES):
            width = max(width, wlen[b, lane])
        H = np.zeros((m + 1, LANES), dtype=T)
        E = np.full((m + 1, LANES), neg, dtype=T)
        prof = np.empty((k, LANES), dtype=T)
        col = np.empty(LANES, dtype=np.uint8)
        f = np.empty(LANES, dtype=T)
        up = np.empty(LANES, dtype=T)
        diag = np.empty(LANES, dtype=T)
        best = np.zeros(LANES, dtype=T)
        for j in range(width):
            for lane in range(LANES):
                col[lane] = residues[wstart[b, lane] + j] if j < wlen[b, lane] else pad
            for c in range(k):
                row = matrix[c]
                for lane in range(LANES):
                    prof[c, lane] = row[col[lane]]
            for lane in range(LANES):
                f[lane] = neg
                up[lane] = zero
                diag[lane] = zero
            for i in range(1, m + 1):
                p = prof[query[i - 1]]
                hi = H[i]
                ei = E[i]
                for lane in range(LANES):
                    left = hi[lane]
                    e = max(T(ei[lane] - ge), T(left - go))
                    fl = max(T(f[lane] - ge), T(up[lane] - go))
                    h = max(max(T(diag[lane] + p[lane]), e), max(fl, zero))
                    diag[lane] = left
                    hi[lane] = h
                    ei[lane] = e
                    f[lane] = fl
                    up[lane] = h
                    best[lane] = max(best[lane], h)
        for lane in range(LANES):
            out[b, lane] = best[lane]


class CpuSearchEngine:
    """Scores queries against a whole database on all CPU cores (a
    :class:`~swgpu.engines.base.DatabaseScorer`).

    Build with the matrix and gap penalties, :meth:`load_database` once, then
    :meth:`scores_many`. A first pass runs in 16-bit lanes (32 sequences per
    64-byte vector); the sequences whose score may have overflowed (see
    :class:`~swgpu.align.overflow.OverflowPolicy`) are re-scored exactly in
    32-bit lanes. Sequences longer than ``long_length`` are scored on windows
    (module docs) at least ``stride`` apart; memory beyond the database is a
    few dozen bytes per window and per sequence.
    """

    def __init__(self, matrix: np.ndarray, gap_open: int, gap_extend: int, long_length: int = LONG,
                 stride: int = STRIDE):
        padded = padded_matrix(matrix)
        self._m32 = padded
        self._m16 = padded.astype(np.int16)
        self.gap_open = int(gap_open)
        self.gap_extend = int(gap_extend)
        self._pad = matrix.shape[0]
        self._max_score = int(matrix.max())
        self._use16 = max(self.gap_open, self.gap_extend) <= 4000 and np.abs(matrix).max() <= 1000
        self.overflow = OverflowPolicy(max_match=self._max_score, headroom=2)
        self.long_length = int(long_length)
        self.stride = int(stride)
        self._short: Windows | None = None
        self._split: tuple[int | None, Windows] | None = None
        self.last_timing: dict = {}

    def load_database(self, residues: np.ndarray, offsets: np.ndarray) -> None:
        self._residues = np.ascontiguousarray(residues, dtype=np.uint8)
        self._offsets = np.ascontiguousarray(offsets, dtype=np.int64)
        order = length_order(self._offsets)
        lengths = np.diff(self._offsets)[order]
        cut = int(np.searchsorted(lengths, self.long_length, side="right"))
        self._short = Windows.of(order[:cut], self._offsets[order[:cut]], lengths[:cut])
        self._long = order[cut:]
        self._split = None

    def compile(self, query_lengths=()) -> float:
        """Nothing to prepare (Numba kernels are cached on disk); 0 seconds."""
        return 0.0

    def layouts(self, query_length: int) -> list[Windows]:
        """The windows a query of ``query_length`` is scored on: the whole
        sequences, then the windows of the long ones (kept for the next query
        of the same span)."""
        if self._short is None:
            raise RuntimeError("load_database() first")
        if not self._long.size:
            return [self._short]
        span = alignment_span(query_length, self._max_score, self.gap_extend)
        if self._split is None or self._split[0] != span:
            self._split = (span, split_windows(self._offsets, self._long, span, self.stride))
        return [self._short, self._split[1]]

    def _run(self, bits16: bool, query: np.ndarray, layouts: list[Windows], out: np.ndarray) -> None:
        """``out[s] = max(out[s], best window score of s)`` for the sequences of ``layouts``."""
        if bits16:
            T, neg, matrix = np.int16, np.int16(-16384), self._m16
        else:
            T, neg, matrix = np.int32, np.int32(-(1 << 29)), self._m32
        for w in layouts:
            if not w.seq.size:
                continue
            best = np.zeros(w.seq.shape, dtype=T)
            _search(T, neg, query, matrix, self.gap_open, self.gap_extend, self._residues, w.start, w.length,
                    self._pad, _schedule(w.seq.shape[0]), best)
            used = w.seq >= 0
            np.maximum.at(out, w.seq[used], best[used].astype(np.int32))

    def scores(self, query: np.ndarray) -> np.ndarray:
        """Exact SW score of ``query`` against every database sequence (database order)."""
        t0 = time.perf_counter()
        query = np.ascontiguousarray(query, dtype=np.uint8)
        layouts = self.layouts(len(query))
        out = np.zeros(len(self._offsets) - 1, dtype=np.int32)
        self._run(self._use16, query, layouts, out)
        rescored = 0
        if self._use16:

            def rescore(redo: np.ndarray) -> np.ndarray:
                out[redo] = 0
                self._run(False, query, [w.select(redo) for w in layouts], out)
                return out[redo]

            rescored = self.overflow.resolve(out, rescore)
        self.last_timing = {"total": time.perf_counter() - t0, "rescored": rescored}
        return out

    def scores_many(self, queries) -> list[np.ndarray]:
        """:meth:`scores` of each query (one after another, each on all cores)."""
        return [self.scores(q) for q in queries]
