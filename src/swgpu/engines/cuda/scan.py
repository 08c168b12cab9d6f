"""``scan`` on the GPU: candidate hit end points of queries along long targets.

Launcher of ``kernels/scan.cu``. Each record is cut into own ranges of
``window`` columns (narrower when few queries would leave the GPU idle:
:attr:`CudaGenomeScanner.fill`); the problem of a query and an own range is
the window from ``span - 1 + r`` letters before it to ``r`` letters after it
(within the record; ``span`` from :func:`~swgpu.align.scan_rule.span_bound`,
``r`` the query length), so its column maxima are exact over the own range
and its neighbourhood. They come from ``sc_pair_pR`` (two problems of a query
per warp in 16-bit halves, where the scores fit), ``sc_colmax_R`` (a warp per
problem, ``R`` query rows per lane: :func:`rows_per_lane`), ``sc_long_R``
(long queries) or, with ``method="rowscan"``, the row-parallel scan.
``sc_points`` applies the end-point rule on the GPU, and the best ``keep`` of
each query are chosen (on the GPU when there are many) in the order of
:func:`~swgpu.align.scan_rule.best_end_points` (the CPU engine's). Problems
go in batches that fit ``ROW_BUDGET`` ints of row buffers, queued without
waiting on two streams in turn; the host collects their end points at the
end (:mod:`~swgpu.engines.cuda.scan_best`), or sooner when their buffers pass
``OUT_BUDGET`` bytes.
"""

from __future__ import annotations

import time

import numpy as np

from ...align.scan_rule import cap_span, span_bound
from ...exceptions import EngineError
from ...scoring import Scoring
from . import runtime
from .scan_best import best_end_points, collect

__all__ = ["CudaGenomeScanner", "KERNEL_FILE", "WINDOW", "ROW_BUDGET", "LONG_QUERY", "rows_per_lane"]

KERNEL_FILE = "scan.cu"
FIELDS = 11
WARPS = 8
#: Own columns per problem.
WINDOW = 4096
#: The fewest own columns per problem when :attr:`CudaGenomeScanner.fill`
#: narrows the windows, and the warps per multiprocessor it aims for.
MIN_WINDOW = 1024
FILL_WARPS = 8
#: Waves of those warps that let :attr:`CudaGenomeScanner.fill` widen the
#: windows, and how many times :data:`WINDOW` they grow to at most.
WAVES = 2
WIDEST = 16
#: Own columns per problem of the row-parallel scan.
ROWSCAN_WINDOW = 1 << 18
#: Columns of a tile and threads of a block of the row-parallel scan
#: (kernels/scan.cu: SC_RS_TILE, SC_RS_THREADS).
ROWSCAN_TILE = 1024
ROWSCAN_THREADS = 256
#: Rows of margin before a problem of the row-parallel scan returns from
#: 32-bit to 8-bit cells (the seed's T).
ROWSCAN_MARGIN = 10
#: Row-buffer ints of one launch (3 per window column; 4 GiB).
ROW_BUDGET = 1 << 30
#: Bytes of end-point buffers of queued batches before the host collects them.
OUT_BUDGET = 1 << 30
#: Scores of the 16-bit pair kernels stay under this (m * max + open), as do
#: twice the gap costs.
PAIR_LIMIT = 1 << 14
#: Query rows per lane of the kernel shapes (a warp covers 32 x R rows a strip).
ROWS_PER_LANE = (1, 2, 4, 8, 16)
#: Rows of the tallest strip of the short kernels: queries up to this long
#: run in one strip.
ONE_STRIP = 32 * ROWS_PER_LANE[-1]
#: Queries of at least this many letters run on the long kernel (``sc_long``):
#: the strips of one problem on many warps at once, so a few problems fill the GPU.
LONG_QUERY = 4096
#: Rows of one strip of the long kernel (32 lanes x 16 rows).
LONG_STRIP = 512


def rows_per_lane(m):
    """The kernel shape for a query of ``m`` letters (an int, or an array of
    them): the fewest rows per lane that cover it in one strip, at most 16."""
    shapes = np.asarray(ROWS_PER_LANE)
    r = shapes[np.minimum(np.searchsorted(32 * shapes, m), shapes.size - 1)]
    return int(r) if np.ndim(m) == 0 else r


def _pairs(d: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Problems of ``d`` (rows ``index`` of the launch's descriptors) two by
    two, each pair of one query (a problem left alone is paired with
    itself): an ``(n, 2)`` int32 array of descriptor rows."""
    first = np.ones(d.shape[0], dtype=bool)
    first[1:] = d[1:, 0] != d[:-1, 0]  # a query's problems are consecutive
    run = np.cumsum(first) - 1
    start = np.flatnonzero(first)
    pos = np.arange(d.shape[0]) - start[run]  # position within the query's run
    lows = np.flatnonzero(pos % 2 == 0)
    nxt = np.minimum(lows + 1, d.shape[0] - 1)
    highs = np.where((lows + 1 < d.shape[0]) & ~first[nxt], lows + 1, lows)
    return np.stack([index[lows], index[highs]], axis=1).astype(np.int32)


class CudaGenomeScanner:
    """Candidate end points on one GPU (a :class:`~swgpu.engines.base.GenomeScanner`)."""

    def __init__(self, scoring: Scoring, device_id: int = 0, method: str = "auto"):
        if method not in ("auto", "rowscan"):
            raise EngineError(f"unknown method {method!r}: use auto or rowscan", param="method")
        self.method = method
        self.scoring = scoring
        self.device_id = int(device_id)
        self.window = WINDOW
        self.long_query = LONG_QUERY  # queries of this many letters or more run on the long kernel
        self.fill = method == "auto"  # narrower windows when too few problems would leave the GPU idle
        if method == "rowscan":  # whole rows of long windows: fewer lead-in columns per own column
            self.window = ROWSCAN_WINDOW
        self.last_timings: dict = {}
        self.byte_rows = True  # the row-parallel scan's 8-bit rows (False: all 32-bit, to compare)
        self.row_words = [0, 0]  # rows of the row-parallel scan in 8-bit cells, and all its rows
        self._eight: list = []
        self._cp = runtime.cupy()
        m = np.ascontiguousarray(scoring.matrix.values, dtype=np.int32)
        self._K = int(m.shape[0])
        with self._cp.cuda.Device(self.device_id):
            self._stream = self._cp.cuda.Stream(non_blocking=True)
            self._stream2 = self._cp.cuda.Stream(non_blocking=True)
            with self._stream:
                self._matrix = self._cp.asarray(m.ravel())
            mod = runtime.get_module(KERNEL_FILE)
            packed = self._K <= 8 and int(m.min()) >= -128 and int(m.max()) <= 127
            self._colmax = {r: mod.get_function(f"sc_colmax_{'p' if packed else ''}{r}") for r in ROWS_PER_LANE}
            # two problems of a query per warp in 16-bit halves, where every score fits
            small = packed and scoring.gap_open < PAIR_LIMIT // 2 and scoring.gap_extend < PAIR_LIMIT // 2
            self._pair = {r: mod.get_function(f"sc_pair_p{r}") for r in ROWS_PER_LANE} if small else None
            self._points = mod.get_function("sc_points")
            self._rowscan = mod.get_function("sc_rowscan")
            self._rowchain = mod.get_function("sc_rowchain")
            self._long = mod.get_function(f"sc_long_{'p' if packed else ''}16")
            self._long_blocks = runtime.resident_blocks(self._long, 32 * WARPS, self.device_id)
            self._sms = int(self._cp.cuda.Device(self.device_id).attributes["MultiProcessorCount"])
            # two batches in flight (two row budgets, each stream with its own pool) where memory allows
            self._two_streams = self._cp.cuda.Device(self.device_id).mem_info[1] >= 6 * 4 * ROW_BUDGET

    def _window(self, m: int, span: int | None, r: int, length: int, short: int) -> int:
        """Own columns per problem: :data:`WINDOW`, or for long queries as
        many columns as leave every warp of the long kernel a strip (parts
        at least four times their lead-in)."""
        if m < self.long_query or length <= 0:
            return short
        if self.method == "rowscan":  # one problem per record: a row's scan spans the record
            return max(self.window, length)
        lead = (span if span is not None else length) + 2 * r
        strips = -(-m // LONG_STRIP)
        parts = max(1, min(-(-self._long_blocks * WARPS // strips), length // (4 * lead)))
        return max(self.window, -(-length // parts))

    def _short_window(self, queries, letters: int) -> int:
        """Own columns per problem of the short kernels: :attr:`window`, or
        with :attr:`fill` as few as leave the GPU ``FILL_WARPS`` warps per
        multiprocessor (two problems a warp), at least ``MIN_WINDOW``; or
        when there are problems enough for many waves of those warps, up to
        ``WIDEST`` times as many (less lead-in per own column)."""
        if not self.fill:
            return self.window
        short = sum(1 for q in queries if 0 < q.size < self.long_query)
        problems = short * letters / self.window
        want = 2 * FILL_WARPS * self._sms
        if problems < want:
            return max(min(MIN_WINDOW, self.window), int(self.window * problems / want) // 256 * 256)
        window = self.window
        while window < WIDEST * self.window and problems * self.window / (2 * window) >= WAVES * want:
            window *= 2
        return window

    def _problems(self, queries, bounds, floors, own=None, radius=None, max_span=None) -> np.ndarray:
        """Descriptors of every problem, query by query (the windows of
        queries of one length are laid out once)."""
        sc = self.scoring
        first, end = (0, int(bounds[-1])) if own is None else (int(own[0]), int(own[1]))
        short_window = self._short_window(queries, max(0, end - first))
        sizes = np.array([q.size for q in queries], dtype=np.int64)
        qoff = np.zeros(len(queries) + 1, dtype=np.int64)
        np.cumsum(sizes, out=qoff[1:])
        floors = np.asarray(floors, dtype=np.int64)
        blocks = []
        for m in np.unique(sizes[sizes > 0]).tolist():
            span = cap_span(span_bound(m, sc.matrix.max_score, sc.gap_open, sc.gap_extend), max_span)
            r = max(m if radius is None else int(radius), 1)
            parts = []
            for rec in range(bounds.size - 1):
                lo, hi = int(bounds[rec]), int(bounds[rec + 1])
                a0, a1 = max(lo, first), min(hi, end)
                window = self._window(m, span, r, a1 - a0, short_window)
                a = np.arange(a0, a1, window, dtype=np.int64)
                if a.size == 0:
                    continue
                b = np.minimum(a + window, a1)
                w0 = np.maximum(lo, a - r - (span - 1)) if span is not None else np.full_like(a, lo)
                w1 = np.minimum(hi, b + r)
                part = np.zeros((a.size, FIELDS), dtype=np.int64)
                part[:, 1], part[:, 2], part[:, 3] = m, w0, w1 - w0
                part[:, 5], part[:, 6], part[:, 7], part[:, 9] = a - w0, b - w0, r, w0
                parts.append(part)
            if not parts:
                continue
            layout = np.concatenate(parts)
            ks = np.flatnonzero(sizes == m)
            block = np.tile(layout, (ks.size, 1))
            each = np.repeat(ks, layout.shape[0])
            block[:, 0], block[:, 8], block[:, 10] = qoff[each], floors[each], each
            blocks.append(block)
        if not blocks:
            return np.zeros((0, FIELDS), dtype=np.int64)
        desc = np.concatenate(blocks)
        return desc[np.argsort(desc[:, 10], kind="stable")]

    def _paired(self, d: np.ndarray) -> np.ndarray:
        """Which problems run two to a warp in 16-bit halves: queries of one
        strip whose scores (and gap costs) fit well inside 16 bits."""
        if self._pair is None or d.shape[0] == 0:
            return np.zeros(d.shape[0], dtype=bool)
        m = d[:, 1]
        return (m <= ONE_STRIP) & (m * self.scoring.matrix.max_score + self.scoring.gap_open < PAIR_LIMIT)

    def _row_scan(self, A, B, d: np.ndarray, rows) -> None:
        """The row-parallel scan over problems ``d``: one launch per query
        row, a block per (problem, tile of columns). The max-scan of a tile
        reaches back over a halo of columns (``sc_rowscan``, the localized
        scan, whose rows run in 8-bit cells while their values fit a byte,
        in 32-bit cells otherwise) while a gap that long can score; for
        longer queries the scan runs across the tiles in one pass instead
        (``sc_rowchain``, 32-bit cells)."""
        cp = self._cp
        i32 = np.int32
        sc = self.scoring
        tiles = -(-d[:, 3] // ROWSCAN_TILE)
        first = np.zeros(d.shape[0] + 1, dtype=np.int64)
        np.cumsum(tiles, out=first[1:])
        top, widest = int(d[:, 1].max()), int(d[:, 3].max())
        # a gap longer than this costs more than the longest query can score
        halo = widest if sc.gap_extend == 0 else \
            min(widest, max(1, (top * sc.matrix.max_score - sc.gap_open) // sc.gap_extend + 1))
        dd, tf = cp.asarray(d.ravel()), cp.asarray(first)
        common = (A, B, dd, i32(d.shape[0]), tf, self._matrix, i32(self._K), i32(sc.gap_open), i32(sc.gap_extend),
                  rows)
        halo = -(-halo // 4) * 4  # whole words of 8-bit cells
        grid, block = (int(first[-1]),), (ROWSCAN_THREADS,)
        if halo <= ROWSCAN_TILE // 2:
            # 8-bit rows: the scores biased to bytes (bias = -min), gaps that fit a byte
            bias = max(0, -int(sc.matrix.values.min()))
            grow = int(sc.matrix.max_score) + bias
            ok8 = int(self.byte_rows and sc.gap_open <= 255 and sc.gap_extend <= 255 and grow <= 255)
            state = cp.zeros(6 * d.shape[0], dtype=np.int32)  # per problem: 2 word lengths, 3 row maxima, 8-bit rows
            for i in range(1, top + 1):
                self._rowscan(grid, block, common + (i32(i), i32(halo), state, i32(ok8), i32(grow), i32(bias),
                                                     i32(ROWSCAN_MARGIN)))
            self._eight.append(state[5::6].sum())  # read at the end (no wait here)
            self.row_words[1] += int(d[:, 1].sum())
            return
        ticket = cp.zeros(1, dtype=np.uint64)
        status = cp.zeros(int(first[-1]), dtype=np.uint64)
        for i in range(1, top + 1):
            self._rowchain(grid, block, common + (i32(i), ticket, status))

    def _join(self, streams, back: bool = False) -> None:
        """The scanner's stream waits for the others (``back``: and they for
        it, so that buffers it copied out may be reused on them)."""
        for other in streams[1:]:
            done = self._cp.cuda.Event()
            done.record(other if not back else self._stream)
            (self._stream if not back else other).wait_event(done)

    def _batch(self, A, B, d: np.ndarray, lg: np.ndarray, ints: int, cap: int):
        """Queue one batch of problems ``d`` (``lg``: on the long kernel) on
        the current stream, row buffers of ``ints`` ints: their column
        maxima, then their end points (``sc_points``). Returns the end-point
        buffers (columns, scores, slots, count) and their room ``cap``."""
        cp, i32 = self._cp, np.int32
        gaps = (i32(self.scoring.gap_open), i32(self.scoring.gap_extend))
        rows = (cp.zeros if self.method == "rowscan" else cp.empty)(ints, dtype=np.int32)
        short_index = np.flatnonzero(~lg)  # rows of d
        if self.method == "rowscan":
            self._row_scan(A, B, d[short_index], rows)
            short_index = short_index[:0]
        short = d[short_index]
        shapes = rows_per_lane(short[:, 1])
        paired = self._paired(short)
        dev_d = cp.asarray(d.ravel())
        for r in np.unique(shapes[paired]).tolist():
            at = paired & (shapes == r)
            pairs = _pairs(short[at], short_index[at])
            self._pair[r]((-(-pairs.shape[0] // WARPS),), (32 * WARPS,),
                          (A, B, dev_d, cp.asarray(pairs.ravel()), i32(pairs.shape[0]), self._matrix,
                           i32(self._K)) + gaps + (rows,))
        for r in np.unique(shapes[~paired]).tolist():
            sel = short[(shapes == r) & ~paired]
            self._colmax[r]((-(-sel.shape[0] // WARPS),), (32 * WARPS,),
                            (A, B, cp.asarray(sel.ravel()), i32(sel.shape[0]), self._matrix, i32(self._K))
                            + gaps + (rows,))
        if lg.any():
            sel = d[lg]
            strips = -(-sel[:, 1] // LONG_STRIP)
            sfirst = np.zeros(sel.shape[0] + 1, dtype=np.int64)
            np.cumsum(strips, out=sfirst[1:])
            progress = cp.zeros(int(sfirst[-1]), dtype=np.int32)
            self._long((self._long_blocks,), (32 * WARPS,),
                       (A, B, cp.asarray(sel.ravel()), i32(sel.shape[0]), cp.asarray(sfirst),
                        np.int64(sfirst[-1]), self._matrix, i32(self._K)) + gaps + (rows, progress))
            # the column maxima are in the row slot of the problem's last strip
            d[lg, 4] += ((strips - 1) & 1) * 3 * (sel[:, 3] + 1)
            dev_d = cp.asarray(d.ravel())
        out = (cp.empty(max(cap, 1), dtype=np.int64), cp.empty(max(cap, 1), dtype=np.int32),
               cp.empty(max(cap, 1), dtype=np.int32), cp.zeros(1, dtype=np.uint64))
        take = d.shape[0]
        self._points((max(1, min(take, 65535)),), (256,), (rows, dev_d, i32(take)) + out + (np.uint64(cap),))
        return out + (cap,)

    def candidates(self, queries, genome, bounds, min_score, keep: int, on_done=None, own=None, radius=None,
                   max_span=None):
        """See :class:`~swgpu.engines.base.GenomeScanner`. Batches of
        problems are queued one after another, on two streams in turn; the host
        waits at the end, or sooner when the batches' end-point buffers pass
        ``OUT_BUDGET`` bytes (then it keeps only the end points found). Only
        the genome columns the problems read are copied to the device."""
        cp = self._cp
        t0 = time.perf_counter()
        queries = [np.ascontiguousarray(q, dtype=np.uint8) for q in queries]
        floors = [int(min_score)] * len(queries) if np.ndim(min_score) == 0 else [int(x) for x in min_score]
        bounds = np.asarray(bounds, dtype=np.int64)
        desc = self._problems(queries, bounds, floors, own, radius, max_span)
        pending, pending_bytes, parts = [], 0, []  # batches' (cols, scores, slots, count, cap); found end points
        with cp.cuda.Device(self.device_id), self._stream:
            ev = [cp.cuda.Event(), cp.cuda.Event()]
            ev[0].record()
            if desc.shape[0]:
                A = cp.asarray(np.concatenate(queries))
                g0, g1 = int(desc[:, 2].min()), int((desc[:, 2] + desc[:, 3]).max())
                B = cp.asarray(np.ascontiguousarray(genome[g0:g1], dtype=np.uint8))
                desc[:, 2] -= g0  # window starts in B (column 9 keeps the genome column)
            is_long = desc[:, 1] >= self.long_query
            if self.method == "rowscan":
                is_long[:] = False
                ints = np.full(desc.shape[0], 5)
            else:  # problems of one strip keep only their column maxima
                ints = np.where(is_long, 6, np.where(desc[:, 1] <= ONE_STRIP, 1, 3))
            need = ints * (desc[:, 3] + 1)
            if self.method == "rowscan":  # and four rows of bytes (kernels/scan.cu, sc_rowscan)
                need += 4 * (desc[:, 3] // 4 + 3)
            only_c = ints == 1
            lead = 2 * (int(desc[only_c, 3].max()) + 1) if only_c.any() else 0  # room before a C-only slot
            # batches alternate between two streams, so that one batch's
            # kernels fill the GPU while the last blocks of the one before
            # drain (the long kernel, whose warps wait on each other, keeps one)
            streams = [self._stream]
            if self._two_streams and not is_long.any():
                streams.append(self._stream2)
                ready = cp.cuda.Event()
                ready.record(self._stream)
                self._stream2.wait_event(ready)
            start = batch = 0
            while start < desc.shape[0]:
                take = max(1, int(np.searchsorted(np.cumsum(need[start:]), ROW_BUDGET, side="right")))
                d = desc[start:start + take].copy()
                off = np.zeros(take + 1, dtype=np.int64)
                np.cumsum(need[start:start + take], out=off[1:])
                # H, F, C of a problem at d[4] (C only: H and F would lie in the slots before)
                d[:, 4] = lead + off[:-1] - np.where(only_c[start:start + take], 2 * (d[:, 3] + 1), 0)
                own_cols = d[:, 6] - d[:, 5]
                cap = int((own_cols // (d[:, 7] + 1) + 1).sum())
                with streams[batch % len(streams)]:
                    pending.append(self._batch(A, B, d, is_long[start:start + take], lead + int(off[-1]), cap))
                pending_bytes += 16 * max(cap, 1)
                if pending_bytes > OUT_BUDGET:
                    self._join(streams)
                    parts += collect(cp, pending)
                    self._join(streams, back=True)  # the copies out, before the buffers are reused
                    pending, pending_bytes = [], 0
                if on_done is not None:  # once per query and batch, as the batch is queued
                    per_query = np.bincount(d[:, 10], weights=own_cols, minlength=len(queries))
                    for k in np.flatnonzero(per_query).tolist():
                        on_done(k, int(per_query[k]))
                start += take
                batch += 1
            self._join(streams)
            ev[1].record()
            parts += collect(cp, pending)
            ev[1].synchronize()
            kernel_s = cp.cuda.get_elapsed_time(ev[0], ev[1]) / 1e3
            self.row_words[0] += sum(int(x) for x in self._eight)
            self._eight.clear()
            cols, scores, slots = best_end_points(cp, parts, keep)
        # each query's end points are consecutive, best first
        cuts = np.searchsorted(slots, np.arange(len(queries) + 1))
        out = [(cols[cuts[k]:cuts[k + 1]], scores[cuts[k]:cuts[k + 1]]) for k in range(len(queries))]
        self.last_timings = {"kernel": kernel_s, "total": time.perf_counter() - t0, "problems": int(desc.shape[0])}
        return out
