"""The hits of ``scan`` as columns: which traced end points are kept
(:func:`cull_columns`) and how many are traced (:func:`trace_rounds`), for
all queries at once, with no object per hit.

A query's hits are culled greedily by score: a hit is dropped when it
overlaps (on the target, same record name and strand) a better hit already
kept; equal scores go plus strand first, then by the record's name, then by
target start, then end. The first ``top`` survivors are the query's hits
(with ``max_hsps``: at most that many on one record name, both strands).

>>> import numpy as np
>>> query, score = np.array([0, 0, 0, 1]), np.array([9, 9, 7, 5])
>>> strand, target = np.zeros(4, np.uint8), np.zeros(4, np.int64)
>>> start, end = np.array([10, 15, 40, 0]), np.array([30, 35, 60, 20])
>>> cull_columns(query, score, strand, target, start, end, top=2).tolist()  # 1 overlaps 0
[0, 2, 3]
"""

from __future__ import annotations

from typing import Callable

import numpy as np

__all__ = ["cull_columns", "trace_rounds"]


def cull_columns(query, score, strand, target, start, end, top: int, max_hsps: int | None = None,
                 take=None) -> np.ndarray:
    """Positions of the hits kept (see the module docs), query by query in
    query order, each query's best first. Hits are given as arrays:
    ``query`` index, ``score``, ``strand`` (0 plus, 1 minus), ``target`` (a
    rank of the record's name: equal names, equal ranks; ordered as the
    names), ``start`` and ``end`` on the target. ``take``: a mask of the hits
    to consider (default all).

    The greedy pass goes rank by rank: step ``r`` looks at every query's
    ``r``-th hit at once against the hits that query kept (at most ``top``)."""
    query = np.asarray(query, dtype=np.int64)
    score = np.asarray(score, dtype=np.int64)
    strand, target = np.asarray(strand, dtype=np.int64), np.asarray(target, dtype=np.int64)
    start, end = np.asarray(start, dtype=np.int64), np.asarray(end, dtype=np.int64)
    consider = np.flatnonzero((score > 0) if take is None else (score > 0) & take)
    if not consider.size or top < 1:
        return np.zeros(0, dtype=np.int64)
    order = consider[np.lexsort((end[consider], start[consider], target[consider], strand[consider],
                                 -score[consider], query[consider]))]
    q = query[order]
    first = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])  # each query's first position in ``order``
    group = np.repeat(np.arange(first.size), np.diff(np.r_[first, q.size]))
    rank = np.arange(q.size) - first[group]
    by_rank = np.argsort(rank, kind="stable")
    cuts = np.searchsorted(rank[by_rank], np.arange(int(rank.max()) + 2))
    kept_t, kept_s = np.zeros((first.size, top), np.int64), np.zeros((first.size, top), np.int64)
    kept_a, kept_b = np.zeros((first.size, top), np.int64), np.zeros((first.size, top), np.int64)
    count = np.zeros(first.size, dtype=np.int64)
    slots = np.arange(top)
    kept = []
    for r in range(cuts.size - 1):
        at = by_rank[cuts[r]:cuts[r + 1]]  # positions in ``order`` of rank r
        g = group[at]
        room = count[g] < top
        at, g = at[room], g[room]
        if not at.size:
            continue
        rows = order[at]
        t, s, a, b = target[rows, None], strand[rows, None], start[rows, None], end[rows, None]
        same = (slots < count[g, None]) & (kept_t[g] == t)
        ok = ~(same & (kept_s[g] == s) & (a < kept_b[g]) & (kept_a[g] < b)).any(axis=1)
        if max_hsps is not None:
            ok &= same.sum(axis=1) < max_hsps
        at, g, rows = at[ok], g[ok], rows[ok]
        c = count[g]
        kept_t[g, c], kept_s[g, c], kept_a[g, c], kept_b[g, c] = target[rows], strand[rows], start[rows], end[rows]
        count[g] += 1
        kept.append(at)
    return order[np.sort(np.concatenate(kept))] if kept else np.zeros(0, dtype=np.int64)


def trace_rounds(query, score, queries: int, top: int, trace: Callable[[np.ndarray], tuple],
                 cull: Callable[[tuple, np.ndarray], np.ndarray]) -> tuple[list, np.ndarray]:
    """Trace end points (``query`` index and ``score`` of each) in rounds, as
    many as culling needs, for all ``queries`` at once: best first, ``top`` a
    query, then twice as many each round, until culling the traced hits is the
    same as culling the hits of every end point: a query's traced hits scoring
    above its best untraced end point already give ``top`` hits (they come first
    in the cull's order, which is greedy: later hits change nothing before
    them), or none is left.

    ``trace(ends)``: the hits of the end points ``ends`` (positions), as any
    value; ``cull(traced, mask)``: the positions kept of the hits ``traced``
    (the values of every round so far) where ``mask`` (over those hits, one
    entry per end point traced, in order) holds. Returns the values of every
    round and the end points each hit came from, in order."""
    query, score = np.asarray(query, dtype=np.int64), np.asarray(score, dtype=np.int64)
    order = np.lexsort((-score, query))  # each query's end points, best first (ties as given)
    q = query[order]
    count = np.bincount(query, minlength=queries)
    first = np.zeros(queries + 1, dtype=np.int64)
    np.cumsum(count, out=first[1:])
    rank = np.arange(q.size) - first[q]
    upto = np.zeros(queries, dtype=np.int64)
    active = count > 0
    take = max(1, top)
    rounds, traced = [], []
    while active.any():
        chosen = order[active[q] & (rank >= upto[q]) & (rank < upto[q] + take)]
        rounds.append(trace(chosen))
        traced.append(chosen)
        upto = np.where(active, np.minimum(count, upto + take), upto)
        left = active & (upto < count)
        if not left.any():
            break
        best_left = np.zeros(queries, dtype=np.int64)
        best_left[left] = score[order[first[:-1][left] + upto[left]]]
        ends = np.concatenate(traced)
        mask = left[query[ends]] & (score[ends] > best_left[query[ends]])
        kept = cull(rounds, mask)
        active = left & (np.bincount(query[ends][kept], minlength=queries) < top)
        take *= 2
    return rounds, (np.concatenate(traced) if traced else np.zeros(0, dtype=np.int64))
