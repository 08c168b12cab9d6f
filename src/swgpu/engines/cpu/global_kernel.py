"""The last row of a global (Gotoh) alignment, striped and tiled as
:mod:`.striped`, for the forward and backward passes of the linear-memory
traceback (:func:`swgpu.align.traceback.global_ops`).

Same geometry as the local kernel (column tiles of ``seg`` vector steps, a
block of rows through every tile, each tile passing a row's last ``H`` and
outgoing ``E`` to the next), with signed lanes (``int16`` where the
problem's range fits, else ``int32``) and no zero floor: row 0 is the
leading horizontal gap ``-(gap_open + (j - 1) * gap_extend)``, column 0 the
leading vertical gap ``-(lead_open + (i - 1) * gap_extend)``. Returns what
:func:`.pairwise.nw_last_row` returns: ``H`` and the vertical-gap scores
``F`` of the last row.

The pass is written once, as one part of a range of tiles
(:func:`nw_last_row_part`): the one-thread pass is its only part, the
threaded one (:mod:`.global_threads`) runs several side by side.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ...io.compiled import read_only_codes
from .lanes import lanes_of
from .simd import (any_gt, atomic_next, atomic_read, carry_scan_signed, shift_in, vadd, vfill, vlast, vload, vmax,
                   vstore, vsub)
from .striped import typed_profile
from .sync import load_acquire, store_release

__all__ = ["nw_last_row_striped", "nw_last_row_part", "nw_profile", "left_edge", "BLOCK_ROWS"]

#: A part's work-queue counter at or above this stops it (:data:`.threads.CANCEL`).
_CANCEL = 1 << 62

#: Minus infinity of the 32-bit lanes (as :mod:`.pairwise`); 16-bit lanes use -2**14.
NEG32 = -(1 << 29)
NEG16 = -(1 << 14)


#: Raw scores (``dt_like``'s type) of every letter against ``b``, laid out as
#: :func:`.striped.striped_profile`: ``nw_profile(b, matrix, dt_like, lanes, seg)``.
nw_profile = typed_profile


@nb.njit(nogil=True, cache=True, boundscheck=False, inline="always")
def row0_tile(H, F, hbase, fbase, c, seg, lanes, gap_open, gap_extend, neg):
    """Tile ``c``'s row 0 (``H`` at ``hbase``) and vertical gaps into row 1 (``F`` at ``fbase``)."""
    size = seg * lanes
    for p in range(seg):
        for lane in range(lanes):
            j = c * size + lane * seg + p + 1  # DP column
            h0 = -(gap_open + (j - 1) * gap_extend)
            H[hbase + p * lanes + lane] = max(h0, neg)
            F[fbase + p * lanes + lane] = max(h0 - gap_open, neg)


@nb.njit(nogil=True, cache=True, boundscheck=False, inline="always")
def tile_out(X, base, c, seg, lanes, n, out):
    """``out[j + 1]`` of tile ``c``'s columns ``j < n`` from the lane-order values at ``X[base:]``."""
    size = seg * lanes
    for p in range(seg):
        for lane in range(lanes):
            j = c * size + lane * seg + p
            if j < n:
                out[j + 1] = X[base + p * lanes + lane]


@nb.njit(nogil=True, cache=True, boundscheck=False, inline="always")
def global_tile_row(H, F, prof, hc, hp, ap, fbase, seg, lanes, dprev, enter, gap_extend, neg, vneg, vgo, vge, ramp):
    """One query row through one tile of the global pass (``H`` of the row
    before at ``hp``, this row's at ``hc``; ``F`` at ``fbase``; the profile
    row at ``ap``; ``dprev``: ``H`` of the row before left of the tile,
    ``enter``: the gap entering it from the left): ``(E, W)``, the
    vertical-segment gap and the gap carried across segments."""
    e = vneg
    vh = shift_in(vload(H, hp + (seg - 1) * lanes), vfill(F, dprev))
    for p in range(seg):
        at = p * lanes
        f = vload(F, fbase + at)
        h = vmax(vadd(vh, vload(prof, ap + at)), vmax(e, f))
        vstore(H, hc + at, h)
        hgo = vsub(h, vgo)
        e = vmax(vsub(e, vge), hgo)
        vstore(F, fbase + at, vmax(vsub(f, vge), hgo))
        vh = vload(H, hp + at)
    w = vmax(carry_scan_signed(e, seg * gap_extend, neg), vsub(vfill(F, enter), ramp))
    g = w
    for p in range(seg):
        at = p * lanes
        h = vload(H, hc + at)
        if not any_gt(g, vsub(h, vgo)):
            break
        h = vmax(h, g)
        vstore(H, hc + at, h)
        vstore(F, fbase + at, vmax(vload(F, fbase + at), vsub(h, vgo)))
        g = vsub(g, vge)
    return e, w


@nb.njit(nogil=True, cache=True, boundscheck=False)
def nw_last_row_part(a, prof, tiles, seg, lanes, n, gap_open, gap_extend, lead_open, neg, block, parts,
                     bh, be, CC, DD, done, counter):
    """One thread's part (its index taken from ``counter``): its tiles, block
    after block, behind the part before it; their entries of ``CC`` and
    ``DD`` (:func:`.global_kernel.nw_last_row_striped`'s)."""
    part = atomic_next(counter)
    if part >= parts:
        return
    m = a.shape[0]
    dt = prof.dtype
    size = seg * lanes
    k = prof.shape[0] // (tiles * size)
    c_lo = part * tiles // parts
    c_hi = (part + 1) * tiles // parts
    own = c_hi - c_lo
    H = np.empty(max(1, own) * 2 * size, dtype=dt)  # this part's tiles (arrays of its own: no aliasing)
    F = np.empty(max(1, own) * size, dtype=dt)
    prev = np.zeros(max(1, own), dtype=np.int64)
    corner = np.zeros(max(1, own), dtype=np.int64)  # H(first row of the block - 1, column left of the tile)
    for x in range(own):
        c = c_lo + x
        if c > 0:
            corner[x] = -(gap_open + (c * size - 1) * gap_extend)  # row 0
        row0_tile(H, F, x * 2 * size, x * size, c, seg, lanes, gap_open, gap_extend, neg)
    ramp_a = np.zeros(lanes, dtype=dt)
    for lane in range(lanes):
        ramp_a[lane] = lane * seg * gap_extend
    vgo = vfill(F, gap_open)
    vge = vfill(F, gap_extend)
    vneg = vfill(F, neg)
    vseg = vfill(F, seg * gap_extend)
    ramp = vload(ramp_a, 0)
    blocks = (m + block - 1) // block
    for blk in range(blocks):
        i0 = blk * block
        i1 = min(m, i0 + block)
        if part > 0:
            while load_acquire(done, part - 1) <= blk:
                if atomic_read(counter) >= _CANCEL:
                    return
        if atomic_read(counter) >= _CANCEL:
            return
        for x in range(own):
            c = c_lo + x
            hbase = x * 2 * size
            fbase = x * size
            pbase = c * k * size
            dprev = corner[x]
            for i in range(i0, i1):
                pv = prev[x]
                hc = hbase + (1 - pv) * size
                hp = hbase + pv * size
                ap = pbase + a[i] * size
                if i == m - 1:  # the last row's vertical gaps, before this row changes them
                    tile_out(F, fbase, c, seg, lanes, n, DD)
                e, w = global_tile_row(H, F, prof, hc, hp, ap, fbase, seg, lanes, dprev, be[i], gap_extend, neg,
                                       vneg, vgo, vge, ramp)
                prev[x] = 1 - pv
                dprev = bh[i]
                bh[i] = H[hc + size - 1]
                be[i] = vlast(vmax(e, vsub(w, vseg)))
            corner[x] = dprev  # H(i1 - 1, column left of the tile): the next block's corner
        store_release(done, part, blk + 1)
    for x in range(own):
        tile_out(H, x * 2 * size + prev[x] * size, c_lo + x, seg, lanes, n, CC)


@nb.njit(nogil=True, cache=True, boundscheck=False)
def nw_last_row_striped(a, prof, tiles, seg, lanes, n, gap_open, gap_extend, lead_open, neg, block):
    """``(CC, DD)``: ``H`` and vertical-gap ``F`` of the last row (``n + 1``
    entries each, ``int32``) of the global DP of ``a`` against the profiled
    ``b``. ``neg``: minus infinity of the lane type. (:func:`nw_last_row_part`
    as the one part.)"""
    m = a.shape[0]
    bh, be = left_edge(m, gap_open, gap_extend, lead_open)
    CC = np.empty(n + 1, dtype=np.int32)
    DD = np.empty(n + 1, dtype=np.int32)
    nw_last_row_part(a, prof, tiles, seg, lanes, n, gap_open, gap_extend, lead_open, neg, block, 1, bh, be, CC, DD,
                     np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64))
    CC[0] = DD[0] = -(lead_open + (m - 1) * gap_extend)
    return CC, DD


@nb.njit(nogil=True, cache=True, boundscheck=False)
def left_edge(m, gap_open, gap_extend, lead_open):
    """``(bh, be)`` of column 0: ``H(i + 1, 0)`` and the gap entering column 1, per row ``i``."""
    bh = np.empty(max(1, m), dtype=np.int64)
    be = np.empty(max(1, m), dtype=np.int64)
    for i in range(m):
        bh[i] = -(lead_open + i * gap_extend)
        be[i] = bh[i] - gap_open
    return bh, be


#: Bytes of one tile row of the global kernel.
TILE_BYTES = 4096
#: Largest profile (bytes) built for one pass; longer rows use the row kernel.
PROFILE_BYTES = 1 << 26
#: Query rows run through one tile before the next tile.
BLOCK_ROWS = 256


def lane_type(m: int, n: int, matrix: np.ndarray, gap_open: int, gap_extend: int, lead_open: int):
    """``(dtype, neg)``: 16-bit lanes when every value of the problem (and the
    gap arithmetic of a tile) stays well inside them, else 32-bit."""
    width = TILE_BYTES // 2  # columns of a 16-bit tile
    low = 3 * max(gap_open, lead_open) + abs(min(int(matrix.min()), 0)) + gap_extend * (m + n + 2 * width)
    high = max(int(matrix.max()), 0) * min(m, n)
    if low < (1 << 14) - 64 and high < (1 << 14):
        return np.int16, NEG16
    return np.int32, NEG32


def profiled(a, b, matrix, gap_open, gap_extend, lead_open):
    """``(prof, tiles, seg, lanes, neg)`` of a pass of ``a`` against ``b`` in
    the lanes its values need; None when the profile of ``b`` would exceed
    :data:`PROFILE_BYTES`."""
    m, n = a.shape[0], b.shape[0]
    b = read_only_codes(b)
    dtype, neg = lane_type(m, n, matrix, gap_open, gap_extend, lead_open)
    if matrix.shape[0] * n * np.dtype(dtype).itemsize > PROFILE_BYTES:
        return None
    lanes = lanes_of(dtype)
    seg = max(1, min(TILE_BYTES // 64, -(-n // lanes)))
    prof, tiles = nw_profile(b, matrix, np.zeros(1, dtype=dtype), lanes, seg)
    return prof, tiles, seg, lanes, neg


def nw_last_row(a, b, matrix, gap_open, gap_extend, lead_open):
    """:func:`.pairwise.nw_last_row` on the striped kernel (``a`` and ``b`` not
    empty); None when the profile of ``b`` would exceed :data:`PROFILE_BYTES`."""
    got = profiled(a, b, matrix, gap_open, gap_extend, lead_open)
    if got is None:
        return None
    prof, tiles, seg, lanes, neg = got
    return nw_last_row_striped(read_only_codes(a), prof, tiles, seg, lanes, b.shape[0], gap_open, gap_extend,
                               lead_open, neg, BLOCK_ROWS)
