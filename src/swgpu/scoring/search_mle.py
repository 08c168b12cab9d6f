"""SSEARCH's fallback for a search's own fit (:mod:`.search_fit`): a censored
maximum-likelihood fit of the extreme-value distribution of the scores, for
searches whose scores give no length regression."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["censored_mle", "PI_SQRT6"]

#: pi / sqrt(6): the extreme-value distribution's scale of a unit variance.
PI_SQRT6 = math.pi / math.sqrt(6.0)


def censored_mle(s: np.ndarray, n: np.ndarray, query_length: int) -> tuple[float, float] | None:
    """SSEARCH's censored maximum-likelihood ``(lambda, K)`` of the Gumbel
    ``P(S >= x) = 1 - exp(-K m n e^(-lambda x))``: the lowest and highest
    ``f / 2`` of the scores censored (``f`` = 5%, or 1000 scores of many),
    Newton steps on ``lambda`` from ``pi / sqrt(6 var)``."""
    count = s.size
    f = 1000.0 / count if count / 20.0 > 1000.0 else 0.05
    f = 0.2 if f > 0.4 else f
    order = np.argsort(s, kind="stable")
    s, n = s[order], n[order].astype(np.float64)
    cut = int(f / 2.0 * count)
    start, stop = cut, count - cut
    if stop <= start + 1 or stop >= count:
        return None
    mid, lens = s[start:stop], n[start:stop]
    low_len, high_len = n[:start].sum(), n[stop:].sum()
    cen_low, cen_high = float(s[start]), float(s[stop])
    if cen_low >= cen_high:
        return None
    mean = mid.mean()
    lam = PI_SQRT6 / math.sqrt(np.sum(mid * mid) / (mid.size - 1.0))
    lam = 0.2 if lam > 1.0 else lam
    for _ in range(100):
        es = np.exp(-lam * mid)
        e_lo, e_hi = math.exp(-lam * cen_low), math.exp(-lam * cen_high)
        s0 = np.sum(lens * es) + low_len * e_lo - high_len * e_hi
        s1 = np.sum(lens * mid * es) + low_len * cen_low * e_lo - high_len * cen_high * e_hi
        s2 = np.sum(lens * mid * mid * es) + low_len * cen_low ** 2 * e_lo - high_len * cen_high ** 2 * e_hi
        first = 1.0 / lam - mean + s1 / s0
        second = (s1 / s0) ** 2 - s2 / s0 - 1.0 / lam ** 2
        old = lam
        lam = lam - first / second if lam - first / second > 0 else lam / 2.0
        if abs((lam - old) / lam) <= 1e-6:
            break
    else:
        return None
    total = (np.sum(lens * np.exp(-lam * mid)) + low_len * math.exp(-lam * cen_low)
             - high_len * math.exp(-lam * cen_high))
    return lam, count / (query_length * total)
