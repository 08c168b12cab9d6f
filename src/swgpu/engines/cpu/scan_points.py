"""The end-point rule of ``scan`` (:func:`swgpu.align.scan_rule.end_points`)
as one Numba pass on the CPU: the same columns and scores, with no temporary
array of the record's length but two ``int32`` block maxima (van Herk /
Gil-Werman), and without holding the GIL, so that the scan's threads run it
side by side. The NumPy rule stays the reference it is tested against.

>>> import numpy as np
>>> end_points_fast(np.array([0, 3, 5, 5, 2, 0, 0, 4, 1, 0], np.int32), 0, 10, radius=2, min_score=3)
(array([2, 7]), array([5, 4], dtype=int32))
"""

from __future__ import annotations

import numba as nb
import numpy as np

from ...align.scan_rule import rule_range

__all__ = ["end_points_fast"]


@nb.njit(nogil=True, cache=True, boundscheck=False)
def _points(c, a, b, r, min_score, cols, scores):
    """Candidate end points among ``c[a:b]`` (window ``r`` each side, -1 past
    the ends of ``c``): their indices into ``c`` and scores in ``cols`` and
    ``scores``; returns how many.

    ``pre[j]``/``suf[j]``: the max of ``c`` from the start of ``j``'s block of
    ``r`` columns to ``j``, and from ``j`` to the end of its block (or of ``c``).
    A window of ``r`` columns ``[s, s + r - 1]`` is ``max(suf[s], pre[s + r - 1])``
    (two blocks, or exactly one); a window cut by the start of ``c`` is a
    prefix of block 0, one cut by its end a suffix of the last block or a
    suffix of a block and the last block's prefix. No division in the loops."""
    n = c.size
    pre = np.empty(n, np.int32)
    suf = np.empty(n, np.int32)
    pos = 0
    for j in range(n):
        if pos == 0 or c[j] > pre[j - 1]:
            pre[j] = c[j]
        else:
            pre[j] = pre[j - 1]
        pos += 1
        if pos == r:
            pos = 0
    last = ((n - 1) // r) * r  # the first column of the last block
    pos = (n - 1) % r  # j % r, going down
    for j in range(n - 1, -1, -1):
        if j == n - 1 or pos == r - 1 or c[j] > suf[j + 1]:
            suf[j] = c[j]
        else:
            suf[j] = suf[j + 1]
        pos -= 1
        if pos < 0:
            pos = r - 1
    count = 0
    for j in range(a, b):
        v = c[j]
        if v < min_score:
            continue
        if j == 0:
            left = -1
        elif j < r:
            left = pre[j - 1]
        else:
            x, y = suf[j - r], pre[j - 1]
            left = x if x > y else y
        if v <= left:
            continue
        if j == n - 1:
            right = -1
        elif j + r < n:
            x, y = suf[j + 1], pre[j + r]
            right = x if x > y else y
        elif j + 1 >= last:
            right = suf[j + 1]
        else:
            x, y = suf[j + 1], pre[n - 1]
            right = x if x > y else y
        if v >= right:
            cols[count] = j
            scores[count] = v
            count += 1
    return count


@nb.njit(nogil=True, cache=True, boundscheck=False)
def _sparse_points(c, a, b, r, min_score, cols, scores):
    """:func:`_points` by reading each window of the columns that reach ``min_score``."""
    n = c.size
    count = 0
    for j in range(a, b):
        v = c[j]
        if v < min_score:
            continue
        ok = True
        for k in range(max(0, j - r), j):
            if c[k] >= v:
                ok = False
                break
        if not ok:
            continue
        for k in range(j + 1, min(n, j + r + 1)):
            if c[k] > v:
                ok = False
                break
        if ok:
            cols[count] = j
            scores[count] = v
            count += 1
    return count


def end_points_fast(colmax: np.ndarray, lo: int, hi: int, radius: int, min_score: int,
                    own: tuple[int, int] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`swgpu.align.scan_rule.end_points`, the same arguments and
    result, for column maxima that are ``int32`` (the CPU kernels' output)."""
    c = np.ascontiguousarray(colmax, dtype=np.int32)
    n = c.size
    ranges = rule_range(n, lo, hi, radius, own)
    if ranges is None:
        return np.zeros(0, np.int64), np.zeros(0, np.int32)
    a, b, r = ranges
    above = int(np.count_nonzero(c[a - lo:b - lo] >= min_score))
    if above == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int32)
    cols = np.empty(above, np.int64)  # no more end points than columns reaching the threshold
    scores = np.empty(above, np.int32)
    # few columns reach the threshold: read their windows (stopping at a higher column); else block maxima
    kernel = _sparse_points if 2 * above * r <= n else _points
    k = kernel(c, a - lo, b - lo, r, int(min_score), cols, scores)
    return cols[:k] + lo, scores[:k].copy()
