"""The ``search`` workload: queries against a database, exact SW scores of every
database sequence, the top hits ranked with E-values, and full alignments
(traceback in linear memory) of those hits only.

Ranking: by score, highest first; equal scores by the database sequence's
position in the source FASTA file, earliest first. The same on every engine.

Strands (DNA): ``strand="both"`` (the default, as BLASTN) also scores the
reverse complement of each query, as one more query of the same scoring pass.
Each (database sequence, strand) is a candidate hit: candidates are ranked
together (equal scores: file position, then plus before minus) and the best
``top`` reported, so a sequence with good alignments on both strands is
reported twice, once per strand, as BLASTN reports HSPs on both strands. Both
strands use the same search space for E-values (BLAST computes it per strand
from the query length, not doubled).

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

import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator

import numpy as np

from ...align.alignment import Alignment
from ...align.batch import AlignmentBatch
from ...engines import resolve_device
from ...exceptions import InputError
from ...io.database import Database
from ...io.sequence import Sequence
from ...io.sequence_batch import SequenceBatch
from ...parallel.executors import Executor, ThreadExecutor, is_distributed
from ...scoring import Scoring, Statistics
from ...scoring.search_fit import SearchFit, compiled_ready, preload_compiled
from ..limits import check_int32, check_max_hsps
from ..strands import oriented, strands_for
from ..tracing import PairJob, Traceback, further_alignments, statistics_floors, with_further
from .batches import scored_batches
from .cluster import ClusterParts
from .hits import HitBatch, fit_floors, grouped, rank_hits, rank_strand_hits, rank_strands, refit, restat, target_rows
from .placement import Shard, devices, gather_scores, new_scores, partition_by_residues

__all__ = ["Searcher", "SearchResult", "HitBatch", "rank_hits", "rank_strand_hits", "EVALUE_METHODS"]

#: How a search computes E-values (:class:`Searcher`'s ``evalues``).
EVALUE_METHODS = ("search", "karlin")


@dataclass(eq=False)
class SearchResult:
    """Hits of one query: alignments best first, with E-values where defined."""

    query: Sequence
    hits: list[Alignment]
    scores: np.ndarray = field(repr=False)  #: every database sequence's best score over the strands searched
    seconds: float = 0.0  #: scoring time of this query (its share of its batch's engine wall time)
    #: each searched strand's scores (``"+"``, ``"-"``), database (sorted) order
    strand_scores: dict[str, np.ndarray] = field(default_factory=dict, repr=False)


def _limited(scorer, gpu_memory: int | None):
    """``scorer``, holding at most ``gpu_memory`` bytes of its device's memory
    where it has such a limit (GPU engines; larger databases are streamed)."""
    if gpu_memory is not None and hasattr(scorer, "memory_limit"):
        scorer.memory_limit = int(gpu_memory)
    return scorer


#: Threads that rank and fit a batch's queries: 4 (8 and 16 slower: 2,000 queries x 100k, 16 cores); 2 beside a GPU
#: once the fits are compiled (4: the GPU waited for its batches, 2,000 x 96,568, 6.2-7.2 s against 5.8-6.0 s); one
#: below _RANK_ALONE sequences (12,071, 2 cores: 0.46-0.66 ms a query on one, 0.71-0.73 on two, 0.91-1.26 on four).
_RANK_THREADS, _RANK_THREADS_COMPILED, _RANK_ALONE = 4, 2, 30_000
#: Batches a GPU scores ahead of the one ranked and traced (it goes on while several batches' hits are traced).
_AHEAD = 2
#: Queries, and database sequences, from which a GPU search loads the fit's compiled passes (3x the array passes
#: at 100,000 sequences, none faster at 12,000; about 0.5 s to load).
FIT_QUERIES, FIT_SEQUENCES = 100, 50_000


@dataclass(eq=False)
class _Picks:
    """One query's hits to align: database positions, strands (1: minus) and the scoring pass's scores."""

    positions: np.ndarray
    minus: np.ndarray
    scores: np.ndarray


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
    threads:
        CPU threads (scoring on the CPU, tracebacks).
    executor:
        A distributed executor (``distributed`` true: a
        :class:`~swgpu.parallel.dask_executor.DaskExecutor`): the database is
        split over its workers, which score and trace there (``device`` is
        then what the workers use; ``gpus`` is not used: each worker has its
        GPU); see :mod:`.cluster`. Another executor (with ``map``) runs
        the tracebacks in place of ``threads`` threads. Output is the same either way.
    evalues:
        ``"search"`` (default, as SSEARCH): E-values from each query's own
        scores against the whole database (:meth:`~swgpu.scoring.Statistics.search_fit`:
        the regression of score on ln(length)) where there are enough
        unrelated scores, else from ``lambda`` and ``K``; ``"karlin"``: always
        from ``lambda`` and ``K`` (BLAST's tables where they exist), as BLAST.
    gpu_memory:
        Bytes of each GPU's memory the database may take (``None``: 70% of
        what is free when it is loaded); a larger database (or its share of
        it) is streamed to the GPU in parts for every batch of queries, with
        the same scores. Not used on the CPU nor on a cluster's workers.
    """

    def __init__(self, database: Database, scoring: Scoring, device: str = "auto", gpus: list[int] | None = None,
                 threads: int | None = None, executor: Executor | None = None, evalues: str = "search",
                 gpu_memory: int | None = None):
        if evalues not in EVALUE_METHODS:
            raise InputError(f"must be one of {', '.join(EVALUE_METHODS)}, not {evalues!r}", param="evalues")
        self.evalues = evalues
        if scoring.alphabet is not database.alphabet:
            raise InputError(f"the database is {database.alphabet.name} but the scoring is for "
                             f"{scoring.alphabet.name}", param="alphabet")
        self.database = database
        self.scoring = scoring
        self.statistics = Statistics.for_scoring(scoring)
        self.executor = executor if executor is not None else ThreadExecutor(threads)
        self.threads = ThreadExecutor(threads).threads
        self._longest = int(database.lengths.max()) if len(database) else 0
        #: Wall seconds :meth:`search` waited for scores so far (for ``--timings``; on a GPU the
        #: next batches are scored while one is ranked and traced).
        self.score_seconds = 0.0
        #: Wall seconds of further alignments (``max_hsps``) so far.
        self.further_seconds = 0.0
        #: Wall seconds of ranking the hits and fitting the E-values of each query's scores so far.
        self.rank_seconds = 0.0
        self._cluster: ClusterParts | None = None
        self._shards: list[Shard] = []
        if is_distributed(executor):
            self._cluster = ClusterParts(executor, database, scoring, device, self.statistics)
            self.device = self._cluster.engine_name  # as the workers resolved it
            self.load_seconds = self._cluster.load_seconds
            self._trace_seconds = 0.0
            return
        self.device = resolve_device(device)
        engines = devices(self.device, gpus, self.threads)
        self._traceback = Traceback(engines[0].tracer(scoring), self.statistics, self.executor, scoring=scoring)
        t0 = time.perf_counter()
        parts = partition_by_residues(database.lengths, len(engines)) if len(engines) > 1 else [None]
        # each GPU starts, takes its part of the database and is ready at the same time as the others
        self._shards = ThreadExecutor(len(engines)).map(
            lambda ep: Shard.load(_limited(ep[0].database_scorer(scoring), gpu_memory), database, ep[1]),
            list(zip(engines, parts)))
        self.load_seconds = time.perf_counter() - t0

    @property
    def database_parts(self) -> list[int]:
        """Per GPU (or engine) of this process, the parts its database is
        streamed in for every batch of queries (1: resident)."""
        return [int(getattr(shard.scorer, "parts", 1)) for shard in self._shards]

    @property
    def traceback_seconds(self) -> float:
        """Wall seconds spent tracing hits so far."""
        return self._trace_seconds if self._cluster is not None else self._traceback.seconds

    def close(self) -> None:
        """Release what the search holds on a Dask cluster (nothing otherwise);
        the executor itself stays open."""
        if self._cluster is not None:
            self._cluster.close()

    def __enter__(self) -> "Searcher":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _trace(self, jobs: list[PairJob]) -> list[Alignment]:
        if self._cluster is None:
            return self._traceback.all(jobs)
        t0 = time.perf_counter()
        try:
            return self._cluster.trace(jobs)
        finally:
            self._trace_seconds += time.perf_counter() - t0

    def compile(self, queries: list[Sequence], strand: str = "both") -> float:
        """Compile (or load from the cache) the kernels that scoring these
        queries one by one and together (on ``strand``) would use; seconds (0 on the CPU)."""
        t0 = time.perf_counter()
        copies = len(strands_for(strand, self.database.alphabet))
        lengths = [len(q) for q in queries for _ in range(copies)]
        if self._cluster is not None:
            self._cluster.compile(lengths)
        ThreadExecutor(len(self._shards)).map(lambda s: s.scorer.compile(lengths), self._shards)
        return time.perf_counter() - t0

    def scores(self, query: Sequence) -> np.ndarray:
        """Exact SW score of ``query`` against every database sequence (database order)."""
        return self.scores_many([query])[0]

    def scores_many(self, queries: list[Sequence]) -> list[np.ndarray]:
        """:meth:`scores` of several queries at once (on the GPU, two queries
        share each 32-bit lane of the kernel, which is faster than one by one)."""
        for q in queries:
            self._check_query(q)
        if not queries:
            return []
        codes = [q.codes for q in queries]
        if self._cluster is not None:
            return self._cluster.scores_many(codes)
        if len(self._shards) == 1:
            return gather_scores(len(self.database), len(queries),
                                 [(self._shards[0], self._shards[0].scorer.scores_many(codes))])
        # each GPU's thread puts its part's scores in place as soon as they come (its own positions)
        out = new_scores(len(self.database), len(queries), self._shards)
        ThreadExecutor(len(self._shards)).map(lambda s: s.place(out, s.scorer.scores_many(codes)), self._shards)
        return out

    def _check_query(self, query: Sequence) -> None:
        self.scoring.check_sequences((query,), ", as the database is")  # (the scoring's alphabet is the database's)
        check_int32(self.scoring, min(len(query), self._longest), len(query) + self._longest)

    def strand_scores(self, queries: list[Sequence], strand: str = "both") -> list[dict[str, np.ndarray]]:
        """Scores of each query on each strand of ``strand`` (``{"+": ..., "-": ...}``,
        database order): the reverse complements are more queries of one
        :meth:`scores_many` pass."""
        signs = strands_for(strand, self.database.alphabet)
        flat = self.scores_many([oriented(q, sign) for q in queries for sign in signs])
        return [dict(zip(signs, flat[k * len(signs):(k + 1) * len(signs)])) for k in range(len(queries))]

    def _check_evalue(self, evalue: float | None) -> None:
        if evalue is not None and not self.statistics.available:
            raise InputError(f"{self.scoring.describe()} has no E-values (see the scoring docs)", param="evalue")

    def search_one(self, query: Sequence, top: int = 10, evalue: float | None = None,
                   strand: str = "both", max_hsps: int = 1) -> SearchResult:
        """Score, rank and align the hits of one query (``strand``: ``both``,
        ``plus`` or ``minus``; DNA only, protein has one strand; ``max_hsps``: as :meth:`search`)."""
        self._check_evalue(evalue)
        check_max_hsps(max_hsps)
        t0 = time.perf_counter()
        scores = self.strand_scores([query], strand)[0]  # checks the query
        seconds = time.perf_counter() - t0
        picks, best, fit = self._ranked(query, scores, top, evalue)
        if max_hsps > 1:
            jobs = self._jobs(query, picks)
            hits = self._with_further([jobs], [self._trace(jobs)], max_hsps, evalue, [fit])[0]
        else:
            hits = self._columns(0, [query], [(picks, best, fit)]).alignments(self.scoring)[0]
        return SearchResult(query, hits, best, seconds, scores)

    def _with_further(self, jobs: list[list[PairJob]], alignments: list[list[Alignment]], max_hsps: int,
                      evalue: float | None, fits: list[SearchFit | None]) -> list[list[Alignment]]:
        """Of each query, each alignment followed by up to ``max_hsps - 1`` further ones of its pair
        (within ``evalue``), with the E-values of the search's fit; the pairs of all the queries at once."""
        t0 = time.perf_counter()
        local = self.executor if self._cluster is None else ThreadExecutor(self.threads)  # (host work)
        floors = [self._floors(js, a, fit, evalue) for js, a, fit in zip(jobs, alignments, fits)]
        flat = [a for each in alignments for a in each]
        more = iter(further_alignments([j for js in jobs for j in js], flat, self.scoring, self.statistics, local,
                                       max_hsps - 1, None, np.concatenate(floors) if floors else None))
        self.further_seconds += time.perf_counter() - t0
        out = []
        for fit, each in zip(fits, alignments):
            hits = with_further(each, [next(more) for _ in each])
            restat(fit, hits, self.database)
            out.append(hits if evalue is None else
                       [a for a in hits if a.primary or (a.evalue is not None and a.evalue <= evalue)])
        return out

    def _floors(self, jobs: list[PairJob], alignments: list[Alignment], fit: SearchFit | None,
                evalue: float | None) -> np.ndarray:
        """Each pair's least score of a further alignment within ``evalue``: by the query's fit, else the statistics."""
        if evalue is None:
            return np.ones(len(alignments), np.int64)
        if fit is not None:
            return fit_floors(fit, alignments, self.database, evalue)
        return statistics_floors(self.statistics, jobs, alignments, evalue)

    def _fit(self, query: Sequence, best: np.ndarray) -> SearchFit | None:
        """The fit of the query's own scores (:attr:`evalues` ``"search"``), or None."""
        if not self._fitting():
            return None
        fit = self.statistics.search_fit(best, self.database.lengths, len(query))
        return fit if fit.ok else None

    def _search_evalues(self, fit: SearchFit | None, query: Sequence, scores, lengths) -> np.ndarray:
        db = self.database
        if fit is None:
            return np.atleast_1d(self.statistics.evalue(np.asarray(scores), len(query), db.total_residues, len(db)))
        return self.statistics.search_evalues(scores, lengths, len(query), db.total_residues, len(db), fit=fit)

    def _ranked(self, query: Sequence, scores: dict[str, np.ndarray], top: int,
                evalue: float | None) -> tuple[_Picks, np.ndarray, SearchFit | None]:
        """The hits to align of one query, its best score per sequence and the
        fit of those scores (None: E-values from the parameters)."""
        db = self.database
        pos, which = rank_strands(scores, db.index, top)
        arrays = list(scores.values())
        hit = np.empty(pos.size, arrays[0].dtype)
        for k, values in enumerate(arrays):
            on = which == k
            hit[on] = values[pos[on]]
        best = np.maximum.reduce(arrays) if len(arrays) > 1 else arrays[0]
        fit = self._fit(query, best)
        if evalue is not None and pos.size:
            keep = self._search_evalues(fit, query, hit, db.lengths[pos]) <= evalue
            pos, which, hit = pos[keep], which[keep], hit[keep]
        minus = np.array([sign == "-" for sign in scores], dtype=np.uint8)[which]
        return _Picks(pos, minus, hit.astype(np.int64)), best, fit

    def _jobs(self, query: Sequence, picks: _Picks) -> list[PairJob]:
        """The hits of :meth:`_ranked` as :class:`PairJob` s (for their further alignments, ``max_hsps``)."""
        db = self.database
        space = (len(query), db.total_residues, len(db))
        return [PairJob(query, db.sequence(i), e, space, strand="-" if m else "+")
                for i, m, e in zip(picks.positions.tolist(), picks.minus.tolist(), picks.scores.tolist())]

    def _columns(self, first: int, chunk: list[Sequence], prepared: list) -> HitBatch:
        """The hits of the queries ``chunk`` (``first`` on) traced together, as columns."""
        db = self.database
        picks = [p for p, _, _ in prepared]
        qi = np.repeat(np.arange(len(chunk), dtype=np.int64), [p.positions.size for p in picks])
        pos = np.concatenate([p.positions for p in picks]).astype(np.int64)
        members, ti = np.unique(pos, return_inverse=True)
        queries, targets = SequenceBatch.from_sequences(chunk), target_rows(db, members)
        n = qi.size
        spaces = (queries.lengths[qi], np.full(n, db.total_residues, np.int64), np.full(n, len(db), np.int64))
        expected, minus = np.concatenate([p.scores for p in picks]), np.concatenate([p.minus for p in picks])
        if not n:
            hits = AlignmentBatch.concat([])
        elif self._cluster is not None:  # traced on the workers
            t0 = time.perf_counter()
            hits = self._cluster.trace_columns(queries, targets, qi, ti, expected, minus, spaces)
            self._trace_seconds += time.perf_counter() - t0
        else:
            hits = self._traceback.columns(queries, targets, qi, ti, expected, minus, spaces,
                                           label=lambda k: chunk[int(qi[k])].name)
        found = HitBatch(first, queries, targets, members, hits)
        refit(hits, found.query_bounds(), [fit for _, _, fit in prepared], db)
        return found

    def _scored(self, queries: Iterable[Sequence], top: int, evalue: float | None, batch: int,
                strand: str) -> Iterator[tuple[int, list[Sequence], list[dict], float, list]]:
        """Each batch of queries scored and its hits ranked: ``(first, queries,
        each one's strand scores, each one's share of the scoring seconds,
        each one's :meth:`_ranked`)``. On a GPU the next batches are scored while
        the caller handles one (:data:`_AHEAD`, :func:`~.batches.scored_batches`);
        :attr:`score_seconds` counts the waits for the scores."""
        copies = len(strands_for(strand, self.database.alphabet))
        # every result holds all scores of its query (each strand's and their best): keep a batch's under ~1 GiB
        # (a share of it where batches are scored ahead while one is ranked and traced: _AHEAD + 1 are held)
        arrays = copies + 1 if copies > 1 else 1
        ahead = _AHEAD if self.device != "cpu" and self._cluster is None else 0
        if self.device == "cpu" and self._cluster is None or ahead and self._fit_many(queries):
            preload_compiled()  # (the fits' compiled passes, loaded meanwhile: Numba's loaded on the CPU; many fits)
        batch = max(1, min(batch, (1 << 30) // (ahead + 1) // max(1, 4 * arrays * len(self.database))))
        # (the fit's facts of the database, made while the GPU scores the first batch)
        meanwhile = (lambda: self.statistics.prepare_search_fit(self.database.lengths)) if self._fitting() else None
        for first, chunk, all_scores, seconds, waited in scored_batches(
                queries, batch, lambda chunk: self.strand_scores(chunk, strand), ahead, meanwhile):
            self.score_seconds += waited
            t0 = time.perf_counter()  # (each query's ranking and fit: passes over the whole database)
            ranking = 1 if len(self.database) < _RANK_ALONE else \
                _RANK_THREADS_COMPILED if ahead and compiled_ready() else _RANK_THREADS
            prepared = ThreadExecutor(min(self.threads, len(chunk), ranking)).map(
                lambda job: self._ranked(job[0], job[1], top, evalue), list(zip(chunk, all_scores)))
            self.rank_seconds += time.perf_counter() - t0
            yield first, chunk, all_scores, seconds / len(chunk), prepared

    def _fitting(self) -> bool:
        """Whether each query's E-values come from the fit of its own scores (:attr:`evalues` ``"search"``)."""
        return self.evalues == "search" and self.statistics.scoring is not None

    def _fit_many(self, queries) -> bool:
        """Whether ``queries`` (when counted) are enough fits against a database large enough to load the
        compiled passes of the fit for (on a GPU; a CPU engine's process has them)."""
        return (self._fitting() and hasattr(queries, "__len__") and len(queries) >= FIT_QUERIES
                and len(self.database) >= FIT_SEQUENCES)

    def search(self, queries: Iterable[Sequence], top: int = 10, evalue: float | None = None,
               on_done: Callable[[Sequence], None] | None = None, batch: int = 64,
               strand: str = "both", max_hsps: int = 1) -> Iterator[SearchResult]:
        """Search each query, in order: scores of up to ``batch`` queries at a
        time (:meth:`strand_scores`; fewer for databases of hundreds of millions
        of sequences), then the ranking and alignments of each (the hits of a
        batch traced together, as :meth:`search_columns`; the alignments are views of those columns).
        A result's ``seconds`` is its share of its batch's scoring time.
        ``strand``: ``both`` (default), ``plus`` or ``minus`` (DNA; see the module docs).
        ``max_hsps``: each hit's alignment is followed by up to ``max_hsps - 1``
        further alignments of the same query strand and sequence, none sharing an
        aligned pair with one before it (:mod:`swgpu.align.hsps`), within ``evalue``;
        ``top`` counts database sequences (and strands), not alignments."""
        self._check_evalue(evalue)
        check_max_hsps(max_hsps)
        for first, chunk, all_scores, seconds, prepared in self._scored(queries, top, evalue, batch, strand):
            if max_hsps > 1:
                jobs = [self._jobs(q, p) for q, (p, _, _) in zip(chunk, prepared)]
                alignments = iter(self._trace([j for each in jobs for j in each]))
                hits = self._with_further(jobs, [[next(alignments) for _ in js] for js in jobs], max_hsps, evalue,
                                          [fit for _, _, fit in prepared])
            else:
                hits = self._columns(first, chunk, prepared).alignments(self.scoring)
            for q, scores, (_, best, _), own in zip(chunk, all_scores, prepared, hits):
                result = SearchResult(q, own, best, seconds, scores)
                if on_done is not None:
                    on_done(q)
                yield result

    def search_columns(self, queries: Iterable[Sequence], top: int = 10, evalue: float | None = None,
                       on_done: Callable[[Sequence], None] | None = None, batch: int = 64,
                       strand: str = "both") -> Iterator[HitBatch]:
        """:meth:`search` (one alignment per hit) as columns: a :class:`~.hits.HitBatch`
        for each group of queries, the same hits, alignments and E-values, with
        no object made per hit. The hits of consecutive batches of queries are
        traced together (:func:`~.hits.grouped`); their scores are not kept.
        ``on_done(query)`` as each query's batch is scored and ranked."""
        self._check_evalue(evalue)

        def scored():  # (the bar moves as each batch is scored: the hits of several are traced together)
            for first, chunk, _, _, prepared in self._scored(queries, top, evalue, batch, strand):
                if on_done is not None:
                    for q in chunk:
                        on_done(q)
                yield first, chunk, [(picks, None, fit) for picks, _, fit in prepared]

        for first, chunk, prepared in grouped(scored(), self.database.lengths):
            yield self._columns(first, chunk, prepared)
