"""The rules of ``scan`` that every engine shares: how far an alignment can
reach, which columns of a long target are hit end points, which hits are
kept.

``colmax[j]`` is the best score of any local alignment of the query whose
last column pairs a query letter with target letter ``j`` (the largest
``H(i - 1, j - 1) + s(q_i, t_j)`` of the local DP matrix, 0 when none is
positive). A column is a **candidate end point** when it scores at least the
threshold and is a local maximum within ``radius`` columns of its record:
higher than every column in the ``radius`` before it, at least as high as
every column in the ``radius`` after it (a plateau counts once, at its first
column).

>>> import numpy as np
>>> colmax = np.array([0, 3, 5, 5, 2, 0, 0, 4, 1, 0])
>>> end_points(colmax, 0, 10, radius=2, min_score=3)
(array([2, 7]), array([5, 4], dtype=int32))
>>> span_bound(10, max_score=2, gap_open=5, gap_extend=2)
18
"""

from __future__ import annotations

import numpy as np

__all__ = ["span_bound", "span_bounds", "cap_span", "pass_lead", "rule_range", "end_points", "best_end_points",
           "sliding_max"]


def span_bound(m: int, max_score: int, gap_open: int, gap_extend: int, score: int = 1) -> int:
    """Most target letters a local alignment of a query of ``m`` letters
    scoring at least ``score`` (default 1: any positive one) can span:
    ``m + (m * max_score - gap_open - score) // gap_extend + 1`` (``m`` when no
    gap can pay for itself: ``m * max_score - gap_open < score``).

    Proof: the alignment has ``a <= m`` query letters in pairs, scoring at
    most ``a * max_score``; its target letters are the ``a`` paired ones plus
    ``g`` letters in gaps. Each gap costs at least ``gap_open`` and each of
    its further letters ``gap_extend``, so ``g`` target gap letters in ``k >= 1``
    gaps cost at least ``gap_open + (g - 1) * gap_extend`` (one gap is the
    cheapest way to hold them, as ``gap_extend <= gap_open``). A score of at
    least ``score`` needs ``gap_open + (g - 1) * gap_extend <= m * max_score -
    score``, so ``g <= (m * max_score - gap_open - score) // gap_extend + 1``
    (with ``gap_extend >= 1``), and the span ``a + g`` is at most the bound.
    With ``gap_extend == 0`` a gap of any length costs ``gap_open``: no bound
    (None) unless no gap can pay for itself.
    """
    found = int(span_bounds(np.array([m]), max_score, gap_open, gap_extend, np.array([score]))[0])
    return None if found < 0 else found


def span_bounds(m: np.ndarray, max_score: int, gap_open: int, gap_extend: int, score: np.ndarray) -> np.ndarray:
    """:func:`span_bound` of each ``(m[k], score[k])``, as an ``int64`` array; -1 where it is None.

    >>> span_bounds(np.array([10, 10, 0]), 2, 5, 0, np.array([1, 16, 3])).tolist()
    [-1, 10, 0]
    """
    m = np.asarray(m, dtype=np.int64)
    score = np.maximum(np.asarray(score, dtype=np.int64), 1)
    max_score, gap_open, gap_extend = int(max_score), int(gap_open), int(gap_extend)
    out = np.maximum(m, 0)
    if max_score <= 0:
        return out
    budget = m * max_score - gap_open - (score - 1)
    pays = (m > 0) & (budget > 0)  # some gap can pay for itself
    if gap_extend <= 0:
        out[pays] = -1
    else:
        out[pays] = m[pays] + (budget[pays] - 1) // gap_extend + 1
    return out


def cap_span(span: int | None, max_span: int | None) -> int | None:
    """``span`` (a :func:`span_bound`; None: unbounded) capped by a caller's
    ``max_span`` (the longest alignment the caller cares about; None: no cap)."""
    if max_span is None:
        return span
    return int(max_span) if span is None else min(int(span), int(max_span))


def pass_lead(m: int, scoring, radius: int, max_span: int | None = None) -> int | None:
    """Letters before a range of target columns at which a pass of a query of
    ``m`` letters must start for the exact column maxima of the range and of
    the ``radius`` columns before it (the end-point rule's neighbours): the
    most an alignment can span (:func:`span_bound`, capped by ``max_span``)
    less one, plus ``radius``; None when no bound holds (the record's start).

    >>> from swgpu import Scoring
    >>> pass_lead(10, Scoring.default("dna"), radius=10)  # 2/-3, gaps 5/2: spans of at most 18 letters
    27
    """
    span = cap_span(span_bound(m, scoring.matrix.max_score, scoring.gap_open, scoring.gap_extend), max_span)
    return None if span is None else span - 1 + radius


def sliding_max(x: np.ndarray, width: int) -> np.ndarray:
    """``out[j] = max(x[j : j + width])`` for ``j`` in ``0 .. len(x) - width``
    (van Herk / Gil-Werman: two running maxima per block, O(n))."""
    n = x.size
    if width <= 1:
        return x.copy()
    blocks = -(-n // width)
    pad = np.full(blocks * width, np.iinfo(np.int64).min, dtype=np.int64)
    pad[:n] = x
    b = pad.reshape(blocks, width)
    prefix = np.maximum.accumulate(b, axis=1).ravel()
    suffix = np.maximum.accumulate(b[:, ::-1], axis=1)[:, ::-1].ravel()
    j = np.arange(n - width + 1)
    return np.maximum(suffix[j], prefix[j + width - 1])


def rule_range(n: int, lo: int, hi: int, radius: int, own: tuple[int, int] | None) -> tuple[int, int, int] | None:
    """The columns ``[a, b)`` (record coordinates) that :func:`end_points` reports
    of ``n`` column maxima starting at ``lo``, and its radius (at least 1);
    None when there are none."""
    a, b = (lo, hi) if own is None else own
    a, b = max(a, lo), min(b, hi)
    if n == 0 or a >= b:
        return None
    return a, b, max(int(radius), 1)


def end_points(colmax: np.ndarray, lo: int, hi: int, radius: int, min_score: int,
               own: tuple[int, int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Candidate end points of one record whose columns ``lo .. hi - 1`` are
    ``colmax`` (their column maxima, record coordinates). ``own``: report only
    columns in ``[own[0], own[1])`` (a chunk of the record; its neighbours
    within ``radius`` must be in ``colmax``). Returns (columns in ``lo``'s
    coordinates, scores), in column order."""
    c = np.asarray(colmax)
    n = c.size
    ranges = rule_range(n, lo, hi, radius, own)
    if ranges is None:
        return np.zeros(0, np.int64), np.zeros(0, np.int32)
    a, b, r = ranges
    above = np.flatnonzero(c[a - lo:b - lo] >= min_score) + (a - lo)
    if above.size * r <= n:  # few columns reach the threshold: their windows only
        return _sparse_end_points(c, above, lo, r)
    c = c.astype(np.int64)
    # -1 beyond the record: below any score, so record ends bound the window
    ext = np.full(n + 2 * r, -1, dtype=np.int64)
    ext[r:r + n] = c
    win = sliding_max(ext, r)  # win[k] = max(ext[k : k + r])
    idx = np.arange(a - lo, b - lo)
    mine = c[idx]
    left = win[idx]  # ext[idx .. idx + r - 1] = c[idx - r .. idx - 1]
    right = win[idx + r + 1]  # c[idx + 1 .. idx + r]
    keep = (mine >= min_score) & (mine > left) & (mine >= right)
    cols = idx[keep] + lo
    return cols.astype(np.int64), mine[keep].astype(np.int32)


def _sparse_end_points(c: np.ndarray, idx: np.ndarray, lo: int, r: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`end_points` of the columns ``idx`` (those reaching the
    threshold): each one's window read directly (``idx.size * r`` values)."""
    if idx.size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int32)
    n = c.size
    steps = np.arange(1, r + 1)
    mine = c[idx].astype(np.int64)
    left_at, right_at = idx[:, None] - steps, idx[:, None] + steps
    left = np.where(left_at >= 0, c[np.maximum(left_at, 0)], -1).max(axis=1)
    right = np.where(right_at < n, c[np.minimum(right_at, n - 1)], -1).max(axis=1)
    keep = (mine > left) & (mine >= right)
    return (idx[keep] + lo).astype(np.int64), mine[keep].astype(np.int32)


def best_end_points(cols: np.ndarray, scores: np.ndarray, keep: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``keep`` best end points: by score (highest first), then column."""
    cols = np.asarray(cols, dtype=np.int64)
    scores = np.asarray(scores, dtype=np.int32)
    order = np.lexsort((cols, -scores.astype(np.int64)))[:max(int(keep), 0)]
    return cols[order], scores[order]
