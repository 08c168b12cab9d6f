"""Tasks of the genome workloads (``scan``, genome-scale ``align``) for a
Dask executor: module-level functions of one picklable ``spec`` dict each,
run on the engine of the worker process (its GPU, or its CPU threads).
Without an executor the workloads call the engines directly.

Specs hold ``device``, ``scoring``, ``method`` and ``threads`` (None: the
worker's threads), plus what the task needs (see each function).
"""

from __future__ import annotations

import numpy as np

from ...align.alignment import Alignment
from ...align.scan_rule import best_end_points, pass_lead
from ...parallel.executors import ThreadExecutor
from ...parallel.parts import split_columns
from ...parallel.workers import worker_engine
from .windows import end_windows, finish_traces, trace_windows

__all__ = ["part_end_points", "candidates_halving", "trace_pairs", "end_points_over_parts",
           "trace_over_workers", "find_end_points", "trace_ends", "trace_window_part", "trace_end_columns"]


def _engine(spec: dict):
    return worker_engine(spec["device"], spec["threads"])


def part_end_points(spec: dict) -> list[tuple[np.ndarray, np.ndarray]]:
    """End points of ``spec["queries"]`` (code arrays) in the genome columns
    ``spec["own"]`` (``genome``, ``bounds``, ``floors``, ``keep``,
    ``radius``, ``max_span`` as :meth:`GenomeScanner.candidates` takes them)."""
    engine, _ = _engine(spec)
    scanner = engine.genome_scanner(spec["scoring"], spec["method"])
    return candidates_halving(scanner, spec["queries"], spec["genome"], spec["bounds"], spec["floors"], spec["keep"],
                              own=spec["own"], radius=spec["radius"], max_span=spec["max_span"])


def candidates_halving(scanner, queries, genome, bounds, floors, keep, on_done=None, own=None, radius=None,
                       max_span=None) -> list[tuple[np.ndarray, np.ndarray]]:
    """``scanner.candidates`` over the genome columns ``own`` (default all);
    when the device runs out of memory (a ``MemoryError``, as CuPy's is) the
    columns are cut in two halves, each found alone, and merged: the same
    end points, in less memory. Columns fewer than ``MIN_HALVING`` are not
    cut further (the error is raised). ``on_done`` sees every letter once:
    what a failed attempt reported is not reported again."""
    a, b = (0, int(bounds[-1])) if own is None else (int(own[0]), int(own[1]))
    reported: dict[int, int] = {}  # letters per query the attempt reported before it failed

    def counted(k: int, letters: int) -> None:
        reported[k] = reported.get(k, 0) + letters
        on_done(k, letters)

    try:
        return scanner.candidates(queries, genome, bounds, floors, keep, counted if on_done else None, own=(a, b),
                                  radius=radius, max_span=max_span)
    except MemoryError:
        if b - a < MIN_HALVING:
            raise

    def rest(k: int, letters: int) -> None:  # what the halves report, less what was reported already
        taken = min(reported.get(k, 0), letters)
        reported[k] = reported.get(k, 0) - taken
        if letters > taken:
            on_done(k, letters - taken)

    mid = (a + b) // 2
    halves = [candidates_halving(scanner, queries, genome, bounds, floors, keep, rest if on_done else None, own,
                                 radius, max_span) for own in ((a, mid), (mid, b))]
    return [best_end_points(np.concatenate([x[0], y[0]]), np.concatenate([x[1], y[1]]), keep)
            for x, y in zip(*halves)]


#: The fewest genome columns :func:`candidates_halving` still cuts in two.
MIN_HALVING = 4096


def trace_pairs(spec: dict) -> list[Alignment]:
    """Alignments of ``spec["pairs"]`` ending at each window's last letter
    (``expected``: their known scores)."""
    engine, threads = _engine(spec)
    tracer = engine.tracer(spec["scoring"])
    return tracer.align_many(spec["pairs"], ThreadExecutor(threads), spec["expected"], end_at_last=True)


def end_points_over_parts(executor, base: dict, queries, codes, bounds, floors, keep, radius=None,
                          max_span=None) -> list[tuple[np.ndarray, np.ndarray]]:
    """End points of every query along the genome, its columns cut into two
    parts per worker (one when the longest query's lead, the letters a part's
    pass starts early, passes a quarter of such a part), one task each;
    merged into each query's best ``keep`` (the same as one call over the
    whole genome)."""
    genome = executor.scatter(codes)
    total = int(bounds[-1])
    per_worker = 2
    longest = max((len(q) for q in queries), default=0)
    if longest:
        lead = pass_lead(longest, base["scoring"], longest if radius is None else int(radius), max_span)
        if lead is None or 4 * lead * 2 * executor.workers > total:
            per_worker = 1
    parts = split_columns(bounds, per_worker * executor.workers) or [(0, 0)]
    specs = [dict(base, queries=queries, genome=genome, bounds=bounds, floors=floors, keep=keep, own=own,
                  radius=radius, max_span=max_span) for own in parts]
    results = executor.map(part_end_points, specs)
    out = []
    for k in range(len(queries)):
        cols = np.concatenate([r[k][0] for r in results])
        scores = np.concatenate([r[k][1] for r in results])
        out.append(best_end_points(cols, scores, keep))
    return out


def trace_over_workers(executor, base: dict, pairs, expected, per_task: int | None = None) -> list[Alignment]:
    """``trace_pairs`` over tasks of ``per_task`` pairs (default: the pairs
    shared evenly, two tasks per worker), in order."""
    if not pairs:
        return []
    if per_task is None:
        per_task = max(1, -(-len(pairs) // (2 * executor.workers)))
    specs = [dict(base, pairs=pairs[k:k + per_task], expected=expected[k:k + per_task])
             for k in range(0, len(pairs), per_task)]
    return [a for part in executor.map(trace_pairs, specs) for a in part]


def find_end_points(scanner, cluster, base: dict, queries, codes, bounds, floors, keep, on_progress=None,
                    radius=None, max_span=None) -> list[tuple[np.ndarray, np.ndarray]]:
    """End points of every query: over parts on ``cluster`` (a Dask
    executor) when given, else by ``scanner`` (a genome scanner of this
    process). ``on_progress(cells)`` as the work advances."""
    if cluster is not None:
        out = end_points_over_parts(cluster, base, queries, codes, bounds, floors, keep, radius, max_span)
        if on_progress is not None:
            on_progress(int(bounds[-1]) * sum(len(q) for q in queries))
        return out
    progress = None if on_progress is None else (lambda k, letters: on_progress(letters * len(queries[k])))
    return candidates_halving(scanner, queries, codes, bounds, floors, keep, progress, radius=radius,
                              max_span=max_span)


def trace_ends(tracer, executor, cluster, base: dict, genome, bounds, ends, span_of,
               per_task: int | None = None) -> list[Alignment]:
    """The alignment of each end point (:func:`~.windows.end_windows`):
    in tasks on ``cluster`` when given (``per_task`` pairs each), else by
    ``tracer`` with its CPU work on ``executor``."""
    pairs, meta = end_windows(genome, bounds, ends, span_of)
    expected = [m[2] for m in meta]
    if cluster is not None:
        alns = trace_over_workers(cluster, base, pairs, expected, per_task)
    else:
        alns = tracer.align_many(pairs, executor, expected, end_at_last=True) if pairs else []
    return finish_traces(alns, meta)


def trace_window_part(spec: dict):
    """:func:`~.windows.trace_windows` of the end points in ``spec`` (its
    arguments by name, ``genome`` the codes) on the worker's tracer."""
    engine, _ = _engine(spec)
    return trace_windows(engine.tracer(spec["scoring"]), spec["qcodes"], spec["qoffsets"], spec["genome"],
                         spec["bounds"], spec["query_index"], spec["columns"], spec["scores"], spec["spans"],
                         spec["strand"], spec["names"], spec["scoring"].alphabet.unknown_code)


def trace_end_columns(tracer, cluster, base: dict, qcodes, qoffsets, codes, bounds, query_index, columns, scores,
                      spans, strand, names):
    """:func:`~.windows.trace_windows` of end points: by ``tracer`` (this
    process's), or on ``cluster`` (a Dask executor) in two tasks per worker,
    the batches put together in order; there ``codes`` is the genome as
    ``cluster.scatter`` gave it (sent once for every round of a scan)."""
    from ...align.batch import AlignmentBatch

    unknown = base["scoring"].alphabet.unknown_code
    if cluster is None:
        return trace_windows(tracer, qcodes, qoffsets, codes, bounds, query_index, columns, scores, spans, strand,
                             names, unknown)
    n = int(np.asarray(scores).size)
    per_task = max(1, -(-n // (2 * cluster.workers)))
    specs = [dict(base, qcodes=qcodes, qoffsets=qoffsets, genome=codes, bounds=bounds, names=names,
                  **{key: np.asarray(value)[k:k + per_task] for key, value in
                     (("query_index", query_index), ("columns", columns), ("scores", scores), ("spans", spans),
                      ("strand", strand))}) for k in range(0, n, per_task)]
    return AlignmentBatch.concat(cluster.map(trace_window_part, specs))
