"""The ``scan`` workload: short queries against long sequences (chromosomes,
genomes), the best hits of each query on both strands, with alignments.

For each query and strand, the engine's :class:`~swgpu.engines.base.GenomeScanner`
finds the candidate end points along the target records (per column, the
best alignment ending with a pair there; reduced by the rule of :mod:`swgpu.align.scan_rule`:
at least the threshold, a local maximum within one query length, the best
``4 * top`` kept). Each candidate is traced in the window of the target that
ends at it and is as long as any positive alignment can reach
(:func:`~swgpu.align.scan_rule.span_bound`): the hit is the best alignment
ending with a pair exactly there (its first row on ties; the tie rules of the
traceback otherwise). Hits are then culled, greedily by score: a hit is dropped when it
overlaps (on the target, same record and strand) a better hit already kept;
equal scores go plus strand first, then by target start, then end. The first
``top`` survivors are the query's hits. Hits never span two records;
coordinates are per record (the minus strand is the reverse-complemented
query against the record as given, as in ``search``).

>>> from swgpu import Scoring, Sequence
>>> genome = [Sequence.from_text("chr", "TTTTTTTTGATTACAGATTACATTTTTTTTTT" * 2)]
>>> query = Sequence.from_text("q", "GATTACAGATTACA")
>>> hits = Scanner(Scoring.default("dna"), device="cpu").scan([query], genome, top=3, min_score=10)[0].hits
>>> [(h.target, h.strand, h.score, h.target_start, h.target_end) for h in hits]
[('chr', '+', 28, 8, 22), ('chr', '+', 28, 40, 54)]
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Sequence as Seq

import numpy as np

from ...align.alignment import Alignment
from ...align.batch import AlignmentBatch
from ...align.scan_rule import span_bounds
from ...engines import get_engine
from ...exceptions import InputError
from ...io.sequence import Sequence
from ...parallel.executors import ThreadExecutor, is_distributed
from ...scoring import Scoring, Statistics
from ..genome.tasks import find_end_points, trace_end_columns
from ..genome.windows import genome_codes
from ..limits import check_int32, check_max_hsps
from ..strands import oriented, strands_for
from .hits import cull_columns, trace_rounds

__all__ = ["Scanner", "ScanResult", "CANDIDATES_PER_HIT", "METHODS"]

#: Candidate end points kept per query and strand, per hit asked for.
CANDIDATES_PER_HIT = 4
METHODS = ("auto", "rowscan")


@dataclass(eq=False)
class ScanResult:
    """The hits of one query, best first."""

    query: Sequence
    hits: list[Alignment]


class Scanner:
    """Finds the best local hits of queries along long target sequences.

    ``device``: ``auto``, ``cpu`` or ``cuda``; ``method``: ``auto`` (the
    fastest exact method of the engine) or ``rowscan`` (the row-parallel scan);
    both report the same hits. ``executor``: a Dask executor
    (:mod:`swgpu.parallel.dask_executor`) to spread the work over: the genome
    is cut into parts (two per worker) whose end points are found in tasks
    and merged, and the hits are traced in tasks (the same hits as one process).
    """

    def __init__(self, scoring: Scoring, device: str = "auto", method: str = "auto", threads: int | None = None,
                 executor=None):
        if method not in METHODS:
            raise InputError(f"unknown method {method!r}: use {' or '.join(METHODS)}", param="method")
        self.scoring = scoring
        self.engine = get_engine(device, threads=threads)
        self.device = self.engine.name
        self.method = method
        self.statistics = Statistics.for_scoring(scoring)
        self._scanner = self._tracer = None  # this process's, made on first use (not with a cluster)
        self.executor = ThreadExecutor(self.engine.threads)
        self.cluster = executor if is_distributed(executor) else None
        self.threads = threads
        #: seconds spent finding end points and tracing hits in the last :meth:`scan`
        self.score_seconds = 0.0
        self.traceback_seconds = 0.0

    @property
    def scanner(self):
        """This process's genome scanner (made on first use)."""
        if self._scanner is None:
            self._scanner = self.engine.genome_scanner(self.scoring, self.method)
        return self._scanner

    @property
    def tracer(self):
        """This process's tracer (made on first use)."""
        if self._tracer is None:
            self._tracer = self.engine.tracer(self.scoring)
        return self._tracer

    def min_score_for(self, query_length: int, genome: Seq[Sequence], evalue: float) -> int:
        """The least score whose E-value is at most ``evalue`` (search space as
        BLAST's: the query against all records, per strand)."""
        if not self.statistics.available:
            raise InputError(f"{self.scoring.describe()} has no E-values (see the scoring docs)", param="evalue")
        residues, records = sum(len(r) for r in genome), len(genome)
        lo, hi = 1, max(1, query_length * self.scoring.matrix.max_score) + 1
        while lo < hi:  # E-values fall as scores rise
            mid = (lo + hi) // 2
            if self.statistics.evalue(mid, query_length, residues, records) <= evalue:
                hi = mid
            else:
                lo = mid + 1
        return lo

    def scan(self, queries: Seq[Sequence], genome: Seq[Sequence], top: int = 10, min_score: int | None = None,
             evalue: float | None = None, strand: str = "both",
             on_progress: Callable[[int], None] | None = None, max_hsps: int | None = None) -> list[ScanResult]:
        """Hits of each query along the ``genome`` records (``min_score`` and
        ``evalue`` both given: both must hold; neither: every positive score;
        ``max_hsps``: at most that many hits of a query on one record, both strands together).
        ``on_progress(cells)`` as the end-point search advances. The
        :class:`~swgpu.align.alignment.Alignment` objects of :meth:`scan_columns`."""
        queries, genome = list(queries), list(genome)
        batch = self.scan_columns(queries, genome, top, min_score, evalue, strand, on_progress, max_hsps)
        hits: list[list[Alignment]] = [[] for _ in queries]
        if len(batch):
            for k, aln in zip(batch.query_index.tolist(), batch.alignments(queries, genome, self.scoring)):
                hits[k].append(aln)
        return [ScanResult(q, found) for q, found in zip(queries, hits)]

    def scan_columns(self, queries: Seq[Sequence], genome: Seq[Sequence], top: int = 10,
                     min_score: int | None = None, evalue: float | None = None, strand: str = "both",
                     on_progress: Callable[[int], None] | None = None,
                     max_hsps: int | None = None) -> AlignmentBatch:
        """:meth:`scan`'s hits as one :class:`~swgpu.align.batch.AlignmentBatch`
        (``query_index``: the query, ``target_index``: the record; query by
        query, each query's best first), made with no object per hit.

        >>> from swgpu import Scoring, Sequence
        >>> genome = [Sequence.from_text("chr", "TTTTTTTTGATTACAGATTACATTTTTTTTTT" * 2)]
        >>> query = Sequence.from_text("q", "GATTACAGATTACA")
        >>> hits = Scanner(Scoring.default("dna"), device="cpu").scan_columns([query], genome, top=3, min_score=10)
        >>> hits.score.tolist(), hits.target_start.tolist(), hits.cigars()
        ([28, 28], [8, 40], ['14=', '14='])
        """
        queries, genome = list(queries), list(genome)
        if top < 1:
            raise InputError("must be at least 1", param="top")
        if max_hsps is not None:
            check_max_hsps(max_hsps)
        sc = self.scoring
        sc.check_sequences(list(queries) + genome)
        signs = strands_for(strand, sc.alphabet)
        if not genome or not queries:
            return AlignmentBatch.concat([])
        longest = max(len(r) for r in genome)
        check_int32(sc, max(min(len(q), longest) for q in queries), max(len(q) for q in queries) + longest)
        codes, bounds = genome_codes(genome)
        oriented_queries = [(k, s, oriented(q, s)) for k, q in enumerate(queries) for s in signs]
        floors = []
        least: dict[int, int] = {}  # the E-value's score by query length (a search of its own each)
        for k, _, q in oriented_queries:
            floor = 1 if min_score is None else max(1, int(min_score))
            if evalue is not None:
                if len(q) not in least:
                    least[len(q)] = self.min_score_for(len(q), genome, evalue)
                floor = max(floor, least[len(q)])
            floors.append(floor)
        t0 = time.perf_counter()
        qcodes = [q.codes for _, _, q in oriented_queries]
        base = dict(device=self.device, scoring=sc, method=self.method, threads=self.threads)
        here = self.cluster is None  # this process's scanner and tracer, else the cluster's tasks
        found = find_end_points(self.scanner if here else None, self.cluster, base, qcodes, codes, bounds, floors,
                                CANDIDATES_PER_HIT * top, on_progress)
        t1 = time.perf_counter()
        hits = self._hits(queries, genome, oriented_queries, found, codes, bounds, top, max_hsps, base, here)
        residues = np.full(len(hits), int(bounds[-1]), dtype=np.int64)
        hits.evalue, hits.bitscore = self.statistics.columns(
            hits.score, (hits.query_length, residues, np.full(len(hits), len(genome), dtype=np.int64)))
        self.score_seconds = t1 - t0
        self.traceback_seconds = time.perf_counter() - t1
        return hits

    def _hits(self, queries, genome, oriented_queries, found, codes, bounds, top, max_hsps, base,
              here) -> AlignmentBatch:
        """The culled hits of the end points ``found`` (the columns and scores of each oriented query)."""
        sc = self.scoring
        owner = np.repeat(np.arange(len(found)), [cols.size for cols, _ in found])  # each end point's oriented query
        columns = np.concatenate([cols for cols, _ in found]).astype(np.int64, copy=False)
        scores = np.concatenate([s for _, s in found]).astype(np.int64, copy=False)
        query = np.array([k for k, _, _ in oriented_queries], dtype=np.int64)[owner]
        strand = np.array([s == "-" for _, s, _ in oriented_queries], dtype=np.uint8)[owner]
        qoffsets = np.zeros(len(oriented_queries) + 1, dtype=np.int64)
        np.cumsum([len(q) for _, _, q in oriented_queries], out=qoffsets[1:])
        qcodes = np.concatenate([q.codes for _, _, q in oriented_queries]).astype(np.uint8, copy=False)
        spans = span_bounds(np.diff(qoffsets)[owner], sc.matrix.max_score, sc.gap_open, sc.gap_extend, scores)
        names = [q.name for _, _, q in oriented_queries]
        name_rank = np.unique(np.array([r.name for r in genome], dtype=object).astype(str), return_inverse=True)[1]
        name_rank = name_rank.reshape(-1).astype(np.int64)
        shared_codes = codes if here else self.cluster.scatter(codes)  # (sent once for every round)

        def trace(ends: np.ndarray) -> AlignmentBatch:
            batch = trace_end_columns(self.tracer if here else None, self.cluster, base, qcodes, qoffsets,
                                      shared_codes, bounds, owner[ends], columns[ends], scores[ends],
                                      spans[ends], strand[ends], names)
            batch.query_index = query[ends]
            return batch

        def kept(b: AlignmentBatch, take=None) -> np.ndarray:
            return cull_columns(b.query_index, b.score, b.strand, name_rank[b.target_index], b.target_start,
                                b.target_end, top, max_hsps, take)

        rounds, _ = trace_rounds(query, scores, len(queries), top, trace,
                                 lambda done, take: kept(AlignmentBatch.concat(done), take))
        traced = AlignmentBatch.concat(rounds)
        return traced.take(kept(traced)) if rounds else traced
