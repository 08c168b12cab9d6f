"""The end and start passes of an alignment that must end at the target's
last letter (``end_at_last``: scan and genome-scale align), on the striped
local kernel of :mod:`.striped`.

Both are the scalar passes of :mod:`.pairwise` (:func:`~.pairwise.sw_end_last`,
:func:`~.pairwise.sw_start`) turned into a plain local pass with the
end rule of :func:`~.striped.sw_end_striped` (the first cell in row-major
order holding the best score) by a *bonus*: one or two letters are replaced
by letters of their own, appended to the matrix, whose pair scores ``bonus``
more than the pair they stand for. With ``bonus`` above any local score the
sequences can give (``min(m, n) * max_score + 1``), the best local score is
``bonus`` plus the best score of the alignments that hold the bonus pair, at
the first cell where one of them ends with a pair, which is what the scalar
passes find:

* end pass: ``t``'s last letter becomes its bonus letter, so that every
  alignment ending with a pair in the last column gets the bonus; the best is
  at the first row where ``H(i - 1, n - 1) + s(q_i, t_n)`` is largest.
* start pass (anchored at the corner of the reversed prefixes): the first
  letters of both become bonus letters whose bonus only their own pair gets,
  so only alignments that start with that pair get it -- the anchor, with no
  gap before it, as in the scalar pass.

No cell ties with the best except through a pair (a gap after the best costs
at least ``gap_extend > 0``), so the first best cell of the local pass is the
scalar pass's cell. Lanes as :func:`~.striped.sw_end_striped` picks them
(the scores include the bonus: 32-bit lanes from about 32,000 letters on).

>>> import numpy as np
>>> m = np.where(np.eye(5, dtype=bool), 2, -3).astype(np.int32)
>>> q = np.array([0, 1, 2, 3] * 30, dtype=np.uint8)
>>> t = np.concatenate([np.full(50, 4), q[:100]]).astype(np.uint8)
>>> sw_end_last(q, t, m, 5, 2)
(200, 100, 150)
>>> sw_start(q[:100][::-1].copy(), t[::-1].copy(), m, 5, 2, 200)
(100, 100)
"""

from __future__ import annotations

import numpy as np

__all__ = ["sw_end_last", "sw_start", "bonus_for"]


def bonus_for(matrix: np.ndarray, m: int, n: int) -> int:
    """A score above every local alignment score of ``m`` x ``n`` letters."""
    return min(m, n) * max(int(matrix.max()), 0) + 1


def _with_letters(matrix: np.ndarray, extra: int) -> np.ndarray:
    """``matrix`` with ``extra`` letters more (rows and columns of 0, filled by the caller)."""
    k = matrix.shape[0]
    out = np.zeros((k + extra, k + extra), dtype=np.int64)
    out[:k, :k] = matrix
    return out


def _striped(q, t, matrix, gap_open, gap_extend, least, threads):
    from .jit import announce_compile
    from .striped import striped_pass
    from .striped_threads import striped_end_part, sw_end_threads

    if matrix.shape[0] >= 32:  # the score tables hold 32 letters with the pad
        return None
    announce_compile(striped_end_part if threads > 1 else striped_pass)
    return sw_end_threads(q, t, np.ascontiguousarray(matrix, dtype=np.int32), gap_open, gap_extend, least, threads)


def sw_end_last(q: np.ndarray, t: np.ndarray, matrix: np.ndarray, gap_open: int, gap_extend: int,
                least: int | None = None, threads: int = 1):
    """``(score, i, n)`` as :func:`.pairwise.sw_end_last` (``(0, 0, 0)`` when
    none scores above 0); None where the striped kernel does not apply.
    ``least``: a score the pair is known to reach (a hint); ``threads``: of
    the pass (:mod:`.striped_threads`)."""
    m, n = q.shape[0], t.shape[0]
    if m == 0 or n == 0:
        return 0, 0, 0
    k = matrix.shape[0]
    bonus = bonus_for(matrix, m, n)
    big = _with_letters(matrix, 1)
    big[:k, k] = matrix[:, t[n - 1]] + bonus
    big[k, :] = int(matrix.min())  # never in q
    tt = t.copy()
    tt[n - 1] = k
    got = _striped(q, tt, big, gap_open, gap_extend, bonus + (least or 1), threads)
    if got is None:
        return None
    score, i, j = got
    if score <= bonus:
        return 0, 0, 0
    if j != n:
        raise AssertionError("the bonus column did not hold the best score; this is a bug")
    return score - bonus, i, n


def sw_start(rq: np.ndarray, rt: np.ndarray, matrix: np.ndarray, gap_open: int, gap_extend: int, best: int,
             threads: int = 1):
    """``(ri, rj)`` as :func:`.pairwise.sw_start` (the reversed prefixes; the
    alignment starts with the pair ``rq[0]``/``rt[0]``); None where the
    striped kernel does not apply or no anchored alignment scores ``best``."""
    m, n = rq.shape[0], rt.shape[0]
    if m == 0 or n == 0:
        return None
    k = matrix.shape[0]
    bonus = bonus_for(matrix, m, n)
    big = _with_letters(matrix, 2)
    a, b = int(rq[0]), int(rt[0])
    x, y = k, k + 1  # x stands for rq[0], y for rt[0]
    big[x, :k] = matrix[a]
    big[:k, y] = matrix[:, b]
    big[x, y] = matrix[a, b] + bonus
    low = int(matrix.min())
    big[y, :] = low  # never in rq
    big[:, x] = low  # never in rt
    big[x, y] = matrix[a, b] + bonus
    qq, tt = rq.copy(), rt.copy()
    qq[0], tt[0] = x, y
    got = _striped(qq, tt, big, gap_open, gap_extend, bonus + int(best), threads)
    if got is None:
        return None
    score, i, j = got
    if score != bonus + int(best):
        return None
    return i, j
