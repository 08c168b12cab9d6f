"""The path pass of many small boxes at once: :func:`.pairwise.nw_path` with
one box a SIMD lane.

A screen traces thousands of boxes of about the same size (a read against the
window it came from). :func:`nw_path` computes each box's direction bytes
one row at a time with the row's cells vectorised; :func:`nw_paths_lanes`
computes :data:`LANES` boxes together, every cell's values for all of them at
once (one 64-byte vector of 16 ``int32`` lanes, :mod:`.simd`), with the same
recurrences, ``int32`` arithmetic and choices -- so the same direction bits and
the same paths. A box smaller than the group's largest computes
cells past its own corner too; no cell of its own box depends on them (a
cell depends on cells above and to its left only), and its walk back starts
at its corner.

>>> import numpy as np
>>> m = np.where(np.eye(4, dtype=bool), 2, -3).astype(np.int32)
>>> q, t = np.array([0, 1, 2, 3, 0, 1], np.uint8), np.array([0, 1, 3, 0, 1, 2, 3], np.uint8)
>>> ops, got = np.zeros(40, np.uint8), np.zeros(2, np.int64)
>>> nw_paths_lanes(q, np.array([0, 4]), np.array([4, 2]), t, np.array([0, 3]), np.array([3, 4]), 2, m, 5, 2, 5, 5,
...                ops, np.array([0, 20]), got)
>>> ops[:got[0]].tolist(), ops[20:20 + got[1]].tolist()
([0, 0, 1, 0], [0, 0, 2, 2])
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .pairwise import NEG
from .simd import select_eq, select_gt, vadd, vfill, vload, vmax, vstore, vsub

__all__ = ["nw_paths_lanes", "LANES", "LANE_CELLS"]

#: Boxes of one call (the lanes of its vectors: 16 ``int32`` are two AVX2 registers, one AVX-512).
LANES = 16
#: Boxes of at most this many cells (rows x columns) go in lanes; larger ones one at a time
#: (a group's direction bytes are its largest box's cells times :data:`LANES`).
LANE_CELLS = 1 << 16
#: Alphabets of at most this many codes (DNA's five) get a cell's scores by compares and selects;
#: larger ones by one load a lane.
SELECT_CODES = 8


@nb.njit(nogil=True, cache=True, boundscheck=False)
def nw_paths_lanes(qcodes, qpos, qlen, tcodes, tpos, tlen, count, matrix, gap_open, gap_extend, lead_open,
                   tail_open, ops, at, got):  # pragma: no cover
    """The optimal global paths of ``count`` (at most :data:`LANES`) boxes, each
    as :func:`.pairwise.nw_path` gives it: box ``l`` is
    ``qcodes[qpos[l]:][:qlen[l]]`` against ``tcodes[tpos[l]:][:tlen[l]]``
    (none empty); its op codes, forwards, go to ``ops[at[l]:]`` and their
    number to ``got[l]``.

    One pass along each row, every cell's lanes a vector: ``F`` (vertical
    gaps) and the diagonal from the row above, ``E`` (horizontal gaps) from the
    cell to the left -- nw_path's three passes, whose values and choices are
    the same taken cell by cell -- then ``H`` and the direction bits."""
    L = LANES
    go = np.int32(gap_open)
    ge = np.int32(gap_extend)
    K = matrix.shape[1]
    M = 0
    N = 0
    for l in range(count):
        M = max(M, qlen[l])
        N = max(N, tlen[l])
    flat = matrix.ravel()
    RA = np.zeros((M + 1) * L, dtype=np.int32)  # row i's letter of each lane, times K (past a box: code 0)
    B = np.zeros((N + 1) * L, dtype=np.int32)
    for l in range(count):
        for i in range(qlen[l]):
            RA[i * L + l] = np.int32(qcodes[qpos[l] + i]) * np.int32(K)
        for j in range(tlen[l]):
            B[j * L + l] = np.int32(tcodes[tpos[l] + j])
    # bits 0-1: H source (0 diag, 1 E, 2 F); bit 2: E extends; bit 3: F extends (nw_path's)
    D = np.empty((M + 1) * (N + 1) * L, dtype=np.int32)
    H = np.empty((N + 1) * L, dtype=np.int32)
    Hn = np.empty((N + 1) * L, dtype=np.int32)
    F = np.empty((N + 1) * L, dtype=np.int32)
    S = np.empty(L, dtype=np.int32)
    small = K <= SELECT_CODES
    P = np.empty(K * L, dtype=np.int32)
    state = np.zeros(L, dtype=np.int32)
    for j in range(N + 1):
        h0 = np.int32(0) if j == 0 else np.int32(-(go + np.int32(j - 1) * ge))
        for l in range(L):
            H[j * L + l] = h0
            F[j * L + l] = NEG
    zero = vfill(S, 0)
    one = vfill(S, 1)
    two = vfill(S, 2)
    four = vfill(S, 4)
    eight = vfill(S, 8)
    vgo = vfill(S, go)
    vge = vfill(S, ge)
    for i in range(1, M + 1):
        border = vfill(S, np.int32(-(np.int32(lead_open) + np.int32(i - 1) * ge)))
        vstore(Hn, 0, border)
        row = (i - 1) * L
        e_prev = vfill(S, NEG)  # E of the cell to the left (column 0: none)
        pre_prev = border  # max(diagonal, F) of the cell to the left (column 0: the border)
        h_diag = vload(H, 0)  # H of the row above, one column to the left
        base = i * (N + 1) * L
        if small:  # each lane's scores of every code for this row: a cell's scores by K - 1 selects
            for c in range(K):
                for l in range(L):
                    P[c * L + l] = flat[RA[row + l] + c]
        for j in range(1, N + 1):
            if small:
                bj = vload(B, (j - 1) * L)
                sv = vload(P, 0)
                for c in range(1, K):
                    sv = select_eq(bj, vfill(S, c), vload(P, c * L), sv)
            else:  # (a large alphabet: one load a lane)
                for l in range(L):
                    S[l] = flat[RA[row + l] + B[(j - 1) * L + l]]
                sv = vload(S, 0)
            h_up = vload(H, j * L)
            fo = vsub(h_up, vgo)
            fe = vsub(vload(F, j * L), vge)
            f = vmax(fe, fo)
            vstore(F, j * L, f)
            d = vadd(h_diag, sv)
            h_diag = h_up
            e_open = vsub(pre_prev, vgo)
            e_ext = vsub(e_prev, vge)
            e = vmax(e_ext, e_open)
            # (F extends where fe >= fo; E extends where E[j - 1] - ge >= PRE[j - 1] - go)
            flags = vadd(select_gt(fo, fe, zero, eight), select_gt(e_open, e_ext, zero, four))
            h = vmax(d, e)
            src = select_gt(e, d, one, zero)
            src = select_gt(f, h, two, src)
            h = vmax(h, f)
            vstore(D, base + j * L, vadd(flags, src))
            vstore(Hn, j * L, h)
            pre_prev = vmax(d, f)
            e_prev = e
        for l in range(count):  # a box's last row: where its path ends (nw_path's tail choice)
            if qlen[l] == i:
                n = tlen[l]
                state[l] = 2 if np.int32(F[n * L + l] + go - np.int32(tail_open)) > Hn[n * L + l] else 0
        H, Hn = Hn, H
    for l in range(count):
        _walk(D, N + 1, l, qlen[l], tlen[l], state[l], ops, at[l], got)


@nb.njit(nogil=True, cache=True, boundscheck=False, inline="always")
def _walk(D, width, l, m, n, state, ops, at, got):  # pragma: no cover
    """Lane ``l``'s path from its corner ``(m, n)`` back to ``(0, 0)`` (nw_path's walk), written forwards."""
    k = 0
    i = m
    j = n
    end = at + m + n  # (written backwards from the end of its room, then moved to its start)
    while i > 0 or j > 0:
        k += 1
        if i == 0:
            ops[end - k] = 2
            j -= 1
        elif j == 0:
            ops[end - k] = 1
            i -= 1
        elif state == 0:
            src = D[(i * width + j) * LANES + l] & 3
            if src == 0:
                ops[end - k] = 0
                i -= 1
                j -= 1
            else:
                state = src
                k -= 1
        elif state == 1:
            ops[end - k] = 2
            if not (D[(i * width + j) * LANES + l] & 4):
                state = 0
            j -= 1
        else:
            ops[end - k] = 1
            if not (D[(i * width + j) * LANES + l] & 8):
                state = 0
            i -= 1
    for c in range(k):
        ops[at + c] = ops[end - k + c]
    got[l] = k
