"""A search on a Dask cluster: the database split over the workers, scored and traced there.

The database is split by residues (:func:`~.placement.partition_by_residues`,
longest sequence first) into one part per worker (at least ``parts``). Each
part's data is held on a worker by a task (:func:`~.tasks.hold`) that the
scheduler reruns elsewhere if that worker is lost, and each worker keeps the
parts it has loaded (:mod:`.tasks`). A batch of queries is one task per part,
sent to the worker holding it; the host gathers the scores into database
order (:func:`~.placement.gather_scores`) and ranks the hits exactly as a
search in one process does. The hits' alignments are traced by a few tasks
(:func:`~.tasks.trace_columns`; with further alignments :func:`~.tasks.trace_jobs`),
on the engines of the workers. Every step is
exact, so the output is the one-process output.
"""

from __future__ import annotations

import time
import uuid
import warnings
from typing import TYPE_CHECKING

import numpy as np

from ...align.alignment import Alignment
from ...engines.base import resolve_device
from ...io.database import Database
from ...parallel.workers import device_of
from ...scoring import Scoring, Statistics
from ..tracing import PairJob
from . import tasks
from .placement import Shard, gather_scores, partition_by_residues

if TYPE_CHECKING:
    from ...parallel.dask_executor import DaskExecutor

__all__ = ["ClusterParts"]


class ClusterParts:
    """A database split over the workers of ``executor``, for one scoring.

    ``parts``: at least this many parts (default: one per worker).
    """

    def __init__(self, executor: DaskExecutor, database: Database, scoring: Scoring, device: str,
                 statistics: Statistics, parts: int | None = None):
        self.executor = executor
        self.database = database
        self.scoring = scoring
        self.device = device
        self.statistics = statistics
        workers = executor.addresses()
        count = max(1, min(len(database), max(parts or 0, len(workers))))
        #: The parts' name on the workers: on a cluster that outlives the command (a
        #: scheduler given by address), the database's contents and the split, so that
        #: the next command with this database finds its parts loaded (:mod:`.tasks`)
        self.keep = bool(getattr(executor, "persistent", False))
        self.token = (f"swgpu-db-{tasks.PARTS_FORMAT}-{database.digest()}-{count}" if self.keep
                      else f"swgpu-db-{uuid.uuid4().hex}")
        self._members = partition_by_residues(database.lengths, count) if count > 1 else \
            [np.arange(len(database), dtype=np.int64)]
        self._members = [m for m in self._members if m.size]
        # the part's data rides in its task, so the scheduler can rebuild it on another worker
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*[Ll]arge (object|graph)")
            self._data = [executor.submit(tasks.hold, *database.select(m), name="dbpart",
                                          worker=workers[k % len(workers)] if workers else None)
                          for k, m in enumerate(self._members)]
        #: The engine each worker resolved ``device`` to (``cpu``, ``cuda``; ``mixed`` when they differ).
        kinds = set(executor.run(device_of, device).values())
        self.engine_name = kinds.pop() if len(kinds) == 1 else ("mixed" if kinds else resolve_device(device))
        t0 = time.perf_counter()
        self._each(tasks.load_part, "load")
        self.load_seconds = time.perf_counter() - t0

    def _each(self, fn, name: str, *args) -> list:
        """``fn(token-k, data_k, scoring, device, *args)`` for each part k, on the
        worker holding its data (which has it loaded), results in part order."""
        where = self.executor.holders(self._data)
        futures = [self.executor.submit(fn, f"{self.token}-{k}", data, self.scoring, self.device, *args, name=name,
                                        worker=w) for k, (data, w) in enumerate(zip(self._data, where))]
        return self.executor.gather(futures)

    @property
    def parts(self) -> int:
        return len(self._members)

    def compile(self, query_lengths: list[int]) -> float:
        """Compile on the workers what these query lengths need; wall seconds."""
        t0 = time.perf_counter()
        self._each(tasks.compile_part, "compile", list(query_lengths))
        return time.perf_counter() - t0

    def scores_many(self, codes: list[np.ndarray]) -> list[np.ndarray]:
        """Every database sequence's score of each query (code arrays), database order."""
        per_part = self._each(tasks.score_part, "score", codes)
        shards = [Shard(None, m) for m in self._members]  # only their members are read
        return gather_scores(len(self.database), len(codes), list(zip(shards, per_part)))

    def trace(self, jobs: list[PairJob]) -> list[Alignment]:
        """Alignments of ``jobs``, in order, traced by a few tasks (about two per
        worker, of similar numbers of cells)."""
        if not jobs:
            return []
        groups = _groups([len(j.query) * len(j.target) for j in jobs], 2 * max(1, self.executor.workers))
        futures = [self.executor.submit(tasks.trace_jobs, jobs[a:b], self.scoring, self.statistics, self.device,
                                        name="trace") for a, b in groups]
        return [aln for part in self.executor.gather(futures) for aln in part]

    def trace_columns(self, queries, targets, query_index, target_index, expected, strand, spaces):
        """The hits ``(queries[query_index[k]], targets[target_index[k]])`` (two
        :class:`~swgpu.io.sequence_batch.SequenceBatch`) as one
        :class:`~swgpu.align.batch.AlignmentBatch`, in order, traced by a few
        tasks (about two per worker, of similar numbers of cells); the queries and
        targets sent to each worker once."""
        from ...align.batch import AlignmentBatch

        n = int(np.asarray(query_index).size)
        if not n:
            return AlignmentBatch.concat([])
        cells = np.cumsum(queries.lengths[query_index] * targets.lengths[target_index])
        count = max(1, min(n, 2 * max(1, self.executor.workers)))
        cuts = np.unique(np.concatenate([[0], np.searchsorted(cells, cells[-1] * np.arange(1, count) / count,
                                                               side="right"), [n]]))
        base = dict(queries=self.executor.scatter(queries), targets=self.executor.scatter(targets),
                    scoring=self.scoring, statistics=self.statistics, device=self.device)
        specs = [dict(base, query_index=query_index[a:b], target_index=target_index[a:b], expected=expected[a:b],
                      strand=strand[a:b], spaces=tuple(x[a:b] for x in spaces))
                 for a, b in zip(cuts[:-1].tolist(), cuts[1:].tolist()) if a < b]
        try:
            return AlignmentBatch.concat(self.executor.map(tasks.trace_columns, specs))
        finally:
            self.executor.cancel([base["queries"], base["targets"]])

    def close(self) -> None:
        """Release the parts' data; the scorers the workers keep too, unless the
        cluster outlives the command (:attr:`keep`: the next one reuses them)."""
        self.executor.cancel(self._data)
        self._data = []
        if self.keep:
            return
        try:
            self.executor.run(tasks.drop_parts, self.token)
        except Exception:  # workers already gone: nothing left to free
            pass


def _groups(costs: list[int], count: int) -> list[tuple[int, int]]:
    """``[a, b)`` ranges of consecutive items, at most ``count``, of similar total cost.

    >>> _groups([5, 1, 1, 1, 1, 1], 2)
    [(0, 1), (1, 6)]
    >>> _groups([1, 1, 1], 8)
    [(0, 1), (1, 2), (2, 3)]
    """
    total = sum(costs)
    count = max(1, min(count, len(costs)))
    out, a, acc = [], 0, 0
    for i, c in enumerate(costs):
        acc += c
        if acc * count >= total * (len(out) + 1) and len(out) < count - 1:
            out.append((a, i + 1))
            a = i + 1
    out.append((a, len(costs)))
    return [g for g in out if g[0] < g[1]]
