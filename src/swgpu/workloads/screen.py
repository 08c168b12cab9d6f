"""The ``screen`` workload: many DNA pairs (query ``i`` with target ``i``), the
best local score of each, and full alignments of the pairs scoring at least a
threshold.

Scores come from bulk kernels: bit-sliced (Bitwise Parallel Bulk Computation,
32 pairs per 32-bit word on the GPU, 64 per 64-bit word on the CPU) or
word-wise (one pair per thread). Alignments of the selected pairs use the
linear-memory traceback of :class:`~swgpu.workloads.aligner.Aligner`. Scoring must be
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

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Sequence as Seq

import numpy as np

from .aligner import Aligner
from ..align.alignment import Alignment
from ..io.alphabet import DNA
from ..engines import resolve_device
from ..exceptions import InputError, ScoringError
from ..scoring import Scoring
from ..io.sequence import Sequence
from ..scoring.statistics import Statistics

__all__ = ["Screener", "ScreenResult", "match_mismatch_of"]

KERNELS = ("auto", "bitwise", "wordwise", "group")


def match_mismatch_of(scoring: Scoring) -> tuple[int, int]:
    """``(match, mismatch)`` of a DNA match/mismatch scoring; error for anything else."""
    v = scoring.matrix.values
    if scoring.alphabet is not DNA:
        raise ScoringError("screen scores DNA pairs: use --alphabet dna")
    match, mismatch = int(v[0, 0]), int(v[0, 1])
    expected = np.full_like(v, mismatch)
    np.fill_diagonal(expected[:4, :4], match)
    if not np.array_equal(v, expected):
        raise ScoringError("screen needs match/mismatch scoring (--match/--mismatch), not a substitution matrix")
    return match, mismatch


@dataclass(eq=False)
class ScreenResult:
    """Scores of every pair (input order) and alignments of the pairs ``>= threshold``."""

    scores: np.ndarray
    selected: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    alignments: list[Alignment] = field(default_factory=list)


class Screener:
    """Scores DNA pairs in bulk.

    ``kernel``: ``bitwise`` (bit-sliced BPBC), ``wordwise`` (one pair per
    thread on the GPU; the scalar pairwise engine on the CPU), ``group`` (a
    group of 4..32 GPU threads per two pairs, codes packed two per byte;
    bit-sliced on the CPU) or ``auto``, the fastest measured: bit-sliced on the
    CPU (6-11x the scalar engine), ``group`` on the GPU.

    Measured on an H100, GCUPS end to end (copies included; SW phase in
    brackets), 2026-11-22 (BENCHMARKS.md):

    ====================================  ============  ============  ============
    pairs                                 bit-sliced    word-wise     group
    ====================================  ============  ============  ============
    GASAL2 reads, 20,000 (affine)         153 (182)     309 (416)     1621 (2653)
    32,768 random, m=128, n=8,192, lin.   2,335 (3645)  2,941 (5297)  3,377 (4504)
    32,768 random, m=128, n=65,536, lin.  2,418 (3772)  1,341 (1756)  3,415 (4512)
    ====================================  ============  ============  ============

    Word-wise has the fastest SW phase on large batches of targets up to
    16,384 long, but the group kernel's copy is half as large, so it wins end
    to end there too; on small batches only the group kernel has enough
    threads in flight.
    """

    def __init__(self, scoring: Scoring, device: str = "auto", kernel: str = "auto", threads: int | None = None):
        if kernel not in KERNELS:
            raise InputError(f"unknown kernel {kernel!r}: use {', '.join(KERNELS)}")
        self.match, self.mismatch = match_mismatch_of(scoring)
        self.scoring = scoring
        self.device = resolve_device(device)
        self.kernel = kernel
        self.threads = max(1, threads or os.cpu_count() or 1)
        self.last_timings = None

    def scores(self, queries: Seq[Sequence], targets: Seq[Sequence]) -> np.ndarray:
        """Best local score of each pair ``(queries[i], targets[i])``."""
        if len(queries) != len(targets):
            raise InputError(f"{len(queries)} queries but {len(targets)} targets: screen pairs record i with record i")
        qs = [q.codes for q in queries]
        ts = [t.codes for t in targets]
        args = (qs, ts, self.match, self.mismatch, self.scoring.gap_open, self.scoring.gap_extend)
        kernel = self.kernel
        if self.device == "cuda":
            from ..engines.cuda.screen import screen_scores_cuda_timed

            if kernel == "auto":
                kernel = "group"
            scores, self.last_timings = screen_scores_cuda_timed(*args, kernel=kernel)
            return scores
        from ..engines.cpu import bitsliced

        if kernel in ("bitwise", "group", "auto"):
            return bitsliced.screen_scores_bitsliced(*args)
        return bitsliced.screen_scores_scalar(*args)

    def screen(self, queries: Seq[Sequence], targets: Seq[Sequence], threshold: int | None = None) -> ScreenResult:
        """Scores of all pairs; with ``threshold``, alignments of the pairs scoring at least it."""
        scores = self.scores(queries, targets)
        if threshold is None:
            return ScreenResult(scores)
        selected = np.flatnonzero((scores >= threshold) & (scores > 0))
        aligner = Aligner(self.scoring, device="cpu")

        stats = Statistics.for_scoring(self.scoring)

        def one(i):
            q, t = queries[i], targets[i]
            aln = aligner.align(q, t)
            if aln.score != scores[i]:
                raise RuntimeError(f"pair {i}: traceback score {aln.score} != bulk score {scores[i]}; this is a bug")
            stats.annotate([aln], len(q), len(t), 1)
            return aln

        if self.threads == 1 or selected.size < 2:
            alignments = [one(int(i)) for i in selected]
        else:
            with ThreadPoolExecutor(self.threads) as pool:
                alignments = list(pool.map(one, (int(i) for i in selected)))
        return ScreenResult(scores, selected, alignments)
