"""The striped local pass with the end cell (:func:`.striped.striped_end`)
on several threads, for one long pair: a pipeline over column tiles.

The target's tiles are cut into ``parts`` ranges of consecutive tiles, one
per thread. A block of rows crosses the tiles left to right, each tile
passing every row's last ``H`` and outgoing horizontal gap to the next
(``bh``/``be``, one number per row), so part ``p`` may run block ``b`` as
soon as part ``p - 1`` has run it: the threads work on a wavefront of
blocks, part ``p`` one block behind part ``p - 1``, and each publishes the
blocks it has finished (a store with release order, :mod:`.sync`). Every
cell is computed by the same vector steps as in one thread, so the result
is the same, bit for bit: ``(best, i, j, saturated)``, the end rule of
:func:`.striped.striped_end`. A part that saturates, or a cancelled run
(:data:`.threads.CANCEL`), releases the parts after it, which stop too.

>>> import numpy as np
>>> m = np.where(np.eye(5, dtype=bool), 2, -3).astype(np.int32)
>>> rng = np.random.default_rng(5)
>>> t = rng.integers(0, 4, 20000).astype(np.uint8)
>>> q = np.concatenate([t[3000:3300], t[9000:9900]]).astype(np.uint8)
>>> from swgpu.engines.cpu.striped import sw_end_striped
>>> sw_end_threads(q, t, m, 5, 2, threads=2) == sw_end_striped(q, t, m, 5, 2)
True
"""

from __future__ import annotations

import os

import numba as nb
import numpy as np

from ...io.compiled import read_only_codes
from .simd import (any_ge, any_gt, atomic_next, atomic_read, subs, vfill, vhmax, vlast, vmax)
from .striped import pass_vectors, tile_row
from .sync import load_acquire, store_release

__all__ = ["striped_end_part", "striped_end_finish", "sw_end_threads", "MIN_TILES_PER_THREAD"]

#: Each thread gets at least this many tiles (fewer: one thread runs the pass).
MIN_TILES_PER_THREAD = 4
_CANCEL = 1 << 62
_RELEASED = 1 << 40  # a part's "blocks done" when it stopped early


@nb.njit(nogil=True, cache=True, boundscheck=False)
def striped_end_part(q, prof, tiles, seg, lanes, gap_open, gap_extend, bias, limit, block, parts,
                     H, F, prev, save, tbest, trow, bh, be, done, state, counter):
    """One thread's part of the pass (its index taken from ``counter``):
    the tiles of its part, block after block, behind the part before it.
    Per-tile results in ``prev``, ``save``, ``tbest``, ``trow``, ``H``;
    ``state[0]``: 1 when a row saturated."""
    part = atomic_next(counter)
    if part >= parts:
        return
    m = q.shape[0]
    size = seg * lanes
    k = prof.shape[0] // (tiles * size)
    c_lo = part * tiles // parts
    c_hi = (part + 1) * tiles // parts
    own = c_hi - c_lo
    # this part's tiles of H and F in arrays of its own (their rows are written only here; arrays made
    # here do not alias the arguments, which lets the compiler keep the cell loop as tight as one thread's)
    Hl = np.zeros(max(1, own) * 3 * size, dtype=H.dtype)
    Fl = np.zeros(max(1, own) * size, dtype=F.dtype)
    lprev = np.zeros(own, dtype=np.int64)
    lsave = np.ones(own, dtype=np.int64)
    lbest = np.zeros(own, dtype=np.int64)
    lrow = np.full(own, -1, dtype=np.int64)
    corner = np.zeros(own, dtype=np.int64)  # H(first row of the block - 1, column left of the tile)
    z, vgo, vge, vb, vlim, vseg, ramp = pass_vectors(F, lanes, seg, gap_open, gap_extend, bias, limit)
    blocks = (m + block - 1) // block
    stop = False
    for blk in range(blocks):
        i0 = blk * block
        i1 = min(m, i0 + block)
        if part > 0:
            while load_acquire(done, part - 1) <= blk:
                if atomic_read(counter) >= _CANCEL:
                    break
        if load_acquire(state, 0) != 0 or atomic_read(counter) >= _CANCEL:
            stop = True
            break
        for c in range(c_lo, c_hi):
            x = c - c_lo
            hbase = x * 3 * size
            fbase = x * size
            pbase = c * k * size
            dprev = corner[x]
            vtb = vfill(F, lbest[x])
            for i in range(i0, i1):
                pv = lprev[x]
                sv = lsave[x]
                cur = 3 - pv - sv if pv != sv else (pv + 1) % 3
                hc = hbase + cur * size
                hp = hbase + pv * size
                ap = pbase + q[i] * size
                vmx, e, w = tile_row(Hl, Fl, prof, hc, hp, ap, fbase, seg, lanes, dprev, be[i], gap_extend, z, vgo,
                                     vge, vb, ramp)
                if any_ge(vmx, vlim):
                    store_release(state, 0, 1)
                    stop = True
                    break
                if any_gt(vmx, vtb):
                    lbest[x] = vhmax(vmx)
                    vtb = vfill(F, lbest[x])
                    lrow[x] = i
                    lsave[x] = cur
                lprev[x] = cur
                dprev = bh[i]
                bh[i] = Hl[hc + size - 1]
                be[i] = vlast(vmax(e, subs(w, vseg)))
            if stop:
                break
            corner[x] = dprev
        if stop:
            break
        store_release(done, part, blk + 1)
    if stop:
        store_release(done, part, _RELEASED)
    H[c_lo * 3 * size: c_hi * 3 * size] = Hl[: own * 3 * size]
    for x in range(own):
        prev[c_lo + x] = lprev[x]
        save[c_lo + x] = lsave[x]
        tbest[c_lo + x] = lbest[x]
        trow[c_lo + x] = lrow[x]


@nb.njit(nogil=True, cache=True, boundscheck=False)
def striped_end_finish(H, save, tbest, trow, tiles, seg, lanes, m, n):
    """``(best, i, j)`` from the tiles' results, as :func:`.striped.striped_end` ends."""
    size = seg * lanes
    best = 0
    for c in range(tiles):
        best = max(best, tbest[c])
    if best == 0:
        return 0, 0, 0
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
    return best, bi + 1, bj + 1


def _cores() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def _pass(q, t, tables, lanes, seg, gap_open, gap_extend, bias, limit, block, threads):
    from .striped import striped_profile
    from .threads import run_shared

    prof, tiles = striped_profile(t, tables, lanes, seg)
    parts = max(1, min(int(threads), tiles // MIN_TILES_PER_THREAD))
    size = seg * lanes
    m = q.shape[0]
    H = np.zeros(tiles * 3 * size, dtype=prof.dtype)
    F = np.zeros(tiles * size, dtype=prof.dtype)
    prev = np.zeros(tiles, dtype=np.int64)
    save = np.ones(tiles, dtype=np.int64)
    tbest = np.zeros(tiles, dtype=np.int64)
    trow = np.full(tiles, -1, dtype=np.int64)
    bh = np.zeros(max(1, m), dtype=np.int64)
    be = np.zeros(max(1, m), dtype=np.int64)
    done = np.zeros(parts, dtype=np.int64)
    state = np.zeros(1, dtype=np.int64)
    run_shared(striped_end_part, lambda counter: (q, prof, tiles, seg, lanes, gap_open, gap_extend, bias, limit,
                                                  block, parts, H, F, prev, save, tbest, trow, bh, be, done, state,
                                                  counter), threads=parts, items=parts)
    if state[0]:
        return 0, 0, 0, True
    best, i, j = striped_end_finish(H, save, tbest, trow, tiles, seg, lanes, m, t.shape[0])
    return best, i, j, False


def sw_end_threads(q: np.ndarray, t: np.ndarray, matrix: np.ndarray, gap_open: int, gap_extend: int,
                   least: int | None = None, threads: int = 1):
    """:func:`.striped.sw_end_striped` with each pass on ``threads`` threads
    (one where the target has too few tiles); the same ``(best, i, j)``, or None."""
    from .striped import BLOCK_ROWS, EIGHT_BIT_CELLS, PROFILE_BYTES, TILE_BYTES, _tables, sw_end_striped

    m, n = q.shape[0], t.shape[0]
    threads = min(int(threads), _cores())  # the parts wait for each other: never more than the cores
    if threads <= 1 or m == 0 or n == 0:
        return sw_end_striped(q, t, matrix, gap_open, gap_extend, least)
    q, t = read_only_codes(q), read_only_codes(t)
    top_score, passes = _tables(matrix)
    bound = min(m, n) * top_score
    last = len(passes) - 1
    for k, (_, tables, bias, lanes, limit, top) in enumerate(passes):
        if k < last:
            if least is not None and least >= limit:
                continue
            if k == 0 and bound >= limit and m * n < EIGHT_BIT_CELLS:
                continue
        if tables.shape[0] * n * (64 // lanes) > PROFILE_BYTES:
            return None
        seg = max(1, min(TILE_BYTES // 64, -(-n // lanes)))
        best, i, j, sat = _pass(q, t, tables, lanes, seg, min(gap_open, top), min(gap_extend, top), bias, limit,
                                BLOCK_ROWS, threads)
        if not sat:
            return int(best), int(i), int(j)
    raise AssertionError("the 32-bit pass saturated; scores are checked to fit 32 bits")
