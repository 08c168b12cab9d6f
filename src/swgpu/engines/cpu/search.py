"""Numba kernel for database search: one query against many database sequences,
``LANES`` sequences at a time (inter-sequence SIMD, as SWIPE does on CPUs).

The database is cut into batches of ``LANES`` sequences of similar length
(sorted by length); a batch is stored column-major, ``cols[j, lane]`` = residue
``j`` of the lane's sequence, padded past its end with the pad letter of
:mod:`swgpu.engines.layout` (padding can never raise a maximum). Every
operation of the DP cell update runs across the lanes, which the compiler turns
into vector instructions; batches run in parallel on all cores. Scores are exact
``int32``.
"""

from __future__ import annotations

import time

import numba as nb
import numpy as np

from ...align.overflow import OverflowPolicy
from ...io.database import length_order
from ..layout import padded_matrix

__all__ = ["LANES", "pack_batches", "CpuSearchEngine"]

LANES = 32


def pack_batches(residues: np.ndarray, offsets: np.ndarray, order: np.ndarray, pad_code: int):
    """Lay sequences out as column-major batches of ``LANES``.

    ``order`` lists sequence indices by increasing length. Returns ``cols``
    (uint8, total_columns x LANES), ``starts`` (int64, first column of each batch,
    plus the end) and ``members`` (int64, batches x LANES, -1 for empty lanes).
    """
    n = len(order)
    nb_ = (n + LANES - 1) // LANES
    members = np.full((nb_, LANES), -1, dtype=np.int64)
    members.reshape(-1)[:n] = order
    lengths = np.diff(offsets)
    widths = np.zeros(nb_, dtype=np.int64)
    for b in range(nb_):
        m = members[b][members[b] >= 0]
        widths[b] = lengths[m].max() if m.size else 0
    starts = np.zeros(nb_ + 1, dtype=np.int64)
    np.cumsum(widths, out=starts[1:])
    cols = np.full((int(starts[-1]), LANES), pad_code, dtype=np.uint8)
    _fill(cols, starts, members, residues, offsets)
    return cols, starts, members


@nb.njit(cache=True, nogil=True)
def _fill(cols, starts, members, residues, offsets):
    for b in range(members.shape[0]):
        for lane in range(LANES):
            s = members[b, lane]
            if s < 0:
                continue
            a = offsets[s]
            n = offsets[s + 1] - a
            for j in range(n):
                cols[starts[b] + j, lane] = residues[a + j]


@nb.njit(cache=True, parallel=True, boundscheck=False)
def _search(T, neg, query, matrix, gap_open, gap_extend, cols, starts, members, out):
    """Best local score of ``query`` against every sequence, in lanes of type ``T``
    (``np.int16`` or ``np.int32``); ``out[seq]`` is written for each member."""
    m = query.shape[0]
    k = matrix.shape[0]
    go = T(gap_open)
    ge = T(gap_extend)
    zero = T(0)
    nbatch = members.shape[0]
    for b in nb.prange(nbatch):
        H = np.zeros((m + 1, LANES), dtype=T)
        E = np.full((m + 1, LANES), neg, dtype=T)
        prof = np.empty((k, LANES), dtype=T)
        f = np.empty(LANES, dtype=T)
        up = np.empty(LANES, dtype=T)
        diag = np.empty(LANES, dtype=T)
        best = np.zeros(LANES, dtype=T)
        for j in range(starts[b], starts[b + 1]):
            col = cols[j]
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
            s = members[b, lane]
            if s >= 0:
                out[s] = best[lane]


class CpuSearchEngine:
    """Scores queries against a whole database on all CPU cores (a
    :class:`~swgpu.engines.base.DatabaseScorer`).

    Build with the matrix and gap penalties, :meth:`load_database` once, then
    :meth:`scores_many`. A first pass runs in 16-bit lanes (32 sequences per
    64-byte vector); the sequences whose score may have overflowed (see
    :class:`~swgpu.align.overflow.OverflowPolicy`) are re-scored exactly in
    32-bit lanes.
    """

    def __init__(self, matrix: np.ndarray, gap_open: int, gap_extend: int):
        padded = padded_matrix(matrix)
        self._m32 = padded
        self._m16 = padded.astype(np.int16)
        self.gap_open = int(gap_open)
        self.gap_extend = int(gap_extend)
        self._pad = matrix.shape[0]
        self._use16 = max(self.gap_open, self.gap_extend) <= 4000 and np.abs(matrix).max() <= 1000
        self.overflow = OverflowPolicy(max_match=int(matrix.max()), headroom=2)
        self._packed = None
        self.last_timing: dict = {}

    def load_database(self, residues: np.ndarray, offsets: np.ndarray) -> None:
        self._residues = np.ascontiguousarray(residues, dtype=np.uint8)
        self._offsets = np.ascontiguousarray(offsets, dtype=np.int64)
        self._packed = pack_batches(self._residues, self._offsets, length_order(self._offsets), self._pad)

    def compile(self, query_lengths=()) -> float:
        """Nothing to prepare (Numba kernels are cached on disk); 0 seconds."""
        return 0.0

    def _pass32(self, query: np.ndarray, packed, out: np.ndarray) -> None:
        _search(np.int32, np.int32(-(1 << 29)), query, self._m32, self.gap_open, self.gap_extend, *packed, out)

    def scores(self, query: np.ndarray) -> np.ndarray:
        """Exact SW score of ``query`` against every database sequence (database order)."""
        if self._packed is None:
            raise RuntimeError("load_database() first")
        t0 = time.perf_counter()
        n = len(self._offsets) - 1
        query = np.ascontiguousarray(query, dtype=np.uint8)
        if not self._use16:
            out = np.zeros(n, dtype=np.int32)
            self._pass32(query, self._packed, out)
            self.last_timing = {"total": time.perf_counter() - t0, "rescored": 0}
            return out
        out16 = np.zeros(n, dtype=np.int16)
        _search(np.int16, np.int16(-16384), query, self._m16, self.gap_open, self.gap_extend, *self._packed, out16)
        out = out16.astype(np.int32)

        def rescore(redo: np.ndarray) -> np.ndarray:
            lengths = np.diff(self._offsets)[redo]
            packed = pack_batches(self._residues, self._offsets, redo[np.argsort(lengths, kind="stable")], self._pad)
            self._pass32(query, packed, out)  # writes the re-scored sequences only
            return out[redo]

        rescored = self.overflow.resolve(out, rescore)
        self.last_timing = {"total": time.perf_counter() - t0, "rescored": rescored}
        return out

    def scores_many(self, queries) -> list[np.ndarray]:
        """:meth:`scores` of each query (one after another, each on all cores)."""
        return [self.scores(q) for q in queries]
