"""``scan`` on the GPU: candidate hit end points of queries along long targets.

Launcher of ``kernels/scan.cu``. Each record is cut into own ranges of
``window`` columns (sized so that the problems fill whole waves of the GPU:
:attr:`CudaGenomeScanner.fill`); the problem of a query and an own range is
the window from ``span - 1`` letters before it to its end (within the
record; ``span`` from :func:`~swgpu.align.scan_rule.span_bound`), so its
column maxima are exact over the own range. The end-point rule also looks
``r`` columns (the query length) on either side: those of the problems of
the same query next to it in the record, which ``sc_points`` reads where
they wrote them (a batch holds every problem of its queries); a problem
with no such neighbour on a side (the edge of the part of the genome a call
scans, or of a batch when one query's problems need more than a batch)
reaches ``r`` letters further on that side itself. They come from ``sc_pair_pR`` (two problems of a query
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

from ...exceptions import EngineError
from ...scoring import Scoring
from . import runtime, scan_best
from .scan_best import best_end_points, collect
from .scan_plan import (
    LONG_STRIP,
    PAIR_LIMIT,
    ROW_BUDGET,
    ROWS_PER_LANE,
    WARPS,
    WINDOW,
    Batch,
    ScanLayout,
    _groups,
    _pairs,
    rows_per_lane,
)

__all__ = ["CudaGenomeScanner", "KERNEL_FILE", "WINDOW", "ROW_BUDGET", "LONG_QUERY", "PAIR_LIMIT", "rows_per_lane"]

KERNEL_FILE = "scan.cu"
#: Own columns per problem of the row-parallel scan.
ROWSCAN_WINDOW = 1 << 18
#: Columns of a tile and threads of a block of the row-parallel scan
#: (kernels/scan.cu: SC_RS_TILE, SC_RS_THREADS).
ROWSCAN_TILE = 1024
ROWSCAN_THREADS = 256
#: Rows of margin before a problem of the row-parallel scan returns from
#: 32-bit to 8-bit cells (the seed's T).
ROWSCAN_MARGIN = 10
#: Bytes of end-point buffers of queued batches before the host collects them.
OUT_BUDGET = 1 << 30
#: Rows per lane of the banded long kernels (``sc_band_R``; :mod:`.scan_bands` chooses).
BAND_ROWS = (16, 8)
#: Queries of at least this many letters run on the long kernel (``sc_long``):
#: the strips of one problem on many warps at once, so a few problems fill the GPU.
LONG_QUERY = 4096


class CudaGenomeScanner(ScanLayout):
    """Candidate end points on one GPU (a :class:`~swgpu.engines.base.GenomeScanner`;
    the layout of its work: :class:`~swgpu.engines.cuda.scan_plan.ScanLayout`)."""

    def __init__(self, scoring: Scoring, device_id: int = 0, method: str = "auto"):
        if method not in ("auto", "rowscan"):
            raise EngineError(f"unknown method {method!r}: use auto or rowscan", param="method")
        self.method = method
        self.scoring = scoring
        self.device_id = int(device_id)
        self.window = WINDOW
        self.long_query = LONG_QUERY  # queries of this many letters or more run on the long kernel
        self.fill = method == "auto"  # windows sized to fill whole waves of the GPU
        if method == "rowscan":  # whole rows of long windows: fewer lead-in columns per own column
            self.window = ROWSCAN_WINDOW
        self.last_timings: dict = {}
        self.byte_rows = True  # the row-parallel scan's 8-bit rows (False: all 32-bit, to compare)
        self.row_words = [0, 0]  # rows of the row-parallel scan in 8-bit cells, and all its rows
        self._eight: list = []
        self._resident = None  # (read-only genome, its device copy): see _genome
        self._layouts: dict = {}  # problem layouts of one query length (_layout)
        self._last_plan = None  # the last call's plan (_plan)
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
            # (scan_bands: a band of each problem's strips, R = 16 or 8 rows a lane)
            self._band = {r: mod.get_function(f"sc_band_{'p' if packed else ''}{r}") for r in BAND_ROWS}
            self._band_warps = {r: runtime.resident_blocks(k, 32 * WARPS, self.device_id) * WARPS
                                for r, k in self._band.items()}
            self._sms = int(self._cp.cuda.Device(self.device_id).attributes["MultiProcessorCount"])
            # two batches in flight (two row budgets, each stream with its own pool) where memory allows
            self._two_streams = self._cp.cuda.Device(self.device_id).mem_info[1] >= 6 * 4 * ROW_BUDGET
        self._band_queued = None  # a band queued for other GPUs (queue_band), kept until finish_band

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

    def _genome(self, genome: np.ndarray, g0: int, g1: int):
        """``genome[g0:g1]`` on the device, and the genome column where that
        device array starts. A read-only genome (``genome.flags.writeable``
        False, as :func:`~swgpu.workloads.genome.windows.genome_codes` makes it)
        goes up whole and stays there: later calls with the same array read
        it on the device, as a search reads its database (a genome changed
        in place through another, writable view would not be seen)."""
        cp = self._cp
        if genome.flags.writeable:
            self._resident = None
            return cp.asarray(np.ascontiguousarray(genome[g0:g1], dtype=np.uint8)), g0
        held = self._resident
        if held is None or held[0] is not genome:
            held = self._resident = (genome, cp.asarray(np.ascontiguousarray(genome, dtype=np.uint8)))
        return held[1], 0

    def _join(self, streams, back: bool = False) -> None:
        """The scanner's stream waits for the others (``back``: and they for
        it, so that buffers it copied out may be reused on them)."""
        for other in streams[1:]:
            done = self._cp.cuda.Event()
            done.record(other if not back else self._stream)
            (self._stream if not back else other).wait_event(done)

    def _launches(self, batch: Batch, base: int, band=None) -> dict:
        """What the launches of ``batch`` need that depends on its layout
        only: its descriptors on the device (window starts in a genome array
        that starts at genome column ``base``), the pairs and selections of
        each kernel shape; kept in ``batch.memo`` for later calls of the
        same plan (and ``band``: :class:`~.scan_bands.Band`, this GPU's strips
        of the long problems)."""
        memo = batch.memo
        key = (base, None if band is None else band.key)
        if memo.get("key") == key:
            return memo
        cp = self._cp
        memo.clear()
        d, lg = batch.d.copy(), batch.long
        d[:, 2] -= base
        any_long = bool(lg.any())
        short_index = np.flatnonzero(~lg) if any_long else np.arange(d.shape[0])  # rows of d
        if self.method == "rowscan":
            memo["rowscan"] = d[short_index]
            short_index = short_index[:0]
        short = d[short_index] if any_long or self.method == "rowscan" else d
        shapes = rows_per_lane(short[:, 1])
        paired = self._paired(short)
        memo["pair"] = [(r, cp.asarray(pairs.ravel()), pairs.shape[0]) for r, pairs in
                        ((r, _pairs_of(short, short_index, at)) for r, at in _groups(shapes, paired))]
        memo["colmax"] = [(r, cp.asarray(sel.ravel()), sel.shape[0]) for r, sel in
                          ((r, short if at is None else short[at]) for r, at in _groups(shapes, ~paired))]
        memo["long"] = memo["band"] = None
        if any_long:
            sel = d[lg]
            strips = -(-sel[:, 1] // (LONG_STRIP if band is None else 32 * band.rows_per_lane))
            if band is not None:  # this GPU's strips of each problem
                lo, hi = strips * band.index // band.count, strips * (band.index + 1) // band.count
                rows = np.stack([lo, hi, band.ext_in, band.ext_out], axis=1).astype(np.int64)
                strips = hi - lo
            sfirst = np.zeros(sel.shape[0] + 1, dtype=np.int64)
            np.cumsum(strips, out=sfirst[1:])
            memo["long"] = (cp.asarray(sel.ravel()), sel.shape[0], cp.asarray(sfirst), int(sfirst[-1]))
            if band is not None:
                rounds = _rounds(strips, self._band_warps[band.rows_per_lane])
                memo["band"] = (cp.asarray(rows.ravel()), cp.asarray(rounds), rounds.size - 1)
            # the column maxima are in the row slot of the problem's last strip (its place in the band)
            d[lg, 4] += ((strips - 1) & 1) * 3 * (sel[:, 3] + 1)
        memo["d"] = cp.asarray(d.ravel())
        memo["key"] = key
        return memo

    def _batch(self, A, B, batch: Batch, base: int, band=None):
        """Queue ``batch`` on the current stream: the column maxima of its
        problems, then their end points (``sc_points``). Returns the
        end-point buffers (columns, scores, slots, count) and their room
        (a band not the last: its buffers, to keep until its kernel ends)."""
        cp, i32 = self._cp, np.int32
        gaps = (i32(self.scoring.gap_open), i32(self.scoring.gap_extend))
        memo = self._launches(batch, base, band)
        rows = (cp.zeros if self.method == "rowscan" else cp.empty)(batch.ints, dtype=np.int32)
        if self.method == "rowscan":
            self._row_scan(A, B, memo["rowscan"], rows)
        dev_d = memo["d"]
        for r, pairs, n in memo["pair"]:
            self._pair[r]((-(-n // WARPS),), (32 * WARPS,),
                          (A, B, dev_d, pairs, i32(n), self._matrix, i32(self._K)) + gaps + (rows,))
        for r, sel, n in memo["colmax"]:
            self._colmax[r]((-(-n // WARPS),), (32 * WARPS,),
                            (A, B, sel, i32(n), self._matrix, i32(self._K)) + gaps + (rows,))
        if memo["long"] is not None:
            sel, n, sfirst, strips = memo["long"]
            progress = cp.zeros(strips, dtype=np.int32)
            if memo["band"] is None:
                self._long((self._long_blocks,), (32 * WARPS,),
                           (A, B, sel, i32(n), sfirst, np.int64(strips), self._matrix, i32(self._K)) + gaps
                           + (rows, progress))
            else:
                spans, rounds, nrounds = memo["band"]
                r = band.rows_per_lane
                self._band[r]((self._band_warps[r] // WARPS,), (32 * WARPS,),
                              (A, B, sel, i32(n), spans, sfirst, rounds, i32(nrounds), self._matrix, i32(self._K))
                              + gaps + (rows, progress, np.uint64(band.rows_in), np.uint64(band.rows_out),
                                        np.uint64(band.progress_in), np.uint64(band.progress_out)))
                if not band.last:  # its row goes to the next band; the end points come from the last
                    return rows, progress, A, B
        cap = batch.cap
        out = (cp.empty(max(cap, 1), dtype=np.int64), cp.empty(max(cap, 1), dtype=np.int32),
               cp.empty(max(cap, 1), dtype=np.int32), cp.zeros(1, dtype=np.uint64))
        self._points((max(1, min(batch.take, 65535)),), (256,),
                     (rows, dev_d, i32(batch.take)) + out + (np.uint64(cap),))
        return out + (cap,)

    def queue_band(self, queries, genome, bounds, floors, band, own=None, radius=None, max_span=None) -> None:
        """Queue this GPU's band (:class:`~.scan_bands.Band`, not the last) of
        the long problems of ``queries`` (its one batch) and return: its
        kernel hands its last rows to the next band's GPU as it goes;
        :meth:`finish_band` waits for it."""
        cp = self._cp
        queries = [np.ascontiguousarray(q, dtype=np.uint8) for q in queries]
        plan = self._plan(queries, np.asarray(bounds, dtype=np.int64), floors, own, radius, max_span)
        with cp.cuda.Device(self.device_id), self._stream:
            A = cp.asarray(np.concatenate(queries))
            B, base = self._genome(genome, plan.g0, plan.g1)
            begun, done = cp.cuda.Event(), cp.cuda.Event()
            begun.record(self._stream)
            held = self._batch(A, B, plan.batches[0], base, band)
            done.record(self._stream)
        self._band_queued = (held, begun, done)

    def finish_band(self) -> float:
        """Wait for the band :meth:`queue_band` queued (and free its buffers);
        the seconds its kernel ran."""
        if self._band_queued is None:
            return 0.0
        _, begun, done = self._band_queued
        done.synchronize()
        self._band_queued = None
        return self._cp.cuda.get_elapsed_time(begun, done) / 1e3

    def candidates(self, queries, genome, bounds, min_score, keep: int, on_done=None, own=None, radius=None,
                   max_span=None, band=None):
        """See :class:`~swgpu.engines.base.GenomeScanner`. Batches of
        problems are queued one after another, on two streams in turn; the host
        waits at the end, or sooner when the batches' end-point buffers pass
        ``OUT_BUDGET`` bytes (then it keeps only the end points found). Only
        the genome columns the problems read are copied to the device (all
        of a read-only genome, once: :meth:`_genome`). ``band``: the last band
        of :class:`~.scan_bands.BandedGenomeScanner` (its plan is one batch)."""
        cp = self._cp
        t0 = time.perf_counter()
        queries = [np.ascontiguousarray(q, dtype=np.uint8) for q in queries]
        floors = [int(min_score)] * len(queries) if np.ndim(min_score) == 0 else [int(x) for x in min_score]
        bounds = np.asarray(bounds, dtype=np.int64)
        plan = self._plan(queries, bounds, floors, own, radius, max_span)
        pending, pending_bytes, parts = [], 0, []  # batches' (cols, scores, slots, count, cap); found end points
        with cp.cuda.Device(self.device_id), self._stream:
            ev = [cp.cuda.Event(), cp.cuda.Event()]
            ev[0].record()
            if plan.batches:
                A = cp.asarray(np.concatenate(queries))
                B, base = self._genome(genome, plan.g0, plan.g1)
            streams = [self._stream]
            if plan.two_streams:
                streams.append(self._stream2)
                ready = cp.cuda.Event()
                ready.record(self._stream)
                self._stream2.wait_event(ready)
            for k, batch in enumerate(plan.batches):
                with streams[k % len(streams)]:
                    pending.append(self._batch(A, B, batch, base, band))
                pending_bytes += 16 * max(batch.cap, 1)
                if pending_bytes > OUT_BUDGET:
                    self._join(streams)
                    parts += collect(cp, pending)[0]
                    self._join(streams, back=True)  # the copies out, before the buffers are reused
                    pending, pending_bytes = [], 0
                if on_done is not None:  # once per query and batch, as the batch is queued
                    per_query = np.bincount(batch.d[:, 10], weights=batch.own_cols, minlength=len(queries))
                    for q in np.flatnonzero(per_query).tolist():
                        on_done(q, int(per_query[q]))
            self._join(streams)
            ev[1].record()
            last, on_host = collect(cp, pending, host_upto=0 if parts else scan_best.HOST_SORT)
            parts += last
            ev[1].synchronize()
            kernel_s = cp.cuda.get_elapsed_time(ev[0], ev[1]) / 1e3
            self.row_words[0] += sum(int(x) for x in self._eight)
            self._eight.clear()
            cols, scores, slots = best_end_points(cp, parts, keep, on_host)
        # each query's end points are consecutive, best first
        cuts = np.searchsorted(slots, np.arange(len(queries) + 1))
        out = [(cols[cuts[k]:cuts[k + 1]], scores[cuts[k]:cuts[k + 1]]) for k in range(len(queries))]
        self.last_timings = {"kernel": kernel_s, "total": time.perf_counter() - t0,
                             "problems": plan.problems}
        return out


def _rounds(counts: np.ndarray, warps: int) -> np.ndarray:
    """Where the rounds of ``sc_band`` begin in the strips of problems of
    ``counts`` strips each, in order (and the end): a problem's strips in
    one round of at most ``warps`` strips where they fit beside the ones
    before it, else from a new round; a problem of more than ``warps`` strips
    in rounds of ``warps``."""
    firsts, start, at = [0], 0, 0
    for c in np.asarray(counts, dtype=np.int64).tolist():
        if at > start and at + c - start > warps:
            firsts.append(at)
            start = at
        at += c
        while at - start > warps:
            start += warps
            firsts.append(start)
    firsts.append(at)
    return np.asarray(firsts, dtype=np.int64)


def _pairs_of(short: np.ndarray, index: np.ndarray, at) -> np.ndarray:
    return _pairs(short, index) if at is None else _pairs(short[at], index[at])
