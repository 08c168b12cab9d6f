"""Genome-scale ``align``: a long query (a 1 Mbp region, a bacterial genome)
against long targets (a genome, a chromosome): the best score, the top
end points, and the alignments of the best of them, in linear memory, on
one device or spread over a Dask cluster.

**End points.** For each strand, the best score of an alignment ending with
a pair at each target column is computed without storing the matrix (the
long kernels of the engines' genome scanners). A column is an end point
when it scores at least ``min_score`` and is a local maximum within
``separation`` columns of its record (higher than the ``separation``
columns before it, at least as high as those after it:
:mod:`swgpu.align.scan_rule`), so two end points are more than
``separation`` columns apart on a strand. The ``top`` best end points of
both strands are kept: by score, then plus strand first, then by genome
column.

**Alignments.** The best ``alignments`` end points are traced back: the
best alignment ending with a pair at the end point (its first query row on
ties, then the traceback's tie rules), found in the window of the target
that ends there and is as long as an alignment of the query with the end
point's score can reach (:func:`~swgpu.align.scan_rule.span_bound`: the higher
the score, the fewer gap letters it can pay for), or ``max_alignment_length``
when given (a promise that no alignment of interest is longer; it also
bounds the overlap of the parts below). An end point whose alignment does
not fit that window (its traced score falls short of the end point's) breaks
the promise: an :class:`~swgpu.exceptions.InputError` names the length an
alignment of that score may need, rather than an alignment that is not the
end point's.

**Parts.** With a Dask executor (:mod:`swgpu.parallel.dask_executor`) the
target columns are cut into parts, one task each; a part's engine reaches
back as far as an alignment can span (and ``separation`` further on both
sides), so the parts need no communication: their end points are merged
into the same top list as one process finds. Tracebacks run as tasks too.

>>> from swgpu import Scoring, Sequence
>>> q = Sequence.from_text("q", "GATTACAGATTACACCGGTT")
>>> t = Sequence.from_text("t", "TTTT" + "GATTACAGATTACACCGGTT" + "TTTTTTTT" + "GATTACAGATTACA")
>>> r = LongAligner(Scoring.default("dna"), device="cpu", separation=4).align(q, [t], top=3, alignments=1)
>>> [(e.score, e.strand, e.target_end) for e in r.end_points]
[(40, '+', 24), (28, '+', 46), (12, '-', 23)]
>>> r.alignments[0].cigar, r.best_score
('20=', 40)
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import partial
from typing import Callable, Sequence as Seq

from ...align.alignment import Alignment
from ...align.scan_rule import cap_span, pass_lead, span_bound
from ...engines import get_engine
from ...exceptions import InputError
from ...io.sequence import Sequence
from ...parallel.executors import ThreadExecutor, is_distributed
from ...scoring import Scoring
from ..genome.tasks import find_end_points, trace_ends
from ..genome.windows import TracedScoreMismatch, genome_codes, record_bounds, record_of
from ..limits import check_int32
from ..strands import oriented, strands_for

__all__ = ["LongAligner", "LongResult", "EndPoint", "SEPARATION", "TOP"]

#: Default neighbourhood of the end-point rule (target columns).
SEPARATION = 1000
#: Default number of end points kept (as the GPU-cluster method keeps 200).
TOP = 200


@dataclass
class EndPoint:
    """An end point: the best alignment ending with a pair at target column
    ``target_end - 1`` (0-based; ``target_end`` is the alignment's
    half-open end, as :attr:`Alignment.target_end`) scores ``score``."""

    score: int
    strand: str
    target: str
    target_end: int

    def to_dict(self) -> dict:
        return {"score": self.score, "strand": self.strand, "target": self.target, "target_end": self.target_end}


@dataclass(eq=False)
class LongResult:
    """End points of one query, best first, and the alignments of the first ones."""

    query: Sequence
    end_points: list[EndPoint]
    alignments: list[Alignment] = field(default_factory=list)
    #: seconds finding end points, and tracing; and making this process's
    #: genome scanner first (its kernels loaded), before the end points
    score_seconds: float = 0.0
    traceback_seconds: float = 0.0
    setup_seconds: float = 0.0

    @property
    def best_score(self) -> int:
        return self.end_points[0].score if self.end_points else 0


class LongAligner:
    """End points and alignments of long sequences (see the module docs).

    ``device``: ``auto``, ``cpu`` or ``cuda``; ``executor``: a Dask executor
    to spread the parts over (None: this process); ``separation``: the
    end-point rule's neighbourhood; ``max_alignment_length``: the longest
    alignment of interest (default: no limit but the score budget).
    """

    def __init__(self, scoring: Scoring, device: str = "auto", executor=None, threads: int | None = None,
                 separation: int = SEPARATION, max_alignment_length: int | None = None, method: str = "auto"):
        if separation < 1:
            raise InputError("must be at least 1", param="separation")
        if max_alignment_length is not None and max_alignment_length < 1:
            raise InputError("must be at least 1", param="max_alignment_length")
        self.scoring = scoring
        self.engine = get_engine(device, threads=threads)
        self.device = self.engine.name
        self.threads = threads
        self.executor = executor
        self.separation = int(separation)
        self.max_alignment_length = max_alignment_length
        self.method = method
        self._scanner = self._tracer = None  # of this process, each made on first use
        self._bands = None  # the banded scanner of several GPUs (False: none), made on first use

    def span(self, m: int, score: int = 1) -> int | None:
        """Most target letters an alignment of a query of ``m`` letters scoring
        at least ``score`` (default: any positive one) spans here."""
        sc = self.scoring
        return cap_span(span_bound(m, sc.matrix.max_score, sc.gap_open, sc.gap_extend, score),
                        self.max_alignment_length)

    def _spec(self, **kw) -> dict:
        return dict(device=self.device, scoring=self.scoring, method=self.method, threads=self.threads, **kw)

    def align(self, query: Sequence, targets: Seq[Sequence], top: int = TOP, alignments: int = 1,
              min_score: int = 1, strand: str = "both",
              on_progress: Callable[[int], None] | None = None) -> LongResult:
        """The ``top`` best end points of ``query`` along ``targets`` (records
        of one long sequence) over the strands asked, and the alignments of
        the first ``alignments`` of them."""
        if top < 1:
            raise InputError("must be at least 1", param="top")
        if alignments < 0:
            raise InputError("must be at least 0", param="alignments")
        sc = self.scoring
        targets = list(targets)
        sc.check_sequences([query] + targets)
        signs = strands_for(strand, sc.alphabet)
        if not targets or len(query) == 0:
            return LongResult(query, [])
        longest = max(len(r) for r in targets)
        check_int32(sc, min(len(query), longest), len(query) + longest)
        codes, bounds = genome_codes(targets)
        qs = [oriented(query, s) for s in signs]
        floor = max(1, int(min_score))
        ts = time.perf_counter()
        if not is_distributed(self.executor):
            self._local_scanner()
        t0 = time.perf_counter()
        found = self._end_points([q.codes for q in qs], codes, bounds, floor, top, on_progress)
        ends = []
        for sign, q, (cols, scores) in zip(signs, qs, found):
            ends += [(int(s), sign != "+", int(c), q, sign) for c, s in zip(cols.tolist(), scores.tolist())]
        ends.sort(key=lambda e: (-e[0], e[1], e[2]))
        ends = ends[:top]
        points = []
        for score, _, col, _, sign in ends:
            r = record_of(bounds, col)
            points.append(EndPoint(score, sign, targets[r].name, col - int(bounds[r]) + 1))
        t1 = time.perf_counter()
        traced = self._trace([(q, sign, col, score) for score, _, col, q, sign in ends[:alignments]], targets,
                             bounds)
        return LongResult(query, points, traced, t1 - t0, time.perf_counter() - t1, t0 - ts)

    def trace(self, query: Sequence, targets: Seq[Sequence], end_points: Seq[EndPoint],
              alignments: int | None = None) -> LongResult:
        """The alignments of the first ``alignments`` (default: all) of
        ``end_points`` of ``query`` along ``targets``, as :meth:`align` found
        them (read back from its table, say), without finding them again: the
        alignments :meth:`align` traces for them. An end point that names no
        record of ``targets``, lies past its record, or does not score what it
        says (the end points of other inputs or scoring) is an
        :class:`~swgpu.exceptions.InputError`."""
        points = list(end_points)
        wanted = points[:len(points) if alignments is None else max(0, int(alignments))]
        sc = self.scoring
        targets = list(targets)
        sc.check_sequences([query] + targets)
        if not wanted or not targets or len(query) == 0:
            return LongResult(query, points)
        longest = max(len(r) for r in targets)
        check_int32(sc, min(len(query), longest), len(query) + longest)
        bounds = record_bounds(targets)  # (no score pass: the genome's codes are not needed end to end)
        records: dict[str, int | None] = {}
        for k, r in enumerate(targets):
            records[r.name] = None if r.name in records else k  # (a name given twice names no record)
        signs = strands_for("both", sc.alphabet)
        oriented_query = {s: oriented(query, s) for s in signs}
        ends = []
        for e in wanted:
            k = records.get(e.target)
            if k is None:
                why = "twice among" if e.target in records else "not among"
                raise InputError(f"an end point of {query.name} is on {e.target!r}, a name {why} the targets")
            if e.strand not in oriented_query:
                raise InputError(f"an end point of {query.name} is on the {e.strand} strand, which "
                                 f"{sc.alphabet.name} has not")
            if not 1 <= e.target_end <= len(targets[k]):
                raise InputError(f"an end point of {query.name} ends at {e.target}:{e.target_end}, past the "
                                 f"record's {len(targets[k]):,} letters")
            ends.append((oriented_query[e.strand], e.strand, int(bounds[k]) + e.target_end - 1, e.score))
        t0 = time.perf_counter()
        try:
            traced = self._trace(ends, targets, bounds)
        except TracedScoreMismatch as exc:
            raise InputError(f"an end point of {query.name} scores {exc.traced:,}, not the {exc.score:,} given for "
                             "it: end points of other sequences or another scoring?") from None
        return LongResult(query, points, traced, 0.0, time.perf_counter() - t0)

    def _end_points(self, queries, codes, bounds, floor, keep, on_progress):
        cluster = self.executor if is_distributed(self.executor) else None
        scanner = None if cluster is not None else self._local_scanner()
        bands = self._banded(queries, bounds, floor) if cluster is not None else None
        if bands is not None:  # the GPUs of this process share the query's rows
            scanner, cluster = bands, None
        return find_end_points(scanner, cluster, self._spec(), queries, codes, bounds, [floor] * len(queries), keep,
                               on_progress, self.separation, self.max_alignment_length)

    def _banded(self, queries, bounds, floor: int):
        """For the GPUs of this process (a device executor) and a query so
        long that parts of the genome, one per GPU, would each start a lead
        (:func:`~swgpu.align.scan_rule.pass_lead`) longer than a quarter of
        the part: the engine's scanner of the query's rows in bands, one per
        GPU (every cell once), or None."""
        devices = getattr(self.executor, "devices", None)
        if not devices or len(devices) < 2 or len(set(devices)) != len(devices) or not queries \
                or self.method != "auto":
            return None
        lead = pass_lead(max(len(q) for q in queries), self.scoring, self.separation, self.max_alignment_length)
        if lead is not None and 4 * lead * len(devices) <= int(bounds[-1]):
            return None
        if self._bands is None:
            self._bands = self.engine.banded_genome_scanner(self.scoring, devices, self.method) or False
        if not self._bands or not self._bands.takes(queries, bounds, floor, None, self.separation,
                                                     self.max_alignment_length):
            return None  # (the parts over all GPUs)
        return self._bands

    def _trace(self, ends, targets, bounds) -> list[Alignment]:
        if not ends:
            return []
        cluster = self.executor if is_distributed(self.executor) else None
        tracer = None if cluster is not None else self._local_tracer()
        # on a cluster one task per alignment: the long ones are the work
        try:
            return trace_ends(tracer, ThreadExecutor(self.engine.threads), cluster, self._spec(), targets, bounds,
                              ends, self.span, per_task=1)
        except TracedScoreMismatch as exc:
            raise self._too_short(exc) from None

    def _too_short(self, exc: TracedScoreMismatch) -> Exception:
        """The error of an end point traced short: ``max_alignment_length``
        cut its window below what an alignment of its score can span (else,
        ``exc`` itself: a bug)."""
        sc, cap = self.scoring, self.max_alignment_length
        bound = partial(span_bound, exc.query_length, sc.matrix.max_score, sc.gap_open, sc.gap_extend)
        need = bound(score=exc.score)  # the window traced was as long as this, or the cap
        if cap is None or (need is not None and need <= cap):
            return exc
        at_least = "a larger value" if need is None else f"at least {need:,} (what an alignment of this query " \
                                                           f"scoring {exc.score:,} can span)"
        return InputError(f"an end point of {exc.query} scores {exc.score:,} with an alignment longer than {cap:,} "
                          f"target letters (traced within them it scores {exc.traced:,}): give {at_least}, or "
                          "leave the option out", param="max_alignment_length")

    def _local_scanner(self):
        """This process's genome scanner, made on first use."""
        if self._scanner is None:
            self._scanner = self.engine.genome_scanner(self.scoring, self.method)
        return self._scanner

    def _local_tracer(self):
        """This process's tracer, made on first use (only when an alignment is traced)."""
        if self._tracer is None:
            self._tracer = self.engine.tracer(self.scoring)
        return self._tracer
