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
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence as Seq

import numpy as np

from ..align.alignment import Alignment
from ..engines import get_engine
from ..exceptions import InputError
from ..io.sequence import Sequence
from ..parallel.executors import ThreadExecutor
from ..scoring import Scoring, Statistics
from .tracing import PairJob, Traceback

__all__ = ["Screener", "ScreenResult", "KERNELS"]

KERNELS = ("auto", "bitwise", "wordwise", "group")


@dataclass(eq=False)
class ScreenResult:
    """Scores of every pair (input order) and alignments of the pairs ``>= threshold``."""

    scores: np.ndarray
    selected: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    alignments: list[Alignment] = field(default_factory=list)


class Screener:
    """Scores DNA pairs in bulk.

    ``kernel``: ``bitwise`` (bit-sliced BPBC), ``wordwise`` (one pair per
    thread on the GPU; the scalar pairwise kernel on the CPU), ``group`` (a
    group of 4..32 GPU threads per two pairs, codes packed two per byte;
    bit-sliced on the CPU) or ``auto``, the fastest measured: bit-sliced on the
    CPU, ``group`` on the GPU (BENCHMARKS.md has the measurements).
    """

    def __init__(self, scoring: Scoring, device: str = "auto", kernel: str = "auto", threads: int | None = None):
        if kernel not in KERNELS:
            raise InputError(f"unknown kernel {kernel!r}: use {', '.join(KERNELS)}", param="kernel")
        self.match, self.mismatch = scoring.match_mismatch()
        self.scoring = scoring
        self.engine = get_engine(device)
        self.device = self.engine.name
        self.kernel = kernel
        self.executor = ThreadExecutor(threads)
        self.threads = self.executor.threads
        self._scorer = self.engine.pair_scorer(scoring, kernel)
        self.last_timings = None

    def scores(self, queries: Seq[Sequence], targets: Seq[Sequence]) -> np.ndarray:
        """Best local score of each pair ``(queries[i], targets[i])``."""
        if len(queries) != len(targets):
            raise InputError(f"{len(queries)} queries but {len(targets)} targets: screen pairs record i with "
                             "record i", param="targets")
        scores = self._scorer.scores([q.codes for q in queries], [t.codes for t in targets])
        self.last_timings = self._scorer.last_timings
        return scores

    def screen(self, queries: Seq[Sequence], targets: Seq[Sequence], threshold: int | None = None) -> ScreenResult:
        """Scores of all pairs; with ``threshold``, alignments of the pairs scoring at least it."""
        scores = self.scores(queries, targets)
        if threshold is None:
            return ScreenResult(scores)
        selected = np.flatnonzero((scores >= threshold) & (scores > 0))
        trace = Traceback(self.engine.tracer(self.scoring), Statistics.for_scoring(self.scoring), self.executor)
        jobs = [PairJob(queries[i], targets[i], int(scores[i]), (len(queries[i]), len(targets[i]), 1), f"pair {i}")
                for i in selected.tolist()]
        return ScreenResult(scores, selected, trace.all(jobs))
