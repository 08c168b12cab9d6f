"""The CPU engine: Numba kernels with explicit SIMD vectors (:mod:`.simd`)
behind the engine interface.

* database search: :class:`~swgpu.engines.cpu.search.CpuSearchEngine`
  (one database window per lane; 8-bit lanes, exact re-runs in 16 and 32);
* pair screening: ``auto`` scores one pair per lane
  (:mod:`.screen`), or one pair per vector (:mod:`.striped`) where a batch
  would leave most lanes idle; ``bitwise`` is the bit-sliced kernel (64
  pairs per word) and ``wordwise`` the scalar row kernel, one pair at a time
  (:mod:`swgpu.engines.cpu.bitsliced`);
* traceback: :class:`~.tracer.CpuTracer` on :class:`~.tracer.SimdKernels`
  (striped passes for the score and end, the start and the global rows of the
  linear-memory recursion; the row kernels of :mod:`.pairwise` for tiny
  pairs and the small pieces solved with a direction matrix).

Threads share work queues, largest items first (:mod:`.threads`).

Every kernel is compiled once per machine and cached; the modules holding
them are imported on first use, so building an engine costs nothing.
"""

from __future__ import annotations

import numpy as np

from ...scoring import Scoring
from ..base import Engine
from ..kernel_names import check_kernel

__all__ = ["CpuEngine", "CpuPairScorer", "SPARSE_FILL"]

#: ``auto``: a batch whose real cells fill less than this share of its lanes
#: (few pairs, or very uneven ones) is scored pair by pair with the striped kernel.
SPARSE_FILL = 0.25


class CpuPairScorer:
    """Best local score of DNA pairs on the CPU (a :class:`~swgpu.engines.base.PairScorer`)."""

    def __init__(self, scoring: Scoring, kernel: str = "auto", threads: int = 1):
        check_kernel(kernel)  # auto (SIMD lanes), bitwise (bit-sliced), wordwise (scalar), group (bit-sliced here)
        self.match, self.mismatch = scoring.match_mismatch()
        self.gap_open, self.gap_extend = scoring.gap_open, scoring.gap_extend
        self.kernel = kernel
        self.threads = max(1, int(threads))
        self.last_timings = None
        #: pairs scored by each kernel in the last call (``auto`` splits them)
        self.last_kernels: dict[str, int] = {}

    def scores(self, queries, targets=None) -> np.ndarray:
        """Scores of pairs ``(queries[i], targets[i])``, or of a
        :class:`~swgpu.engines.bulk.PairBatch` given alone."""
        from ..bulk import PairBatch
        from . import bitsliced

        params = (self.match, self.mismatch, self.gap_open, self.gap_extend)
        if isinstance(queries, PairBatch):
            if self.kernel == "auto":
                return self._auto(queries, None, params)
            b = queries
            queries = np.split(b.qcodes, b.qoff[1:-1]) if len(b) else []
            targets = np.split(b.tcodes, b.toff[1:-1]) if len(b) else []
        if self.kernel == "wordwise":
            self.last_kernels = {"wordwise": len(queries)}
            return bitsliced.screen_scores_scalar(queries, targets, *params)
        if self.kernel != "auto":
            self.last_kernels = {"bitwise": len(queries)}
            return bitsliced.screen_scores_bitsliced(queries, targets, *params)
        return self._auto(queries, targets, params)

    def scores_and_ends(self, batch) -> tuple[np.ndarray, np.ndarray | None]:
        """Scores of a :class:`~swgpu.engines.bulk.PairBatch` and, from the ``auto``
        kernels, each pair's ``(score, end row, end column)`` as the tracer's end pass
        finds them (``int64``; -1 rows for empty pairs), else None: the traceback of a
        screen then starts from the ends instead of finding them again."""
        if self.kernel != "auto":
            return self.scores(batch), None
        ends = np.full((len(batch), 3), -1, dtype=np.int64)
        params = (self.match, self.mismatch, self.gap_open, self.gap_extend)
        return self._auto(batch, None, params, ends), ends

    def working_bytes(self, pairs: int, m: int, n: int) -> int:
        """Memory the kernel takes beyond the pairs themselves, for ``pairs``
        pairs of ``m`` x ``n`` letters (a lower bound)."""
        from .lanes import VEC_BYTES

        if self.kernel in ("bitwise", "group"):
            from .bitsliced import batch_bytes

            return batch_bytes(pairs, m, n, self.match)
        if self.kernel == "auto":  # a vector of query codes, H and E per query row, on each thread
            return self.threads * 3 * VEC_BYTES * m
        return 16 * (m + n)  # wordwise: one pair's rows at a time

    def _auto(self, queries, targets, params, ends=None) -> np.ndarray:
        from .screen import screen_scores_simd

        out, one = screen_scores_simd(queries, targets, *params, threads=self.threads, sparse_fill=SPARSE_FILL,
                                      ends=ends)
        self.last_kernels = {"lanes": len(out) - one, "striped": one}
        return out


class CpuEngine(Engine):
    """All CPU cores (the kernels release the GIL and share work queues)."""

    name = "cpu"

    def database_scorer(self, scoring: Scoring):
        from .search import CpuSearchEngine

        return CpuSearchEngine(scoring.matrix.values, scoring.gap_open, scoring.gap_extend, threads=self.threads)

    def pair_scorer(self, scoring: Scoring, kernel: str = "auto", transpose: str = "ballot") -> CpuPairScorer:
        return CpuPairScorer(scoring, kernel, self.threads)  # no transpose on the CPU

    def traceback_kernels(self):
        from .tracer import SimdKernels

        return SimdKernels()

    def tracer(self, scoring: Scoring):
        """:class:`~.tracer.CpuTracer` on :class:`~.tracer.SimdKernels`, with
        pieces of up to :data:`~.tracer.BASE_CELLS` solved with a direction matrix."""
        from .tracer import BASE_CELLS, CpuTracer, SimdKernels

        tracer = CpuTracer(SimdKernels(), scoring, BASE_CELLS)
        tracer.threads = self.threads
        return tracer

    def genome_scanner(self, scoring: Scoring, method: str = "auto"):
        from .scan import CpuGenomeScanner

        return CpuGenomeScanner(scoring, self.threads, method)
