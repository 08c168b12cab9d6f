"""The scoring layer's one compiled kernel (Numba, without the interpreter's
lock): affine Smith-Waterman scores of one random sequence pair, score only,
with the *islands* of the comparison (Altschul et al. 2001).

Each cell's best local alignment ending there starts somewhere, its anchor;
the cells sharing an anchor are an island and its peak is their highest
score. :func:`islands` records, for every island whose peak reaches ``cutoff``,
the peak and the alignment's extent at the peak (mean of its lengths in the
two sequences), in an open-addressing table keyed by the anchor. Ties between
the diagonal, vertical and horizontal moves are broken in that order.

Kept apart so that importing :mod:`swgpu.scoring` does not import Numba: it is
loaded the first time parameters are estimated by simulation
(:mod:`.simulation`).
"""

from __future__ import annotations

import numpy as np

from ..io.compiled import announce_compile, load_numba

load_numba()
from numba import njit  # noqa: E402

__all__ = ["islands", "EMPTY"]

#: An unused slot of the anchor table.
EMPTY = np.int32(-1)


@njit(cache=True, nogil=True)
def islands(a, b, matrix, gap_open, gap_extend, cutoff, keys, peaks, extents):  # pragma: no cover
    """Islands of ``a`` against ``b`` (int codes) with peak >= ``cutoff``
    (int32 scores; ``len(a) + 1`` times ``len(b) + 1`` below 2**31). ``keys``
    (int32, a power-of-two size, filled with EMPTY), ``peaks`` and
    ``extents`` (int32) receive them; returns the number of islands stored,
    or -1 when the table is more than half full (raise the cutoff).
    """
    m = a.shape[0]
    n = b.shape[0]
    go = np.int32(gap_open)
    ge = np.int32(gap_extend)
    zero = np.int32(0)
    mask = np.int32(keys.shape[0] - 1)
    limit = keys.shape[0] // 2
    stored = 0
    width = np.int32(n + 1)
    h_prev = np.zeros(n + 1, dtype=np.int32)     # H of the row above
    o_prev = np.zeros(n + 1, dtype=np.int32)     # its anchors
    h_cur = np.zeros(n + 1, dtype=np.int32)
    o_cur = np.zeros(n + 1, dtype=np.int32)
    e = np.zeros(n + 1, dtype=np.int32)          # vertical gap (down a column)
    oe = np.zeros(n + 1, dtype=np.int32)
    for i in range(1, m + 1):
        row = matrix[a[i - 1]]
        f = zero                                 # horizontal gap (along the row)
        of = zero
        hl = zero                                # H and anchor of the cell to the left
        ol = zero
        hd = zero                                # H and anchor of the cell up-left
        od = zero
        start = np.int32(i) * width
        for j in range(1, n + 1):
            hp = h_prev[j]
            op = o_prev[j]
            # vertical gap ending at (i, j): open below H, or extend
            ext = e[j] - ge
            opened = hp - go
            oev = op if opened >= ext else oe[j]
            ev = opened if opened >= ext else ext
            e[j] = ev
            oe[j] = oev
            # horizontal gap
            ext = f - ge
            opened = hl - go
            of = ol if opened >= ext else of
            f = opened if opened >= ext else ext
            # diagonal: continue the island of (i-1, j-1) or start at (i, j)
            o = od if hd > zero else start + np.int32(j)
            h = (hd if hd > zero else zero) + row[b[j - 1]]
            hd = hp
            od = op
            o = oev if ev > h else o
            h = ev if ev > h else h
            o = of if f > h else o
            h = f if f > h else h
            o = o if h > zero else zero
            h = h if h > zero else zero
            h_cur[j] = h
            o_cur[j] = o
            hl = h
            ol = o
            if h >= cutoff:
                slot = ((o * np.int32(-1640531535)) >> np.int32(7)) & mask
                while keys[slot] != EMPTY and keys[slot] != o:
                    slot = (slot + 1) & mask
                if keys[slot] == EMPTY:
                    if stored >= limit:
                        return -1
                    keys[slot] = o
                    peaks[slot] = zero
                    stored += 1
                if h > peaks[slot]:
                    peaks[slot] = h
                    i0 = o // width
                    extents[slot] = np.int32((i - i0 + j - (o - i0 * width) + 2) // 2)
        h_prev, h_cur = h_cur, h_prev
        o_prev, o_cur = o_cur, o_prev
    return stored


def run(a: np.ndarray, b: np.ndarray, matrix: np.ndarray, gap_open: int, gap_extend: int, cutoff: int,
        slots: int) -> tuple[np.ndarray, np.ndarray] | None:
    """``(peaks, extents)`` of the islands of ``a`` against ``b`` reaching
    ``cutoff``, or None when more than ``slots // 2`` islands reach it."""
    announce_compile(islands)
    keys = np.full(slots, EMPTY, dtype=np.int32)
    peaks = np.zeros(slots, dtype=np.int32)
    extents = np.zeros(slots, dtype=np.int32)
    count = islands(a, b, matrix, np.int32(gap_open), np.int32(gap_extend), np.int32(cutoff), keys, peaks, extents)
    if count < 0:
        return None
    used = keys != EMPTY
    return peaks[used], extents[used]
