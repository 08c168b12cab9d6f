"""The ``search`` workload: queries against a database, exact SW scores of every
database sequence, the top hits ranked with E-values, and full alignments
(traceback in linear memory) of those hits only.

Ranking: by score, highest first; equal scores by the database sequence's
position in the source FASTA file, earliest first. The same on every engine.

>>> from importlib import resources
>>> from swgpu import Scoring, read_sequences
>>> from swgpu.io.database import Database
>>> data = resources.files("swgpu").joinpath("data/examples")
>>> db = Database.from_fasta(data.joinpath("targets.fasta"))
>>> query = read_sequences(data.joinpath("queries.fasta"))[0]
>>> result = Searcher(db, Scoring.default("protein"), device="cpu").search_one(query, top=2)
>>> [(h.target, h.score) for h in result.hits]
[('P02232', 719), ('P09187', 547)]
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

import numpy as np

from .aligner import Aligner
from ..align.alignment import Alignment
from ..io.database import Database
from ..engines import resolve_device
from ..exceptions import EngineError, InputError
from ..scoring import Scoring
from ..io.sequence import Sequence
from ..scoring.statistics import Statistics

__all__ = ["Searcher", "SearchResult", "partition_by_residues", "rank_hits"]


@dataclass(eq=False)
class SearchResult:
    """Hits of one query: alignments best first, with E-values where defined."""

    query: Sequence
    hits: list[Alignment]
    scores: np.ndarray = field(repr=False)  #: every database sequence's score, database (sorted) order
    seconds: float = 0.0  #: scoring time of this query (its share of its batch's engine wall time)


def rank_hits(scores: np.ndarray, index: np.ndarray, top: int) -> np.ndarray:
    """Positions of the ``top`` best positive scores, best first; ties by ``index`` ascending."""
    positive = np.flatnonzero(scores > 0)
    if positive.size == 0 or top <= 0:
        return positive[:0]
    if positive.size > top:
        # everything scoring above the top-th best, plus all ties at that score
        kth = np.partition(scores[positive], positive.size - top)[positive.size - top]
        positive = positive[scores[positive] >= kth]
    order = np.lexsort((index[positive], -scores[positive].astype(np.int64)))
    return positive[order[:top]]


def partition_by_residues(lengths: np.ndarray, parts: int) -> list[np.ndarray]:
    """Split sequence indices into ``parts`` groups of nearly equal total length:
    longest sequence first, each to the least loaded group. Each group is sorted."""
    loads = np.zeros(parts, dtype=np.int64)
    groups: list[list[int]] = [[] for _ in range(parts)]
    for i in np.argsort(-lengths, kind="stable"):
        g = int(np.argmin(loads))
        groups[g].append(int(i))
        loads[g] += int(lengths[i])
    return [np.sort(np.array(g, dtype=np.int64)) for g in groups]


class _Shard:
    """One engine holding part of the database (``members`` are database positions)."""

    def __init__(self, engine, members: np.ndarray, db: Database):
        self.engine = engine
        self.members = members
        if len(members) == len(db):  # the whole database: no copy
            engine.load_database(db.residues, db.offsets)
            return
        offsets = db.offsets
        lengths = np.diff(offsets)[members]
        sub_offsets = np.zeros(len(members) + 1, dtype=np.int64)
        np.cumsum(lengths, out=sub_offsets[1:])
        residues = np.empty(int(sub_offsets[-1]), dtype=np.uint8)
        for k, i in enumerate(members):
            residues[sub_offsets[k]:sub_offsets[k + 1]] = db.residues[offsets[i]:offsets[i + 1]]
        engine.load_database(residues, sub_offsets)


class Searcher:
    """Searches queries against one database with one scoring scheme.

    Parameters
    ----------
    database:
        A :class:`~swgpu.io.database.Database` (from FASTA or a ``.swdb`` file).
    scoring:
        Matrix and gaps; its alphabet must be the database's.
    device:
        ``auto``, ``cpu`` or ``cuda``.
    gpus:
        GPU ids to spread the database over (``None``: all visible GPUs).
    """

    def __init__(self, database: Database, scoring: Scoring, device: str = "auto", gpus: list[int] | None = None,
                 threads: int | None = None):
        if scoring.alphabet is not database.alphabet:
            raise InputError(f"the database is {database.alphabet.name} but the scoring is for {scoring.alphabet.name}")
        self.database = database
        self.scoring = scoring
        self.device = resolve_device(device)
        self.statistics = Statistics.for_scoring(scoring)
        self.threads = max(1, threads or os.cpu_count() or 1)
        self._aligner = Aligner(scoring, device="cpu")
        t0 = time.perf_counter()
        self._shards = self._make_shards(gpus)
        self.load_seconds = time.perf_counter() - t0

    def _make_shards(self, gpus):
        matrix, go, ge = self.scoring.matrix.values, self.scoring.gap_open, self.scoring.gap_extend
        n = len(self.database)
        if self.device == "cpu":
            from ..engines.cpu.search import CpuSearchEngine

            return [_Shard(CpuSearchEngine(matrix, go, ge), np.arange(n, dtype=np.int64), self.database)]
        from ..engines.cuda import runtime
        from ..engines.cuda.search import CudaSearchEngine

        ids = list(range(runtime.device_count())) if gpus is None else list(gpus)
        bad = [g for g in ids if not 0 <= g < runtime.device_count()]
        if bad or not ids:
            raise EngineError(f"--gpus {','.join(map(str, ids))}: this machine has {runtime.device_count()} GPU(s)")
        parts = partition_by_residues(self.database.lengths, len(ids)) if len(ids) > 1 else [np.arange(n, dtype=np.int64)]
        return [_Shard(CudaSearchEngine(matrix, go, ge, device_id=g), part, self.database) for g, part in zip(ids, parts)]

    def compile(self, queries: list[Sequence]) -> float:
        """Compile (or load from the cache) the GPU kernels that scoring these
        queries one by one and together would use; seconds (0 on the CPU)."""
        t0 = time.perf_counter()
        for s in self._shards:
            if hasattr(s.engine, "compile"):
                s.engine.compile([len(q) for q in queries])
        return time.perf_counter() - t0

    def scores(self, query: Sequence) -> np.ndarray:
        """Exact SW score of ``query`` against every database sequence (database order)."""
        return self.scores_many([query])[0]

    def scores_many(self, queries: list[Sequence]) -> list[np.ndarray]:
        """:meth:`scores` of several queries at once (on the GPU, two queries
        share each 32-bit lane of the kernel, which is faster than one by one)."""
        for q in queries:
            self._check_query(q)
        out = [np.zeros(len(self.database), dtype=np.int32) for _ in queries]
        if not queries:
            return out
        codes = [q.codes for q in queries]

        def run(s):
            if hasattr(s.engine, "scores_many"):
                return s.engine.scores_many(codes)
            return [s.engine.scores(c) for c in codes]

        if len(self._shards) == 1:
            s = self._shards[0]
            if len(s.members) == len(self.database):  # the whole database, in order
                return [np.asarray(sc, dtype=np.int32) for sc in run(s)]
            results = [(s, run(s))]
        else:
            with ThreadPoolExecutor(len(self._shards)) as pool:
                results = list(zip(self._shards, pool.map(run, self._shards)))
        for s, per_query in results:
            for o, sc in zip(out, per_query):
                o[s.members] = sc
        return out

    def _check_query(self, query: Sequence) -> None:
        if query.alphabet is not self.database.alphabet:
            raise InputError(f"query {query.name!r} is {query.alphabet.name} but the database is {self.database.alphabet.name}")

    def _check_evalue(self, evalue: float | None) -> None:
        if evalue is not None and not self.statistics.available:
            raise InputError(f"--evalue: {self.scoring.describe()} has no E-values (see the scoring docs); drop --evalue")

    def search_one(self, query: Sequence, top: int = 10, evalue: float | None = None) -> SearchResult:
        """Score, rank and align the hits of one query."""
        self._check_evalue(evalue)
        self._check_query(query)
        t0 = time.perf_counter()
        scores = self.scores(query)
        return self._result(query, scores, time.perf_counter() - t0, top, evalue)

    def _result(self, query: Sequence, scores: np.ndarray, seconds: float, top: int,
                evalue: float | None) -> SearchResult:
        picked = rank_hits(scores, self.database.index, top)
        db = self.database
        if evalue is not None:
            ev = np.atleast_1d(self.statistics.evalue(scores[picked], len(query), db.total_residues, len(db)))
            picked = picked[ev <= evalue]
        hits = self._align(query, picked)
        for k, aln in enumerate(hits):
            if aln.score != scores[picked[k]]:
                raise RuntimeError(f"traceback score {aln.score} != search score {scores[picked[k]]}; this is a bug")
        self.statistics.annotate(hits, len(query), db.total_residues, len(db))
        return SearchResult(query, hits, scores, seconds)

    def _align(self, query: Sequence, picked: np.ndarray) -> list[Alignment]:
        targets = [self.database.sequence(int(i)) for i in picked]
        if len(targets) <= 1 or self.threads == 1:
            return [self._aligner.align(query, t) for t in targets]
        with ThreadPoolExecutor(self.threads) as pool:
            return list(pool.map(lambda t: self._aligner.align(query, t), targets))

    def search(self, queries: Iterable[Sequence], top: int = 10, evalue: float | None = None,
               on_done: Callable[[Sequence], None] | None = None, batch: int = 32) -> Iterator[SearchResult]:
        """Search each query, in order: scores of up to ``batch`` queries at a
        time (:meth:`scores_many`; fewer for databases of hundreds of millions
        of sequences), then the ranking and alignments of each.
        A result's ``seconds`` is its share of its batch's scoring time."""
        self._check_evalue(evalue)
        # every result holds all scores of its query: keep a batch's under ~1 GiB
        batch = max(1, min(batch, (1 << 30) // max(1, 4 * len(self.database))))
        it = iter(queries)
        while True:
            chunk = []
            for q in it:
                self._check_query(q)
                chunk.append(q)
                if len(chunk) >= max(1, batch):
                    break
            if not chunk:
                return
            t0 = time.perf_counter()
            all_scores = self.scores_many(chunk)
            seconds = (time.perf_counter() - t0) / len(chunk)
            for q, scores in zip(chunk, all_scores):
                result = self._result(q, scores, seconds, top, evalue)
                if on_done is not None:
                    on_done(q)
                yield result
