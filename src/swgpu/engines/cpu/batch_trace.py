"""Many short pairs traced in one compiled pass per range of pairs, on threads.

:func:`trace_packed` takes pairs whose codes lie end to end (as a screen's
two :class:`~swgpu.io.sequence_batch.SequenceBatch` hold them) and runs, for
each pair inside one Numba function, the passes that
:func:`~swgpu.align.traceback.local_align` runs one pair at a time:

- the end: :func:`.pairwise.sw_end` -- for a pair of :data:`~.tracer.SMALL_CELLS`
  cells or more, the 16-bit striped local pass, whose best and first best cell
  are the same, as :meth:`.tracer.SimdKernels.sw_end` uses it --, or
  :func:`.pairwise.sw_end_last` for alignments that end at the target's last
  letter; or the end a screen's scoring pass found;
- the start: the anchored reverse pass, :func:`.pairwise.sw_start`; for a box of
  :data:`~.tracer.SMALL_CELLS` cells or more from a true end cell, the 16-bit
  striped local pass over the reversed prefixes, whose first cell holding the
  score is the same start, as :meth:`.tracer.SimdKernels.sw_start` uses it;
- the path of the box between them: :func:`.pairwise.nw_path`, the piece every
  box of at most ``base_cells`` cells is; boxes of :data:`LANE_LEAST` to
  :data:`~.path_lanes.LANE_CELLS` cells :data:`~.path_lanes.LANES` at a time, a
  SIMD lane each (:mod:`.path_lanes`).

The same kernels and tie rules: the same alignments, with no Python object per
pair and the interpreter's lock released. A pair whose box is larger than
``base_cells`` (divided by Myers-Miller first) is left to the
caller (``big``).
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numba as nb
import numpy as np

from ...io.compiled import read_only_codes
from .jit import announce_compile
from .pairwise import nw_path, sw_end, sw_end_last, sw_start
from .path_lanes import LANE_CELLS, LANES, nw_paths_lanes
from .striped import BLOCK_ROWS, PROFILE_BYTES, TILE_BYTES, _tables, striped_pass

__all__ = ["trace_packed"]

#: Pairs of one compiled call, the most; with several threads, ranges are cut
#: smaller so that each thread takes about :data:`_RANGES_PER_THREAD` (the last
#: ones left to a thread then hold little of the work).
_PAIRS_PER_RANGE = 2048
_RANGES_PER_THREAD = 16
#: DP cells a thread of a call should have before a range holds fewer than 64 pairs.
_CELLS_PER_THREAD = 1 << 20
#: Boxes of fewer cells take the one-box path pass (a lane padded to a group's largest box would cost more).
LANE_LEAST = 1024


@nb.njit(nogil=True, cache=True)
def _trace(qcodes, qstart, qlen, tcodes, tstart, tlen, matrix, go, ge, base_cells, given, ends, a, b,
           best, i0, j0, i1, j1, ops, room, count, big, tables, striped):  # pragma: no cover
    # boxes whose paths are made together, a SIMD lane each (path_lanes): their pairs, starts, sizes, rooms
    lk = np.empty(LANES, np.int64)
    lq = np.empty(LANES, np.int64)
    lm = np.empty(LANES, np.int64)
    lt = np.empty(LANES, np.int64)
    ln = np.empty(LANES, np.int64)
    lat = np.empty(LANES, np.int64)
    lgot = np.empty(LANES, np.int64)
    waiting = 0
    for k in range(a, b):
        m = qlen[k]
        n = tlen[k]
        if m == 0 or n == 0:
            continue
        # (copies: the passes below then take writable arrays whether the codes are read-only or not,
        # so that a machine's first run compiles each of them once, for every workload)
        q = qcodes[qstart[k]:qstart[k] + m].copy()
        t = tcodes[tstart[k]:tstart[k] + n].copy()
        sat = True
        if given and ends[k, 0] >= 0:  # (score, end row, end column) found before (:func:`_ends_last`, a scorer)
            score, ie, je = ends[k, 0], ends[k, 1], ends[k, 2]
            sat = False
        elif 0 <= striped[0] <= m * n:
            # the 16-bit striped local pass: its best and first best cell are the row kernel's (SimdKernels.sw_end)
            score, ie, je, sat = _striped(q, t, tables, striped, go, ge)
        if sat:
            score, ie, je = sw_end(q, t, matrix, go, ge)
        if score <= 0:
            continue
        rq = q[:ie][::-1].copy()
        rt = t[:je][::-1].copy()
        ri = 0
        rj = 0
        if 0 <= striped[0] <= ie * je and score < striped[3]:
            sbest, si, sj, sat = _striped(rq, rt, tables, striped, go, ge)
            if not sat and sbest == score:
                ri = si
                rj = sj
        if ri == 0:
            ri, rj = sw_start(rq, rt, matrix, go, ge, score)
        if ri == 0:
            big[k] = 2  # (never: the start pass reaches the best score)
            continue
        s0 = ie - ri
        u0 = je - rj
        rows = ie - s0
        cols = je - u0
        best[k] = score
        i0[k] = s0
        j0[k] = u0
        i1[k] = ie
        j1[k] = je
        if rows > 1 and cols > 1 and rows * cols > base_cells:
            big[k] = 1
            continue
        if LANE_LEAST <= rows * cols <= LANE_CELLS:
            lk[waiting] = k
            lq[waiting] = qstart[k] + s0
            lm[waiting] = rows
            lt[waiting] = tstart[k] + u0
            ln[waiting] = cols
            lat[waiting] = room[k]
            waiting += 1
            if waiting == LANES:
                _lane_paths(qcodes, tcodes, matrix, go, ge, lk, lq, lm, lt, ln, lat, lgot, waiting, ops, count)
                waiting = 0
            continue
        _one_path(q[s0:ie], t[u0:je], matrix, go, ge, ops, room[k], count, k)
    _lane_paths(qcodes, tcodes, matrix, go, ge, lk, lq, lm, lt, ln, lat, lgot, waiting, ops, count)


@nb.njit(nogil=True, cache=True, inline="always")
def _striped(q, t, tables, striped, go, ge):  # pragma: no cover
    """``(best, end row, end column, saturated)`` of ``q`` against ``t`` by the 16-bit striped local pass
    (``striped``: least cells, lanes, bias, limit, lane maximum, profile bytes, tile bytes, block rows);
    saturated where its profile of ``t`` would be larger than the profile bytes."""
    n = t.shape[0]
    if tables.shape[0] * n * 2 > striped[5]:
        return 0, 0, 0, True
    seg = max(1, min(striped[6] // 64, -(-n // striped[1])))
    return striped_pass(q, t, tables, striped[1], seg, min(go, striped[4]), min(ge, striped[4]), striped[2],
                        striped[3], striped[7])


@nb.njit(nogil=True, cache=True, inline="always")
def _lane_paths(qcodes, tcodes, matrix, go, ge, lk, lq, lm, lt, ln, lat, lgot, waiting, ops, count):  # pragma: no cover
    """The paths of the ``waiting`` boxes held for the lanes (pair ``lk[w]``, query from ``lq[w]``, ...):
    together (:func:`.path_lanes.nw_paths_lanes`), or one alone by the one-box pass."""
    if waiting == 1:
        q = qcodes[lq[0]:lq[0] + lm[0]].copy()
        t = tcodes[lt[0]:lt[0] + ln[0]].copy()
        _one_path(q, t, matrix, go, ge, ops, lat[0], count, lk[0])
    elif waiting > 1:
        nw_paths_lanes(qcodes, lq, lm, tcodes, lt, ln, waiting, matrix, go, ge, go, go, ops, lat, lgot)
        for w in range(waiting):
            count[lk[w]] = lgot[w]


@nb.njit(nogil=True, cache=True, inline="always")
def _one_path(q, t, matrix, go, ge, ops, at, count, k):  # pragma: no cover
    """The path of one box (:func:`.pairwise.nw_path`) at ``ops[at:]``, its length in ``count[k]``."""
    path, _ = nw_path(q, t, matrix, go, ge, go, go)
    for c in range(path.shape[0]):
        ops[at + c] = path[c]
    count[k] = path.shape[0]


@nb.njit(nogil=True, cache=True)
def _ends_last(qcodes, qstart, qlen, tcodes, tstart, tlen, matrix, go, ge, a, b, ends):  # pragma: no cover
    """``ends[k]``: the best score of an alignment of pair ``k`` that ends with
    a pair at the target's last letter, and that end (a kernel of its own: a
    machine's first run compiles only the end pass it uses)."""
    for k in range(a, b):
        m = qlen[k]
        n = tlen[k]
        if m == 0 or n == 0:
            continue
        score, ie, je = sw_end_last(qcodes[qstart[k]:qstart[k] + m], tcodes[tstart[k]:tstart[k] + n], matrix, go, ge)
        ends[k, 0] = score
        ends[k, 1] = ie
        ends[k, 2] = je


def _striped_tables(matrix, end_at_last: bool):
    """The 16-bit striped pass's tables for the end and start passes of :func:`_trace`, and its settings:
    (least cells, lanes, bias, limit, lane maximum, profile bytes, tile bytes, block rows). A pair or box
    under the least cells (as the tracer's :data:`~.tracer.SMALL_CELLS`), or a start whose score does not fit
    under the limit, stays with the row kernels; so does every start of ``end_at_last`` (an end at the last
    column need not be the first best cell, which the local pass's shortcut needs: see
    :class:`.tracer.LastColumnKernels`), whose ends are given."""
    from .tracer import SMALL_CELLS

    for dtype, tables, bias, lanes, limit, top in () if end_at_last else _tables(matrix)[1]:
        if np.dtype(dtype).itemsize == 2:
            return tables, np.array([SMALL_CELLS, lanes, bias, limit, top, PROFILE_BYTES, TILE_BYTES, BLOCK_ROWS],
                                    dtype=np.int64)
    # (none: matrix entries past what 16-bit tables hold, or end_at_last): every start with the row kernel
    return np.zeros((1, 32), np.uint16), np.array([-1, 32, 0, 0, 0, 0, TILE_BYTES, BLOCK_ROWS], dtype=np.int64)


def trace_packed(qcodes, qstart, qlen, tcodes, tstart, tlen, matrix, gap_open: int, gap_extend: int,
                 base_cells: int, threads: int = 1, end_at_last: bool = False, ends=None):
    """Best local alignments of the pairs ``k`` (query ``qcodes[qstart[k]:][:qlen[k]]``,
    target likewise): ``(best, i0, j0, i1, j1, ops, offsets, big)``, the
    alignment of pair ``k`` from ``(i0[k], j0[k])`` to ``(i1[k], j1[k])`` along
    ``ops[offsets[k]:offsets[k + 1]]`` (0 pair, 1 query letter against a gap, 2
    target letter against a gap; empty without an alignment), ``big`` the pairs
    whose path is left to the caller (empty here; their start and end found).
    ``end_at_last``: each alignment the best that ends with a pair at its
    target's last letter (:func:`.pairwise.sw_end_last`). ``ends``: each pair's
    ``(score, end row, end column)`` as :func:`.pairwise.sw_end` gives them, where
    known (a row of -1 elsewhere): their end pass is not run again."""
    qstart, qlen = np.asarray(qstart, np.int64), np.asarray(qlen, np.int64)
    tstart, tlen = np.asarray(tstart, np.int64), np.asarray(tlen, np.int64)
    n = qlen.size
    best, i0, j0, i1, j1 = (np.zeros(n, np.int64) for _ in range(5))
    count, big = np.zeros(n, np.int64), np.zeros(n, np.int8)
    room = np.zeros(n + 1, np.int64)  # a path has at most m + n columns
    np.cumsum(qlen + tlen, out=room[1:])
    ops = np.empty(int(room[-1]), np.uint8)
    m32 = np.ascontiguousarray(matrix, dtype=np.int32)
    gaps = (np.int32(gap_open), np.int32(gap_extend))
    given = end_at_last or ends is not None
    if ends is not None and not end_at_last:
        ends = np.ascontiguousarray(np.asarray(ends, dtype=np.int64).reshape(n, 3))
    else:
        ends = np.zeros((n if end_at_last else 1, 3), np.int64)
    # (codes read-only whoever passes them: one compiled version of the kernels for every workload)
    qcodes, tcodes = read_only_codes(qcodes), read_only_codes(tcodes)
    args = (qcodes, qstart, qlen, tcodes, tstart, tlen, m32) + gaps + (np.int64(base_cells), bool(given), ends)
    outs = (best, i0, j0, i1, j1, ops, room, count, big) + _striped_tables(m32, end_at_last)
    threads = max(1, int(threads or os.cpu_count() or 1))
    # few pairs of many cells (a search's hits of one query): ranges of a pair, so that every thread has some
    least = 1 if int(np.dot(qlen, tlen)) >= threads * _CELLS_PER_THREAD else 64
    per = _PAIRS_PER_RANGE if threads == 1 else min(_PAIRS_PER_RANGE,
                                                     max(least, -(-n // (threads * _RANGES_PER_THREAD))))
    cuts = list(range(0, n, per)) + [n]
    parts = list(zip(cuts[:-1], cuts[1:]))
    announce_compile(_trace, *((_ends_last,) if end_at_last else ()))

    def one(ab):
        if end_at_last:
            _ends_last(qcodes, qstart, qlen, tcodes, tstart, tlen, m32, *gaps, ab[0], ab[1], ends)
        _trace(*args, ab[0], ab[1], *outs)

    workers = max(1, min(threads, len(parts)))
    if workers == 1:
        for ab in parts:
            one(ab)
    else:
        with ThreadPoolExecutor(workers, thread_name_prefix="swgpu-trace") as pool:
            list(pool.map(one, parts))
    offsets = np.zeros(n + 1, np.int64)
    np.cumsum(count, out=offsets[1:])
    keep = np.repeat(room[:-1] - offsets[:-1], count) + np.arange(int(offsets[-1]))
    return best, i0, j0, i1, j1, ops[keep], offsets, np.flatnonzero(big)
