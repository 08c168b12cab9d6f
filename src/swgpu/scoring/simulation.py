"""Gapped Karlin-Altschul ``lambda`` and ``K`` estimated by simulation: the
island method (Olsen, Bundschuh and Hwa 1999; Altschul et al. 2001).

Random sequences are drawn from the background composition
(:func:`swgpu.scoring.ungapped.background`) with a fixed seed, and pairs of
``PAIR_LENGTH`` residues are compared with the scoring's affine gaps by a
score-only Smith-Waterman kernel (:mod:`.island_kernel`) that follows each
cell's best local alignment back to where it starts. All cells whose
alignments start at the same cell form an *island*; an island's peak is its
highest score, and every island is a distinct chance local alignment. For a
scoring in the logarithmic regime the number of islands with peak at least
``y`` in an ``m`` by ``n`` comparison is about ``K m n e^(-lambda y)``, so:

* ``lambda`` is the maximum-likelihood estimate from the peaks ``y`` at or
  above a threshold ``c``: with scores on a lattice of step ``d`` (the
  greatest common divisor of the substitution scores and gap costs) the peaks
  above ``c`` are geometric and ``lambda = ln(1 + d / (mean(y) - c)) / d``;
* ``alpha`` and ``beta`` (the length adjustment's, see
  :mod:`swgpu.scoring.statistics`) are the slope and intercept of the
  alignment's length at its peak regressed on the peak score, and
  ``H = lambda / alpha``;
* ``K`` is the number of islands at or above ``c`` per unit of the effective
  area ``sum (m - l)(n - l)``, ``l = alpha c + beta`` (an island starting
  within ``l`` of an edge cannot reach ``c``), times ``e^(lambda c)``.

``c`` is the highest score that at least ``TARGET_ISLANDS`` islands reach:
small thresholds bias ``lambda`` upwards (small islands are not yet in the
asymptotic regime), high ones leave too few islands. With ``CELLS`` cells
(about 3 s on two cores) the estimates for BLAST's tabulated scorings are
within about 2% in ``lambda`` and 15% in ``K`` of BLAST's (see
docs/statistics.md).

A scoring whose gaps are so cheap that alignment scores grow linearly with
length has no ``lambda``: :func:`estimate` returns None (so does a matrix
whose expected score is not negative). It is recognised by an island that
spans half the sequences even when they are ``LONG_PAIR_LENGTH`` long; so is
a scoring at the very edge of that regime (BLOSUM50 with gaps of 10/2, BLAST
8/2), whose ``lambda`` and ``K`` a simulation of this size cannot measure.
Scorings whose alignments at the threshold are longer than a sixteenth of
``PAIR_LENGTH`` are simulated with ``LONG_PAIR_LENGTH`` instead.

>>> from swgpu.scoring import ScoreMatrix
>>> est = estimate(ScoreMatrix.load("BLOSUM62"), 12, 1, cells=4_000_000)
>>> 0.2 < est.lambda_ < 0.35, est.gapped
(True, True)
"""

from __future__ import annotations

import math
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from .ungapped import background, expected_score, ungapped_values

if TYPE_CHECKING:  # pragma: no cover
    from .matrices import ScoreMatrix

__all__ = ["Estimate", "estimate", "METHOD_VERSION", "CELLS", "PAIR_LENGTH", "LONG_PAIR_LENGTH", "TARGET_ISLANDS",
           "SEED"]

#: Bumped whenever the method changes what it estimates (part of the cache key).
METHOD_VERSION = 1
#: Cells compared by default (pairs of PAIR_LENGTH residues).
CELLS = 600_000_000
#: Length of each random sequence of a pair; LONG_PAIR_LENGTH when the
#: alignments at the threshold are longer than a sixteenth of it.
PAIR_LENGTH, LONG_PAIR_LENGTH = 4000, 16000
#: Islands wanted at or above the threshold c.
TARGET_ISLANDS = 4000
#: The fixed seed of the random sequences.
SEED = 20010105
#: Slots of each pair's island table (at most half used).
_SLOTS = 1 << 20


@dataclass(frozen=True)
class Estimate:
    """A simulation's estimates and what they came from."""

    lambda_: float
    K: float
    H: float
    alpha: float
    beta: float
    gapped: bool
    cutoff: int          #: the threshold c
    islands: int         #: islands at or above c
    cells: int           #: cells compared
    seconds: float       #: time the simulation took


def _lattice(values: np.ndarray, gap_open: int, gap_extend: int) -> int:
    d = 0
    for v in np.unique(values).tolist() + [gap_open, gap_extend]:
        d = math.gcd(d, int(v))
    return max(d, 1)


def _sequences(seed_seq: np.random.SeedSequence, probs: np.ndarray, length: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed_seq)
    cdf = np.cumsum(probs)
    cdf[-1] = 1.0
    a = np.searchsorted(cdf, rng.random(length), side="right").astype(np.int8)
    b = np.searchsorted(cdf, rng.random(length), side="right").astype(np.int8)
    return a, b


def _recording_cutoff(kernel, matrix: np.ndarray, probs: np.ndarray, gap_open: int, gap_extend: int,
                      length: int) -> int:
    """The lowest cutoff at which each pair's islands fit its table with room
    to spare, judged from a small pilot comparison."""
    side = 1000
    a, b = _sequences(np.random.SeedSequence([SEED, 999_999]), probs, side)
    found = kernel.run(a, b, matrix, gap_open, gap_extend, 1, 1 << 21)
    if found is None:  # more than a million islands in 1000 x 1000: hardly possible
        return int(matrix.max()) * 4
    peaks = np.sort(found[0])
    scale = (length / side) ** 2
    want = _SLOTS // 8                    # islands per pair we are glad to keep
    for c in range(1, int(peaks[-1]) + 2 if peaks.size else 2):
        if (peaks.size - np.searchsorted(peaks, c)) * scale <= want:
            return c
    return int(peaks[-1]) + 1 if peaks.size else 1


def _islands(kernel, sub: np.ndarray, probs: np.ndarray, gap_open: int, gap_extend: int, length: int,
             cells: int, threads: int | None):
    """``(peaks, extents, pairs, cutoff)`` of the islands of about ``cells``
    cells of pairs of ``length``, or None when a table overflows."""
    pairs = max(1, int(round(cells / length ** 2)))
    cutoff = _recording_cutoff(kernel, sub, probs, gap_open, gap_extend, length)
    seeds = np.random.SeedSequence([SEED, length]).spawn(pairs)

    def one(k: int):
        a, b = _sequences(seeds[k], probs, length)
        return kernel.run(a, b, sub, gap_open, gap_extend, cutoff, _SLOTS)

    workers = max(1, min(threads or os.cpu_count() or 1, 8, pairs))
    if workers == 1:
        found = [one(k) for k in range(pairs)]
    else:
        with ThreadPoolExecutor(workers) as pool:
            found = list(pool.map(one, range(pairs)))
    if any(f is None for f in found):
        return None
    peaks = np.concatenate([f[0] for f in found]).astype(np.int64)
    extents = np.concatenate([f[1] for f in found]).astype(np.float64)
    return peaks, extents, pairs, cutoff


def estimate(matrix: "ScoreMatrix", gap_open: int, gap_extend: int, p: np.ndarray | None = None,
             cells: int = CELLS, threads: int | None = None) -> Estimate | None:
    """Gapped ``lambda``, ``K``, ``H``, ``alpha`` and ``beta`` of ``matrix``
    with swgpu's gap costs (a gap of length k costs ``gap_open + (k - 1) *
    gap_extend``) for random sequences of letter probabilities ``p`` (default
    :func:`~swgpu.scoring.ungapped.background`), from about ``cells`` cells
    of comparisons (see the module notes); None when there is no logarithmic
    regime. ``threads``: comparisons run at once (default: the CPUs, at most
    8); the result does not depend on it.
    """
    t0 = time.perf_counter()
    p = background(matrix.alphabet) if p is None else np.asarray(p, dtype=np.float64)
    letters = np.flatnonzero(p > 0)
    sub = np.ascontiguousarray(np.asarray(matrix.values)[np.ix_(letters, letters)], dtype=np.int32)
    probs = p[letters] / p[letters].sum()
    if expected_score(sub, probs) >= 0 or sub.max() <= 0:
        return None
    lam_u = ungapped_values(matrix, p)[0]
    from . import island_kernel as kernel  # loads Numba

    d = _lattice(sub, gap_open, gap_extend)
    for length in (PAIR_LENGTH, LONG_PAIR_LENGTH):
        found = _islands(kernel, sub, probs, gap_open, gap_extend, length, cells, threads)
        if found is None:
            return None  # islands beyond counting: scores grow with length
        peaks, extents, pairs, cutoff = found
        fit = _fit(peaks, extents, cutoff, d, pairs, length)
        # An island spanning half the sequences: scores grow with length (or
        # nearly so); islands at the threshold longer than length / 16: edge
        # effects too large. Either way, look again with longer sequences.
        spanning = extents.max(initial=0) > length / 2
        if fit is not None and not spanning and fit[-1] <= length / 16:
            break
    if fit is None or spanning:
        return None
    lam, K, alpha, beta, c, count, mean_extent = fit
    if lam < 0.02 * lam_u:
        return None
    return Estimate(lam, K, lam / alpha, alpha, beta, True, c, count, pairs * length ** 2,
                    time.perf_counter() - t0)


def _fit(peaks: np.ndarray, extents: np.ndarray, cutoff0: int, d: int, pairs: int, length: int):
    """``(lambda, K, alpha, beta, c, islands at or above c, their mean extent)`` from
    the island peaks and extents, or None when there are too few islands.

    Peaks are floored to a period of two lattice steps before the geometric
    fit: some scorings (match 2, mismatch -3) favour even scores over odd ones,
    which biases a fit at single steps but not one over whole periods. (E-values
    of odd scores are then the geometric mean of their neighbours', within a
    factor of 1.5 of the truth for 2/-3; BLAST instead rounds them down.)
    """
    if peaks.size < 50:
        return None
    period = 2 * d
    floored = peaks - peaks % period
    order = np.sort(floored)[::-1]
    c = int(order[min(TARGET_ISLANDS, order.size) - 1])
    c = max(c, -(-cutoff0 // period) * period)   # a whole period above the recording cutoff
    above = floored >= c
    if above.sum() < 50:
        return None
    y, ext = floored[above].astype(np.float64), extents[above]
    excess = float(y.mean()) - c
    if excess <= 0:
        return None
    lam = math.log1p(period / excess) / period
    raw = peaks[above].astype(np.float64)
    if y.size >= 10 and np.ptp(raw) > 0:
        alpha, beta = np.polyfit(raw, ext, 1)
    else:
        alpha, beta = float(ext.mean() / raw.mean()), 0.0
    if not alpha > 0:
        alpha, beta = float(ext.mean() / raw.mean()), 0.0
    ell = max(0.0, alpha * c + beta)
    area = pairs * max(1.0, length - ell) ** 2
    K = y.size / area * math.exp(lam * c)
    return lam, K, float(alpha), float(beta), c, int(y.size), float(ext.mean())
