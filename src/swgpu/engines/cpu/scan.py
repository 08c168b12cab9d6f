"""``scan`` on the CPU: candidate end points of queries along a long target.

The target (all records end to end, ``bounds`` between them) is cut into
chunks; a chunk's column maxima come from a pass that starts ``span - 1 +
radius`` letters earlier (``span``: :func:`~swgpu.align.scan_rule.span_bound`),
so they are exact, and run ``radius`` letters further, so the end-point rule
sees every neighbour. Chunks run on a thread pool, longest first (the kernels
of the pass and of the end-point rule release the GIL).

A long query's lead would make most of its chunks' work a repeat: its
passes (one a record) run in row bands on all threads instead
(:mod:`.scan_bands`), every cell once.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ...align.scan_rule import best_end_points, pass_lead
from ...scoring import Scoring

__all__ = ["CpuGenomeScanner", "CHUNK"]

#: Target columns per task.
CHUNK = 1 << 18


class CpuGenomeScanner:
    """Candidate end points of queries along a target on the CPU (a
    :class:`~swgpu.engines.base.GenomeScanner`); ``method`` is accepted for
    the interface (both methods give the same end points)."""

    def __init__(self, scoring: Scoring, threads: int | None = None, method: str = "auto"):
        self.scoring = scoring
        self.threads = max(1, int(threads or os.cpu_count() or 1))
        self.method = method
        self.chunk = CHUNK
        self.last_timings: dict = {}

    def candidates(self, queries, genome, bounds, min_score: int, keep: int, on_done=None,
                   own: tuple[int, int] | None = None, radius: int | None = None, max_span: int | None = None):
        """For each query (code array): ``(columns, scores)`` of its ``keep``
        best candidate end points along ``genome`` (codes of all records end to
        end; record ``r`` is ``genome[bounds[r]:bounds[r + 1]]``), best first,
        columns in ``genome`` coordinates. ``min_score``: one threshold, or one
        per query. ``on_done(query_index, columns)`` after each task (progress).
        ``own``: only end points in genome columns ``[own[0], own[1])``;
        ``radius``: the end-point rule's neighbourhood (default: the query length);
        ``max_span``: the most target letters an alignment may span (default:
        the score-budget bound; a smaller one is the caller's promise)."""
        from .scan_bands import column_maxima_bands
        from .scan_points import end_points_fast
        from .scan_striped import column_maxima_striped

        floors = [int(min_score)] * len(queries) if np.ndim(min_score) == 0 else [int(x) for x in min_score]
        genome = np.ascontiguousarray(genome, dtype=np.uint8)
        bounds = np.asarray(bounds, dtype=np.int64)
        sc = self.scoring
        matrix = np.ascontiguousarray(sc.matrix.values, dtype=np.int32)
        tasks = []
        plans = []
        radius_arg = radius
        first, end = (0, int(bounds[-1])) if own is None else (int(own[0]), int(own[1]))
        banded = []  # (codes, c0, c1) of the long queries' passes, one per record
        meta = []  # (query, own columns, first column of the end-point rule's window) of each
        for k, q in enumerate(queries):
            m = int(q.size)
            radius = max(m if radius_arg is None else int(radius_arg), 1)
            lead = pass_lead(m, sc, radius, max_span)
            codes = np.ascontiguousarray(q, dtype=np.intp)
            plans.append((codes, lead, radius))
            if m == 0:
                continue
            # a chunk's pass starts ``lead`` letters early: past a quarter of a chunk, row bands instead
            long = lead is None or 4 * (lead + radius) > self.chunk
            for r in range(bounds.size - 1):
                lo, hi = int(bounds[r]), int(bounds[r + 1])
                a, b = max(lo, first), min(hi, end)
                if long and a < b:
                    banded.append((codes, lo if lead is None else max(lo, a - lead), min(hi, b + radius)))
                    meta.append((k, a, b, max(lo, a - radius)))
                    continue
                for a in range(a, b, self.chunk):
                    tasks.append((k, lo, hi, a, min(hi, end, a + self.chunk)))

        def run(task):
            k, lo, hi, a, b = task
            codes, lead, radius = plans[k]
            c0, c1 = lo if lead is None else max(lo, a - lead), min(hi, b + radius)
            out = np.empty(c1 - c0, dtype=np.int32)
            column_maxima_striped(codes, matrix, genome, c0, c1, sc.gap_open, sc.gap_extend, out)
            # the columns before a - radius only warm the pass up; [w0, c1) holds
            # every neighbour of the chunk's own columns inside the record, so
            # it stands for the record in the end-point rule
            w0 = max(lo, a - radius)
            cols, scores = end_points_fast(out[w0 - c0:], w0, c1, radius, floors[k], own=(a, b))
            if on_done is not None:
                on_done(k, b - a)
            return k, cols, scores

        done = []

        def piece(p, x, z):
            k, a, b, _ = meta[p]
            if on_done is not None and min(z, b) > max(x, a):
                on_done(k, min(z, b) - max(x, a))

        def whole(p, colmax):
            k, a, b, w0 = meta[p]
            _, c0, c1 = banded[p]
            cols, scores = end_points_fast(colmax[w0 - c0:], w0, c1, plans[k][2], floors[k], own=(a, b))
            done.append((k, cols, scores))

        if banded:
            column_maxima_bands(banded, matrix, genome, sc.gap_open, sc.gap_extend, self.threads, piece, whole)
        order = sorted(tasks, key=lambda t: -(t[4] - t[3]) * plans[t[0]][2])
        if self.threads > 1 and len(order) > 1:
            with ThreadPoolExecutor(self.threads, thread_name_prefix="swgpu-scan") as pool:
                done.extend(pool.map(run, order))
        else:
            done.extend(run(t) for t in order)
        done.sort(key=lambda d: d[0])  # the same merge order whatever finished first
        found: list[list] = [[] for _ in queries]
        for k, cols, scores in done:
            if cols.size:
                found[k].append((cols, scores))
        out = []
        for k in range(len(queries)):
            if found[k]:
                cols = np.concatenate([c for c, _ in found[k]])
                scores = np.concatenate([s for _, s in found[k]])
            else:
                cols, scores = np.zeros(0, np.int64), np.zeros(0, np.int32)
            out.append(best_end_points(cols, scores, keep))
        return out
