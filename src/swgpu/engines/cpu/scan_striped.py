"""The column maxima of ``scan`` in SIMD lanes: the striped layout of
:mod:`.striped` (lanes over target columns, query rows running down, tiles of
``seg * lanes`` columns), with one more vector per segment step -- the
column's best diagonal term so far, ``max(colmax, H(i - 1, j - 1) + s(i, j))``
(floored at 0 by the saturating lanes).

The target is taken a **stretch** at a time (:data:`STRETCH_COLS` columns):
its profile is built (the codes of a tile put in lane order -- for byte
lanes a 64 x 64 transpose in six rounds of vector shuffles -- then one table
lookup per letter and vector), every query row runs through it, a block of
rows at a time through every tile, and its column maxima are copied out
(transposed back). A stretch hands the next one what a tile hands the tile
to its right: each row's last ``H`` and outgoing horizontal gap ``E`` (two
numbers a row), so memory stays ``O(stretch + query)`` whatever the target
length.

Lanes are unsigned, saturating and biased (8, 16 then 32 bits). A stretch
whose column maximum reaches ``MAX - bias`` may have saturated: it is run
again, from its first column, in wider lanes (the rows' ``H`` and ``E`` at
its left edge are kept), so only the stretches that hold high scores pay for
the wider lanes.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .jit import announce_compile
from .simd import (adds, any_ge, any_gt, carry_scan, shift_in, subs, vfill, vlast, vload, vlookup, vmax,
                   vstore, zip_hi, zip_lo)
from .striped import _tables, pass_vectors

__all__ = ["BLOCK_ROWS", "STRETCH_COLS", "TILE_BYTES", "column_maxima_striped", "stretch_pass"]

#: Bytes of one tile row (a vector per segment step).
TILE_BYTES = 4096
#: Target columns per stretch (rounded to whole tiles).
STRETCH_COLS = 1 << 16
#: Query rows run through one tile before the next tile.
BLOCK_ROWS = 256


@nb.njit(nogil=True, cache=True, boundscheck=False)
def _zip_round(src, s0, dst, d0):
    """Rows ``i`` and ``i + 32`` of the 64 rows of 64 bytes at ``src[s0:]``
    interleaved into rows ``2 i`` and ``2 i + 1`` at ``dst[d0:]``: the
    address ``(row, column)`` rotated left by one bit."""
    for i in range(32):
        a = vload(src, s0 + i * 64)
        b = vload(src, s0 + (i + 32) * 64)
        vstore(dst, d0 + 2 * i * 64, zip_lo(a, b))
        vstore(dst, d0 + (2 * i + 1) * 64, zip_hi(a, b))


@nb.njit(nogil=True, cache=True, boundscheck=False)
def _transpose64(src, s0, dst, d0, scratch):
    """``dst[d0 + r * 64 + x] = src[s0 + x * 64 + r]`` for 64 x 64 bytes (six
    rounds of :func:`_zip_round`; ``scratch``: 8192 bytes)."""
    _zip_round(src, s0, scratch, 0)
    _zip_round(scratch, 0, scratch, 4096)
    _zip_round(scratch, 4096, scratch, 0)
    _zip_round(scratch, 0, scratch, 4096)
    _zip_round(scratch, 4096, scratch, 0)
    _zip_round(scratch, 0, dst, d0)


@nb.njit(nogil=True, cache=True, boundscheck=False)
def _codes(t, base, end, lanes, seg, pad, tc):
    """``tc[p * lanes + l] = t[base + l * seg + p]`` (``pad`` from ``end`` on)."""
    for lane in range(lanes):
        j0 = base + lane * seg
        if j0 + seg <= end:
            for p in range(seg):
                tc[p * lanes + lane] = t[j0 + p]
        else:
            for p in range(seg):
                tc[p * lanes + lane] = t[j0 + p] if j0 + p < end else pad


@nb.njit(nogil=True, cache=True, boundscheck=False)
def _profile(t, col, ncols, tables, lanes, seg, tiles, tc, prof, scratch):
    """``prof[((c * k + a) * seg + p) * lanes + l]`` = biased score of letter
    ``a`` against column ``col + c * seg * lanes + l * seg + p`` of ``t``
    (the pad score, 0, past ``col + ncols``)."""
    k, width = tables.shape
    size = seg * lanes
    pad = k  # scores -bias: 0 in the biased tables
    square = lanes == 64 and seg == 64  # byte lanes, whole tiles: transposed in vectors
    for c in range(tiles):
        base = col + c * size
        if square and base + size <= col + ncols:
            _transpose64(t, base, tc, 0, scratch)
        else:
            _codes(t, base, col + ncols, lanes, seg, pad, tc)
        out = c * k * size
        if width <= lanes:
            for a in range(k):
                for p in range(seg):
                    vstore(prof, out + (a * seg + p) * lanes, vlookup(tables, a * width, vload(tc, p * lanes)))
        else:  # the table is wider than a vector (32-bit lanes): one load per lane
            for a in range(k):
                row = tables[a]
                for x in range(size):
                    prof[out + a * size + x] = row[tc[x]]


@nb.njit(nogil=True, cache=True, boundscheck=False)
def _edge_in(eh, ef, at, ncols, tiles, lanes, seg, H, F):
    """``H`` and ``F`` of a stretch (lane order) from the natural-order
    ``eh[at:]``, ``ef[at:]`` (zeros on the pad columns)."""
    size = seg * lanes
    for c in range(tiles):
        for lane in range(lanes):
            j0 = c * size + lane * seg
            for p in range(seg):
                x = c * size + p * lanes + lane
                if j0 + p < ncols:
                    H[x] = eh[at + j0 + p]
                    F[x] = ef[at + j0 + p]
                else:
                    H[x] = 0
                    F[x] = 0


@nb.njit(nogil=True, cache=True, boundscheck=False)
def _edge_out(H, F, at, ncols, tiles, lanes, seg, eh, ef):
    """The inverse of :func:`_edge_in` on the stretch's own columns."""
    size = seg * lanes
    for c in range(tiles):
        for lane in range(lanes):
            j0 = c * size + lane * seg
            for p in range(max(0, min(seg, ncols - j0))):
                x = c * size + p * lanes + lane
                eh[at + j0 + p] = H[x]
                ef[at + j0 + p] = F[x]


@nb.njit(nogil=True, cache=True, boundscheck=False)
def stretch_pass(q, t, c0, c1, start, tables, lanes, seg, stretch_tiles, gap_open, gap_extend, bias, limit, block,
                 bh, be, out, top_h, top_f, bot_h, bot_f, merge):
    """Column maxima of ``q`` against ``t[start:c1]`` into ``out[start - c0:]``
    (``out[j - c0]`` for column ``j``; with ``merge`` the larger of it and
    what ``out`` holds), a stretch at a time. ``bh[i]``, ``be[i]``: ``H``
    and outgoing ``E`` of row ``i`` at the column left of ``start`` (zeros
    for a fresh pass), updated as the pass goes. ``top_h``, ``top_f`` (empty:
    a first row of the matrix): ``H`` of the row above ``q``'s first and the
    vertical gap entering its first row, at columns ``c0 - 1 .. c1 - 1``
    (index ``j - c0 + 1``); ``bot_h``, ``bot_f`` (empty: not wanted) get the
    same of ``q``'s last row and the row below it. Returns the column where
    it stopped: ``c1``, or the first column of a stretch whose maximum
    reached ``limit`` (not written; ``bh``, ``be`` are its left edge). Gap
    penalties clamped to the lane maximum by the caller, the edges' values
    below ``limit``."""
    m = q.shape[0]
    dt = tables.dtype
    k = tables.shape[0]
    size = seg * lanes
    width = stretch_tiles * size
    H = np.zeros(width, dtype=dt)
    F = np.zeros(width, dtype=dt)
    CM = np.zeros(width, dtype=dt)
    prof = np.zeros(stretch_tiles * k * size, dtype=dt)
    tc = np.zeros(size, dtype=dt)
    scratch = np.zeros(2 * 4096, dtype=np.uint8)  # 64 x 64 byte transposes
    natural = np.zeros(4096, dtype=np.uint8)
    bh_in = np.zeros(m, dtype=np.int64)
    be_in = np.zeros(m, dtype=np.int64)
    corner = np.zeros(stretch_tiles + 1, dtype=np.int64)  # H(first row of the block - 1, column left of tile)
    nextcorner = np.zeros(stretch_tiles + 1, dtype=np.int64)
    z, vgo, vge, vb, vlim, vseg, ramp = pass_vectors(F, lanes, seg, gap_open, gap_extend, bias, limit)
    col = start
    while col < c1:
        ncols = min(width, c1 - col)
        tiles = (ncols + size - 1) // size
        _profile(t, col, ncols, tables, lanes, seg, tiles, tc, prof, scratch)
        used = tiles * size
        H[:used] = 0
        F[:used] = 0
        CM[:used] = 0
        for i in range(m):
            bh_in[i] = bh[i]
            be_in[i] = be[i]
        corner[:] = 0
        if top_h.size:
            _edge_in(top_h, top_f, col - c0 + 1, ncols, tiles, lanes, seg, H, F)
            for c in range(tiles):
                corner[c] = top_h[col - c0 + c * size]
        saturated = False
        for i0 in range(0, m, block):
            i1 = min(m, i0 + block)
            for c in range(tiles):
                hb = c * size
                pbase = c * k * size
                dprev = corner[c]
                for i in range(i0, i1):
                    ap = pbase + q[i] * size
                    e = z
                    vh = shift_in(vload(H, hb + (seg - 1) * lanes), vfill(F, dprev))
                    for p in range(seg):
                        at = hb + p * lanes
                        f = vload(F, at)
                        nxt = vload(H, at)
                        d = subs(adds(vh, vload(prof, ap + p * lanes)), vb)
                        vstore(CM, at, vmax(vload(CM, at), d))
                        h = vmax(d, vmax(e, f))
                        vstore(H, at, h)
                        hgo = subs(h, vgo)
                        e = vmax(subs(e, vge), hgo)
                        vstore(F, at, vmax(subs(f, vge), hgo))
                        vh = nxt
                    # horizontal gaps across the segment boundaries (and from the tile to the left)
                    w = vmax(carry_scan(e, seg * gap_extend), subs(vfill(F, be[i]), ramp))
                    g = w
                    for p in range(seg):
                        at = hb + p * lanes
                        h = vload(H, at)
                        if not any_gt(g, subs(h, vgo)):
                            break
                        h = vmax(h, g)
                        vstore(H, at, h)
                        vstore(F, at, vmax(vload(F, at), subs(h, vgo)))
                        g = subs(g, vge)
                    # this row's last column and outgoing gap, for the tile to the right
                    dprev = bh[i]
                    bh[i] = H[hb + size - 1]
                    be[i] = vlast(vmax(e, subs(w, vseg)))
                nextcorner[c + 1] = bh[i1 - 1]
                vmx = z
                for p in range(seg):
                    vmx = vmax(vmx, vload(CM, hb + p * lanes))
                if any_ge(vmx, vlim):
                    saturated = True
                    break
            if saturated:
                break
            for c in range(1, tiles + 1):
                corner[c] = nextcorner[c]
            corner[0] = bh_in[i1 - 1]
        if saturated:
            for i in range(m):
                bh[i] = bh_in[i]
                be[i] = be_in[i]
            return col
        base = col - c0
        for c in range(tiles):
            if lanes == 64 and seg == 64 and (c + 1) * size <= ncols:
                _transpose64(CM, c * size, natural, 0, scratch)
                for x in range(size):
                    v = natural[x]
                    if not merge or v > out[base + c * size + x]:
                        out[base + c * size + x] = v
                continue
            for lane in range(lanes):
                j0 = c * size + lane * seg
                src = c * size + lane
                for p in range(max(0, min(seg, ncols - j0))):
                    v = CM[src + p * lanes]
                    if not merge or v > out[base + j0 + p]:
                        out[base + j0 + p] = v
        if bot_h.size:
            _edge_out(H, F, col - c0 + 1, ncols, tiles, lanes, seg, bot_h, bot_f)
        col += ncols
    return c1


def _geometry(lanes: int, col: int, hi: int, n: int, stretch: int) -> tuple[int, int, int]:
    """``(seg, tiles, end)`` of a stretch at ``col`` in ``lanes`` lanes."""
    seg = max(1, min(TILE_BYTES // 64, -(-min(n, stretch) // lanes)))
    tiles = max(1, -(-stretch // (seg * lanes)))
    return seg, tiles, min(hi, col + tiles * seg * lanes)


def column_maxima_striped(q: np.ndarray, matrix: np.ndarray, t: np.ndarray, lo: int, hi: int, gap_open: int,
                          gap_extend: int, out: np.ndarray, stretch: int = STRETCH_COLS,
                          block: int = BLOCK_ROWS, *, edge=None, top=None, bottom=None, merge: bool = False) -> None:
    """As :func:`~.scan_kernels.column_maxima` (``out[j - lo]`` for ``lo <= j
    < hi``, a pass starting fresh at ``lo``) from the query's codes ``q`` and
    the score matrix, in SIMD lanes: 8 bits first; a stretch that saturates is
    run again in 16, then 32 bits, and the next stretch goes back to the
    narrowest lanes that hold the rows' ``H`` and ``E`` at its left edge.
    ``stretch`` (columns, at least a tile) and ``block`` (rows): the kernel's
    geometry.

    For a band of rows of a larger matrix (``int64`` arrays): ``edge``, the
    rows' ``(H, E)`` at column ``lo - 1`` (updated to ``hi - 1``; default
    zeros); ``top``, ``(H, F)`` of the row above the band at columns ``lo - 1
    .. hi - 1`` and the vertical gaps entering its first row (``hi - lo + 1``
    each; default: the band starts the matrix); ``bottom``, two such arrays
    given the same below the band's last row; ``merge``: ``out`` keeps the
    larger of its value and the band's column maximum. Every stretch starts
    in the narrowest lanes that hold its edges."""
    n = hi - lo
    if n <= 0:
        return
    m = q.shape[0]
    if m == 0:
        if not merge:
            out[:n] = 0
        return
    announce_compile(stretch_pass)
    q = np.ascontiguousarray(q, dtype=np.intp)
    _, passes = _tables(matrix)
    bh, be = edge if edge is not None else (np.zeros(m, dtype=np.int64), np.zeros(m, dtype=np.int64))
    none = np.zeros(0, dtype=np.int64)
    th, tf = top if top is not None else (none, none)
    oh, of = bottom if bottom is not None else (none, none)
    if oh.size:
        oh[0], of[0] = bh[m - 1], 0
    col, low = lo, 0
    while col < hi:
        k = low  # the narrowest lanes that hold the stretch's edges (and wider than one that saturated on it)
        while True:
            seg, tiles, end = _geometry(passes[k][3], col, hi, n, stretch)
            value = max(int(bh.max()), int(be.max()))
            if th.size:  # the row above from the corner (column col - 1) on
                value = max(value, int(th[col - lo:end - lo + 1].max()), int(tf[col - lo:end - lo + 1].max()))
            if k == len(passes) - 1 or value < passes[k][4]:
                break
            k += 1
        if k == 0 and not th.size:
            end = hi  # 8-bit lanes run on to the end, until a stretch saturates
        _, tables, bias, lanes, limit, top_value = passes[k]
        col = stretch_pass(q, t, lo, end, col, tables, lanes, seg, tiles, min(gap_open, top_value),
                           min(gap_extend, top_value), bias, limit, block, bh, be, out, th, tf, oh, of, merge)
        low = k + 1 if col < end else 0
        if low == len(passes):
            raise AssertionError("the 32-bit pass saturated; scores are checked to fit 32 bits")
