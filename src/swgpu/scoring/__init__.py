"""Scoring: substitution matrices, gap penalties and Karlin-Altschul statistics.

Modules: :mod:`~swgpu.scoring.matrices` (:class:`ScoreMatrix`, the bundled
NCBI matrices), :mod:`~swgpu.scoring.scoring` (:class:`Scoring`),
:mod:`~swgpu.scoring.checks` (parameter checks shared with the engines),
:mod:`~swgpu.scoring.tables` (BLAST's parameter tables, a data file),
:mod:`~swgpu.scoring.karlin` (table look-ups),
:mod:`~swgpu.scoring.nucleotide` (computed ungapped DNA parameters) and
:mod:`~swgpu.scoring.statistics` (E-values, bit scores, :class:`Statistics`).
"""

from .checks import check_match_mismatch
from .matrices import MATRIX_NAMES, ScoreMatrix
from .scoring import Scoring
from .statistics import Statistics

__all__ = ["MATRIX_NAMES", "ScoreMatrix", "Scoring", "Statistics", "check_match_mismatch"]
