"""Scoring: substitution matrices, gap penalties and Karlin-Altschul statistics."""

from .scoring import MATRIX_NAMES, ScoreMatrix, Scoring
from .statistics import Statistics

__all__ = ["MATRIX_NAMES", "ScoreMatrix", "Scoring", "Statistics"]
