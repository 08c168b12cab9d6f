"""The ``screen`` workload: many DNA pairs (query ``i`` with target ``i``), the
best local score of each, and full alignments of the pairs scoring at least a
threshold.

Scores come from bulk kernels: bit-sliced (Bitwise Parallel Bulk Computation,
32 pairs per 32-bit word on the GPU, 64 per 64-bit word on the CPU) or
word-wise (one pair per thread). Alignments of the selected pairs use the
linear-memory traceback of the engine's tracer. Scoring must be
match/mismatch with linear or affine gaps.

>>> from swgpu import Scoring, Sequence
>>> qs = [Sequence.from_text("q1", "ACGTACGTAC"), Sequence.from_text("q2", "AAAA")]
>>> ts = [Sequence.from_text("t1", "TTACGTTCGTAA"), Sequence.from_text("t2", "CCCC")]
>>> scr = Screener(Scoring.default("dna"), device="cpu")
>>> scr.scores(qs, ts).tolist()
[13, 0]
>>> [a.cigar for a in scr.screen(qs, ts, threshold=10).alignments]
['4=1X4=']

Strands: ``strand="plus"`` (the default) scores each pair as given, as
GASAL2-style screening of oriented read/target pairs does; ``"both"`` also
scores the reverse complement of each query (one more pair in the same bulk
pass) and keeps, per pair, the better strand (plus on equal scores);
``"minus"`` scores the reverse complement only.

>>> both = Screener(Scoring.default("dna"), device="cpu", strand="both")
>>> result = both.screen([Sequence.from_text("q", "GTACGTTGCA")], [Sequence.from_text("t", "TTTGCAACGTACTT")], 10)
>>> result.scores.tolist(), result.strands.tolist(), result.alignments[0].strand
([20], ['-'], '-')
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Iterable, Iterator
from typing import Sequence as Seq

import numpy as np

from ...align.alignment import Alignment
from ...align.batch import AlignmentBatch
from ...engines import get_engine
from ...engines.bulk import PairBatch
from ...engines.kernel_names import check_kernel
from ...exceptions import InputError
from ...io.sequence import Sequence
from ...io.sequence_batch import SequenceBatch
from ...parallel.executors import ThreadExecutor
from ...scoring import Scoring, Statistics
from ..limits import check_pairs
from ..strands import both_strands, strands_for
from ..tracing import Traceback

__all__ = ["Screener", "ScreenResult", "ScreenPart", "pair_cells"]


@dataclass(eq=False)
class ScreenResult:
    """Scores of every pair (input order), the strand of each score (``"+"`` or
    ``"-"``), and the alignments of the pairs ``>= threshold`` (``selected``,
    in order): as columns (``batch``, an :class:`~swgpu.align.batch.AlignmentBatch`
    whose query and target indexes are the pairs') and as
    :class:`~swgpu.align.alignment.Alignment` objects (``alignments``, made
    from the batch when first asked for)."""

    scores: np.ndarray
    selected: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    strands: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype="<U1"))
    batch: AlignmentBatch | None = None
    _sources: tuple | None = field(default=None, repr=False)
    _alignments: list | None = field(default=None, repr=False)
    #: each pair's ``(score, end row, end column)`` where the scorer found them (for the traceback), else None
    ends: np.ndarray | None = field(default=None, repr=False)

    @property
    def sources(self) -> tuple | None:
        """The queries and targets (two :class:`~swgpu.io.sequence_batch.SequenceBatch`) the
        batch indexes (None for a result without a threshold)."""
        return None if self._sources is None else self._sources[:2]

    @property
    def alignments(self) -> list[Alignment]:
        if self._alignments is None:
            self._alignments = [] if self.batch is None else self.batch.alignments(*self._sources)
        return self._alignments


def _lengths(seqs) -> np.ndarray:
    if isinstance(seqs, SequenceBatch):
        return seqs.lengths
    return np.fromiter((len(s.text) for s in seqs), dtype=np.int64, count=len(seqs))


def _check_counts(queries: Seq[Sequence], targets: Seq[Sequence]) -> None:
    if len(queries) != len(targets):
        raise InputError(f"{len(queries)} queries but {len(targets)} targets: screen pairs record i with record i",
                         param="targets")


def pair_cells(queries: Seq[Sequence], targets: Seq[Sequence]) -> int:
    """DP cells of the pairs ``(queries[i], targets[i])``: the sum of their length products."""
    _check_counts(queries, targets)
    return int(np.dot(_lengths(queries), _lengths(targets)))


class Screener:
    """Scores DNA pairs in bulk.

    ``kernel``: ``bitwise`` (bit-sliced BPBC), ``wordwise`` (one pair per
    thread on the GPU; the scalar pairwise kernel on the CPU), ``group`` (a
    group of 4..32 GPU threads per two pairs, codes packed two per byte;
    bit-sliced on the CPU) or ``auto``, the fastest: on the CPU, per batch of
    pairs by a measured cost model (bit-sliced for many short pairs of one
    shape, scalar for long or uneven ones), ``group`` on the GPU
    (BENCHMARKS.md has the measurements).
    ``strand``: ``plus`` (default), ``both`` or ``minus`` (see the module docs).
    ``gpus``: the GPU ids of an accelerator device (default: GPU 0); with
    several, :meth:`stream` spreads its parts over them. ``traced``: alignments
    will be asked for, so the tracing kernels start loading now, beside the
    scoring's, not after the first part is scored.
    """

    def __init__(self, scoring: Scoring, device: str = "auto", kernel: str = "auto", threads: int | None = None,
                 strand: str = "plus", gpus: list[int] | None = None, traced: bool = False):
        check_kernel(kernel)
        self.match, self.mismatch = scoring.match_mismatch()
        self.strand = strand
        self._signs = strands_for(strand, scoring.alphabet)
        self.scoring = scoring
        gpus = list(dict.fromkeys(gpus or [0]))
        self.engine = get_engine(device, gpus[0], threads=threads)
        self.device = self.engine.name
        self.kernel = kernel
        self.executor = ThreadExecutor(threads)
        self.threads = self.executor.threads
        self._scorer = self.engine.pair_scorer(scoring, kernel)
        #: ``(engine, pair scorer)`` of every GPU a stream's parts go to (one: the parts are pipelined on it)
        self.lanes = [(self.engine, self._scorer)]
        if self.engine.accelerator:
            for d in gpus[1:]:
                engine = get_engine(device, d, threads=threads)
                self.lanes.append((engine, engine.pair_scorer(scoring, kernel)))
        self._tracers: dict = {}  # each lane's engine's tracer, made once (:meth:`_tracer`)
        if traced:  # (a tracer made now starts loading its kernels -- compiling them on a machine's first run)
            for engine, _ in self.lanes:
                self._tracer(engine)
        self.last_timings = None
        #: Wall seconds of the last :meth:`screen`: ``score`` and ``traceback``.
        self.seconds: dict = {}
        #: Seconds of each stage of the last :meth:`stream`, added over its parts: ``read``
        #: (waited for), ``score``, ``traceback``.
        self.busy: dict = {}

    def scores(self, queries: Seq[Sequence], targets: Seq[Sequence]) -> np.ndarray:
        """Best local score of each pair ``(queries[i], targets[i])`` (on the better strand with ``both``)."""
        return self._strand_scores(queries, targets)[0]

    def _strand_scores(self, queries: Seq[Sequence], targets: Seq[Sequence],
                       scorer=None, ends: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Scores and their strands (``"+"``/``"-"``), one bulk pass for all strands; with
        ``ends``, each score's end cell where the scorer finds it (``scores_and_ends``), else None."""
        _check_counts(queries, targets)
        check_pairs(self.scoring, _lengths(queries), _lengths(targets))
        scorer = scorer or self._scorer
        if isinstance(queries, SequenceBatch) and isinstance(targets, SequenceBatch):
            # codes already end to end: scored as they lie (the reverse complements made by array
            # passes), no Sequence objects made
            qcodes, qoff = both_strands(queries.codes, queries.offsets, self._signs)
            tcodes, toff = both_strands(targets.codes, targets.offsets, ("+",) * len(self._signs))
            pairs = PairBatch(qcodes, qoff, tcodes, toff)
            raw, found = scorer.scores_and_ends(pairs) if ends and hasattr(scorer, "scores_and_ends") \
                else (scorer.scores(pairs), None)
        else:  # (objects, from the Python API: the traceback finds the ends itself)
            qs = [q.codes if sign == "+" else q.reverse_complement().codes for sign in self._signs for q in queries]
            raw, found = scorer.scores(qs, [t.codes for _ in self._signs for t in targets]), None
        self.last_timings = scorer.last_timings
        n = len(queries)
        if len(self._signs) == 1:
            return raw, np.full(n, self._signs[0], dtype="<U1"), found
        minus = raw[n:] > raw[:n]
        if found is not None:
            found = np.where(minus[:, None], found[n:], found[:n])
        return np.where(minus, raw[n:], raw[:n]), np.where(minus, "-", "+"), found

    def screen(self, queries: Seq[Sequence], targets: Seq[Sequence], threshold: int | None = None) -> ScreenResult:
        """Scores of all pairs; with ``threshold``, alignments of the pairs scoring at least it."""
        result = self.scored(queries, targets, threshold)
        if threshold is None:
            return result
        result.batch = AlignmentBatch.concat(list(self.traced(result)))
        return result

    def scored(self, queries: Seq[Sequence], targets: Seq[Sequence], threshold: int | None = None,
               scorer=None) -> ScreenResult:
        """:meth:`screen` without the alignments: the scores, and with ``threshold``
        the pairs selected (:meth:`traced` gives their alignments). ``scorer``:
        a pair scorer of :attr:`lanes` (default the first GPU's)."""
        t0 = time.perf_counter()
        scores, strands, ends = self._strand_scores(queries, targets, scorer, ends=threshold is not None)
        self.seconds = {"score": time.perf_counter() - t0}
        if threshold is None:
            return ScreenResult(scores, strands=strands)
        selected = np.flatnonzero((scores >= threshold) & (scores > 0))
        if not isinstance(queries, SequenceBatch):
            queries = SequenceBatch.from_sequences(list(queries)) if len(queries) else _empty_batch(self.scoring)
        if not isinstance(targets, SequenceBatch):
            targets = SequenceBatch.from_sequences(list(targets)) if len(targets) else _empty_batch(self.scoring)
        return ScreenResult(scores, selected, strands, None, (queries, targets, self.scoring), ends=ends)

    def stream(self, parts: Iterable[tuple[Seq[Sequence], Seq[Sequence]]],
               threshold: int | None = None, render=None) -> Iterator[ScreenPart]:
        """:meth:`screen` of a stream of parts (pairs of query and target lists,
        as :func:`~swgpu.io.chunks.paired_batches` reads them), in order: while
        the caller handles a part, the next is traced and the one after it
        read and scored, on two threads (on the CPU with one thread, ``threads=1``:
        one after the other, on one). :attr:`busy` adds up the seconds of
        each stage. With several :attr:`lanes` (GPUs), each GPU's thread takes
        the next part as it comes free, scores and traces it there; the parts
        are handed out in order (:func:`~.lanes.stream_lanes`), and ``render``
        (a function of a part, e.g. the bytes it will be written as) is called
        on a pool beside the GPUs' threads, its result kept as the part's
        ``rendered`` (with one GPU the caller's thread is not the busiest: it
        is not called)."""
        if len(self.lanes) > 1:
            from .lanes import stream_lanes

            yield from stream_lanes(self, parts, threshold, render)
            return
        busy = self.busy = {"read": 0.0, "score": 0.0, "traceback": 0.0}
        source = iter(parts)

        def next_part():
            t0 = time.perf_counter()
            got = next(source, None)
            busy["read"] += time.perf_counter() - t0
            return got

        def score_step(start: int):  # (on a thread: read the part and score it)
            pair = next_part()
            if pair is None:
                return None
            t0 = time.perf_counter()
            result = self.scored(pair[0], pair[1], threshold)
            busy["score"] += time.perf_counter() - t0
            return pair, start, result

        def trace_step(item) -> ScreenPart:  # (on another: trace the part scored before)
            (queries, targets), start, result = item
            batch = None
            if threshold is not None:
                t0 = time.perf_counter()
                batch = AlignmentBatch.concat(list(self.traced(result)))
                busy["traceback"] += time.perf_counter() - t0
                queries, targets = result.sources
            return ScreenPart(queries, targets, start, result, batch)

        scorer = ThreadPoolExecutor(1, thread_name_prefix="swgpu-score")
        # (one thread of the CPU asked for: a part's tracing waits for the next part's scoring, not beside it)
        one_core = not self.engine.accelerator and self.threads == 1
        tracer = scorer if one_core else ThreadPoolExecutor(1, thread_name_prefix="swgpu-part")
        scoring = scorer.submit(score_step, 0)
        try:
            tracing = None
            while True:  # part k scored, k - 1 traced, k - 2 handled by the caller, at once
                item = scoring.result()
                following = None
                if item is not None:
                    scoring = scorer.submit(score_step, item[1] + len(item[0][0]))
                    following = tracer.submit(trace_step, item)
                if tracing is not None:
                    yield tracing.result()
                if following is None:
                    return
                tracing = following
        finally:
            for pool in {scorer, tracer}:
                pool.shutdown(wait=False, cancel_futures=True)
            close = getattr(source, "close", None)
            if close is not None and scoring.done():
                close()

    #: Pairs traced together by :meth:`traced` (one traceback batch; the next is traced while one is written).
    chunk = 1 << 18
    #: Batches of a part traced at once by a tracer that can (a GPU's).
    tracers = 2

    def _tracer(self, engine):
        """``engine``'s tracer of this scoring, made the first time it is asked for."""
        tracer = self._tracers.get(engine)
        if tracer is None:
            tracer = self._tracers[engine] = engine.tracer(self.scoring)
        return tracer

    def traced(self, result: ScreenResult, engine=None) -> Iterator[AlignmentBatch]:
        """The alignments of ``result``'s selected pairs (:meth:`scored`), in order,
        at most :attr:`chunk` pairs a batch: the next batch is traced on a thread of its
        own while the caller handles one, so that tracing and writing overlap (with
        a GPU's tracer, two batches a part, traced at once).
        ``engine``: one of :attr:`lanes` (default the first GPU's)."""
        queries, targets = result.sources
        trace = Traceback(self._tracer(engine or self.engine), Statistics.for_scoring(self.scoring),
                          self.executor, scoring=self.scoring)
        sel = result.selected
        qlen, tlen = queries.lengths[sel], targets.lengths[sel]
        minus = result.strands[sel] == "-"
        expected = result.scores[sel]
        ends = None if result.ends is None else result.ends[sel]

        def one(a: int, b: int) -> AlignmentBatch:
            part = sel[a:b]
            return trace.columns(queries, targets, part, part, expected[a:b], minus[a:b],
                                 (qlen[a:b], tlen[a:b], np.ones(b - a, np.int64)), label=lambda k: f"pair {part[k]}",
                                 ends=None if ends is None else ends[a:b])

        # a tracer that traces on several threads at once (a GPU's) gets two batches of a part together:
        # the GPU's kernels of one run while the host works on the other
        tracers = self.tracers if getattr(trace.tracer, "concurrent", False) else 1
        size = min(self.chunk, max(self.chunk // 8, -(-sel.size // tracers)))
        cuts = list(range(0, sel.size, size)) + [sel.size]
        spans = list(zip(cuts[:-1], cuts[1:])) or [(0, 0)]
        pool = ThreadPoolExecutor(tracers, thread_name_prefix="swgpu-trace")
        window = max(2, tracers)  # batches submitted and not yet handed over (one thread: the next one queued)
        try:
            ahead = [pool.submit(one, *span) for span in spans[:window - 1]]
            for k in range(len(spans)):
                if k + window - 1 < len(spans):
                    ahead.append(pool.submit(one, *spans[k + window - 1]))
                yield ahead[k].result()
                ahead[k] = None
                self.seconds["traceback"] = trace.seconds
        finally:  # (stopped early -- an error, an interrupt, the caller closing it: the next batch is dropped)
            pool.shutdown(wait=False, cancel_futures=True)


@dataclass(eq=False)
class ScreenPart:
    """One part of a streamed screen (:meth:`Screener.stream`): its pairs
    (``queries[k]`` with ``targets[k]``, pair ``first + k`` of the whole
    input), their :class:`ScreenResult` and, with a threshold, the alignments
    of the selected pairs (``batch``, indexed within the part); ``rendered``:
    what :meth:`Screener.stream`'s ``render`` made of it, if it was called."""

    queries: Seq[Sequence]
    targets: Seq[Sequence]
    first: int
    result: ScreenResult
    batch: AlignmentBatch | None
    rendered: object = None


def _empty_batch(scoring: Scoring) -> SequenceBatch:
    return SequenceBatch([], [], [], np.zeros(0, np.uint8), np.zeros(1, np.int64), scoring.alphabet)
