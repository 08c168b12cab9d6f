"""Numba kernels for one pair: local score and end, anchored start, and the
global-alignment pieces of the linear-memory traceback.

All arithmetic is explicit ``int32`` (Numba would otherwise widen to int64 and
run slower). Sequences are ``uint8`` code arrays, the matrix an ``int32`` 2-D
array indexed by codes.
"""

from __future__ import annotations

import numba as nb
import numpy as np

__all__ = ["sw_end", "sw_end_last", "sw_start", "nw_last_row", "nw_path"]

NEG = np.int32(-(1 << 29))

_OPTS = dict(nogil=True, cache=True, boundscheck=False)


#: Largest target profile (entries) built up front; longer targets fill one row at a time.
PROFILE_ENTRIES = 1 << 23


@nb.njit(**_OPTS)
def _full32(n, value):
    """``n`` int32 of ``value``: ``np.empty`` and a loop (``np.zeros`` and
    ``np.full`` cost Numba a compile of their own per kernel, on a machine's first run)."""
    out = np.empty(n, dtype=np.int32)
    v = np.int32(value)
    for j in range(n):
        out[j] = v
    return out


@nb.njit(**_OPTS)
def _profile(t, matrix):
    """``prof[c, j]`` = score of code ``c`` against ``t[j-1]`` (column 0 unused), or a
    one-row buffer when the full profile would be too large (see :func:`_profile_row`)."""
    n = t.shape[0]
    k = matrix.shape[0]
    if k * (n + 1) > PROFILE_ENTRIES:
        return np.empty((1, n + 1), dtype=np.int32), False  # (column 0 is never read)
    prof = np.empty((k, n + 1), dtype=np.int32)
    for c in range(k):
        row = matrix[c]
        prof[c, 0] = 0
        for j in range(n):
            prof[c, j + 1] = row[t[j]]
    return prof, True


@nb.njit(**_OPTS)
def _profile_row(prof, full, code, t, matrix):
    if full:
        return prof[code]
    row = matrix[code]
    out = prof[0]
    for j in range(t.shape[0]):
        out[j + 1] = row[t[j]]
    return out


# The row kernels below compute each DP row in passes that have no dependency
# along the row (so the compiler vectorises them), plus one short running
# maximum for horizontal gaps. Horizontal gaps may be computed from H before
# horizontal gaps are folded in, because gap_open >= gap_extend: opening a gap
# right after another gap never beats extending it (the same values; measured
# faster in sw_start and nw_path, slower in the other kernels, which keep H).


@nb.njit(**_OPTS)
def sw_end(q, t, matrix, gap_open, gap_extend):
    """Best local score and the first cell (row-major, 1-based) holding it."""
    m = q.shape[0]
    n = t.shape[0]
    go = np.int32(gap_open)
    ge = np.int32(gap_extend)
    zero = np.int32(0)
    prof, full = _profile(t, matrix)
    Hp = _full32(n + 1, np.int32(0))
    Hc = _full32(n + 1, np.int32(0))
    F = _full32(n + 1, NEG)
    best = zero
    bi = 0
    bj = 0
    for i in range(1, m + 1):
        pr = _profile_row(prof, full, q[i - 1], t, matrix)
        for j in range(1, n + 1):
            f = max(np.int32(F[j] - ge), np.int32(Hp[j] - go))
            F[j] = f
            Hc[j] = max(max(np.int32(Hp[j - 1] + pr[j]), f), zero)
        e = NEG
        left = zero
        rowbest = zero
        for j in range(1, n + 1):
            e = max(np.int32(e - ge), np.int32(left - go))
            h = max(Hc[j], e)
            Hc[j] = h
            left = h
            rowbest = max(rowbest, h)
        if rowbest > best:
            best = rowbest
            bi = i
            for j in range(1, n + 1):
                if Hc[j] == rowbest:
                    bj = j
                    break
        Hp, Hc = Hc, Hp
    return best, bi, bj


@nb.njit(**_OPTS)
def sw_end_last(q, t, matrix, gap_open, gap_extend):
    """The best score of an alignment of ``q`` ending with a pair at ``t``'s
    last letter (the largest ``H(i - 1, n - 1) + s(i, n)``) and its first
    row: ``(score, i, n)`` (1-based; ``(0, 0, 0)`` when none scores above 0)."""
    m = q.shape[0]
    n = t.shape[0]
    go = np.int32(gap_open)
    ge = np.int32(gap_extend)
    zero = np.int32(0)
    Hp = _full32(n + 1, np.int32(0))
    Hc = _full32(n + 1, np.int32(0))
    F = _full32(n + 1, NEG)
    best = zero
    bi = 0
    for i in range(1, m + 1):
        a = q[i - 1]
        if n > 0:
            d = np.int32(Hp[n - 1] + matrix[a, t[n - 1]])
            if d > best:
                best = d
                bi = i
        for j in range(1, n + 1):
            f = max(np.int32(F[j] - ge), np.int32(Hp[j] - go))
            F[j] = f
            Hc[j] = max(max(np.int32(Hp[j - 1] + matrix[a, t[j - 1]]), f), zero)
        e = NEG
        left = zero
        for j in range(1, n + 1):
            e = max(np.int32(e - ge), np.int32(left - go))
            h = max(Hc[j], e)
            Hc[j] = h
            left = h
        Hp, Hc = Hc, Hp
    if best <= 0:
        return zero, 0, 0
    return best, bi, n


@nb.njit(**_OPTS)
def sw_start(rq, rt, matrix, gap_open, gap_extend, best):
    """Anchored pass over the *reversed* prefixes that end the alignment.

    ``rq``/``rt`` are ``q[:i_end][::-1]`` and ``t[:j_end][::-1]``; alignments
    must begin with the pair ``rq[0]``/``rt[0]``. Returns the first cell
    (row-major, 1-based, reversed coordinates) where an alignment ending in a
    pair scores ``best``: the latest start in forward coordinates. No alignment
    from the anchor scores more than ``best`` (each is a local alignment).
    """
    m = rq.shape[0]
    n = rt.shape[0]
    go = np.int32(gap_open)
    ge = np.int32(gap_extend)
    target = np.int32(best)
    prof, full = _profile(rt, matrix)
    Hp = _full32(n + 1, NEG)
    Hc = _full32(n + 1, NEG)
    D = _full32(n + 1, NEG)
    F = _full32(n + 1, NEG)
    Hp[0] = 0  # the anchor: only the first pair may start from here
    for i in range(1, m + 1):
        pr = _profile_row(prof, full, rq[i - 1], rt, matrix)
        dmax = NEG
        for j in range(1, n + 1):
            f = max(np.int32(F[j] - ge), np.int32(Hp[j] - go))
            F[j] = f
            d = np.int32(Hp[j - 1] + pr[j])
            D[j] = d
            dmax = max(dmax, d)
            Hc[j] = max(d, f)
        if dmax == target:
            for j in range(1, n + 1):
                if D[j] == target:
                    return i, j
        e = NEG
        left = NEG
        for j in range(1, n + 1):
            pre = Hc[j]
            e = max(np.int32(e - ge), np.int32(left - go))
            h = max(pre, e)
            Hc[j] = h
            left = pre
        Hc[0] = NEG
        Hp, Hc = Hc, Hp
        Hc[0] = NEG
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
    prof, full = _profile(b, matrix)
    Cp = np.empty(n + 1, dtype=np.int32)
    Cc = np.empty(n + 1, dtype=np.int32)
    DD = _full32(n + 1, NEG)
    Cp[0] = 0
    for j in range(1, n + 1):
        Cp[j] = -(go + np.int32(j - 1) * ge)
    for i in range(1, m + 1):
        pr = _profile_row(prof, full, a[i - 1], b, matrix)
        c0 = np.int32(-(np.int32(lead_open) + np.int32(i - 1) * ge))
        Cc[0] = c0
        DD[0] = c0
        for j in range(1, n + 1):
            d = max(np.int32(DD[j] - ge), np.int32(Cp[j] - go))
            DD[j] = d
            Cc[j] = max(np.int32(Cp[j - 1] + pr[j]), d)
        e = NEG
        left = c0
        for j in range(1, n + 1):
            e = max(np.int32(e - ge), np.int32(left - go))
            c = max(Cc[j], e)
            Cc[j] = c
            left = c
        Cp, Cc = Cc, Cp
    return Cp, DD


@nb.njit(**_OPTS)
def nw_path(a, b, matrix, gap_open, gap_extend, lead_open, tail_open):
    """Optimal global path of ``a`` against ``b`` with full direction bytes.

    ``lead_open``/``tail_open``: cost of the first residue of a vertical gap that
    touches the start / the end (``gap_extend`` where the gap continues outside).
    Returns op codes (0 pair, 1 ``a`` residue against a gap, 2 ``b`` residue
    against a gap) in order, and the path's score.

    Each row in three passes, as the row kernels above: the diagonal and the
    vertical gaps (no dependency along the row), the horizontal gaps (a running
    maximum over H before they are folded in, the same values and the same
    extend-or-open choices because ``gap_open >= gap_extend``), then H and the
    direction bytes (no dependency along the row).
    """
    m = a.shape[0]
    n = b.shape[0]
    go = np.int32(gap_open)
    ge = np.int32(gap_extend)
    # bits 0-1: H source (0 diag, 1 E, 2 F); bit 2: E extends; bit 3: F extends
    D = np.empty((m + 1, n + 1), dtype=np.uint8)  # (row 0 and column 0 are never read)
    H = np.empty(n + 1, dtype=np.int32)
    Hn = np.empty(n + 1, dtype=np.int32)
    F = _full32(n + 1, NEG)
    DG = np.empty(n + 1, dtype=np.int32)   # the diagonal term of each cell of the row
    PRE = np.empty(n + 1, dtype=np.int32)  # max(diagonal, F): H before horizontal gaps (column 0: the border)
    E = np.empty(n + 1, dtype=np.int32)    # E of each cell (column 0: none)
    FX = np.empty(n + 1, dtype=np.uint8)   # bit 3 of each cell
    H[0] = 0
    for j in range(1, n + 1):
        H[j] = -(go + np.int32(j - 1) * ge)
    E[0] = NEG
    for i in range(1, m + 1):
        row = matrix[a[i - 1]]
        border = np.int32(-(np.int32(lead_open) + np.int32(i - 1) * ge))
        for j in range(1, n + 1):
            fo = np.int32(H[j] - go)
            fe = np.int32(F[j] - ge)
            f = max(fe, fo)
            F[j] = f
            FX[j] = np.uint8(8) if fe >= fo else np.uint8(0)
            d = np.int32(H[j - 1] + row[b[j - 1]])
            DG[j] = d
            PRE[j] = max(d, f)
        PRE[0] = border
        e = NEG
        for j in range(1, n + 1):
            e = max(np.int32(e - ge), np.int32(PRE[j - 1] - go))
            E[j] = e
        Hn[0] = border
        for j in range(1, n + 1):
            e = E[j]
            extends = np.int32(E[j - 1] - ge) >= np.int32(PRE[j - 1] - go)
            flags = np.int32(FX[j]) | (np.int32(4) if extends else np.int32(0))
            h = DG[j]
            if e > h:
                h = e
                flags = (flags & np.int32(12)) | np.int32(1)
            f = F[j]
            if f > h:
                h = f
                flags = (flags & np.int32(12)) | np.int32(2)
            D[i, j] = np.uint8(flags)
            Hn[j] = h
        H, Hn = Hn, H
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
