"""The CUDA engine: one GPU behind the engine interface.

* database search: :class:`~swgpu.engines.cuda.search.CudaSearchEngine`
  (packed 16-bit DPX kernels, exact 32-bit re-runs);
* pair screening: :class:`~swgpu.engines.cuda.screen.CudaPairScorer`
  (bit-sliced, word-wise and group kernels);
* traceback: :class:`~swgpu.engines.cuda.traceback.CudaTracer`, many pairs
  per launch, pairs of any length in linear memory;
* scan end points: :class:`~swgpu.engines.cuda.scan.CudaGenomeScanner`; a long
  query's rows in bands over several GPUs: :class:`~swgpu.engines.cuda.scan_bands.BandedGenomeScanner`.
"""

from __future__ import annotations

from ...scoring import Scoring
from ..base import Engine
from . import runtime
from .screen import CudaPairScorer
from .search import CudaSearchEngine
from .traceback import CudaTracer

__all__ = ["CudaEngine"]


class CudaEngine(Engine):
    """GPU ``device_id`` (CuPy must see it)."""

    name = "cuda"

    def __init__(self, device_id: int = 0, threads: int | None = None):
        super().__init__(device_id, threads)
        runtime.cupy()  # EngineError when CuPy or the GPU is missing

    def tracer(self, scoring: Scoring) -> CudaTracer:
        return CudaTracer(scoring, self.device_id)

    def database_scorer(self, scoring: Scoring) -> CudaSearchEngine:
        return CudaSearchEngine(scoring.matrix.values, scoring.gap_open, scoring.gap_extend, device_id=self.device_id)

    def pair_scorer(self, scoring: Scoring, kernel: str = "auto", transpose: str = "ballot") -> CudaPairScorer:
        return CudaPairScorer(scoring, kernel, device_id=self.device_id, transpose=transpose)

    def genome_scanner(self, scoring: Scoring, method: str = "auto"):
        from .scan import CudaGenomeScanner

        return CudaGenomeScanner(scoring, self.device_id, method)

    def banded_genome_scanner(self, scoring: Scoring, devices, method: str = "auto"):
        from .scan_bands import BandedGenomeScanner

        return BandedGenomeScanner(scoring, devices, method)
