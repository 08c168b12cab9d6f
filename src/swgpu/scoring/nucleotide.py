"""Ungapped Karlin-Altschul ``lambda``, ``K`` and ``H`` of DNA match/mismatch
scoring, computed exactly (BLAST computes these too rather than tabulating them).

>>> lam, K, H = nucleotide_ungapped_values(2, -3)
>>> round(lam, 3), round(K, 3), round(H, 3)
(0.634, 0.408, 0.912)
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["nucleotide_ungapped_values"]

#: Equal base frequencies: a pair matches with probability 1/4.
_P_MATCH, _P_MISMATCH = 0.25, 0.75


def nucleotide_ungapped_values(reward: int, penalty: int) -> tuple[float, float, float]:
    """``(lambda, K, H)`` of match/mismatch scoring with equal base
    frequencies (a match has probability 1/4).

    ``lambda`` solves ``(1/4) e^(lambda r) + (3/4) e^(lambda p) = 1``; ``H`` is the
    relative entropy; ``K`` follows the Karlin-Altschul formula for lattice
    scores (closed forms when a reduced score is +1 or -1, otherwise the
    series over sums of k aligned pairs). A ``ValueError`` unless
    ``reward > 0 > penalty`` and the expected score is negative.
    """
    if reward <= 0 or penalty >= 0:
        raise ValueError(f"need reward > 0 > penalty, got {reward}/{penalty}")
    mean = _P_MATCH * reward + _P_MISMATCH * penalty
    if mean >= 0:
        raise ValueError(f"reward {reward} penalty {penalty}: expected score is not negative")
    lam = _solve_lambda(reward, penalty)
    H = lam * (_P_MATCH * reward * math.exp(lam * reward) + _P_MISMATCH * penalty * math.exp(lam * penalty))
    return lam, _karlin_k(reward, penalty, lam, H, mean), H


def _solve_lambda(reward: int, penalty: int) -> float:
    """The positive root of ``(1/4) e^(lambda r) + (3/4) e^(lambda p) - 1``, by bisection."""

    def excess(lam: float) -> float:
        return _P_MATCH * math.exp(lam * reward) + _P_MISMATCH * math.exp(lam * penalty) - 1.0

    lo, hi = 0.0, math.log(1.0 / _P_MATCH) / reward  # excess < 0 on (0, lambda), > 0 at hi
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if excess(mid) < 0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi)


def _karlin_k(reward: int, penalty: int, lam: float, H: float, mean: float) -> float:
    """Karlin-Altschul ``K`` of the lattice scores ``reward`` and ``penalty``."""
    d = math.gcd(reward, -penalty)
    hi_s, lo_s = reward // d, penalty // d
    lam_d = lam * d
    one_minus = -math.expm1(-lam_d)
    if hi_s == 1 and lo_s == -1:
        return (_P_MISMATCH - _P_MATCH) ** 2 / _P_MISMATCH
    if hi_s == 1:
        return (H / lam_d) * one_minus
    if lo_s == -1:
        return (mean / d) ** 2 / (H / lam_d) * one_minus
    # sigma = sum_k (1/k) [E(e^{lambda S_k}; S_k < 0) + P(S_k >= 0)], S_k the
    # score of k aligned pairs; K = lambda e^{-2 sigma} / (H (1 - e^{-lambda})).
    step = np.zeros(hi_s - lo_s + 1)
    step[0], step[-1] = _P_MISMATCH, _P_MATCH
    dist = np.ones(1)
    sigma = 0.0
    for k in range(1, 5001):
        dist = np.convolve(dist, step)
        scores = k * lo_s + np.arange(dist.size)
        neg = scores < 0
        term = float(np.dot(dist[neg], np.exp(lam_d * scores[neg])) + dist[~neg].sum())
        sigma += term / k
        if term / k < 1e-13:
            break
    return lam_d * math.exp(-2.0 * sigma) / (H * one_minus)
