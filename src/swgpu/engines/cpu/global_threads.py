"""The last row of a global alignment (:mod:`.global_kernel`) on several
threads, for the few large pieces of the first Myers-Miller levels.

The target's tiles are cut into ranges of consecutive tiles, one per thread,
as :mod:`.striped_threads` cuts the local pass: a block of rows crosses the
tiles left to right, each tile passing every row's last ``H`` and outgoing
horizontal gap to the next (``bh``/``be``), so part ``p`` runs block ``b``
once part ``p - 1`` has published it (a store with release order). Parts
take their index from a shared counter as their threads start, so a part
only ever waits for one that is already running. Every cell is computed by
the same vector steps as in one thread: the same ``(CC, DD)``, bit for bit.

>>> import numpy as np
>>> from swgpu.engines.cpu.global_kernel import nw_last_row
>>> m = np.where(np.eye(4, dtype=bool), 2, -3).astype(np.int32)
>>> rng = np.random.default_rng(2)
>>> a, b = rng.integers(0, 4, 700).astype(np.uint8), rng.integers(0, 4, 40_000).astype(np.uint8)
>>> got = nw_last_row_threads(a, b, m, 5, 2, 5, threads=2)
>>> want = nw_last_row(a, b, m, 5, 2, 5)
>>> all(np.array_equal(x, y) for x, y in zip(got, want))
True
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .global_kernel import (BLOCK_ROWS, PROFILE_BYTES, TILE_BYTES, global_tile_row, lane_type, nw_last_row_striped,
                            nw_profile, row0_tile, tile_out)
from .lanes import lanes_of
from .simd import atomic_next, atomic_read, vfill, vlast, vload, vmax, vsub
from .striped_threads import MIN_TILES_PER_THREAD, _cores
from .sync import load_acquire, store_release

__all__ = ["nw_last_row_part", "nw_last_row_threads"]

_CANCEL = 1 << 62


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


def nw_last_row_threads(a, b, matrix, gap_open, gap_extend, lead_open, threads: int):
    """:func:`.global_kernel.nw_last_row` with its pass on ``threads`` threads
    (one where ``b`` has too few tiles): the same ``(CC, DD)``, or None when
    the profile of ``b`` would be too large."""
    from .threads import run_shared

    m, n = a.shape[0], b.shape[0]
    dtype, neg = lane_type(m, n, matrix, gap_open, gap_extend, lead_open)
    if matrix.shape[0] * n * np.dtype(dtype).itemsize > PROFILE_BYTES:
        return None
    lanes = lanes_of(dtype)
    seg = max(1, min(TILE_BYTES // 64, -(-n // lanes)))
    prof, tiles = nw_profile(b, matrix, np.zeros(1, dtype=dtype), lanes, seg)
    parts = max(1, min(int(threads), _cores(), tiles // MIN_TILES_PER_THREAD))
    if parts == 1 or m == 0:
        return nw_last_row_striped(a, prof, tiles, seg, lanes, n, gap_open, gap_extend, lead_open, neg, BLOCK_ROWS)
    rows = np.arange(m, dtype=np.int64)
    bh = -(lead_open + rows * gap_extend)  # H(i + 1, 0): left of tile 0
    be = bh - gap_open
    CC = np.empty(n + 1, dtype=np.int32)
    DD = np.empty(n + 1, dtype=np.int32)
    done = np.zeros(parts, dtype=np.int64)
    a = np.ascontiguousarray(a)
    run_shared(nw_last_row_part, lambda counter: (a, prof, tiles, seg, lanes, n, gap_open, gap_extend, lead_open,
                                                  neg, BLOCK_ROWS, parts, bh, be, CC, DD, done, counter),
               threads=parts, items=parts)
    CC[0] = DD[0] = -(lead_open + (m - 1) * gap_extend)
    return CC, DD
