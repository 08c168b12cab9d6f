"""One pair, one vector: Farrar's striped Smith-Waterman with the end cell,
in column tiles that stay in the L1 cache.

The target is cut into tiles of ``W = seg * lanes`` columns; within a tile,
lane ``l`` holds the ``seg`` columns from ``l * seg`` on, so vector ``p``
holds tile columns ``p``, ``seg + p``, ``2 * seg + p``, ... The query runs
down the rows, a block of rows at a time through every tile, left to right;
a tile passes each row's last ``H`` and outgoing horizontal gap ``E`` to the
next (one number each), and keeps its own rows and vertical gaps ``F``
between blocks, so a row's working set is a few kilobytes whatever the
target length. A tile row is ``seg`` vector steps, then the horizontal gaps
across the segment boundaries: what each lane inherits from the lanes before
it (and lane 0 from the tile to the left) is one prefix maximum across the
lanes (:func:`~.simd.carry_scan`), carried along the segment only while it
can still raise a cell (Farrar's lazy loop, 2007, bounded to one sweep).
When that raises a cell's ``H``, the vertical gap it opens is raised too, so
every cell holds its exact Gotoh values, ``gap_open == gap_extend`` included.

Lane arithmetic is unsigned, saturating and biased as in
:mod:`.search_kernel`; a pair whose best reaches ``MAX - bias`` is re-run in
wider lanes (:func:`sw_end_striped`; 8-bit lanes first, stopped at the first
row that saturates).

The end cell follows swgpu's rule (the first cell in row-major order holding
the best score): each tile keeps the first of its rows whose maximum beats
its best so far (three row buffers per tile, no copies); at the end the tile
with the best score and the earliest such row gives the row, and that row's
first column holding the best gives the column.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ...io.compiled import read_only_codes
from .lanes import LANE_TYPES, score_tables
from .simd import (adds, any_ge, any_gt, carry_scan, lanes_of, shift_in, subs, vfill, vhmax, vlast, vload, vmax,
                   vstore)

__all__ = ["striped_profile", "typed_profile", "striped_end", "striped_pass", "sw_end_striped", "PROFILE_BYTES",
           "TILE_BYTES", "BLOCK_ROWS"]

#: Largest striped profile (bytes) built for one target; longer targets use the row kernel.
PROFILE_BYTES = 1 << 26
#: Bytes of one tile row (a vector per segment step): four such rows are hot per query row.
TILE_BYTES = 4096
#: Query rows run through one tile before the next tile.
BLOCK_ROWS = 256


@nb.njit(nogil=True, cache=True, boundscheck=False)
def striped_profile(t, tables, lanes, seg):
    """``prof[((c * k + a) * seg + p) * lanes + l]`` = biased score of letter
    ``a`` against column ``c * seg * lanes + l * seg + p`` of ``t`` (tile
    ``c``; 0, the pad score ``-bias``, past the end)."""
    return typed_profile(t, tables, tables, lanes, seg)


@nb.njit(nogil=True, cache=True, boundscheck=False)
def typed_profile(t, tables, like, lanes, seg):
    """``(prof, tiles)`` of :func:`striped_profile` in ``like``'s type (the
    global passes' raw scores: :mod:`.global_kernel`)."""
    width = seg * lanes
    tiles = max(1, (t.shape[0] + width - 1) // width)
    prof = np.empty(tiles * tables.shape[0] * width, dtype=like.dtype)
    fill_profile(t, tables, lanes, seg, prof)
    return prof, tiles


@nb.njit(nogil=True, cache=True, boundscheck=False, inline="always")
def fill_profile(t, tables, lanes, seg, prof):
    """``prof`` (any integer type, ``tiles * k * seg * lanes`` long) laid out as
    :func:`striped_profile` from the rows of ``tables``: each tile's letters
    are put in profile order first, then each row's entries of the tile are
    gathered in one run of stores (about 3x the column-by-column loop)."""
    n = t.shape[0]
    k = tables.shape[0]
    width = seg * lanes
    tiles = prof.shape[0] // max(1, k * width)
    letters = np.empty(width, dtype=np.intp)
    for c in range(tiles):
        pads = 0
        for p in range(seg):
            for lane in range(lanes):
                j = c * width + lane * seg + p
                if j < n:
                    letters[p * lanes + lane] = t[j]
                else:
                    letters[p * lanes + lane] = 0
                    pads += 1
        for a in range(k):
            row = tables[a]
            base = (c * k + a) * width
            for x in range(width):
                prof[base + x] = row[letters[x]]
        if pads:  # (the last tile only)
            for p in range(seg):
                for lane in range(lanes):
                    if c * width + lane * seg + p >= n:
                        for a in range(k):
                            prof[(c * k + a) * width + p * lanes + lane] = 0


@nb.njit(nogil=True, cache=True, boundscheck=False, inline="always")
def pass_vectors(F, lanes, seg, gap_open, gap_extend, bias, limit):
    """The constant vectors of a striped pass in the lanes of ``F``: zero, gap
    open, gap extend, bias, the saturation limit, a segment's gap extension,
    and the ramp of gap extensions across the lanes of one column."""
    ramp_a = np.zeros(lanes, dtype=F.dtype)
    top = np.iinfo(F.dtype).max
    for lane in range(lanes):
        ramp_a[lane] = min(lane * seg * gap_extend, top)
    return (vfill(F, 0), vfill(F, gap_open), vfill(F, gap_extend), vfill(F, bias), vfill(F, limit),
            vfill(F, min(seg * gap_extend, top)), vload(ramp_a, 0))


@nb.njit(nogil=True, cache=True, boundscheck=False, inline="always")
def tile_row(H, F, prof, hc, hp, ap, fbase, seg, lanes, dprev, enter, gap_extend, z, vgo, vge, vb, ramp):
    """One query row through one tile of the striped pass (``H`` of the row
    before at ``hp``, this row's at ``hc``; ``F`` at ``fbase``; the profile
    row at ``ap``; ``dprev``: ``H`` of the row before left of the tile,
    ``enter``: the gap entering it from the left): ``(row best, E, W)``, the
    lane maxima, the vertical-segment gap and the gap carried across segments."""
    vmx = z
    e = z
    vh = shift_in(vload(H, hp + (seg - 1) * lanes), vfill(F, dprev))
    for p in range(seg):
        at = p * lanes
        f = vload(F, fbase + at)
        h = vmax(subs(adds(vh, vload(prof, ap + at)), vb), vmax(e, f))
        vmx = vmax(vmx, h)
        vstore(H, hc + at, h)
        hgo = subs(h, vgo)
        e = vmax(subs(e, vge), hgo)
        vstore(F, fbase + at, vmax(subs(f, vge), hgo))
        vh = vload(H, hp + at)
    # horizontal gaps across the segment boundaries (and from the tile to the left)
    w = vmax(carry_scan(e, seg * gap_extend), subs(vfill(F, enter), ramp))
    g = w
    for p in range(seg):
        at = p * lanes
        h = vload(H, hc + at)
        if not any_gt(g, subs(h, vgo)):
            break
        h = vmax(h, g)
        vstore(H, hc + at, h)
        vmx = vmax(vmx, h)
        vstore(F, fbase + at, vmax(vload(F, fbase + at), subs(h, vgo)))
        g = subs(g, vge)
    return vmx, e, w


@nb.njit(nogil=True, cache=True, boundscheck=False)
def striped_end(q, prof, tiles, seg, lanes, n, gap_open, gap_extend, bias, limit, block):
    """``(best, i, j, saturated)``: best local score of ``q`` against the
    profiled target and its first cell in row-major order (1-based; 0, 0 when
    the best is 0). ``saturated``: a row reached ``limit``; the result is then
    not exact. Gap penalties clamped to the lane maximum by the caller."""
    m = q.shape[0]
    dt = prof.dtype
    size = seg * lanes
    k = prof.shape[0] // (tiles * size)
    H = np.zeros(tiles * 3 * size, dtype=dt)
    F = np.zeros(tiles * size, dtype=dt)
    prev = np.zeros(tiles, dtype=np.int64)
    save = np.ones(tiles, dtype=np.int64)
    tbest = np.zeros(tiles, dtype=np.int64)
    trow = np.full(tiles, -1, dtype=np.int64)
    bh = np.zeros(max(1, m), dtype=np.int64)  # per row: H of the column left of the tile
    be = np.zeros(max(1, m), dtype=np.int64)  # per row: E entering the tile
    corner = np.zeros(tiles + 1, dtype=np.int64)  # H(first row of the block - 1, column left of tile)
    nextcorner = np.zeros(tiles + 1, dtype=np.int64)
    z, vgo, vge, vb, vlim, vseg, ramp = pass_vectors(F, lanes, seg, gap_open, gap_extend, bias, limit)
    for i0 in range(0, m, block):
        i1 = min(m, i0 + block)
        for c in range(tiles):
            hbase = c * 3 * size
            fbase = c * size
            pbase = c * k * size
            dprev = corner[c]
            vtb = vfill(F, tbest[c])
            for i in range(i0, i1):
                pv = prev[c]
                sv = save[c]
                cur = 3 - pv - sv if pv != sv else (pv + 1) % 3
                hc = hbase + cur * size
                hp = hbase + pv * size
                ap = pbase + q[i] * size
                vmx, e, w = tile_row(H, F, prof, hc, hp, ap, fbase, seg, lanes, dprev, be[i], gap_extend, z, vgo,
                                     vge, vb, ramp)
                if any_ge(vmx, vlim):
                    return vhmax(vmx), 0, 0, True
                if any_gt(vmx, vtb):
                    tbest[c] = vhmax(vmx)
                    vtb = vfill(F, tbest[c])
                    trow[c] = i
                    save[c] = cur
                prev[c] = cur
                # this row's last column and outgoing gap, for the tile to the right
                dprev = bh[i]
                bh[i] = H[hc + size - 1]
                be[i] = vlast(vmax(e, subs(w, vseg)))
            nextcorner[c + 1] = bh[i1 - 1]
        for c in range(tiles + 1):
            corner[c] = nextcorner[c]
        corner[0] = 0
    best = 0
    for c in range(tiles):
        best = max(best, tbest[c])
    if best == 0:
        return 0, 0, 0, False
    bi = m
    bj = n
    for c in range(tiles):
        if tbest[c] != best or trow[c] > bi:
            continue
        hs = c * 3 * size + save[c] * size
        for p in range(seg):
            for lane in range(lanes):
                j = c * size + lane * seg + p
                if j < n and H[hs + p * lanes + lane] == best and (trow[c] < bi or j < bj):
                    bi = trow[c]
                    bj = j
    return best, bi + 1, bj + 1, False


_TABLES: dict = {}


def _tables(matrix: np.ndarray) -> tuple[int, list]:
    """``(largest entry, passes)`` of a matrix: per lane width it fits,
    narrowest first, ``(lane type, tables, bias, lanes, limit, top)``
    (``limit``: a best at or above it may have saturated; the last pass's is
    ``top``, the lane maximum)."""
    got = _TABLES.get(id(matrix))
    if got is not None and got[0] is matrix:
        return got[1]
    key = (matrix.shape, matrix.tobytes())
    made = _TABLES.get(key)
    if made is None:
        m64 = np.asarray(matrix, dtype=np.int64)
        passes = []
        for dtype in LANE_TYPES:
            tb = score_tables(m64, dtype, m64.shape[0])
            if tb is not None:
                passes.append([dtype, tb[0], tb[1], lanes_of(dtype), int(np.iinfo(dtype).max) - tb[1],
                               int(np.iinfo(dtype).max)])
        passes[-1][4] = passes[-1][5]
        made = (max(int(m64.max()), 0), [tuple(p) for p in passes])
        _TABLES[key] = made
    if len(_TABLES) > 64:
        _TABLES.clear()
    _TABLES[id(matrix)] = (matrix, made)  # the same array next time: no hashing of its bytes
    return made


@nb.njit(nogil=True, cache=True)
def striped_pass(q, t, tables, lanes, seg, gap_open, gap_extend, bias, limit, block):
    """:func:`striped_profile` then :func:`striped_end`, in one call."""
    prof, tiles = striped_profile(t, tables, lanes, seg)
    return striped_end(q, prof, tiles, seg, lanes, t.shape[0], gap_open, gap_extend, bias, limit, block)


#: Pairs of fewer cells start in 16-bit lanes unless 8 bits surely hold their
#: score: an 8-bit pass that saturates half-way costs more than it can save.
EIGHT_BIT_CELLS = 1 << 20


def sw_end_striped(q: np.ndarray, t: np.ndarray, matrix: np.ndarray, gap_open: int, gap_extend: int,
                   least: int | None = None):
    """``(best, i, j)`` as :func:`swgpu.engines.cpu.pairwise.sw_end`, striped:
    8-bit lanes first, then 16 and 32 bits while a pass saturates (from the
    first lanes that can hold ``least``, a score the pair is known to reach);
    None when the target's profile would exceed :data:`PROFILE_BYTES`."""
    m, n = q.shape[0], t.shape[0]
    if m == 0 or n == 0:
        return 0, 0, 0
    q, t = read_only_codes(q), read_only_codes(t)
    top_score, passes = _tables(matrix)
    bound = min(m, n) * top_score
    last = len(passes) - 1
    for k, (_, tables, bias, lanes, limit, top) in enumerate(passes):
        if k < last:
            if least is not None and least >= limit:
                continue  # would saturate
            if k == 0 and bound >= limit and m * n < EIGHT_BIT_CELLS:
                continue  # might saturate, for little gain
        width = 64 // lanes  # bytes per lane
        if tables.shape[0] * n * width > PROFILE_BYTES:
            return None
        seg = max(1, min(TILE_BYTES // 64, -(-n // lanes)))
        best, i, j, sat = striped_pass(q, t, tables, lanes, seg, min(gap_open, top), min(gap_extend, top), bias,
                                       limit, BLOCK_ROWS)
        if not sat:
            return int(best), int(i), int(j)
    raise AssertionError("the 32-bit pass saturated; scores are checked to fit 32 bits")
