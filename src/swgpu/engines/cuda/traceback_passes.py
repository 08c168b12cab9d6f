"""Traceback passes on the GPU in linear memory, a warp (or a block, for long
pairs) per problem.

Launcher for ``kernels/sw_traceback.cu``. The passes are those of the
CPU engine's :func:`~swgpu.align.traceback.local_align`, batched over pairs:

1. ``tw_sw_end`` -- best score and its end cell (two rows of memory per pair);
2. ``tw_sw_start`` -- the anchored reverse pass from the end: the start;
3. the path inside the box between start and end, by the same Myers-Miller
   divide and conquer as the CPU engine (:func:`~swgpu.align.traceback.global_ops`),
   run level by level for all pairs together: every piece larger than
   ``base_cells`` gets a forward and a reversed ``tw_nw_last`` pass over its two
   halves, ``tw_split`` picks where they meet (the same first-best rule), and the
   piece is replaced by its two halves (and the two gap letters when the best
   crossing is inside a vertical gap); pieces of at most ``base_cells`` cells are
   solved by ``tw_nw_path`` (4-bit directions, walked back on the GPU), and
   ``tw_forward_ops`` turns each piece's path forwards and packs them end to
   end, so that only the paths are copied to the host -- or, when every path
   is one piece, only their CIGAR runs (:mod:`.traceback_runs`).

Large problems of the end, start and half passes run in the tall shape
(``kernels/sw_traceback_tall.cuh``), on the columns that a path of their
known score (or of a lower bound of it, ``desc[6]``) can reach.

Because the split points and the base pieces are the CPU's, the alignment is
the CPU engine's, byte for byte, for pairs of any length: memory is two rows
per problem plus ``base_cells / 2`` bytes of directions per base piece.
"""

from __future__ import annotations

import threading
from functools import partial

import numpy as np

from ...align.batch import Paths
from . import runtime
from .traceback_kernels import Kernels
from .traceback_runs import joined_runs, offsets, path_runs, spread_runs

__all__ = ["TracebackPasses", "Paths"]

WARPS = 8  # warps of a block (kernels/sw_traceback.cu: TW_WARPS)
FIELDS = 10
#: Problems with at least this many rows and cells take a block of WARPS warps
#: (shape ``_8``); smaller ones one warp each (``_1``).
WIDE_ROWS = 512
WIDE_CELLS = 1 << 21
#: Problems of at least this many rows and cells take the tall shape (``_T``:
#: the end, start and half passes, 8 rows a lane, several problems a launch,
#: each on blocks in proportion to its cells).
TALL_ROWS = 1024
TALL_CELLS = 1 << 22
#: Rows of a tall strip (kernels/sw_traceback_tall.cuh: 32 * TW_R).
TALL_STRIP = 256
#: Blocks of one tall launch (None: as many as the GPU holds at once).
TALL_BLOCKS = None
NOSTOP = 0x7FFFFFFF
#: desc[6] of a problem without a known score bound: every column (kernels: TW_NOPRUNE).
NOPRUNE = -(1 << 62)
_MODES = {"tw_sw_end": 0, "tw_sw_start": 1, "tw_nw_last": 2}
#: Row-buffer ints of one launch (two rows of n + 1 per problem).
ROW_BUDGET = 1 << 27
#: Direction words (uint32, 8 cells each) of one ``tw_nw_path`` launch.
DIR_BUDGET = 1 << 27


def _batches(sizes, budget: int):
    """Consecutive index ranges whose ``sizes`` sum to at most ``budget`` (at least one each)."""
    sizes = np.asarray(sizes, dtype=np.int64)
    n = sizes.size
    ends = np.cumsum(sizes)
    start = 0
    while start < n:
        base = int(ends[start - 1]) if start else 0
        stop = int(np.searchsorted(ends, base + budget, side="right"))  # the sizes up to stop fit
        stop = max(stop, start + 1)
        yield start, stop
        start = stop


def _tall(desc: np.ndarray) -> np.ndarray:
    """Which problems the end, start and half passes run in the tall shape."""
    return (desc[:, 1] >= TALL_ROWS) & (desc[:, 1] * desc[:, 3] >= TALL_CELLS)


_tall_streams: dict = {}
_tall_lock = threading.Lock()


def _tall_stream(cp):
    """The stream of the tall shape's launches on the current device, one for
    the process: their warps wait on one another, so every block of a launch
    must be resident, which two of them side by side could prevent."""
    dev = cp.cuda.Device().id
    with _tall_lock:
        stream = _tall_streams.get(dev)
        if stream is None:
            stream = _tall_streams[dev] = cp.cuda.Stream(non_blocking=True)
    return stream


def _combine_got(mode: int, res, owner: np.ndarray, nprob: int) -> np.ndarray:
    """:func:`_combine` of a launch's results on the device (copied here once its stream is done)."""
    return _combine(mode, res.get(), owner, nprob)


def _combine(mode: int, res: np.ndarray, owner: np.ndarray, nprob: int) -> np.ndarray:
    """Each problem's (best, i, j) from its warps' (tall shape): the end pass
    the best score, then the first row, then the first column (zeros when
    nothing scores); the start pass the first row with a hit (zeros: none)."""
    got = res.reshape(-1, 3).astype(np.int64)
    out = np.zeros((nprob, 3), np.int32)
    if mode == 0:
        keep = got[:, 0] > 0
        k = np.lexsort((got[:, 2], got[:, 1], -got[:, 0], owner))
    else:
        keep = got[:, 1] != 0
        k = np.lexsort((got[:, 1], owner))
    k = k[keep[k]]
    first = k[np.r_[True, owner[k][1:] != owner[k][:-1]]] if k.size else k
    out[owner[first]] = got[first]
    if mode == 1:
        out[:, :2] = out[:, 1:].copy()
    return out


def _row_offsets(ncols: np.ndarray) -> np.ndarray:
    off = np.zeros(ncols.size + 1, dtype=np.int64)
    np.cumsum(2 * (ncols.astype(np.int64) + 1), out=off[1:])
    return off


class TracebackPasses:
    """The warp passes for one scoring (``matrix`` on the device, ``K`` letters;
    ``mmax``, its best letter score, bounds the bands)."""

    def __init__(self, cp, matrix_dev, K: int, gap_open: int, gap_extend: int, base_cells: int, mmax: int):
        self.cp = cp
        self.matrix = matrix_dev
        self.K = int(K)
        self.go, self.ge = int(gap_open), int(gap_extend)
        self.base_cells = int(base_cells)
        self.mmax = int(mmax)
        self.slack = abs(self.go) + abs(self.ge)  # below a half's value at a split: its piece's bound
        self._device = cp.cuda.Device().id
        self._k = Kernels()  # (loaded as launched; the tracer started compiling them: part_jobs)
        self._streams = tuple(cp.cuda.Stream(non_blocking=True) for _ in range(2))

    def _tall_blocks(self) -> int:
        """Blocks of the tall shape the GPU holds at once (of every tall kernel)."""
        return min(runtime.resident_blocks(self._k[name + "_T"], 32 * WARPS, self._device) for name in _MODES)

    # ---------------------------------------------------------------- launches
    def _launch(self, name: str, nprob: int, args: tuple) -> None:
        self._k[name]((-(-nprob // WARPS),), (32 * WARPS,), args)

    def _run(self, name: str, desc: np.ndarray, A, B, rows, extra: tuple = (), width: int = 0):
        """Kernel ``name`` over the problems ``desc``: large ones in the tall
        shape (``_T``, on the device's tall stream), long ones a block each
        (``_8``), the rest a warp each (``_1``), each shape on a stream of its own; returns the ``width`` ints of each
        problem's result (host), or None."""
        cp = self.cp
        i32 = np.int32
        cells = desc[:, 1] * desc[:, 3]
        tall = _tall(desc) if name in _MODES else np.zeros(desc.shape[0], bool)
        wide = (desc[:, 1] >= WIDE_ROWS) & (cells >= WIDE_CELLS) & ~tall
        cp.cuda.get_current_stream().synchronize()  # inputs were written on the current stream
        out = np.zeros((desc.shape[0], width), dtype=np.int32) if width else None
        pending = []
        sel = np.flatnonzero(tall)
        if sel.size:
            tall_stream = _tall_stream(cp)  # one stream a device: two tall launches never share the GPU
            with tall_stream:
                pending += [(sel[g], tall_stream, r) for g, r in self._launch_tall(name, desc[sel], A, B, rows)]
        for shape, sel, stream in (("_8", np.flatnonzero(wide), self._streams[0]),
                                   ("_1", np.flatnonzero(~wide & ~tall), self._streams[1])):
            if sel.size == 0:
                continue
            with stream:
                args = (A, B, cp.asarray(np.ascontiguousarray(desc[sel]).ravel()), i32(sel.size), self.matrix,
                        i32(self.K), i32(self.go), i32(self.ge), rows) + extra
                res = cp.empty(sel.size * max(width, 1), dtype=np.int32) if width else None
                grid = sel.size if shape == "_8" else -(-sel.size // WARPS)
                self._k[name + shape]((grid,), (32 * WARPS,), args + ((res,) if width else ()))
            pending.append((sel, stream, res))
        for sel, stream, res in pending:
            stream.synchronize()
            if width:
                out[sel] = res()[:, :width] if callable(res) else res.get().reshape(sel.size, width)
        return out

    def _tall_groups(self, desc: np.ndarray):
        """The launches of the tall shape: (problem indices, blocks of each), the
        largest problems first, each launch at most the blocks the GPU holds at
        once, each problem on blocks in proportion to its cells (at least one,
        at most one warp a strip)."""
        G = max(1, int(TALL_BLOCKS or self._tall_blocks()))
        m, n = desc[:, 1], desc[:, 3]
        cells = (m * n).astype(np.float64)
        strips = -(-m // TALL_STRIP)
        cap = np.maximum(1, -(-strips // WARPS))  # (a warp more than strips: idle)
        order = np.argsort(-cells, kind="stable")
        want = np.clip(np.ceil(cells / cells.sum() * G), 1, cap).astype(np.int64)
        start = 0
        while start < order.size:
            stop = start + max(1, int(np.searchsorted(np.cumsum(want[order[start:]]), G, side="right")))
            g = order[start:stop]
            nb = np.clip(np.floor(cells[g] / cells[g].sum() * G), 1, cap[g]).astype(np.int64)
            if nb.sum() > G:
                nb = np.minimum(want[g], G)
            yield g, nb
            start = stop

    def _launch_tall(self, name: str, desc: np.ndarray, A, B, rows):
        """Launch ``name`` in the tall shape over ``desc`` on the current stream;
        yields (problem indices, a function giving their (best, i, j) rows)
        for the end and start passes, (indices, None) for the half passes."""
        cp = self.cp
        i32 = np.int32
        mode = _MODES[name]
        for g, nb in self._tall_groups(desc):
            blocks = offsets(nb)
            grid = int(blocks[-1])
            # (filled on the host: cp.full is a CuPy-made kernel, whose first use in a process runs NVRTC)
            prog = cp.asarray(np.full(grid * WARPS, -1, dtype=np.int64))
            stop = cp.asarray(np.full(g.size, NOSTOP, dtype=np.int32))
            res = cp.zeros(3 * grid * WARPS, dtype=cp.int32)
            args = (A, B, cp.asarray(np.ascontiguousarray(desc[g]).ravel()), i32(g.size), self.matrix, i32(self.K),
                    i32(self.go), i32(self.ge), rows, i32(self.mmax), cp.asarray(blocks.astype(np.int32)), res, prog,
                    stop)
            self._k[name + "_T"]((grid,), (32 * WARPS,), args)
            owner = np.repeat(np.arange(g.size), nb * WARPS)
            yield g, (None if mode == 2 else partial(_combine_got, mode, res, owner, g.size))

    def _rows_pass(self, name: str, A, B, desc: np.ndarray, ncols: np.ndarray, width: int) -> np.ndarray:
        """Run ``name`` (``tw_sw_end`` or ``tw_sw_start``) over problems ``desc`` in
        row-budget batches; returns ``width`` ints a problem."""
        cp = self.cp
        out = np.zeros((desc.shape[0], width), dtype=np.int32)
        for a, b in _batches(2 * (ncols.astype(np.int64) + 1), ROW_BUDGET):
            off = _row_offsets(ncols[a:b])
            d = desc[a:b].copy()
            d[:, 5] = off[:-1]
            rows = cp.empty(int(off[-1]), dtype=np.int32)
            out[a:b] = self._run(name, d, A, B, rows, width=width)
        return out

    # ------------------------------------------------------------------- pairs
    def trace(self, queries, targets, expected=None, end_at_last: bool = False) -> Paths:
        """Best local alignment paths of ``(queries[k], targets[k])`` (code arrays,
        none empty). ``expected[k]``: the pair's best score when known (None or
        absent: unknown); the end pass then stops after the strip where it is
        first reached (callers check the traced score against it).
        ``end_at_last``: the alignments end with a pair at the targets' last
        letters (the best such score, its first row)."""
        qlen = np.array([x.size for x in queries], dtype=np.int64)
        tlen = np.array([x.size for x in targets], dtype=np.int64)
        exp = None if expected is None else np.array([-1 if e is None else int(e) for e in expected], np.int64)
        return self.trace_packed(self.cp.asarray(np.concatenate(queries)), offsets(qlen)[:-1], qlen,
                                 self.cp.asarray(np.concatenate(targets)), offsets(tlen)[:-1], tlen, exp, end_at_last)

    def trace_packed(self, A, qstart, qlen, B, tstart, tlen, expected=None, end_at_last: bool = False,
                     unknown: int | None = None) -> Paths:
        """:meth:`trace` of pairs whose codes lie on the device already: query ``k``
        is ``A[qstart[k]:qstart[k] + qlen[k]]``, target ``k`` likewise in ``B``
        (none empty); ``expected``: an ``int64`` array, -1 where unknown.
        ``unknown``: the alphabet's unknown code; given, the paths' CIGAR runs and
        counts are made on the device where every path is one base piece
        (:attr:`Paths.runs`, the paths not copied back)."""
        n = int(np.asarray(qlen).size)
        qoff, toff = np.asarray(qstart, dtype=np.int64), np.asarray(tstart, dtype=np.int64)
        qlen, tlen = np.asarray(qlen, dtype=np.int64), np.asarray(tlen, dtype=np.int64)
        desc = np.zeros((n, FIELDS), dtype=np.int64)
        desc[:, 0], desc[:, 1], desc[:, 2], desc[:, 3] = qoff, qlen, toff, tlen
        desc[:, 8] = -1 if expected is None else expected
        desc[:, 9] = int(bool(end_at_last))
        # a known best score bounds the columns of the end pass (desc 6, 7: the band's score and rows)
        desc[:, 6] = np.where(desc[:, 8] >= 0, desc[:, 8], NOPRUNE)
        desc[:, 7] = qlen
        ends = self._rows_pass("tw_sw_end", A, B, desc, tlen, 3).astype(np.int64)
        short = np.flatnonzero((desc[:, 8] >= 0) & (ends[:, 0] < desc[:, 8]) & _tall(desc))
        if short.size:  # below the expected score (callers report it): the whole window's best, as told
            d = desc[short].copy()
            d[:, 6] = NOPRUNE
            ends[short] = self._rows_pass("tw_sw_end", A, B, d, tlen[short], 3)
        out = Paths(best=ends[:, 0].copy(), i0=np.zeros(n, np.int64), j0=np.zeros(n, np.int64),
                    ops=np.zeros(0, np.uint8), off=np.zeros(n + 1, np.int64))
        live = np.flatnonzero(ends[:, 0] > 0)
        if live.size == 0:
            return out
        best, ie, je = ends[live, 0], ends[live, 1], ends[live, 2]
        sd = np.zeros((live.size, FIELDS), dtype=np.int64)
        sd[:, 0], sd[:, 1] = qoff[live] + ie - 1, ie
        sd[:, 2], sd[:, 3] = toff[live] + je - 1, je
        sd[:, 4], sd[:, 8] = 1, best
        sd[:, 6], sd[:, 7] = best, ie
        starts = self._rows_pass("tw_sw_start", A, B, sd, je, 2)
        if np.any(starts[:, 0] == 0):
            raise RuntimeError("start pass did not reach the best score; this is a bug")
        i0, j0 = ie - starts[:, 0], je - starts[:, 1]
        out.i0[live], out.j0[live] = i0, j0
        ops, off, runs = self._global_paths(A, B, qoff[live], toff[live], i0, ie, j0, je, best, unknown)
        counts = np.zeros(n, np.int64)
        counts[live] = np.diff(off)
        out.off, out.ops = offsets(counts), ops
        out.runs = None if runs is None else spread_runs(runs, live, n)  # (none for a pair without an alignment)
        return out

    # ------------------------------------------------- Myers-Miller on the GPU
    def _global_paths(self, A, B, qbase, tbase, a0, a1, b0, b1, score, unknown: int | None = None):
        """Op codes of the optimal global path of each box (concatenated), their
        offsets, and None, as the CPU's ``global_ops``; ``score``: each box's
        optimal score (the local alignment's), which bounds the columns of
        its passes. ``unknown`` given and every box one base piece: no op codes,
        the offsets, and the paths' runs (:meth:`_base_paths`)."""
        go, ge = self.go, self.ge
        m, w = a1 - a0, b1 - b0
        big = (m > 1) & (w > 1) & (m * w > self.base_cells)
        # pieces of each big box in path order: a tuple (a0, a1, b0, b1, lead, tail, bound) or an op array;
        # bound: at most the piece's optimal score
        todo = {int(k): [(int(a0[k]), int(a1[k]), int(b0[k]), int(b1[k]), go, go, int(score[k]))]
                for k in np.flatnonzero(big)}
        while True:
            split = [(k, x) for k, items in todo.items() for x, p in enumerate(items)
                     if isinstance(p, tuple) and self._splits(p)]
            if not split:
                break
            cuts = self._split_level(A, B, qbase, tbase, [k for k, _ in split], [todo[k][x] for k, x in split])
            new = {}
            for (k, x), (kind, j, top, bottom) in zip(split, cuts):
                s0, s1, t0, t1, lead, tail, _ = todo[k][x]
                mid = s0 + (s1 - s0) // 2
                tj = t0 + j
                top, bottom = top - self.slack, bottom - self.slack  # the halves' values there, less a gap's letters
                if kind == 0:
                    new[(k, x)] = [(s0, mid, t0, tj, lead, go, top), (mid, s1, tj, t1, go, tail, bottom)]
                else:  # a vertical gap covers rows mid - 1 and mid in column j
                    new[(k, x)] = [(s0, mid - 1, t0, tj, lead, ge, top), np.ones(2, np.uint8),
                                   (mid + 1, s1, tj, t1, ge, tail, bottom)]
            for k in {k for k, _ in split}:
                todo[k] = [q for x, p in enumerate(todo[k]) for q in new.get((k, x), [p])]
        # base pieces: the small boxes whole, and the leaves of the big ones
        whole = np.flatnonzero(~big)
        leaves = [(k, p) for k, items in todo.items() for p in items
                  if isinstance(p, tuple) and p[1] > p[0] and p[3] > p[2]]
        pk = np.concatenate([whole, np.array([k for k, _ in leaves], dtype=np.int64)])
        box = np.array([p[:6] for _, p in leaves], dtype=np.int64).reshape(-1, 6)
        s0 = np.concatenate([a0[whole], box[:, 0]])
        s1 = np.concatenate([a1[whole], box[:, 1]])
        t0 = np.concatenate([b0[whole], box[:, 2]])
        t1 = np.concatenate([b1[whole], box[:, 3]])
        lead = np.concatenate([np.full(whole.size, go, np.int64), box[:, 4]])
        tail = np.concatenate([np.full(whole.size, go, np.int64), box[:, 5]])
        ops, off, runs = self._base_paths(A, B, qbase[pk], tbase[pk], s0, s1, t0, t1, lead, tail,
                                          None if todo else unknown)
        if not todo:  # every box is one base piece, in order (with ``unknown``: their runs)
            return ops, off, runs
        leaf_ops = {id(p): ops[off[whole.size + r]:off[whole.size + r + 1]] for r, (_, p) in enumerate(leaves)}
        place = {int(k): r for r, k in enumerate(whole)}

        def piece(p) -> np.ndarray:
            if not isinstance(p, tuple):  # the two gap letters of a split inside a vertical gap
                return p
            if id(p) in leaf_ops:
                return leaf_ops[id(p)]
            # a gap on one side only, or nothing
            return np.full(p[1] - p[0] + p[3] - p[2], 1 if p[1] > p[0] else 2, dtype=np.uint8)

        parts, per_pair = [], np.zeros(len(a0), np.int64)
        for k in range(len(a0)):
            mine = [ops[off[place[k]]:off[place[k] + 1]]] if k in place else [piece(p) for p in todo[k]]
            parts += mine
            per_pair[k] = sum(x.size for x in mine)
        return np.concatenate(parts), offsets(per_pair), None

    def _splits(self, p) -> bool:
        m, n = p[1] - p[0], p[3] - p[2]
        return m > 1 and n > 1 and m * n > self.base_cells

    def _split_level(self, A, B, qbase, tbase, pk: list, pieces: list) -> list[tuple[int, int, int, int]]:
        """``(kind, j, top, bottom)`` of each piece (of pair ``pk[r]``): where its
        forward and reversed halves meet, and their values there."""
        cp = self.cp
        i32 = np.int32
        P = len(pieces)
        n = np.array([p[3] - p[2] for p in pieces], dtype=np.int64)
        cuts = np.zeros((P, 4), dtype=np.int32)
        for a, b in _batches(4 * (n + 1), ROW_BUDGET):
            desc = np.zeros((2 * (b - a), FIELDS), dtype=np.int64)
            for r in range(a, b):
                s0, s1, t0, t1, lead, tail, bound = pieces[r]
                k = pk[r]
                mid = s0 + (s1 - s0) // 2
                desc[2 * (r - a)] = (qbase[k] + s0, mid - s0, tbase[k] + t0, t1 - t0, 0, 0, bound, s1 - s0, lead, 0)
                desc[2 * (r - a) + 1] = (qbase[k] + s1 - 1, s1 - mid, tbase[k] + t1 - 1, t1 - t0, 1, 0, bound, s1 - s0,
                                         tail, 0)
            off = _row_offsets(np.repeat(n[a:b], 2))
            desc[:, 5] = off[:-1]
            rows = cp.empty(int(off[-1]), dtype=np.int32)
            self._run("tw_nw_last", desc, A, B, rows)
            res = cp.empty(4 * (b - a), dtype=np.int32)
            self._launch("tw_split", b - a, (rows, cp.asarray(desc.ravel()), i32(b - a), i32(self.go), i32(self.ge),
                                             i32(self.mmax), res))
            cuts[a:b] = res.get().reshape(b - a, 4)
        return [tuple(int(x) for x in c) for c in cuts]

    def _base_paths(self, A, B, qbase, tbase, s0, s1, t0, t1, lead, tail, unknown: int | None = None):
        """``tw_nw_path`` over pieces of at most ``base_cells`` cells (or one row
        / column; none empty): their op codes in order, concatenated, their
        offsets, and None; with ``unknown``, the pieces being whole paths, no op
        codes and their runs instead of None (:func:`~.traceback_runs.path_runs`:
        only the runs are copied back)."""
        cp = self.cp
        m, n = s1 - s0, t1 - t0
        P = m.size
        words = ((m + 31) // 32) * ((n + 7) // 8) * 32
        desc = np.zeros((P, FIELDS), dtype=np.int64)
        desc[:, 0], desc[:, 1], desc[:, 2], desc[:, 3] = qbase + s0, m, tbase + t0, n
        desc[:, 8], desc[:, 9] = lead, tail
        chunks = []
        for a, b in _batches(np.maximum(words, 2 * (n + 1)), DIR_BUDGET):
            d = desc[a:b].copy()
            roff = _row_offsets(n[a:b])
            doff = offsets(words[a:b])
            ooff = offsets(m[a:b] + n[a:b])
            d[:, 5], d[:, 6], d[:, 7] = roff[:-1], doff[:-1], ooff[:-1]
            rows = cp.empty(int(roff[-1]), dtype=np.int32)
            dirs = cp.empty(max(int(doff[-1]), 1), dtype=np.uint32)
            ops = cp.empty(max(int(ooff[-1]), 1), dtype=np.uint8)
            c = self._run("tw_nw_path", d, A, B, rows, (dirs, ops), width=2)[:, 0].astype(np.int64)
            # each piece's ops were written backwards: turned forwards and packed end to end on the GPU
            noff = offsets(c)
            path = cp.empty(max(int(noff[-1]), 1), dtype=np.uint8)
            self._launch("tw_forward_ops", b - a, (ops, cp.asarray(ooff[:-1]), cp.asarray(noff[:-1]),
                                                   cp.asarray(c.astype(np.int32)), np.int32(b - a), path))
            chunks.append((path[:int(noff[-1])].get() if unknown is None else
                           path_runs(cp, self._k, path, noff, c, A, B, qbase[a:b] + s0[a:b], tbase[a:b] + t0[a:b],
                                     unknown), c))
        off = offsets(np.concatenate([c for _, c in chunks] or [np.zeros(0, np.int64)]))
        if unknown is not None:
            return np.zeros(0, np.uint8), off, joined_runs([r for r, _ in chunks])
        return np.concatenate([o for o, _ in chunks] or [np.zeros(0, np.uint8)]), off, None
