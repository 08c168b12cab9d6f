"""Alignments of scored pairs, written once for every workload: trace each
pair on the engine's tracer (on the strand the job names), check its score
against the scoring pass, and annotate E-values and bit scores for the pair's
search space.

Long targets
------------
A target longer than :attr:`Traceback.long_target` (a chromosome in a search
database) is traced on overlapping windows, so memory stays bounded by the
window instead of growing with the target. Any local alignment that scores
above 0 spans at most ``span = m + m * max // gap_extend + 1`` target residues
(``m`` the query length, ``max`` the largest matrix entry: each gap column
costs at least ``gap_extend``; :mod:`swgpu.align.span`), so windows of ``stride + span - 1`` residues
every ``stride`` residues each hold every alignment that starts in their
first ``stride`` residues. The best score is the best window's; the
alignment is the one of the candidate window whose end comes first in
row-major order (query end, then target end), which is the end the reference
rule picks on the whole target; its start, the latest among the optimal
alignments ending there, lies in that window too. So the result is the same
alignment as on the whole target. Without gap costs (``gap_extend == 0``) no
span is bounded and the whole target is traced.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

import numpy as np

from ..align.alignment import Alignment
from ..align.batch import AlignmentBatch
from ..align.span import alignment_span, window_geometry
from ..engines.base import Tracer
from ..io.sequence import Sequence
from ..io.sequence_batch import SequenceBatch
from ..parallel.executors import Executor
from ..scoring import Scoring, Statistics
from .strands import oriented, reverse_complements

__all__ = ["PairJob", "Traceback", "further_alignments", "statistics_floors", "with_further"]


@dataclass
class PairJob:
    """One pair to align: ``expected`` is the score of the scoring pass (None:
    nothing to check); ``space`` is ``(query length, database residues,
    database sequences)`` for the statistics. ``query`` is given as read;
    ``strand`` is ``"+"`` (align it), ``"-"`` (align its reverse complement)
    or ``"both"`` (the strand scoring higher, ``"+"`` on ties)."""

    query: Sequence
    target: Sequence
    expected: int | None
    space: tuple[int, int, int]
    label: str = ""
    strand: str = "+"


def _oriented(queries: SequenceBatch, index: np.ndarray, strand: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                                                     np.ndarray]:
    """The codes of ``queries`` with, after them, the reverse complements of the
    queries ``index[k]`` whose ``strand[k]`` is 1; their offsets; and where the
    codes of pair ``k``'s query (as aligned) are among them."""
    minus = np.flatnonzero(strand == 1)
    if not minus.size:
        return queries.codes, queries.offsets, index
    rc, ends = reverse_complements(queries.codes, queries.offsets, index[minus])
    codes = np.concatenate([queries.codes, rc])
    offsets = np.concatenate([queries.offsets, queries.offsets[-1] + ends[1:]])
    where = index.copy()
    where[minus] = len(queries) + np.arange(minus.size)
    return codes, offsets, where


#: Pairs whose further alignments one compiled call searches (a task of the executor).
FURTHER_PAIRS = 32


def statistics_floors(statistics: Statistics, jobs: list[PairJob], alignments: list[Alignment],
                      evalue: float) -> np.ndarray:
    """Each job's least score of a further alignment within ``evalue`` by the
    ``statistics`` of its search space (:func:`~swgpu.align.hsps.least_scores`)."""
    from ..align.hsps import least_scores

    if not jobs:
        return np.zeros(0, dtype=np.int64)
    spaces = tuple(np.array(x, dtype=np.int64) for x in zip(*(job.space for job in jobs)))
    return least_scores(lambda s: statistics.columns(s, spaces)[0], [a.score for a in alignments], evalue)


def further_alignments(jobs: list[PairJob], alignments: list[Alignment], scoring: Scoring, statistics: Statistics,
                       executor: Executor, count: int, evalue: float | None = None,
                       floors: np.ndarray | None = None) -> list[list[Alignment]]:
    """Up to ``count`` more alignments of each job's pair after its alignment
    (:func:`~swgpu.align.hsps.next_alignments`: none shares an aligned pair
    with one before it), on the strand of that alignment, best first, with
    statistics for the job's search space; those with an E-value above
    ``evalue`` are left out. ``floors``: each pair's least score of a further
    alignment that counts (its E-value within a caller's threshold); the
    search for a pair's further alignments stops below it. With ``evalue``
    and no ``floors``, those of the statistics. Computed on the host, the
    same for every engine; pairs in parallel on ``executor``."""
    from ..align.hsps import next_alignments_many

    if floors is None and evalue is not None:
        floors = statistics_floors(statistics, jobs, alignments, evalue)
    floors = np.ones(len(jobs), dtype=np.int64) if floors is None else np.asarray(floors, dtype=np.int64)
    todo = [k for k in range(len(jobs)) if count > 0 and not alignments[k].empty and floors[k] <= alignments[k].score]
    chunks = [todo[k:k + FURTHER_PAIRS] for k in range(0, len(todo), FURTHER_PAIRS)]

    def more(chunk: list[int]) -> list[list[Alignment]]:
        found = next_alignments_many([oriented(jobs[k].query, alignments[k].strand) for k in chunk],
                                     [jobs[k].target for k in chunk], [[alignments[k]] for k in chunk], scoring,
                                     count, floors[chunk])
        for k, each in zip(chunk, found):
            for a in each:
                a.strand = alignments[k].strand
                a.primary = False
            statistics.annotate_each(each, [jobs[k].space] * len(each))
        return found

    out: list[list[Alignment]] = [[] for _ in jobs]
    for chunk, found in zip(chunks, executor.map(more, chunks)):
        for k, each in zip(chunk, found):
            out[k] = each if evalue is None else [a for a in each if a.evalue is not None and a.evalue <= evalue]
    return out


def with_further(alignments: list[Alignment], more: list[list[Alignment]]) -> list[Alignment]:
    """Each alignment followed by its further ones (:func:`further_alignments`);
    where a pair has several, each gets ``query_covered``: the query residues
    in any of them (the union of their query intervals)."""
    out: list[Alignment] = []
    for first, rest in zip(alignments, more):
        group = [first, *rest]
        if rest:
            spans = sorted((a.query_start, a.query_end) for a in group)
            covered, end = 0, -1
            for a, b in spans:
                covered += max(0, b - max(a, end))
                end = max(end, b)
            for a in group:
                a.query_covered = covered
        out += group
    return out


def _window(target: Sequence, start: int, end: int) -> Sequence:
    return Sequence(target.name, target.text[start:end], target.codes[start:end], target.alphabet,
                    target.description)


class Traceback:
    """Aligns :class:`PairJob` s with one tracer and one statistics, on an executor.

    ``scoring`` (the tracer's) enables the windowed traceback of long targets.
    """

    #: Targets longer than this are traced on windows (when ``scoring`` is given).
    long_target = 1 << 20
    #: Least stride of those windows (at least 4 spans, so overlaps stay under a quarter);
    #: small enough that a window's rows stay in cache.
    window = 1 << 16

    def __init__(self, tracer: Tracer, statistics: Statistics, executor: Executor,
                 on_done: Callable[[PairJob], None] | None = None, scoring: Scoring | None = None):
        self.tracer = tracer
        self.statistics = statistics
        self.executor = executor
        self.on_done = on_done
        self.scoring = scoring
        #: Wall seconds spent tracing so far (for ``--timings``).
        self.seconds = 0.0

    #: Pairs handed to the tracer at once by :meth:`stream`.
    chunk = 4096

    def _finish(self, job: PairJob, aln: Alignment, sign: str) -> Alignment:
        """:meth:`_finish_all` of one alignment."""
        out: list = [None]
        self._finish_all([job], [(0, aln, sign)], out)
        return out[0]

    def _finish_all(self, jobs: list[PairJob], chosen: list[tuple[int, Alignment, str]], out: list) -> None:
        """For each ``(job index, alignment, strand)``: set the strand, check
        the score against the scoring pass and put the alignment in ``out``;
        then the statistics of all at once, and ``on_done`` (for those before
        a failing check)."""
        done: list[int] = []
        try:
            for k, aln, sign in chosen:
                job = jobs[k]
                aln.strand = sign
                if job.expected is not None and aln.score != job.expected:
                    raise RuntimeError(f"{job.label or job.query.name}: traceback score {aln.score} != "
                                       f"scoring pass {job.expected}; this is a bug")
                out[k] = aln
                done.append(k)
        finally:
            self.statistics.annotate_each([out[k] for k in done], [jobs[k].space for k in done])
            if self.on_done is not None:
                for k in done:
                    self.on_done(jobs[k])

    def one(self, job: PairJob) -> Alignment:
        t0 = time.perf_counter()
        query, sign = self._orient(job)
        aln = self._align(query, job.target)
        self.seconds += time.perf_counter() - t0
        return self._finish(job, aln, sign)

    def all(self, jobs: Iterable[PairJob]) -> list[Alignment]:
        """Alignments of ``jobs``, in order. Pairs go to the tracer as one batch
        (the GPU traces a batch per launch; the CPU spreads it over the
        executor); a job on both strands aligns both and keeps the better
        (plus on ties); long targets are traced on windows, one by one."""
        jobs = list(jobs)
        t0 = time.perf_counter()
        out: list = [None] * len(jobs)
        pairs, owners, expected = [], [], []
        windowed = self.scoring is not None  # long targets may be traced on windows
        for k, job in enumerate(jobs):
            long = windowed and len(job.target.text) > self.long_target  # (a Sequence's length: its text's)
            if long and self._windows(job.query, job.target) is not None:
                continue
            if job.strand == "both":
                pairs += [(job.query, job.target), (job.query.reverse_complement(), job.target)]
                owners.append((k, 2))
                expected += [None, None]
            else:
                pairs.append((oriented(job.query, job.strand), job.target))
                owners.append((k, 1))
                expected.append(job.expected)
        alns = self.tracer.align_many(pairs, self.executor, expected) if pairs else []
        chosen, p = [], 0
        for k, width in owners:
            if width == 2:
                plus, minus = alns[p], alns[p + 1]
                chosen.append((k, *((minus, "-") if minus.score > plus.score else (plus, "+"))))
            else:
                chosen.append((k, alns[p], jobs[k].strand))
            p += width
        self._finish_all(jobs, chosen, out)
        rest = [k for k, a in enumerate(out) if a is None]
        self.seconds += time.perf_counter() - t0
        for k, aln in zip(rest, self.executor.map(self.one, [jobs[k] for k in rest])):
            out[k] = aln
        return out

    def columns(self, queries: SequenceBatch, targets: SequenceBatch, query_index, target_index, expected,
                strand, spaces, label: Callable[[int], str] = lambda i: f"pair {i}", ends=None) -> AlignmentBatch:
        """Alignments of the pairs ``(queries[query_index[k]], targets[target_index[k]])``
        as an :class:`~swgpu.align.batch.AlignmentBatch`: the query on strand
        ``strand[k]`` (0 plus, 1 minus: its reverse complement), each traced
        score checked against ``expected[k]`` (-1: unknown; ``label(k)`` names a
        pair in the error), E-values and bit scores for the search spaces
        ``spaces`` (three arrays: query length, database residues, sequences);
        ``ends``: each pair's ``(score, end row, end column)`` where the scorer found
        them (a tracer that takes them does not look for them again).

        An engine that traces pairs packed (``trace_packed``) gets them as they
        lie, with no object per pair; otherwise (and for long targets, traced on
        windows) the pairs are aligned as :class:`PairJob` s and the results put
        in columns."""
        t0 = time.perf_counter()
        qi, ti = np.asarray(query_index, np.int64), np.asarray(target_index, np.int64)
        strand = np.asarray(strand, np.uint8)
        expected = np.asarray(expected, np.int64)
        packed = getattr(self.tracer, "trace_packed", None)
        tlen = targets.lengths[ti]
        if packed is None or (self.scoring is not None and qi.size and int(tlen.max()) > self.long_target):
            qs, ts = list(queries), list(targets)
            space_rows = list(zip(*(np.asarray(x).tolist() for x in spaces)))
            jobs = [PairJob(qs[i], ts[j], None if e < 0 else e, space, label(k), "-" if sgn else "+")
                    for k, (i, j, e, sgn, space) in enumerate(zip(qi.tolist(), ti.tolist(), expected.tolist(),
                                                                   strand.tolist(), space_rows))]
            self.seconds += time.perf_counter() - t0
            return AlignmentBatch.from_alignments(self.all(jobs), qi, ti)
        codes, offsets, where = _oriented(queries, qi, strand)
        paths = packed(codes, offsets[where], np.diff(offsets)[where], targets.codes, targets.offsets[ti], tlen,
                       expected, **({} if ends is None else {"ends": ends}))
        batch = AlignmentBatch.from_paths(codes, offsets, targets.codes, targets.offsets, where, ti, paths.i0,
                                          paths.j0, paths.ops, paths.off, paths.best, queries.alphabet.unknown_code,
                                          strand, runs=paths.runs)
        batch.query_index = qi
        wrong = np.flatnonzero((expected >= 0) & (batch.score != expected))
        if wrong.size:
            k = int(wrong[0])
            raise RuntimeError(f"{label(k)}: traceback score {int(batch.score[k])} != scoring pass "
                               f"{int(expected[k])}; this is a bug")
        batch.evalue, batch.bitscore = self.statistics.columns(batch.score, spaces)
        self.seconds += time.perf_counter() - t0
        return batch

    def stream(self, jobs: Iterable[PairJob], further: int = 0,
               evalue: float | None = None) -> Iterator[Alignment]:
        """The same, yielded in order, :attr:`chunk` pairs at a time (memory
        stays bounded); with ``further``, each alignment is followed by up to
        that many more of its pair (:func:`further_alignments`, within ``evalue``)."""
        batch: list[PairJob] = []
        for job in jobs:
            batch.append(job)
            if len(batch) >= self.chunk:
                yield from self._all_further(batch, further, evalue)
                batch = []
        if batch:
            yield from self._all_further(batch, further, evalue)

    def _all_further(self, jobs: list[PairJob], further: int, evalue: float | None) -> list[Alignment]:
        alignments = self.all(jobs)
        if further <= 0:
            return alignments
        if self.scoring is None:
            raise ValueError("further alignments need the Traceback's scoring")
        t0 = time.perf_counter()
        more = further_alignments(jobs, alignments, self.scoring, self.statistics, self.executor, further, evalue)
        self.seconds += time.perf_counter() - t0
        return with_further(alignments, more)

    def _orient(self, job: PairJob) -> tuple[Sequence, str]:
        if job.strand != "both":
            return oriented(job.query, job.strand), job.strand
        minus = job.query.reverse_complement()
        if self.score(minus, job.target) > self.score(job.query, job.target):
            return minus, "-"
        return job.query, "+"

    def _windows(self, query: Sequence, target: Sequence) -> list[tuple[int, int]] | None:
        """``(start, end)`` of the windows of a long target, or None to use it whole."""
        n = len(target)
        sc = self.scoring
        if sc is None or n <= self.long_target:
            return None
        span = alignment_span(len(query), sc.matrix.max_score, sc.gap_extend)
        if span is None:
            return None
        stride, width = window_geometry(span, self.window)
        if width >= n:
            return None
        starts = list(range(0, n - width, stride))
        starts.append(starts[-1] + stride)
        return [(a, min(n, a + width)) for a in starts]

    def score(self, query: Sequence, target: Sequence) -> int:
        """The best score of ``query`` (as given) against ``target`` (on windows when it is long)."""
        windows = self._windows(query, target)
        if windows is None:
            return self.tracer.score(query, target)
        return max(self._window_scores(query, target, windows))

    def _window_scores(self, query: Sequence, target: Sequence, windows: list[tuple[int, int]]) -> list[int]:
        return self.executor.map(lambda w: self.tracer.score(query, _window(target, *w)), windows)

    def _align(self, query: Sequence, target: Sequence) -> Alignment:
        windows = self._windows(query, target)
        if windows is None:
            return self.tracer.align(query, target)
        scores = self._window_scores(query, target, windows)
        best = max(scores)
        if best <= 0:
            return Alignment.empty_for(query, target)
        found = [w for w, s in zip(windows, scores) if s == best]
        alignments = self.executor.map(lambda w: self.tracer.align(query, _window(target, *w)), found)
        for (start, _), aln in zip(found, alignments):
            aln.target_start += start
            aln.target_end += start
            aln.target_length = len(target)
        return min(alignments, key=lambda a: (a.query_end, a.target_end))
