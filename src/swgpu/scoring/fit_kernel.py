"""The database-sized passes of a search's own fit (:mod:`.search_fit`) in
compiled code, without the interpreter's lock: the bins' sums of the capped
scores, and the trimming of the scores far from the length trend, each one
pass. The same floating-point operations in the same order as the array
passes they stand for, so the fit's values are the same to the last bit:
:func:`.search_fit.fit_search` takes them when this module is loaded
(once :func:`load` has run), the array passes otherwise.

Kept apart so that importing :mod:`swgpu.scoring` does not import Numba.
"""

from __future__ import annotations

import numpy as np

from ..io.compiled import load_numba

load_numba()
from numba import njit  # noqa: E402

__all__ = ["bin_sums", "trim", "load"]


@njit(cache=True, nogil=True)
def bin_sums(scores, bins, cap, ok, all_ok, sums, squares):  # pragma: no cover
    """``sums[b] += min(s, cap)`` and ``squares[b] += min(s, cap) ** 2`` for
    every score ``s`` (as ``float64``) of bin ``bins[k]``, in order (what
    ``np.bincount`` with weights does); returns ``(low, high)``: the lowest
    and highest score (without ``all_ok``: 0 and the highest of those ``ok``)."""
    low, high = np.inf, -np.inf
    for k in range(scores.shape[0]):
        s = np.float64(scores[k])
        c = s if s < cap else cap
        b = bins[k]
        sums[b] += c
        squares[b] += c * c
        if all_ok:
            low = min(low, s)
            high = max(high, s)
        elif ok[k]:
            high = max(high, s)
    if not all_ok:
        low = 0.0
    return low, high


@njit(cache=True, nogil=True)
def trim(scores, ln_n, bins, cap, ok, all_ok, rho_ln, mu, sd, ztrim, count, sums, squares):  # pragma: no cover
    """The trimming pass: each score's z-score ``50 + 10 (s - rho_ln ln n - mu) / sd``
    (positive scores of sequences taking part; -5 in its place for the others)
    below 20 or above ``ztrim`` is trimmed; the trimmed ones that took part
    are counted and summed (capped, and squared) by bin into ``count``,
    ``sums`` and ``squares``, in order. Returns how many were trimmed."""
    trimmed = 0
    for k in range(scores.shape[0]):
        s = np.float64(scores[k])
        live = s > 0 and (all_ok or ok[k])
        z = (s - rho_ln * ln_n[k] - mu) / sd if live else -5.0
        z = 10.0 * z + 50.0
        if z < 20.0 or z > ztrim:
            trimmed += 1
            if live:
                c = s if s < cap else cap
                b = bins[k]
                count[b] += 1
                sums[b] += c
                squares[b] += c * c
    return trimmed


def load() -> None:
    """Load (on a machine's first run: compile) both passes, with the types of
    a search's scores."""
    for dtype in (np.int32, np.int64, np.float64):
        scores = np.zeros(2, dtype)
        bins = np.zeros(2, np.int64)
        ok = np.ones(2, np.bool_)
        sums, squares, count = np.zeros(2), np.zeros(2), np.zeros(2, np.int64)
        bin_sums(scores, bins, 1.0, ok, True, sums, squares)
        trim(scores, np.zeros(2), bins, 1.0, ok, True, 0.1, 1.0, 1.0, 90.0, count, sums, squares)
