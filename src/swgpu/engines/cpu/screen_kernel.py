"""The pair-screening kernel: many DNA pairs, one pair per vector lane
(inter-pair SIMD), match/mismatch scoring with affine gaps.

A batch is as many pairs as a vector has lanes (32 in 16-bit lanes, 64 in
8-bit). Its queries are laid across the lanes once per batch (row ``i`` of
the batch is residue ``i`` of every query); each column is residue ``j`` of
every target, read in place. The score of a cell is one compare and one
blend: ``match`` where the two codes are equal, else ``mismatch``. ``N``
never matches: query and target ``N`` get different codes here, and so do the
pad letters past a sequence's end (which can never raise a lane's best, as in
:mod:`swgpu.engines.cpu.bitsliced`). Arithmetic as in :mod:`.search_kernel`
(unsigned, saturating, biased by ``-mismatch``); the caller picks lanes wide
enough for the batch's largest possible score, so nothing saturates.

With ``ends`` the kernel also gives each pair's end cell as
:func:`~swgpu.engines.cpu.pairwise.sw_end` chooses it: the first cell in
row-major order that holds the best score (1-based), so that the traceback
starts from it instead of finding it again. The kernel walks the columns,
keeping in each the best and the first row that holds it (two more vector
operations a cell; a row past what a lane counts is looked up); after a
column, a lane whose column best is above its best so far, or equal to it
in an earlier row, takes that cell.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .simd import adds, any_ge, atomic_next, select_eq, select_gt, subs, vfill, vload, vmax, vstore

__all__ = ["screen_batches", "Q_N", "T_N", "Q_PAD", "T_PAD"]

#: Codes of ``N`` and of the pad letter in the query and in the target lanes (never equal across).
Q_N, T_N, Q_PAD, T_PAD = 4, 5, 6, 7


@nb.njit(nogil=True, cache=True, boundscheck=False, inline="always")
def _cell(H, E, Q, at, tv, f, hgo, diag, vge, vgo, vb, vmatch, vmis):  # pragma: no cover
    """One cell of every lane (row ``at // lanes`` of the column whose target letters are ``tv``): its
    score, stored in ``H`` (and the vertical gap in ``E``); returns it, the horizontal gap, the score
    less a gap's opening, and the diagonal for the row below."""
    left = vload(H, at)
    e = vload(E, at)
    f = vmax(subs(f, vge), hgo)
    s = select_eq(vload(Q, at), tv, vmatch, vmis)
    h = vmax(subs(adds(diag, s), vb), vmax(e, f))
    vstore(H, at, h)
    hgo = subs(h, vgo)
    vstore(E, at, vmax(subs(e, vge), hgo))
    return h, f, hgo, left


@nb.njit(nogil=True, cache=True, boundscheck=False)
def screen_batches(qcat, qoff, tcat, toff, pairs, order, counter, match, mismatch, gap_open, gap_extend,
                   bias, qbuf, out, ends, want_ends):
    """Score the batches ``order[counter...]``: batch ``b`` is the pairs
    ``pairs[b]`` (-1: empty lane); ``out[pair]`` = best local score and, with
    ``want_ends``, ``ends[pair]`` = (score, end row, end column) as ``sw_end``
    gives them (``(0, 0, 0)`` without an alignment).
    ``qbuf`` sets the lane type (its length is ignored); all parameters
    already clamped to it, ``match + bias`` and ``mismatch + bias`` >= 0."""
    lanes = pairs.shape[1]
    dt = qbuf.dtype
    mmax = 0
    for p in range(qoff.shape[0] - 1):
        mmax = max(mmax, qoff[p + 1] - qoff[p])
    Q = np.empty(max(1, mmax) * lanes, dtype=dt)
    H = np.zeros(max(1, mmax) * lanes, dtype=dt)
    E = np.zeros(max(1, mmax) * lanes, dtype=dt)
    col = np.empty(lanes, dtype=dt)
    best = np.empty(lanes, dtype=dt)
    bi = np.zeros(lanes, dtype=np.int64)  # each lane's end cell so far (want_ends)
    bj = np.zeros(lanes, dtype=np.int64)
    rows = np.empty(lanes, dtype=dt)
    one = vfill(H, 1)
    counted = (1 << (8 * H.itemsize)) - 1  # a row counter at this is saturated: its row is looked up
    z = vfill(H, 0)
    vgo = vfill(H, gap_open)
    vge = vfill(H, gap_extend)
    vb = vfill(H, bias)
    vmatch = vfill(H, match + bias)
    vmis = vfill(H, mismatch + bias)
    while True:
        ii = atomic_next(counter)
        if ii >= order.shape[0]:
            break
        b = order[ii]
        m = 0
        n = 0
        for lane in range(lanes):
            p = pairs[b, lane]
            if p >= 0:
                m = max(m, qoff[p + 1] - qoff[p])
                n = max(n, toff[p + 1] - toff[p])
        for lane in range(lanes):
            p = pairs[b, lane]
            lo = qoff[p] if p >= 0 else 0
            ln = qoff[p + 1] - lo if p >= 0 else 0
            for i in range(m):
                c = qcat[lo + i] if i < ln else Q_PAD
                Q[i * lanes + lane] = Q_N if c == 4 else c
        for i in range(m):
            vstore(H, i * lanes, z)
            vstore(E, i * lanes, z)
        top = z
        for lane in range(lanes):
            bi[lane] = 0
            bj[lane] = 0
        for j in range(n):
            for lane in range(lanes):
                p = pairs[b, lane]
                c = T_PAD
                if p >= 0 and j < toff[p + 1] - toff[p]:
                    c = tcat[toff[p] + j]
                    if c == 4:
                        c = T_N
                col[lane] = c
            tv = vload(col, 0)
            f = z
            diag = z
            hgo = z
            cm = z  # the column's best
            if not want_ends:
                for i in range(m):
                    h, f, hgo, diag = _cell(H, E, Q, i * lanes, tv, f, hgo, diag, vge, vgo, vb, vmatch, vmis)
                    cm = vmax(cm, h)
                top = vmax(top, cm)
                continue
            rv = z  # the first row holding the column's best (saturating)
            iv = z
            for i in range(m):
                h, f, hgo, diag = _cell(H, E, Q, i * lanes, tv, f, hgo, diag, vge, vgo, vb, vmatch, vmis)
                rv = select_gt(h, cm, iv, rv)
                cm = vmax(cm, h)
                iv = adds(iv, one)
            if any_ge(cm, vmax(top, one)):
                # a lane whose column best is above its best so far: the end moves to the first row holding it;
                # one equal to it: to that row if it comes before the end's (the same score in an earlier row)
                vstore(best, 0, top)
                vstore(col, 0, cm)
                vstore(rows, 0, rv)
                for lane in range(lanes):
                    c = col[lane]
                    if c == 0 or c < best[lane]:
                        continue
                    r = np.int64(rows[lane])
                    if r == counted:
                        for k in range(m):
                            if H[k * lanes + lane] == c:
                                r = k
                                break
                    if c > best[lane] or r + 1 < bi[lane]:
                        bi[lane] = r + 1
                        bj[lane] = j + 1
            top = vmax(top, cm)
        vstore(best, 0, top)
        for lane in range(lanes):
            p = pairs[b, lane]
            if p >= 0:
                out[p] = best[lane]
                if want_ends:
                    ends[p, 0] = best[lane]
                    ends[p, 1] = bi[lane]
                    ends[p, 2] = bj[lane]
    return 0
