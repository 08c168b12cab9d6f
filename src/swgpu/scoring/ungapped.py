"""Ungapped Karlin-Altschul ``lambda``, ``K`` and ``H`` of any substitution
matrix and background composition, computed exactly as NCBI BLAST does.

The letters of two random sequences are drawn independently from a
background distribution ``p`` (:func:`background`: Robinson and Robinson's
amino-acid frequencies for protein, BLAST's standard; equal ``A C G T`` for
DNA; every other code has probability 0). A pair of letters then scores ``s``
with probability ``P(s) = sum of p_i p_j over s_ij = s``, and:

* ``lambda`` is the positive root of ``sum_s P(s) e^(lambda s) = 1`` (it
  exists when the expected score is negative and some score is positive);
* ``H = lambda * sum_s s P(s) e^(lambda s)``, the relative entropy per pair;
* ``K`` follows Karlin and Altschul (1990) as BLAST's ``BlastKarlinLHtoK``
  computes it: closed forms when the scores (divided by their greatest common
  divisor ``d``) reach only +1 or only -1, otherwise
  ``K = d lambda e^(-2 sigma) / (H (1 - e^(-d lambda)))`` with
  ``sigma = sum_k (1/k) [E(e^(lambda S_k); S_k < 0) + P(S_k >= 0)]``, ``S_k``
  the score of ``k`` aligned pairs, summed until a term ``term / k`` falls to 1e-4
  (at most 100 terms), BLAST's limits.

They reproduce BLAST's ungapped rows: BLOSUM62 ``lambda`` 0.3176, ``K`` 0.134,
``H`` 0.4012.

>>> from swgpu.scoring import ScoreMatrix
>>> lam, K, H = ungapped_values(ScoreMatrix.load("BLOSUM62"))
>>> round(lam, 4), round(K, 3), round(H, 4)
(0.3176, 0.134, 0.4012)
>>> lam, K, H = ungapped_values(ScoreMatrix.match_mismatch(2, -3))
>>> round(lam, 3), round(K, 3)
(0.634, 0.408)
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from ..io.alphabet import DNA, PROTEIN, Alphabet

if TYPE_CHECKING:  # pragma: no cover
    from .matrices import ScoreMatrix

__all__ = ["ROBINSON", "background", "score_probabilities", "ungapped_values", "expected_score"]

#: Robinson and Robinson (1991) amino-acid frequencies (per thousand), BLAST's
#: ``STD_AMINO_ACID_FREQS``.
ROBINSON = {
    "A": 78.05, "C": 19.25, "D": 53.64, "E": 62.95, "F": 38.56, "G": 73.77, "H": 21.99, "I": 51.42,
    "K": 57.44, "L": 90.19, "M": 22.43, "N": 44.87, "P": 52.03, "Q": 42.64, "R": 51.29, "S": 71.20,
    "T": 58.41, "V": 64.41, "W": 13.30, "Y": 32.16,
}

#: BLAST's limits of the series for K: a term below SUM_LIMIT ends it, at most ITER_LIMIT terms.
SUM_LIMIT, ITER_LIMIT = 1e-4, 100


@lru_cache(maxsize=None)
def _background(name: str) -> np.ndarray:
    alphabet = PROTEIN if name == PROTEIN.name else DNA
    p = np.zeros(alphabet.size)
    if alphabet is PROTEIN:
        for letter, f in ROBINSON.items():
            p[alphabet.encode(letter)[0]] = f
    else:
        p[alphabet.encode("ACGT")] = 1.0
    p /= p.sum()
    p.setflags(write=False)
    return p


def background(alphabet: Alphabet | str) -> np.ndarray:
    """Background letter probabilities over ``alphabet``'s codes (read-only):
    Robinson and Robinson's for protein, ``1/4`` each for ``A C G T``; other
    codes (ambiguity letters, ``X``, ``*``) 0.

    >>> p = background("protein")
    >>> round(float(p.sum()), 12), int((p > 0).sum())
    (1.0, 20)
    >>> background("dna").tolist()
    [0.25, 0.25, 0.25, 0.25, 0.0]
    """
    name = alphabet if isinstance(alphabet, str) else alphabet.name
    return _background(PROTEIN.name if name == PROTEIN.name else DNA.name)


def score_probabilities(values: np.ndarray, p: np.ndarray, q: np.ndarray | None = None) -> tuple[int, np.ndarray]:
    """``(low, probs)``: ``probs[k]`` is the probability that a random pair of
    letters (``p`` for the first sequence, ``q`` for the second, default ``p``)
    scores ``low + k``; ``low`` and ``low + len(probs) - 1`` are the lowest and
    highest scores of positive probability."""
    q = p if q is None else q
    weight = np.outer(p, q)
    live = weight > 0
    s = np.asarray(values, dtype=np.int64)[live]
    w = weight[live]
    low, high = int(s.min()), int(s.max())
    probs = np.bincount(s - low, weights=w, minlength=high - low + 1)
    return low, probs / probs.sum()


def expected_score(values: np.ndarray, p: np.ndarray) -> float:
    """Expected score of a random pair of letters."""
    low, probs = score_probabilities(values, p)
    return float(np.dot(np.arange(low, low + probs.size), probs))


def _lambda(low: int, probs: np.ndarray, d: int) -> float:
    """The positive root of ``sum P(s) e^(lambda s) = 1``: in ``x = e^(-lambda d)``
    the root in (0, 1) of a polynomial, by bisection to full precision."""
    scores = np.arange(low, low + probs.size)
    live = probs > 0
    s, w = scores[live] // d, probs[live]

    def excess(lam: float) -> float:
        return float(np.dot(w, np.exp(lam * s))) - 1.0

    hi = 1.0
    while excess(hi) < 0:
        hi *= 2.0
    lo = 0.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if mid in (lo, hi):
            break
        if excess(mid) < 0:
            lo = mid
        else:
            hi = mid
    return 0.5 * (lo + hi) / d


def _k(low: int, probs: np.ndarray, lam: float, H: float, mean: float, d: int) -> float:
    """Karlin-Altschul K of the score distribution (see the module notes)."""
    live = np.flatnonzero(probs)
    lo_s, hi_s = (low + int(live[0])) // d, (low + int(live[-1])) // d
    lam_d = lam * d
    one_minus = -math.expm1(-lam_d)
    p_low, p_high = probs[live[0]], probs[live[-1]]
    if lo_s == -1 and hi_s == 1:
        return float((p_low - p_high) ** 2 / p_low)
    if hi_s == 1:
        return (H / lam_d) * one_minus
    if lo_s == -1:
        return (mean / d) ** 2 / (H / lam_d) * one_minus
    step = np.zeros(hi_s - lo_s + 1)
    idx = (np.arange(low, low + probs.size)[live] // d) - lo_s
    np.add.at(step, idx, probs[live])
    dist = np.ones(1)
    sigma = 0.0
    for k in range(1, ITER_LIMIT + 1):
        dist = np.convolve(dist, step)
        scores = k * lo_s + np.arange(dist.size)
        neg = scores < 0
        term = float(np.dot(dist[neg], np.exp(lam_d * scores[neg])) + dist[~neg].sum())
        sigma += term / k
        if term / k <= SUM_LIMIT:
            break
    return lam_d * math.exp(-2.0 * sigma) / (H * one_minus)


def _values_from_distribution(low: int, probs: np.ndarray) -> tuple[float, float, float]:
    scores = np.arange(low, low + probs.size)
    mean = float(np.dot(scores, probs))
    if mean >= 0 or scores[-1] <= 0:
        raise ValueError("the expected score must be negative and some score positive "
                         f"(expected score {mean:.4g}, highest {int(scores[-1])})")
    d = 0
    for s in scores[probs > 0]:
        d = math.gcd(d, int(s))
    lam = _lambda(low, probs, d)
    H = lam * float(np.dot(scores * probs, np.exp(lam * scores)))
    return lam, _k(low, probs, lam, H, mean, d), H


def ungapped_values(matrix: "ScoreMatrix", p: np.ndarray | None = None) -> tuple[float, float, float]:
    """``(lambda, K, H)`` of ungapped local alignments with ``matrix`` between
    random sequences of letter probabilities ``p`` (over the alphabet's codes;
    default :func:`background`). A ``ValueError`` when the expected score is
    not negative (no logarithmic regime)."""
    p = background(matrix.alphabet) if p is None else np.asarray(p, dtype=np.float64)
    low, probs = score_probabilities(matrix.values, p)
    return _values_from_distribution(low, probs)
