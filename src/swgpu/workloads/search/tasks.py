"""The tasks of a search on the workers of a :class:`~swgpu.parallel.dask_executor.DaskExecutor`:
database parts loaded into a worker's engine and scored there, and the hits
traced (:func:`trace_columns`; :func:`trace_jobs` with further alignments);
:class:`~.cluster.ClusterParts` sends them.

A part of a database travels as ``(residues, offsets)`` (:meth:`Database.select
<swgpu.io.database.Database.select>` of its members); the first task of a
part on a worker loads it into that worker's engine, and the loaded scorer
is kept in the worker process (:data:`_LOADED`, keyed by the part's token,
the scoring and the device), so that later batches of queries only send the
queries. A worker that was restarted, or another worker that takes the part
over, loads it again from the part's data.

Tasks are plain functions of this module (pickled by reference); they run
in-process too, which is how the doctest below checks them:

>>> import numpy as np
>>> from swgpu import Scoring, Sequence
>>> residues = Sequence.from_text("t", "MKVLA", "protein").codes
>>> data = (residues, np.array([0, 5]))
>>> query = Sequence.from_text("q", "KVL", "protein").codes
>>> [s.tolist() for s in score_part("doc-0", data, Scoring.default("protein"), "cpu", [query])]
[[13]]
>>> drop_parts("doc-0")
1
"""

from __future__ import annotations

import hashlib
import pickle
import sys
import threading
import time
from collections import OrderedDict

import numpy as np

from ...align.alignment import Alignment
from ...engines.base import resolve_device
from ...parallel.executors import ThreadExecutor
from ...parallel.workers import worker_engine
from ...scoring import Scoring, Statistics
from ..tracing import PairJob, Traceback
from .placement import Shard

__all__ = ["hold", "load_part", "compile_part", "score_part", "drop_parts", "trace_jobs", "trace_columns",
           "scoring_key", "loads", "CACHE_PARTS"]

#: Loaded parts a worker keeps (the least recently used beyond this are dropped).
CACHE_PARTS = 8
#: The version of how a database is split into parts and a part is made
#: (``partition_by_residues``, ``Database.select``), part of the names of the
#: parts a persistent cluster keeps between commands.
PARTS_FORMAT = "p2"  # (p2: large databases dealt in blocks of consecutive sequences)

#: (part token, scoring key, device) -> the part's Shard and the lock of its use, in this worker process.
_LOADED: "OrderedDict[tuple, tuple[Shard, threading.Lock]]" = OrderedDict()
_lock = threading.Lock()
_loads = 0  # parts this process has loaded


def loads() -> int:
    """How many parts this worker process has loaded (a part found loaded is not counted)."""
    return _loads


def scoring_key(scoring: Scoring) -> str:
    """A short digest naming ``scoring`` (matrix values, gaps, alphabet).

    >>> scoring_key(Scoring.default("protein")) == scoring_key(Scoring.default("protein"))
    True
    """
    return hashlib.sha1(pickle.dumps(scoring)).hexdigest()[:16]


def hold(residues: np.ndarray, offsets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A part's data as a task result: kept on a worker, and computed again from
    the task (which holds the data) when that worker is lost."""
    return residues, offsets


def _engine(device: str):
    return worker_engine(device)[0]


def _shard(token: str, data: tuple[np.ndarray, np.ndarray], scoring: Scoring,
           device: str) -> tuple[Shard, threading.Lock, float]:
    """The loaded part ``token`` on this worker, the lock of its use (one
    command at a time: two may share a kept part), and the seconds spent
    loading it now."""
    key = (token, scoring_key(scoring), resolve_device(device))
    with _lock:
        found = _LOADED.get(key)
        if found is not None:
            _LOADED.move_to_end(key)
            return (*found, 0.0)
        t0 = time.perf_counter()
        residues, offsets = data
        # a part of another database (or split) is let go first: what a worker keeps
        # between commands is one database's parts, so the device's memory is this one's
        database = token.rsplit("-", 1)[0] + "-"
        stale = [k for k in _LOADED if not k[0].startswith(database)]
        if stale:
            for k in stale:
                del _LOADED[k]
            _free_device_pool()
        try:
            scorer = _load(device, scoring, residues, offsets)
        except MemoryError:  # the device is full: every other part goes, then once more
            _LOADED.clear()
            _free_device_pool()
            scorer = _load(device, scoring, residues, offsets)
        global _loads
        _loads += 1
        found = _LOADED[key] = (Shard(scorer, np.arange(len(offsets) - 1, dtype=np.int64)), threading.Lock())
        while len(_LOADED) > CACHE_PARTS:
            _LOADED.popitem(last=False)
        return (*found, time.perf_counter() - t0)


def _free_device_pool() -> None:
    """Give the GPU memory CuPy's pool holds back to the driver (its free
    memory is what a database load sizes itself to)."""
    cp = sys.modules.get("cupy")
    if cp is not None:
        cp.get_default_memory_pool().free_all_blocks()


def _load(device: str, scoring: Scoring, residues, offsets):
    scorer = _engine(device).database_scorer(scoring)
    scorer.load_database(np.asarray(residues), np.asarray(offsets, dtype=np.int64))
    return scorer


def load_part(token: str, data, scoring: Scoring, device: str) -> float:
    """Load the part on this worker (if not loaded yet); seconds spent."""
    return _shard(token, data, scoring, device)[2]


def compile_part(token: str, data, scoring: Scoring, device: str, query_lengths: list[int]) -> float:
    """Compile what scoring queries of these lengths against the part needs; seconds."""
    shard, busy, _ = _shard(token, data, scoring, device)
    t0 = time.perf_counter()
    with busy:
        shard.scorer.compile(list(query_lengths))
    return time.perf_counter() - t0


def score_part(token: str, data, scoring: Scoring, device: str, queries: list[np.ndarray]) -> list[np.ndarray]:
    """Scores of ``queries`` (code arrays) against every sequence of the part, in the part's order."""
    shard, busy, _ = _shard(token, data, scoring, device)
    with busy:
        return [np.asarray(s, dtype=np.int32) for s in shard.scorer.scores_many(list(queries))]


def drop_parts(prefix: str) -> int:
    """Forget the loaded parts whose token starts with ``prefix``; how many."""
    with _lock:
        gone = [k for k in _LOADED if k[0].startswith(prefix)]
        for k in gone:
            del _LOADED[k]
    return len(gone)


def trace_jobs(jobs: list[PairJob], scoring: Scoring, statistics: Statistics, device: str) -> list[Alignment]:
    """The alignments of ``jobs`` on this worker's engine (checked against
    their search scores, annotated with ``statistics``)."""
    engine, threads = worker_engine(device)
    return Traceback(engine.tracer(scoring), statistics, ThreadExecutor(threads), scoring=scoring).all(jobs)


def trace_columns(spec: dict):
    """The hits ``spec["query_index"]``/``spec["target_index"]`` of
    ``spec["queries"]`` against ``spec["targets"]`` (two
    :class:`~swgpu.io.sequence_batch.SequenceBatch`) as an
    :class:`~swgpu.align.batch.AlignmentBatch`, on this worker's engine
    (:meth:`Traceback.columns <swgpu.workloads.tracing.Traceback.columns>`:
    checked against ``spec["expected"]``, annotated for ``spec["spaces"]``)."""
    engine, threads = worker_engine(spec["device"])
    scoring, queries, qi = spec["scoring"], spec["queries"], spec["query_index"]
    trace = Traceback(engine.tracer(scoring), spec["statistics"], ThreadExecutor(threads), scoring=scoring)
    names = queries.name_texts()
    return trace.columns(queries, spec["targets"], qi, spec["target_index"], spec["expected"], spec["strand"],
                         spec["spaces"], label=lambda k: names.string(qi[k]))
