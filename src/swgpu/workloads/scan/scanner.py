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

from ...align.alignment import Alignment
from ...align.scan_rule import span_bound
from ...engines import get_engine
from ...exceptions import InputError
from ...io.sequence import Sequence
from ...parallel.executors import ThreadExecutor, is_distributed
from ...scoring import Scoring, Statistics
from ..genome.tasks import find_end_points, trace_ends
from ..genome.windows import genome_codes
from ..limits import check_int32, check_max_hsps
from ..strands import oriented, strands_for

__all__ = ["Scanner", "ScanResult", "cull", "trace_best", "CANDIDATES_PER_HIT", "METHODS"]

#: Candidate end points kept per query and strand, per hit asked for.
CANDIDATES_PER_HIT = 4
METHODS = ("auto", "rowscan")


@dataclass(eq=False)
class ScanResult:
    """The hits of one query, best first."""

    query: Sequence
    hits: list[Alignment]


def cull(hits: list[Alignment], top: int, max_hsps: int | None = None) -> list[Alignment]:
    """The ``top`` best hits that do not overlap a better one on the same
    target and strand (see the module docs for the order); with ``max_hsps``,
    at most that many on one target (both strands)."""
    order = sorted(hits, key=lambda h: (-h.score, h.strand != "+", h.target, h.target_start, h.target_end))
    kept: list[Alignment] = []
    per_target: dict[str, int] = {}
    for h in order:
        if h.score <= 0:
            continue
        if max_hsps is not None and per_target.get(h.target, 0) >= max_hsps:
            continue
        if any(k.target == h.target and k.strand == h.strand and h.target_start < k.target_end
               and k.target_start < h.target_end for k in kept):
            continue
        kept.append(h)
        per_target[h.target] = per_target.get(h.target, 0) + 1
        if len(kept) == top:
            break
    return kept


def trace_best(ends: list[list[tuple]], top: int, trace: Callable[[list], list[Alignment]],
               max_hsps: int | None = None) -> list[list[Alignment]]:
    """Alignments of the end points ``ends[k]`` of each query ``k`` (tuples
    whose last item is the score), as many as :func:`cull` needs: traced by
    ``trace`` in rounds, best first (``top`` a query, then twice as many each
    round), until ``cull(traced, top)`` is the same as over every end point:
    the traced alignments scoring above the best untraced end point already
    give ``top`` hits (they come first in ``cull``'s order, which is greedy:
    later hits change nothing before them), or none is left."""
    order = [sorted(e, key=lambda x: -x[-1]) for e in ends]
    upto = [0] * len(ends)
    traced: list[list[Alignment]] = [[] for _ in ends]
    active = [k for k in range(len(ends)) if order[k]]
    take = max(1, top)
    while active:
        batch = [(k, e) for k in active for e in order[k][upto[k]:upto[k] + take]]
        for (k, _), aln in zip(batch, trace([e for _, e in batch])):
            traced[k].append(aln)
        pending = []
        for k in active:
            upto[k] = min(len(order[k]), upto[k] + take)
            if upto[k] < len(order[k]):
                best_left = order[k][upto[k]][-1]
                if len(cull([a for a in traced[k] if a.score > best_left], top, max_hsps)) < top:
                    pending.append(k)
        active = pending
        take *= 2
    return traced


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
        ``on_progress(cells)`` as the end-point search advances."""
        queries, genome = list(queries), list(genome)
        if top < 1:
            raise InputError("must be at least 1", param="top")
        if max_hsps is not None:
            check_max_hsps(max_hsps)
        sc = self.scoring
        sc.check_sequences(list(queries) + genome)
        signs = strands_for(strand, sc.alphabet)
        if not genome or not queries:
            return [ScanResult(q, []) for q in queries]
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
        per_query_ends: list[list[tuple]] = [[] for _ in queries]
        for (k, sign, q), (cols, scores) in zip(oriented_queries, found):
            per_query_ends[k].extend((q, sign, col, score) for col, score in zip(cols.tolist(), scores.tolist()))
        span_of = lambda m, score: span_bound(m, sc.matrix.max_score, sc.gap_open, sc.gap_extend, score)  # noqa: E731
        per_query = trace_best(per_query_ends, top, lambda ends: trace_ends(
            self.tracer if here else None, self.executor, self.cluster, base, genome, bounds, ends, span_of), max_hsps)
        residues = int(bounds[-1])
        out = []
        for k, q in enumerate(queries):
            hits = cull(per_query[k], top, max_hsps)
            self.statistics.annotate(hits, len(q), residues, len(genome))
            out.append(ScanResult(q, hits))
        self.score_seconds = t1 - t0
        self.traceback_seconds = time.perf_counter() - t1
        return out
