"""``scan`` on the CPU: candidate end points of queries along a long target.

The target (all records end to end, ``bounds`` between them) is cut into
chunks; a chunk's column maxima come from a pass that starts ``span - 1 +
radius`` letters earlier (``span``: :func:`~swgpu.align.scan_rule.span_bound`),
so they are exact, and run ``radius`` letters further, so the end-point rule
sees every neighbour. Chunks run on a thread pool, longest first (the kernels
of the pass and of the end-point rule release the GIL). The chunk length is
chosen per call (:func:`plan_chunk`): long queries reach far back, so their
chunks are made long enough that the columns computed twice stay few, and
no longer than keeps every thread busy.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ...align.scan_rule import best_end_points, cap_span, span_bound
from ...scoring import Scoring

__all__ = ["CpuGenomeScanner", "CHUNK", "plan_chunk"]

#: Target columns per task, the least.
CHUNK = 1 << 18


def _lpt(costs: np.ndarray, threads: int) -> float:
    """The longest thread of ``costs`` given out largest first to the least loaded thread."""
    import heapq

    loads = [0.0] * threads
    for c in np.sort(costs)[::-1].tolist():
        heapq.heappush(loads, heapq.heappop(loads) + c)
    return max(loads)


def plan_chunk(segments, reach, threads: int, limit: int = 4096) -> int:
    """Target columns per task for ``segments`` (``(lo, hi, first, end)``: a
    record ``[lo, hi)`` of which ``[first, end)`` is scanned) and queries
    whose passes reach ``reach`` = ``(back, ahead, rows)`` beyond a chunk
    (``back`` None: to the record's start): the length, of :data:`CHUNK`
    times a power of two or a record cut in ``threads`` or fewer parts,
    whose tasks (cells, rows times columns computed) finish first when given
    out largest first to ``threads`` threads. :data:`CHUNK` when the queries
    reach back little, or when there would be more than ``limit`` tasks.

    >>> plan_chunk([(0, 4_300_000, 0, 4_300_000)], [(375_000, 150_000, 150_000)] * 2, 16) > CHUNK
    True
    >>> plan_chunk([(0, 4_300_000, 0, 4_300_000)], [(600, 300, 300)] * 1000, 16) == CHUNK
    True
    """
    backs = [b for b, _, _ in reach]
    if not segments or not reach or (None not in backs and max(backs) < CHUNK // 4):
        return CHUNK
    lengths = [end - first for _, _, first, end in segments if end > first]
    if not lengths:
        return CHUNK
    candidates = {CHUNK << k for k in range(10) if (CHUNK << k) < 2 * max(lengths)}
    candidates |= {max(CHUNK, -(-n // p)) for n in lengths for p in range(1, threads + 1)}
    candidates.add(max(lengths))
    best, best_time = CHUNK, None
    for chunk in sorted(candidates):
        costs = []
        for lo, hi, first, end in segments:
            a = np.arange(first, end, chunk, dtype=np.int64)
            if a.size == 0:
                continue
            b = np.minimum(a + chunk, end)
            for back, ahead, rows in reach:
                c0 = np.full(a.size, lo) if back is None else np.maximum(lo, a - back)
                costs.append((np.minimum(hi, b + ahead) - c0) * float(rows))
        if sum(c.size for c in costs) > limit:
            continue
        t = _lpt(np.concatenate(costs), threads) if costs else 0.0
        if best_time is None or t < best_time:
            best, best_time = chunk, t
    return best


class CpuGenomeScanner:
    """Candidate end points of queries along a target on the CPU (a
    :class:`~swgpu.engines.base.GenomeScanner`); ``method`` is accepted for
    the interface (both methods give the same end points)."""

    def __init__(self, scoring: Scoring, threads: int | None = None, method: str = "auto"):
        self.scoring = scoring
        self.threads = max(1, int(threads or os.cpu_count() or 1))
        self.method = method
        #: Target columns per task (None: :func:`plan_chunk` chooses per call).
        self.chunk: int | None = None
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
        for k, q in enumerate(queries):
            m = int(q.size)
            span = cap_span(span_bound(m, sc.matrix.max_score, sc.gap_open, sc.gap_extend), max_span)
            radius = max(m if radius_arg is None else int(radius_arg), 1)
            plans.append((np.ascontiguousarray(q, dtype=np.intp), span, radius))
        segments = [(int(bounds[r]), int(bounds[r + 1]), max(int(bounds[r]), first), min(int(bounds[r + 1]), end))
                    for r in range(bounds.size - 1)]
        chunk = self.chunk or plan_chunk(
            segments, [(None if span is None else span - 1 + radius, radius, codes.size)
                       for codes, span, radius in plans if codes.size], self.threads)
        for k, (codes, _, _) in enumerate(plans):
            if codes.size == 0:
                continue
            for lo, hi, a0, a1 in segments:
                for a in range(a0, a1, chunk):
                    tasks.append((k, lo, hi, a, min(a1, a + chunk)))

        def run(task):
            k, lo, hi, a, b = task
            codes, span, radius = plans[k]
            lead = (span - 1 if span is not None else a - lo) + radius
            c0, c1 = max(lo, a - lead), min(hi, b + radius)
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

        order = sorted(tasks, key=lambda t: -(t[4] - t[3]) * plans[t[0]][2])
        if self.threads > 1 and len(order) > 1:
            with ThreadPoolExecutor(self.threads, thread_name_prefix="swgpu-scan") as pool:
                done = list(pool.map(run, order))
        else:
            done = [run(t) for t in order]
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
