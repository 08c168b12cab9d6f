"""Scalar Numba kernel of ``scan`` on the CPU: the column maxima of the local
DP matrix of a query against a stretch of a long target, one cell at a time
-- the reference the SIMD kernel (:mod:`.scan_striped`, which the engine
runs) is tested against. The end pass of an alignment that must end at the
target's last letter is :func:`~.pairwise.sw_end_last`.

Explicit ``int32`` throughout; the query profile is built once per query.
"""

from __future__ import annotations

import numba as nb
import numpy as np

__all__ = ["query_profile", "column_maxima"]

NEG = np.int32(-(1 << 29))
_OPTS = dict(nogil=True, cache=True, boundscheck=False)


def query_profile(q: np.ndarray, matrix: np.ndarray) -> np.ndarray:
    """``prof[c, i]`` = score of query letter ``i`` against target code ``c``."""
    return np.ascontiguousarray(matrix[:, q].astype(np.int32))


@nb.njit(**_OPTS)
def column_maxima(prof, t, lo, hi, gap_open, gap_extend, out):
    """``out[j - lo]`` = the best score of an alignment ending with a pair at
    column ``j`` (``lo <= j < hi``; the largest ``H(i - 1, j - 1) + s(i, j)``,
    0 when none is positive) of the local matrix of the query (``prof``)
    against ``t[lo:hi]``, a pass
    that starts fresh at column ``lo`` (exact for every column whose best
    alignments start at or after ``lo``)."""
    m = prof.shape[1]
    go = np.int32(gap_open)
    ge = np.int32(gap_extend)
    zero = np.int32(0)
    H = np.zeros(m + 1, dtype=np.int32)  # H of the previous column, rows 0..m
    E = np.full(m + 1, NEG, dtype=np.int32)  # horizontal gaps into the next column
    for j in range(lo, hi):
        row = prof[t[j]]
        diag = zero  # H(i - 1, j - 1)
        up = zero  # H(i - 1, j)
        f = NEG
        best = zero
        for i in range(1, m + 1):
            e = E[i]
            f = max(np.int32(f - ge), np.int32(up - go))
            d = np.int32(diag + row[i - 1])
            h = max(max(d, e), max(f, zero))
            diag = H[i]
            H[i] = h
            E[i] = max(np.int32(e - ge), np.int32(h - go))
            up = h
            if d > best:
                best = d
        out[j - lo] = best
