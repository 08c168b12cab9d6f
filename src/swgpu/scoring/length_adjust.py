"""BLAST's length adjustment and effective search space, written once for
the interpreter and for Numba: :func:`adjustment` and :func:`space` are
plain functions of numbers that :mod:`.length_kernel` also compiles, so a
batch of many distinct search spaces (an all-against-all ``align`` has one
per pair) gives the numbers, bit for bit, that one call at a time gives
(the same IEEE operations and the C library's ``log``).

>>> from swgpu.scoring.statistics import lookup_blast
>>> p = lookup_blast("BLOSUM62", 11, 1)
>>> rows = np.array([[300, 698_232, 2_000], [5, 10, 1]])
>>> [round(float(x), 6) for x in log_spaces(p, rows)]
[18.597917, 3.912023]
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["adjustment", "space", "check_space", "log_spaces", "COMPILED_FROM"]

#: Distinct search spaces from which :func:`log_spaces` runs the compiled
#: loop (fewer: the interpreter, with no Numba to load).
COMPILED_FROM = 2048


def adjustment(m: float, n: float, N: float, K: float, logK: float, a_l: float, beta: float) -> int:
    """The length adjustment ``l`` of a query of ``m`` letters against ``n``
    residues in ``N`` sequences (floats, ``N >= 1``) for Karlin-Altschul
    ``K`` (and its log), ``alpha / lambda`` and ``beta``: the largest integer
    ``l`` with ``l <= beta + (alpha / lambda) (log K + log((m - l)(n - N l)))``
    that keeps ``K (m - l)(n - N l) > max(m, n)``, found as BLAST finds it."""
    if m <= 0 or n <= 0:
        return 0
    # Largest ell keeping K (m - ell)(n - N ell) > max(m, n): smaller root of
    # N ell^2 - (m N + n) ell + (m n - max(m, n) / K) = 0.
    c = m * n - max(m, n) / K
    if c < 0:
        return 0
    b = m * N + n
    upper = 2.0 * c / (b + math.sqrt(b * b - 4.0 * N * c))
    lower = 0.0
    ell = 0.0
    converged = False
    for it in range(20):
        target = beta + a_l * (logK + math.log((m - ell) * (n - N * ell)))
        if target >= ell:  # ell is at or below the fixed point
            lower = ell
            if target - lower <= 1.0:
                converged = True
                break
            if lower == upper:
                break
        else:
            upper = ell
        if lower <= target and target <= upper:
            ell = target
        else:
            ell = upper if it == 0 else 0.5 * (lower + upper)
    result = int(lower)
    if converged:
        up = math.ceil(lower)
        if up <= upper and beta + a_l * (logK + math.log((m - up) * (n - N * up))) >= up:
            result = int(up)
    return result


def space(m: int, n: int, N: int, ell: int) -> float:
    """The effective search space ``(m - l) * max(1, n - N l)`` (``N >= 1``)."""
    return float(m - ell) * float(max(1, n - N * ell))


def check_space(m: int, n: int) -> None:
    """A search space needs a query and a database: ``ValueError`` otherwise."""
    if m <= 0 or n <= 0:
        raise ValueError(f"query length and database residues must be positive, got {m} and {n}")


def log_spaces(params, rows: np.ndarray) -> np.ndarray:
    """``log`` of the effective search space of each row ``(m, n, N)`` of
    ``rows`` (positive ints; ``N`` at least 1 is assumed where it is less),
    with the length correction, as :func:`~swgpu.scoring.statistics.search_space` gives it."""
    rows = np.asarray(rows, dtype=np.int64).reshape(-1, 3)
    out = np.empty(rows.shape[0], dtype=np.float64)
    if rows.size:
        low = int(np.argmin(np.minimum(rows[:, 0], rows[:, 1])))
        check_space(int(rows[low, 0]), int(rows[low, 1]))
    K, logK, a_l, beta = params.K, params.logK, params.alpha_over_lambda, params.beta
    if rows.shape[0] >= COMPILED_FROM:
        from .length_kernel import log_spaces_into

        log_spaces_into(rows, float(K), float(logK), float(a_l), float(beta), out)
        return out
    for k, (m, n, N) in enumerate(rows.tolist()):
        N = max(1, N)
        ell = adjustment(float(m), float(n), float(N), K, logK, a_l, beta)
        out[k] = math.log(space(m, n, N, ell))
    return out
