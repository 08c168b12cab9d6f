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
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .simd import adds, atomic_next, select_eq, subs, vfill, vload, vmax, vstore

__all__ = ["screen_batches", "Q_N", "T_N", "Q_PAD", "T_PAD"]

#: Codes of ``N`` and of the pad letter in the query and in the target lanes (never equal across).
Q_N, T_N, Q_PAD, T_PAD = 4, 5, 6, 7


@nb.njit(nogil=True, cache=True, boundscheck=False)
def screen_batches(qcat, qoff, tcat, toff, pairs, order, counter, match, mismatch, gap_open, gap_extend,
                   bias, qbuf, out):
    """Score the batches ``order[counter...]``: batch ``b`` is the pairs
    ``pairs[b]`` (-1: empty lane); ``out[pair]`` = best local score.
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
            for i in range(m):
                at = i * lanes
                left = vload(H, at)
                e = vload(E, at)
                f = vmax(subs(f, vge), hgo)
                s = select_eq(vload(Q, at), tv, vmatch, vmis)
                h = vmax(subs(adds(diag, s), vb), vmax(e, f))
                top = vmax(top, h)
                vstore(H, at, h)
                hgo = subs(h, vgo)
                vstore(E, at, vmax(subs(e, vge), hgo))
                diag = left
        vstore(best, 0, top)
        for lane in range(lanes):
            p = pairs[b, lane]
            if p >= 0:
                out[p] = best[lane]
    return 0
