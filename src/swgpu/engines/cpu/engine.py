"""The CPU engine: Numba kernels behind the engine interface.

* database search: :class:`~swgpu.engines.cpu.search.CpuSearchEngine`
  (inter-sequence 16-bit lanes, exact 32-bit re-runs);
* pair screening: the bit-sliced kernel (64 pairs per word) or the scalar
  pairwise kernel, :mod:`swgpu.engines.cpu.bitsliced`;
* traceback: the pairwise kernels of :mod:`swgpu.engines.cpu.pairwise`.
"""

from __future__ import annotations

import numpy as np

from ...exceptions import InputError
from ...scoring import Scoring
from ..base import Engine
from . import bitsliced, pairwise
from .search import CpuSearchEngine

__all__ = ["CpuEngine", "CpuPairScorer"]

#: Pair-scoring kernels: ``bitwise`` (bit-sliced), ``wordwise`` (scalar, one
#: pair at a time); ``group`` and ``auto`` run the bit-sliced kernel, the
#: fastest here (6-11x the scalar one, BENCHMARKS.md).
PAIR_KERNELS = ("auto", "bitwise", "wordwise", "group")


class CpuPairScorer:
    """Best local score of DNA pairs on the CPU (a :class:`~swgpu.engines.base.PairScorer`)."""

    def __init__(self, scoring: Scoring, kernel: str = "auto"):
        if kernel not in PAIR_KERNELS:
            raise InputError(f"unknown kernel {kernel!r}: use {', '.join(PAIR_KERNELS)}", param="kernel")
        self.match, self.mismatch = scoring.match_mismatch()
        self.gap_open, self.gap_extend = scoring.gap_open, scoring.gap_extend
        self.kernel = kernel
        self.last_timings = None

    def scores(self, queries, targets) -> np.ndarray:
        fn = bitsliced.screen_scores_scalar if self.kernel == "wordwise" else bitsliced.screen_scores_bitsliced
        return fn(queries, targets, self.match, self.mismatch, self.gap_open, self.gap_extend)


class CpuEngine(Engine):
    """All CPU cores (Numba releases the GIL; search kernels run in parallel)."""

    name = "cpu"

    def database_scorer(self, scoring: Scoring) -> CpuSearchEngine:
        return CpuSearchEngine(scoring.matrix.values, scoring.gap_open, scoring.gap_extend)

    def pair_scorer(self, scoring: Scoring, kernel: str = "auto", transpose: str = "ballot") -> CpuPairScorer:
        return CpuPairScorer(scoring, kernel)  # no transpose on the CPU

    def traceback_kernels(self):
        return pairwise
