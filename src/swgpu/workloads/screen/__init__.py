"""The ``screen`` workload: many DNA pairs scored by bulk kernels, the pairs
over a threshold aligned (:mod:`.screener`)."""

from .screener import ScreenPart, ScreenResult, Screener, pair_cells

__all__ = ["Screener", "ScreenResult", "ScreenPart", "pair_cells"]
