"""The ``align`` workload: pairs of sequences aligned with full traceback in
linear memory -- one pair (:class:`Aligner`) or every query against every
target (:func:`align_all`).

>>> from swgpu import Scoring, Sequence
>>> aligner = Aligner(Scoring.default("protein"))
>>> a = aligner.align("MKTAYIAKQRQISFVKSHFSRQ", "MKTAYIAKQRQISFVKSHFSRQ")
>>> a.score, a.cigar, a.identity
(109, '22=', 1.0)
>>> aligner.score("HEAGAWGHEE", "PAWHEAE")
17
>>> qs = [Sequence.from_text("q1", "ACGTACGTAC")]
>>> ts = [Sequence.from_text("t1", "TTACGTTCGTAA"), Sequence.from_text("t2", "GGGG")]
>>> [(a.target, a.score) for a in align_all(qs, ts, Scoring.default("dna"))]
[('t1', 13), ('t2', 2)]

DNA pairs are aligned on both strands by default (``strand="both"``, as
BLASTN): each pair is scored with the query and with its reverse complement
and the better strand is aligned and reported, once (``"+"`` on equal
scores); minus-strand alignments have ``strand == "-"``. ``"plus"`` or
``"minus"`` align one strand. Protein has one strand (``"both"`` means plus).

>>> minus = Aligner(Scoring.default("dna")).align("GTACGTTGCA", "TTTGCAACGTACTT")
>>> minus.strand, minus.score, minus.query_start, minus.target_start
('-', 20, 0, 2)
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterator, Sequence as Seq

import numpy as np

from ...align.alignment import Alignment
from ...align.batch import AlignmentBatch
from ...engines import get_engine
from ...io.sequence import Sequence
from ...io.sequence_batch import SequenceBatch
from ...parallel.executors import ThreadExecutor
from ...scoring import Scoring, Statistics
from ..limits import check_int32, check_max_hsps, check_pairs
from ..strands import job_strand, oriented, strands_for
from ..tracing import PairJob, Traceback

__all__ = ["Aligner", "align_all", "align_batches"]


class Aligner:
    """Aligns pairs of sequences with one scoring scheme on one engine.

    Traceback runs in linear memory (Myers-Miller divide and conquer), so a
    pair of two 100 kbp sequences aligns in well under 2 GB.

    Parameters
    ----------
    scoring:
        Matrix and gap penalties; defaults to :meth:`Scoring.default` for the
        alphabet of the first pair aligned.
    device:
        ``auto``, ``cpu`` or ``cuda`` (engines without traceback kernels trace
        on the CPU engine).
    strand:
        ``both`` (default: the better strand of each DNA pair), ``plus`` or
        ``minus``; see the module docs.
    """

    def __init__(self, scoring: Scoring | None = None, device: str = "auto", strand: str = "both"):
        if scoring is not None:
            strands_for(strand, scoring.alphabet)
        self.scoring = scoring
        self.strand = strand
        self.engine = get_engine(device)
        self.device = self.engine.name
        self._tracers: dict[int, Traceback] = {}  # by id() of a scoring this aligner keeps alive
        self._defaults: dict[str, Scoring] = {}  # Scoring.default per alphabet, when no scoring is given

    def _prepare(self, query: Sequence | str, target: Sequence | str) -> tuple[PairJob, Traceback]:
        alphabet = self.scoring.alphabet if self.scoring is not None else None
        if isinstance(query, str):
            query = Sequence.from_text("query", query, alphabet)
        if isinstance(target, str):
            target = Sequence.from_text("target", target, alphabet or query.alphabet)
        scoring = self.scoring
        if scoring is None:
            if query.alphabet.name not in self._defaults:
                self._defaults[query.alphabet.name] = Scoring.default(query.alphabet)
            scoring = self._defaults[query.alphabet.name]
        scoring.check_sequences((query, target), "; give a matching alphabet or matrix")
        check_int32(scoring, min(len(query), len(target)), len(query) + len(target))
        trace = self._tracers.get(id(scoring))
        if trace is None:
            # no statistics: a single pair has no search space; threads for the windows of long targets
            trace = Traceback(self.engine.tracer(scoring), Statistics(None), ThreadExecutor(), scoring=scoring)
            self._tracers[id(scoring)] = trace
        sign = job_strand(self.strand, scoring.alphabet)
        job = PairJob(query, target, None, (len(query), len(target), 1), strand=sign)
        return job, trace

    def align(self, query: Sequence | str, target: Sequence | str) -> Alignment:
        """The optimal local alignment (score 0 and an empty alignment if none scores > 0)."""
        job, trace = self._prepare(query, target)
        return trace.one(job)

    def score(self, query: Sequence | str, target: Sequence | str) -> int:
        """The optimal local score only (O(n)-memory passes, one per strand)."""
        job, trace = self._prepare(query, target)
        signs = ("+", "-") if job.strand == "both" else (job.strand,)
        return max(trace.score(oriented(job.query, sign), job.target) for sign in signs)


def align_all(
    queries: Seq[Sequence],
    targets: Seq[Sequence],
    scoring: Scoring,
    device: str = "auto",
    threads: int | None = None,
    on_done: Callable[[int], None] | None = None,
    strand: str = "both",
    max_hsps: int = 1,
) -> Iterator[Alignment]:
    """Yield the alignment of each (query, target) pair, query-major, in input order.

    Pairs run on ``threads`` CPU threads (the kernels release the GIL); empty
    alignments (score 0) are yielded too. ``on_done(cells)`` is called after each
    pair with its number of DP cells (for progress bars). With statistics for the
    scoring (see :mod:`swgpu.scoring.statistics`), E-values use the pair's lengths as the
    search space. ``strand``: ``both`` (default: the better strand of each DNA
    pair, one alignment per pair), ``plus`` or ``minus``. ``max_hsps``: each
    pair's alignment is followed by up to ``max_hsps - 1`` further ones
    (:mod:`swgpu.align.hsps`: none shares an aligned pair with one before it;
    ``primary`` false), on the strand of the first.
    """
    check_max_hsps(max_hsps)
    aligner = Aligner(scoring, device=device, strand=strand)  # errors surface here, before any output
    sign = job_strand(strand, scoring.alphabet)
    if queries and targets:
        check_pairs(scoring, [max(len(q) for q in queries)], [max(len(t) for t in targets)])
    done = (lambda job: on_done(len(job.query) * len(job.target))) if on_done is not None else None
    trace = Traceback(aligner.engine.tracer(scoring), Statistics.for_scoring(scoring), ThreadExecutor(threads), done,
                      scoring=scoring)
    jobs = [PairJob(q, t, None, (len(q), len(t), 1), strand=sign) for q in queries for t in targets]
    return trace.stream(jobs, further=max_hsps - 1)


#: DP cells of the pairs traced together by :func:`align_batches` (about).
BATCH_CELLS = 1 << 30


def align_batches(
    queries: Seq[Sequence],
    targets: Seq[Sequence],
    scoring: Scoring,
    device: str = "auto",
    threads: int | None = None,
    on_done: Callable[[int], None] | None = None,
    strand: str = "both",
) -> Iterator[AlignmentBatch]:
    """:func:`align_all` as columns: the alignments of every (query, target)
    pair, query-major, in :class:`~swgpu.align.batch.AlignmentBatch` es whose
    ``query_index`` and ``target_index`` point into ``queries`` and
    ``targets``; the same alignments, E-values and tie rule (on both strands
    the better, plus on equal scores). The pairs of a batch are traced
    together (about :data:`BATCH_CELLS` cells), the next batch on a thread of its
    own while the caller handles one. ``on_done(cells)`` after each batch.
    Errors of the input (lengths, alphabet, device) are raised here, before the first batch."""
    Aligner(scoring, device=device, strand=strand)  # errors surface here, before any output
    sign = job_strand(strand, scoring.alphabet)
    qb = queries if isinstance(queries, SequenceBatch) else SequenceBatch.from_sequences(list(queries))
    tb = targets if isinstance(targets, SequenceBatch) else SequenceBatch.from_sequences(list(targets))
    if not len(qb) * len(tb):
        return (b for b in ())
    check_pairs(scoring, [int(qb.lengths.max())], [int(tb.lengths.max())])
    trace = Traceback(get_engine(device, threads=threads).tracer(scoring), Statistics.for_scoring(scoring),
                      ThreadExecutor(threads), scoring=scoring)
    return _traced(trace, qb, tb, sign, on_done)


def _traced(trace: Traceback, qb: SequenceBatch, tb: SequenceBatch, sign: str,
            on_done: Callable[[int], None] | None) -> Iterator[AlignmentBatch]:
    n, nt = len(qb) * len(tb), len(tb)
    mean = max(1.0, float(qb.lengths.mean()) * float(tb.lengths.mean()))
    step = int(min(max(BATCH_CELLS // mean, 256), 1 << 17))

    def one(a: int, b: int) -> AlignmentBatch:
        k = np.arange(a, b, dtype=np.int64)
        qi, ti = k // nt, k % nt
        m = b - a
        spaces = (qb.lengths[qi], tb.lengths[ti], np.ones(m, np.int64))
        if sign == "both":  # both strands traced, the better kept (plus on equal scores)
            both = trace.columns(qb, tb, np.concatenate([qi, qi]), np.concatenate([ti, ti]), np.full(2 * m, -1),
                                 np.repeat(np.array([0, 1], np.uint8), m), tuple(np.concatenate([x, x]) for x in spaces),
                                 label=lambda j: f"pair {a + j % m}")
            pick = np.arange(m) + np.where(both.score[m:] > both.score[:m], m, 0)
            batch = both.take(pick)
        else:
            batch = trace.columns(qb, tb, qi, ti, np.full(m, -1), np.full(m, sign == "-", np.uint8), spaces,
                                  label=lambda j: f"pair {a + j}")
        if on_done is not None:
            on_done(int(np.dot(spaces[0], spaces[1])))
        return batch

    cuts = list(range(0, n, step)) + [n]
    spans = list(zip(cuts[:-1], cuts[1:]))
    pool = ThreadPoolExecutor(1, thread_name_prefix="swgpu-trace")
    try:
        ahead = pool.submit(one, *spans[0])
        for k in range(len(spans)):
            batch = ahead.result()
            if k + 1 < len(spans):
                ahead = pool.submit(one, *spans[k + 1])
            yield batch
    finally:  # (stopped early: the next batch is dropped)
        pool.shutdown(wait=False, cancel_futures=True)
