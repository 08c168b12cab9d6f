"""Numba kernels for one pair: local score and end, anchored start, and the
global-alignment pieces of the linear-memory traceback.

All arithmetic is explicit ``int32`` (Numba would otherwise widen to int64 and
run slower). Sequences are ``uint8`` code arrays, the matrix an ``int32`` 2-D
array indexed by codes.
"""

from __future__ import annotations

import numba as nb
import numpy as np

__all__ = ["sw_end", "sw_start", "nw_last_row", "nw_path"]

NEG = np.int32(-(1 << 29))

_OPTS = dict(nogil=True, cache=True, boundscheck=False)


@nb.njit(**_OPTS)
def sw_end(q, t, matrix, gap_open, gap_extend):
    """Best local score and the first cell (row-major, 1-based) holding it."""
    m = q.shape[0]
    n = t.shape[0]
    go = np.int32(gap_open)
    ge = np.int32(gap_extend)
    zero = np.int32(0)
    H = np.zeros(n + 1, dtype=np.int32)
    F = np.full(n + 1, NEG, dtype=np.int32)
    best = zero
    bi = 0
    bj = 0
    for i in range(1, m + 1):
        row = matrix[q[i - 1]]
        diag = zero
        left = zero
        e = NEG
        rowbest = zero
        rowj = 0
        for j in range(1, n + 1):
            up = H[j]
            e = max(np.int32(e - ge), np.int32(left - go))
            f = max(np.int32(F[j] - ge), np.int32(up - go))
            F[j] = f
            h = np.int32(diag + row[t[j - 1]])
            h = max(h, e)
            h = max(h, f)
            h = max(h, zero)
            H[j] = h
            diag = up
            left = h
            if h > rowbest:
                rowbest = h
                rowj = j
        if rowbest > best:
            best = rowbest
            bi = i
            bj = rowj
    return best, bi, bj


@nb.njit(**_OPTS)
def sw_start(rq, rt, matrix, gap_open, gap_extend, best):
    """Anchored pass over the *reversed* prefixes that end the alignment.

    ``rq``/``rt`` are ``q[:i_end][::-1]`` and ``t[:j_end][::-1]``; alignments
    must begin with the pair ``rq[0]``/``rt[0]``. Returns the first cell
    (row-major, 1-based, reversed coordinates) where an alignment ending in a
    pair scores ``best``: the latest start in forward coordinates.
    """
    m = rq.shape[0]
    n = rt.shape[0]
    go = np.int32(gap_open)
    ge = np.int32(gap_extend)
    H = np.full(n + 1, NEG, dtype=np.int32)
    F = np.full(n + 1, NEG, dtype=np.int32)
    target = np.int32(best)
    for i in range(1, m + 1):
        row = matrix[rq[i - 1]]
        diag = np.int32(0) if i == 1 else NEG
        left = NEG
        e = NEG
        for j in range(1, n + 1):
            up = H[j]
            e = max(np.int32(e - ge), np.int32(left - go))
            f = max(np.int32(F[j] - ge), np.int32(up - go))
            F[j] = f
            d = np.int32(diag + row[rt[j - 1]])
            if d == target:
                return i, j
            h = max(max(d, e), f)
            H[j] = h
            diag = up
            left = h
    return 0, 0


@nb.njit(**_OPTS)
def nw_last_row(a, b, matrix, gap_open, gap_extend, lead_open):
    """Last row of the global (Gotoh) DP of ``a`` (rows) against ``b`` (columns).

    Returns ``(CC, DD)``: best score reaching ``(len(a), j)`` in any state, and
    ending in a vertical gap (``a`` residue against a gap). A vertical gap that
    starts at the top-left corner costs ``lead_open`` for its first residue
    (``gap_open`` normally, ``gap_extend`` when it continues a gap from outside).
    """
    m = a.shape[0]
    n = b.shape[0]
    go = np.int32(gap_open)
    ge = np.int32(gap_extend)
    CC = np.empty(n + 1, dtype=np.int32)
    DD = np.full(n + 1, NEG, dtype=np.int32)
    CC[0] = 0
    for j in range(1, n + 1):
        CC[j] = -(go + np.int32(j - 1) * ge)
    for i in range(1, m + 1):
        row = matrix[a[i - 1]]
        diag = CC[0]
        c = np.int32(-(np.int32(lead_open) + np.int32(i - 1) * ge))
        CC[0] = c
        DD[0] = c
        e = NEG
        for j in range(1, n + 1):
            e = max(np.int32(e - ge), np.int32(c - go))
            up = CC[j]
            d = max(np.int32(DD[j] - ge), np.int32(up - go))
            DD[j] = d
            c = max(max(np.int32(diag + row[b[j - 1]]), e), d)
            diag = up
            CC[j] = c
    return CC, DD


@nb.njit(**_OPTS)
def nw_path(a, b, matrix, gap_open, gap_extend, lead_open, tail_open):
    """Optimal global path of ``a`` against ``b`` with full direction bytes.

    ``lead_open``/``tail_open``: cost of the first residue of a vertical gap that
    touches the start / the end (``gap_extend`` where the gap continues outside).
    Returns op codes (0 pair, 1 ``a`` residue against a gap, 2 ``b`` residue
    against a gap) in order, and the path's score.
    """
    m = a.shape[0]
    n = b.shape[0]
    go = np.int32(gap_open)
    ge = np.int32(gap_extend)
    # bits 0-1: H source (0 diag, 1 E, 2 F); bit 2: E extends; bit 3: F extends
    D = np.zeros((m + 1, n + 1), dtype=np.uint8)
    H = np.empty(n + 1, dtype=np.int32)
    F = np.full(n + 1, NEG, dtype=np.int32)
    H[0] = 0
    for j in range(1, n + 1):
        H[j] = -(go + np.int32(j - 1) * ge)
    for i in range(1, m + 1):
        row = matrix[a[i - 1]]
        diag = H[0]
        h = np.int32(-(np.int32(lead_open) + np.int32(i - 1) * ge))
        H[0] = h
        e = NEG
        for j in range(1, n + 1):
            flags = np.uint8(0)
            eo = np.int32(h - go)
            ee = np.int32(e - ge)
            if ee >= eo:
                e = ee
                flags |= 4
            else:
                e = eo
            up = H[j]
            fo = np.int32(up - go)
            fe = np.int32(F[j] - ge)
            if fe >= fo:
                f = fe
                flags |= 8
            else:
                f = fo
            F[j] = f
            h = np.int32(diag + row[b[j - 1]])
            if e > h:
                h = e
                flags = (flags & 12) | 1
            if f > h:
                h = f
                flags = (flags & 12) | 2
            D[i, j] = flags
            diag = up
            H[j] = h
    final = H[n]
    state = 0
    if m > 0 and n > 0:
        alt = np.int32(F[n] + go - np.int32(tail_open))
        if alt > final:
            final = alt
            state = 2
    ops = np.empty(m + n, dtype=np.uint8)
    k = 0
    i = m
    j = n
    while i > 0 or j > 0:
        if i == 0:
            ops[k] = 2
            k += 1
            j -= 1
        elif j == 0:
            ops[k] = 1
            k += 1
            i -= 1
        elif state == 0:
            src = D[i, j] & 3
            if src == 0:
                ops[k] = 0
                k += 1
                i -= 1
                j -= 1
            else:
                state = src
        elif state == 1:
            ops[k] = 2
            k += 1
            if not (D[i, j] & 4):
                state = 0
            j -= 1
        else:
            ops[k] = 1
            k += 1
            if not (D[i, j] & 8):
                state = 0
            i -= 1
    return ops[:k][::-1].copy(), final
