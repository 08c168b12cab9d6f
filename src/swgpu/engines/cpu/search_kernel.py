"""The database-search kernel: one query against many database windows, one
window per vector lane (inter-sequence SIMD, as SWIPE and Opal do).

A batch is as many windows as a vector has lanes -- 64 in 8-bit lanes, 32 in
16-bit, 16 in 32-bit -- read in place from the database residues. Each
column of the batch is one residue of every window (the pad letter past a
window's end); its score profile (the score of each query letter against the
column, per lane) is one table lookup per letter (:func:`~.simd.vlookup`),
then the query rows run down the column with the DP state in registers.

Lane arithmetic is unsigned and saturating with the scores biased by
``bias = -min(matrix)``: ``H = max(H_diag + (s + bias) - bias, E, F)``
clamps at 0 (the local floor) and at ``MAX = 2**bits - 1``. A lane whose
best stays below ``MAX - bias`` never saturated, so its score is exact;
lanes at or above are re-scored in wider lanes by the caller. ``E`` and
``F`` clamp at 0 too, which changes no ``H`` (``H >= 0``). Past a window's
end the pad letter scores ``-bias <= 0``, which can never raise a lane's
best (every padded cell is at most the best of the cells it comes from).

Batches are taken from a shared queue (:func:`~.simd.atomic_next`) by every
thread, longest first, so threads finish together whatever the lengths. A
queue counter set to :data:`~.threads.CANCEL` stops the kernel after the
column it is in (an interrupted search: a long query's batch can take many
seconds).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .simd import adds, atomic_next, atomic_read, subs, vfill, vload, vlookup, vmax, vstore
from .threads import CANCEL

__all__ = ["search_batches"]

@nb.njit(nogil=True, cache=True, boundscheck=False)
def search_batches(query, tables, residues, wstart, wlen, pad, order, counter, gap_open, gap_extend, bias, best):
    """Score the batches ``order[counter...]`` until the queue is empty:
    ``best[b, lane]`` = best local score of ``query`` against window ``lane``
    of batch ``b`` (``wstart``/``wlen``: (batches, lanes) start and length in
    ``residues``), saturated at the lane maximum. Gap penalties must be
    clamped to the lane maximum by the caller."""
    lanes = wstart.shape[1]
    m = query.shape[0]
    k = tables.shape[0]
    tw = tables.shape[1]
    dt = tables.dtype
    H = np.empty(m * lanes, dtype=dt)  # (set for each batch below)
    E = np.empty(m * lanes, dtype=dt)
    P = np.empty(k * lanes, dtype=dt)
    col = np.empty(lanes, dtype=dt)
    z = vfill(H, 0)
    vgo = vfill(H, gap_open)
    vge = vfill(H, gap_extend)
    vb = vfill(H, bias)
    while True:
        ii = atomic_next(counter)
        if ii >= order.shape[0]:
            break
        b = order[ii]
        width = 0
        for lane in range(lanes):
            width = max(width, wlen[b, lane])
        for i in range(m):
            vstore(H, i * lanes, z)
            vstore(E, i * lanes, z)
        top = z
        for j in range(width):
            if atomic_read(counter) >= CANCEL:
                return 1
            for lane in range(lanes):
                col[lane] = residues[wstart[b, lane] + j] if j < wlen[b, lane] else pad
            if tw <= lanes:
                cv = vload(col, 0)
                for c in range(k):
                    vstore(P, c * lanes, vlookup(tables, c * tw, cv))
            else:
                for c in range(k):
                    for lane in range(lanes):
                        P[c * lanes + lane] = tables[c, col[lane]]
            f = z
            diag = z
            hgo = z  # H(i-1, j) - gap_open; H(-1, j) = 0
            for i in range(m):
                at = i * lanes
                left = vload(H, at)
                e = vload(E, at)
                f = vmax(subs(f, vge), hgo)
                h = vmax(subs(adds(diag, vload(P, query[i] * lanes)), vb), vmax(e, f))
                top = vmax(top, h)
                vstore(H, at, h)
                hgo = subs(h, vgo)
                vstore(E, at, vmax(subs(e, vge), hgo))
                diag = left
        vstore(best, b * lanes, top)
    return 0
