"""Scoring: substitution matrices, gap penalties and Karlin-Altschul statistics.

Modules: :mod:`~swgpu.scoring.matrices` (:class:`ScoreMatrix`, the bundled
NCBI matrices), :mod:`~swgpu.scoring.scoring` (:class:`Scoring`),
:mod:`~swgpu.scoring.checks` (parameter checks shared with the engines),
:mod:`~swgpu.scoring.tables` (BLAST's parameter tables, a data file),
:mod:`~swgpu.scoring.karlin` (table look-ups, matrices recognised by their
values), :mod:`~swgpu.scoring.nucleotide` and :mod:`~swgpu.scoring.ungapped`
(exact ungapped parameters), :mod:`~swgpu.scoring.simulation` (gapped
parameters of any scoring by the island method; its Numba kernel
:mod:`~swgpu.scoring.island_kernel`), :mod:`~swgpu.scoring.karlin_cache`
(their disk cache), :mod:`~swgpu.scoring.estimated` (tables, else the cached
estimate), :mod:`~swgpu.scoring.search_fit` (SSEARCH-style statistics from a
search's own scores) and :mod:`~swgpu.scoring.statistics` (E-values, bit
scores, :class:`Statistics`). docs/statistics.md describes the methods.
"""

from .checks import check_match_mismatch
from .matrices import MATRIX_NAMES, ScoreMatrix
from .scoring import Scoring
from .statistics import Statistics

__all__ = ["MATRIX_NAMES", "ScoreMatrix", "Scoring", "Statistics", "check_match_mismatch"]
