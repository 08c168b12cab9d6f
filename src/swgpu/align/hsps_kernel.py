"""The compiled passes of :mod:`swgpu.align.hsps` (Numba; loaded on first use).

Each pass is the reference's (:mod:`swgpu.align.reference`) with some pairs
forbidden: ``forbid[h, i] == j`` forbids aligning ``q[i]`` with ``t[j]`` (one
row per earlier alignment, ``-1`` where it aligns ``q[i]`` with nothing).
"""

from __future__ import annotations

import numpy as np

from ..io.compiled import load_numba

load_numba()
from numba import njit  # noqa: E402

NEG = np.int64(-(1 << 40))
_M, _E, _F = 0, 1, 2
_E_EXTENDS, _F_EXTENDS = 4, 8


@njit(cache=True, nogil=True, inline="always")
def _forbidden(forbid, i, j):  # pragma: no cover
    for h in range(forbid.shape[0]):
        if forbid[h, i] == j:
            return True
    return False


@njit(cache=True, nogil=True)
def masked_end(q, t, matrix, o, e, forbid):  # pragma: no cover
    """Best local score avoiding the forbidden pairs and its first end in
    row-major order, ``(score, i, j)`` (1-based; 0, 0 when the score is 0).

    A row in two passes: the diagonal and vertical terms of every cell (no
    cell waits on its left neighbour; the compiler uses SIMD lanes), then the
    horizontal gaps from those values. That is exact because ``o >= e``: a
    horizontal gap opened from a cell's own horizontal gap costs ``o``, never
    less than extending it by ``e``."""
    m, n = q.size, t.size
    prof = np.empty((matrix.shape[0], n + 1), np.int32)  # prof[a, j]: a against t[j - 1]
    for a in range(matrix.shape[0]):
        prof[a, 0] = 0
        for j in range(1, n + 1):
            prof[a, j] = matrix[a, t[j - 1]]
    neg = np.int32(-(1 << 29))
    o32, e32 = np.int32(o), np.int32(e)
    hrow = np.zeros(n + 1, np.int32)  # H of the row above (column 0: the boundary, 0)
    hnew = np.zeros(n + 1, np.int32)
    frow = np.full(n + 1, neg, np.int32)
    h0 = np.zeros(n + 1, np.int32)  # H before horizontal gaps
    long_gaps = np.int64(n) * e + o >= (1 << 30)
    best, bi, bj = 0, 0, 0
    for i in range(1, m + 1):
        p = prof[q[i - 1]]
        for j in range(1, n + 1):
            f = max(frow[j] - e32, hrow[j] - o32)
            frow[j] = f
            h0[j] = max(max(hrow[j - 1] + p[j], f), np.int32(0))
        for k in range(forbid.shape[0]):
            fj = forbid[k, i - 1]
            if fj >= 0:  # no diagonal into a forbidden pair
                h0[fj + 1] = max(frow[fj + 1], np.int32(0))
        # E[j] = max over k < j of h0[k] - o - (j - 1 - k) e: a running maximum of h0[k] + k e
        # (one operation a column waits on, where E's own recurrence has two)
        run = np.int64(neg)
        if long_gaps:  # E may be below the 32-bit range: clamped at 0 (below 0 it sets no H)
            for j in range(1, n + 1):
                run = max(run, np.int64(h0[j - 1]) + (j - 1) * e)
                hnew[j] = max(h0[j], np.int32(max(run - o - (j - 1) * e, 0)))
        else:
            for j in range(1, n + 1):
                run = max(run, np.int64(h0[j - 1]) + (j - 1) * e)
                hnew[j] = max(h0[j], np.int32(run - o - (j - 1) * e))
        top = np.int32(0)
        for j in range(1, n + 1):
            top = max(top, hnew[j])
        if top > best:  # its first column
            tj = 1
            while hnew[tj] != top:
                tj += 1
            best, bi, bj = int(top), i, tj
        hrow, hnew = hnew, hrow
    return np.int64(best), bi, bj


@njit(cache=True, nogil=True)
def masked_start(q, t, matrix, o, e, forbid, best, i_end, j_end):  # pragma: no cover
    """Latest start ``(i0, j0)`` (0-based) of an alignment of score ``best``
    ending with the pair ``q[i_end-1]``/``t[j_end-1]``; ``(-1, -1)`` when none."""
    cols = j_end + 1
    g1 = np.full(cols, NEG, np.int64)  # row i+1
    vs1 = np.full(cols, NEG, np.int64)
    vc1 = np.full(cols, NEG, np.int64)
    ws1 = np.full(cols, NEG, np.int64)
    g0 = np.full(cols, NEG, np.int64)  # row i
    vs0 = np.full(cols, NEG, np.int64)
    vc0 = np.full(cols, NEG, np.int64)
    ws0 = np.full(cols, NEG, np.int64)
    wc0 = np.full(cols, NEG, np.int64)
    for i in range(i_end - 1, -1, -1):
        g0[j_end] = NEG
        vs0[j_end] = NEG
        vc0[j_end] = NEG
        ws0[j_end] = NEG
        wc0[j_end] = NEG
        for j in range(j_end - 1, -1, -1):
            s = matrix[q[i], t[j]]
            if i == i_end - 1 and j == j_end - 1:
                g = np.int64(s)
            else:
                g = s + max(g1[j + 1], vs1[j + 1], ws1[j + 1])
            if _forbidden(forbid, i, j):
                g = NEG
            after_v = max(g1[j], vc1[j], ws1[j])
            vs0[j] = after_v - o
            vc0[j] = after_v - e
            after_w = max(g0[j + 1], wc0[j + 1], vs0[j + 1])
            ws0[j] = after_w - o
            wc0[j] = after_w - e
            g0[j] = g
            if g == best:
                return i, j
        g1, g0 = g0, g1
        vs1, vs0 = vs0, vs1
        vc1, vc0 = vc0, vc1
        ws1, ws0 = ws0, ws1
    return -1, -1


@njit(cache=True, nogil=True)
def masked_path(q, t, matrix, o, e, forbid, q0, t0, ops):  # pragma: no cover
    """An optimal global alignment of ``q`` and ``t`` (which start at ``q0``
    and ``t0`` of the sequences ``forbid`` speaks of) avoiding the forbidden
    pairs, the reference's traceback: one op per column (0 pair, 1 ``I``,
    2 ``D``) written to ``ops`` from its end backwards; the column count."""
    m, n = q.size, t.size
    way = np.zeros((m + 1, n + 1), np.uint8)
    hrow = np.full(n + 1, NEG, np.int64)
    frow = np.full(n + 1, NEG, np.int64)
    hrow[0] = 0
    for j in range(1, n + 1):
        hrow[j] = -(o + (j - 1) * e)
        way[0, j] = _E | (_E_EXTENDS if j > 1 else 0)
    for i in range(1, m + 1):
        diag = hrow[0]
        hrow[0] = -(o + (i - 1) * e)
        frow[0] = hrow[0]
        way[i, 0] = _F | (_F_EXTENDS if i > 1 else 0)
        left_h = hrow[0]
        left_e = NEG
        a = q[i - 1]
        for j in range(1, n + 1):
            up_h = hrow[j]
            ev = max(left_e - e, left_h - o)
            fv = max(frow[j] - e, up_h - o)
            bits = 0
            if j > 1 and ev == left_e - e:
                bits |= _E_EXTENDS
            if i > 1 and fv == frow[j] - e:
                bits |= _F_EXTENDS
            mv = NEG
            if not _forbidden(forbid, q0 + i - 1, t0 + j - 1):
                mv = diag + matrix[a, t[j - 1]]
            h = max(mv, ev, fv)
            if h == mv:
                bits |= _M
            elif h == ev:
                bits |= _E
            else:
                bits |= _F
            way[i, j] = bits
            diag = up_h
            hrow[j] = h
            frow[j] = fv
            left_h = h
            left_e = ev
    k = 0
    i, j, state = m, n, _M
    while i > 0 or j > 0:
        w = way[i, j]
        if state == _M:
            src = w & 3
            if i > 0 and j > 0 and src == _M:
                ops[k] = 0
                k += 1
                i -= 1
                j -= 1
            elif src == _E:
                state = _E
            else:
                state = _F
        elif state == _E:
            ops[k] = 2
            k += 1
            if not (w & _E_EXTENDS):
                state = _M
            j -= 1
        else:
            ops[k] = 1
            k += 1
            if not (w & _F_EXTENDS):
                state = _M
            i -= 1
    return k


@njit(cache=True, nogil=True)
def further_many(qc, qo, tc, to, f0, fo, h0, count, floors, matrix, o, e, path_cells,
                 nfound, score, qs, ts, opsbuf, opsoff, opslen):  # pragma: no cover
    """The search of :func:`swgpu.align.hsps.next_alignments_many` for many
    pairs in one call: pair ``k`` is query ``qc[qo[k]:qo[k + 1]]`` and target
    ``tc[to[k]:to[k + 1]]``, its earlier alignments' ``h0[k]`` rows of forbidden
    pairs (:func:`swgpu.align.hsps.forbidden_pairs`, end to end) at
    ``f0[fo[k]:fo[k + 1]]``, its least score ``floors[k]``. Writes ``nfound[k]``
    (-1: a path of more than ``path_cells`` cells, its spans in ``score`` and
    ``qs`` of its slot) and, for alignment ``h`` of pair ``k`` (slot
    ``k * count + h``): its score, starts, and its ops (0 pair, 1 ``I``, 2 ``D``,
    in order) at ``opsbuf[opsoff:opsoff + opslen]``."""
    pos = 0
    for k in range(qo.size - 1):
        q, t = qc[qo[k]:qo[k + 1]], tc[to[k]:to[k + 1]]
        m, n = q.size, t.size
        held = h0[k]
        forbid = np.full((held + count, max(m, 1)), -1, np.int64)
        if m > 0:
            forbid[:held, :m] = f0[fo[k]:fo[k + 1]].reshape(held, m)
        found = 0
        while found < count and m > 0 and n > 0:
            rows = forbid[:held + found, :m]
            best, ie, je = masked_end(q, t, matrix, o, e, rows)
            if best < floors[k] or best <= 0:
                break
            i0, j0 = masked_start(q, t, matrix, o, e, rows, best, ie, je)
            slot = k * count + found
            if (ie - i0 + 1) * (je - j0 + 1) > path_cells:
                score[slot], qs[slot] = ie - i0, je - j0
                found = -1
                break
            width = (ie - i0) + (je - j0)
            back = np.empty(width, np.uint8)
            cols = masked_path(q[i0:ie], t[j0:je], matrix, o, e, rows, i0, j0, back)
            i, j = i0, j0
            for c in range(cols):
                op = back[cols - 1 - c]
                opsbuf[pos + c] = op
                if op == 0:
                    forbid[held + found, i] = j
                    i += 1
                    j += 1
                elif op == 1:
                    i += 1
                else:
                    j += 1
            score[slot], qs[slot], ts[slot] = best, i0, j0
            opsoff[slot], opslen[slot] = pos, cols
            pos += cols
            found += 1
        nfound[k] = found
