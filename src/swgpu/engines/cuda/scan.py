"""``scan`` on the GPU: candidate hit end points of queries along long targets.

Launcher of ``kernels/scan.cu``. Each record is cut into own ranges of
``window`` columns; the problem of a query and an own range is the window
from ``span - 1 + r`` letters before it to ``r`` letters after it (within the
record; ``span`` from :func:`~swgpu.align.scan_rule.span_bound`, ``r`` the
query length), so its column maxima are exact over the own range and its
neighbourhood. ``sc_colmax_R`` computes them (a warp per problem, ``R``
query rows per lane: :func:`rows_per_lane`), ``sc_points``
applies the end-point rule on the GPU, and the host keeps the best ``keep``
of each query (:func:`~swgpu.align.scan_rule.best_end_points`, the CPU
engine's order). Problems go in batches that fit ``ROW_BUDGET`` ints of row
buffers.
"""

from __future__ import annotations

import time

import numpy as np

from ...align.scan_rule import best_end_points, cap_span, span_bound
from ...exceptions import EngineError
from ...scoring import Scoring
from . import runtime

__all__ = ["CudaGenomeScanner", "KERNEL_FILE", "WINDOW", "ROW_BUDGET", "LONG_QUERY", "rows_per_lane"]

KERNEL_FILE = "scan.cu"
FIELDS = 11
WARPS = 8
#: Own columns per problem.
WINDOW = 4096
#: Own columns per problem of the row-parallel scan.
ROWSCAN_WINDOW = 1 << 18
#: Row-buffer ints of one launch (3 per window column; 4 GiB).
ROW_BUDGET = 1 << 30
#: Query rows per lane of the kernel shapes (a warp covers 32 x R rows a strip).
ROWS_PER_LANE = (1, 2, 4, 8, 16)
#: Queries of at least this many letters run on the long kernel (``sc_long``):
#: the strips of one problem on many warps at once, so a few problems fill the GPU.
LONG_QUERY = 4096
#: Rows of one strip of the long kernel (32 lanes x 16 rows).
LONG_STRIP = 512


def rows_per_lane(m: int) -> int:
    """The kernel shape for a query of ``m`` letters: the fewest rows per lane
    that cover it in one strip, at most 16."""
    for r in ROWS_PER_LANE:
        if 32 * r >= m:
            return r
    return ROWS_PER_LANE[-1]


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
        if method == "rowscan":  # whole rows of long windows: fewer lead-in columns per own column
            self.window = ROWSCAN_WINDOW
        self.last_timings: dict = {}
        self._cp = runtime.cupy()
        m = np.ascontiguousarray(scoring.matrix.values, dtype=np.int32)
        self._K = int(m.shape[0])
        with self._cp.cuda.Device(self.device_id):
            self._stream = self._cp.cuda.Stream(non_blocking=True)
            with self._stream:
                self._matrix = self._cp.asarray(m.ravel())
            mod = runtime.get_module(KERNEL_FILE)
            packed = self._K <= 8 and int(m.min()) >= -128 and int(m.max()) <= 127
            self._colmax = {r: mod.get_function(f"sc_colmax_{'p' if packed else ''}{r}") for r in ROWS_PER_LANE}
            self._points = mod.get_function("sc_points")
            self._rowscan = mod.get_function("sc_rowscan")
            self._long = mod.get_function(f"sc_long_{'p' if packed else ''}16")
            self._long_blocks = runtime.resident_blocks(self._long, 32 * WARPS, self.device_id)

    def _window(self, m: int, span: int | None, r: int, length: int) -> int:
        """Own columns per problem: :data:`WINDOW`, or for long queries as
        many columns as leave every warp of the long kernel a strip (parts
        at least four times their lead-in)."""
        if m < self.long_query or length <= 0:
            return self.window
        lead = (span if span is not None else length) + 2 * r
        strips = -(-m // LONG_STRIP)
        parts = max(1, min(-(-self._long_blocks * WARPS // strips), length // (4 * lead)))
        return max(self.window, -(-length // parts))

    def _problems(self, queries, bounds, floors, own=None, radius=None, max_span=None) -> np.ndarray:
        sc = self.scoring
        qoff = np.zeros(len(queries) + 1, dtype=np.int64)
        np.cumsum([q.size for q in queries], out=qoff[1:])
        rows = []
        for k, q in enumerate(queries):
            m = int(q.size)
            if m == 0:
                continue
            span = cap_span(span_bound(m, sc.matrix.max_score, sc.gap_open, sc.gap_extend), max_span)
            r = max(m if radius is None else int(radius), 1)
            first, end = (0, int(bounds[-1])) if own is None else (int(own[0]), int(own[1]))
            for rec in range(bounds.size - 1):
                lo, hi = int(bounds[rec]), int(bounds[rec + 1])
                a0, a1 = max(lo, first), min(hi, end)
                window = self._window(m, span, r, a1 - a0)
                a = np.arange(a0, a1, window, dtype=np.int64)
                if a.size == 0:
                    continue
                b = np.minimum(a + window, a1)
                w0 = np.maximum(lo, a - r - (span - 1)) if span is not None else np.full_like(a, lo)
                w1 = np.minimum(hi, b + r)
                block = np.zeros((a.size, FIELDS), dtype=np.int64)
                block[:, 0], block[:, 1], block[:, 2], block[:, 3] = qoff[k], m, w0, w1 - w0
                block[:, 5], block[:, 6], block[:, 7] = a - w0, b - w0, r
                block[:, 8], block[:, 9], block[:, 10] = floors[k], w0, k
                rows.append(block)
        return np.concatenate(rows) if rows else np.zeros((0, FIELDS), dtype=np.int64)

    def _row_scan(self, A, B, d: np.ndarray, rows) -> None:
        """The row-parallel scan (``sc_rowscan``) over problems ``d``: one
        launch per query row, a block per (problem, tile of columns)."""
        cp = self._cp
        i32 = np.int32
        sc = self.scoring
        tile = 1024  # kernels/scan.cu: SC_RS_TILE
        tiles = -(-d[:, 3] // tile)
        first = np.zeros(d.shape[0] + 1, dtype=np.int64)
        np.cumsum(tiles, out=first[1:])
        top, widest = int(d[:, 1].max()), int(d[:, 3].max())
        # a gap longer than this costs more than the longest query can score
        halo = widest if sc.gap_extend == 0 else \
            min(widest, max(1, (top * sc.matrix.max_score - sc.gap_open) // sc.gap_extend + 1))
        dd, tf = cp.asarray(d.ravel()), cp.asarray(first)
        for i in range(1, top + 1):
            self._rowscan((int(first[-1]),), (256,),
                          (A, B, dd, i32(d.shape[0]), tf, self._matrix, i32(self._K), i32(sc.gap_open),
                           i32(sc.gap_extend), rows, i32(i), i32(halo)))

    def candidates(self, queries, genome, bounds, min_score, keep: int, on_done=None, own=None, radius=None,
                   max_span=None):
        """See :class:`~swgpu.engines.base.GenomeScanner`."""
        cp = self._cp
        t0 = time.perf_counter()
        queries = [np.ascontiguousarray(q, dtype=np.uint8) for q in queries]
        floors = [int(min_score)] * len(queries) if np.ndim(min_score) == 0 else [int(x) for x in min_score]
        bounds = np.asarray(bounds, dtype=np.int64)
        desc = self._problems(queries, bounds, floors, own, radius, max_span)
        found_cols, found_scores, found_slots = [], [], []
        i32 = np.int32
        kernel_s = 0.0
        with cp.cuda.Device(self.device_id), self._stream:
            if desc.shape[0]:
                A = cp.asarray(np.concatenate(queries))
                B = cp.asarray(np.ascontiguousarray(genome, dtype=np.uint8))
            start = 0
            is_long = desc[:, 1] >= self.long_query
            if self.method == "rowscan":
                is_long[:] = False
            while start < desc.shape[0]:
                need = np.where(is_long[start:], 6, 5 if self.method == "rowscan" else 3) * (desc[start:, 3] + 1)
                take = max(1, int(np.searchsorted(np.cumsum(need), ROW_BUDGET, side="right")))
                d = desc[start:start + take].copy()
                lg = is_long[start:start + take]
                off = np.zeros(take + 1, dtype=np.int64)
                np.cumsum(need[:take], out=off[1:])
                d[:, 4] = off[:-1]
                own = d[:, 6] - d[:, 5]
                first = np.zeros(take + 1, dtype=np.int64)
                np.cumsum(own, out=first[1:])
                cap = int((own // (d[:, 7] + 1) + 1).sum())
                rows = (cp.zeros if self.method == "rowscan" else cp.empty)(int(off[-1]), dtype=np.int32)
                ev = [cp.cuda.Event(), cp.cuda.Event()]
                ev[0].record()
                short = d[~lg]
                if self.method == "rowscan":
                    self._row_scan(A, B, short, rows)
                    short = short[:0]
                shapes = np.array([rows_per_lane(int(x)) for x in short[:, 1]])
                for r in np.unique(shapes).tolist():
                    sel = short[shapes == r]
                    self._colmax[r]((-(-sel.shape[0] // WARPS),), (32 * WARPS,),
                                    (A, B, cp.asarray(sel.ravel()), i32(sel.shape[0]), self._matrix, i32(self._K),
                                     i32(self.scoring.gap_open), i32(self.scoring.gap_extend), rows))
                if lg.any():
                    sel = d[lg]
                    strips = -(-sel[:, 1] // LONG_STRIP)
                    sfirst = np.zeros(sel.shape[0] + 1, dtype=np.int64)
                    np.cumsum(strips, out=sfirst[1:])
                    progress = cp.zeros(int(sfirst[-1]), dtype=np.int32)
                    self._long((self._long_blocks,), (32 * WARPS,),
                               (A, B, cp.asarray(sel.ravel()), i32(sel.shape[0]), cp.asarray(sfirst),
                                np.int64(sfirst[-1]), self._matrix, i32(self._K), i32(self.scoring.gap_open),
                                i32(self.scoring.gap_extend), rows, progress))
                    # the column maxima are in the row slot of the problem's last strip
                    d[lg, 4] += ((strips - 1) & 1) * 3 * (sel[:, 3] + 1)
                d_desc = cp.asarray(d.ravel())
                cols = cp.empty(max(cap, 1), dtype=np.int64)
                scores = cp.empty(max(cap, 1), dtype=np.int32)
                slots = cp.empty(max(cap, 1), dtype=np.int32)
                count = cp.zeros(1, dtype=np.uint64)
                total = int(first[-1])
                self._points((max(1, min(-(-total // 256), 65535)),), (256,),
                             (rows, d_desc, cp.asarray(first[:-1]), np.int64(total), i32(take), cols, scores, slots,
                              count, np.uint64(cap)))
                ev[1].record()
                got = int(count.get()[0])
                if got > cap:
                    raise RuntimeError(f"{got} end points in room for {cap}; this is a bug")
                kernel_s += cp.cuda.get_elapsed_time(ev[0], ev[1]) / 1e3
                found_cols.append(cols[:got].get())
                found_scores.append(scores[:got].get())
                found_slots.append(slots[:got].get())
                if on_done is not None:  # once per query and batch
                    per_query = np.bincount(d[:, 10], weights=own, minlength=len(queries))
                    for k in np.flatnonzero(per_query).tolist():
                        on_done(k, int(per_query[k]))
                start += take
        cols = np.concatenate(found_cols) if found_cols else np.zeros(0, np.int64)
        scores = np.concatenate(found_scores) if found_scores else np.zeros(0, np.int32)
        slots = np.concatenate(found_slots) if found_slots else np.zeros(0, np.int32)
        order = np.argsort(slots, kind="stable")
        cuts = np.searchsorted(slots[order], np.arange(len(queries) + 1))
        out = []
        for k in range(len(queries)):
            mine = order[cuts[k]:cuts[k + 1]]
            out.append(best_end_points(cols[mine], scores[mine], keep))
        self.last_timings = {"kernel": kernel_s, "total": time.perf_counter() - t0, "problems": int(desc.shape[0])}
        return out
