"""Alignments of scored pairs, written once for every workload: trace each
pair on the engine's tracer, check its score against the scoring pass, and
annotate E-values and bit scores for the pair's search space.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Iterator

from ..align.alignment import Alignment
from ..engines.base import Tracer
from ..io.sequence import Sequence
from ..parallel.executors import Executor
from ..scoring import Statistics

__all__ = ["PairJob", "Traceback"]


@dataclass
class PairJob:
    """One pair to align: ``expected`` is the score of the scoring pass (None:
    nothing to check); ``space`` is ``(query length, database residues,
    database sequences)`` for the statistics."""

    query: Sequence
    target: Sequence
    expected: int | None
    space: tuple[int, int, int]
    label: str = ""


class Traceback:
    """Aligns :class:`PairJob` s with one tracer and one statistics, on an executor."""

    def __init__(self, tracer: Tracer, statistics: Statistics, executor: Executor,
                 on_done: Callable[[PairJob], None] | None = None):
        self.tracer = tracer
        self.statistics = statistics
        self.executor = executor
        self.on_done = on_done

    def one(self, job: PairJob) -> Alignment:
        aln = self.tracer.align(job.query, job.target)
        if job.expected is not None and aln.score != job.expected:
            raise RuntimeError(f"{job.label or job.query.name}: traceback score {aln.score} != "
                               f"scoring pass {job.expected}; this is a bug")
        self.statistics.annotate([aln], *job.space)
        if self.on_done is not None:
            self.on_done(job)
        return aln

    def all(self, jobs: Iterable[PairJob]) -> list[Alignment]:
        """Alignments of ``jobs``, in order."""
        return self.executor.map(self.one, jobs)

    def stream(self, jobs: Iterable[PairJob]) -> Iterator[Alignment]:
        """The same, yielded as they come (bounded look-ahead)."""
        return self.executor.imap(self.one, jobs)
