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
"""

from __future__ import annotations

from typing import Callable, Iterator, Sequence as Seq

from ..align.alignment import Alignment
from ..engines import Tracer, get_engine
from ..exceptions import InputError
from ..io.sequence import Sequence
from ..parallel.executors import ThreadExecutor
from ..scoring import Scoring, Statistics
from .tracing import PairJob, Traceback

__all__ = ["Aligner", "align_all"]


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
    """

    def __init__(self, scoring: Scoring | None = None, device: str = "auto"):
        self.scoring = scoring
        self.engine = get_engine(device)
        self.device = self.engine.name
        self._tracers: dict[int, Tracer] = {}

    def _prepare(self, query: Sequence | str, target: Sequence | str) -> tuple[Sequence, Sequence, Tracer]:
        alphabet = self.scoring.alphabet if self.scoring is not None else None
        if isinstance(query, str):
            query = Sequence.from_text("query", query, alphabet)
        if isinstance(target, str):
            target = Sequence.from_text("target", target, alphabet or query.alphabet)
        scoring = self.scoring or Scoring.default(query.alphabet)
        for s in (query, target):
            if s.alphabet is not scoring.alphabet:
                raise InputError(f"{s.name!r} is {s.alphabet.name} but the scoring is for "
                                 f"{scoring.alphabet.name}; give a matching alphabet or matrix", param="alphabet")
        tracer = self._tracers.get(id(scoring))
        if tracer is None:
            tracer = self._tracers[id(scoring)] = self.engine.tracer(scoring)
        return query, target, tracer

    def align(self, query: Sequence | str, target: Sequence | str) -> Alignment:
        """The optimal local alignment (score 0 and an empty alignment if none scores > 0)."""
        query, target, tracer = self._prepare(query, target)
        return tracer.align(query, target)

    def score(self, query: Sequence | str, target: Sequence | str) -> int:
        """The optimal local score only (one O(n)-memory pass)."""
        query, target, tracer = self._prepare(query, target)
        return tracer.score(query, target)


def align_all(
    queries: Seq[Sequence],
    targets: Seq[Sequence],
    scoring: Scoring,
    device: str = "auto",
    threads: int | None = None,
    on_done: Callable[[int], None] | None = None,
) -> Iterator[Alignment]:
    """Yield the alignment of each (query, target) pair, query-major, in input order.

    Pairs run on ``threads`` CPU threads (the kernels release the GIL); empty
    alignments (score 0) are yielded too. ``on_done(cells)`` is called after each
    pair with its number of DP cells (for progress bars). With statistics for the
    scoring (see :mod:`swgpu.scoring.statistics`), E-values use the pair's lengths as the
    search space.
    """
    aligner = Aligner(scoring, device=device)  # engine errors surface here, before any output
    tracer = aligner.engine.tracer(scoring)
    done = (lambda job: on_done(len(job.query) * len(job.target))) if on_done is not None else None
    trace = Traceback(tracer, Statistics.for_scoring(scoring), ThreadExecutor(threads), done)
    jobs = [PairJob(q, t, None, (len(q), len(t), 1)) for q in queries for t in targets]
    return trace.stream(jobs)
