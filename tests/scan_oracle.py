"""Brute-force ``scan``: the full local DP matrix of each query (and its
reverse complement) against each whole record, the end-point rule checked
column by column, the end row read off the matrix, and the culling
hit by hit (:func:`cull`, the rule of :mod:`swgpu.workloads.scan.hits`). The start and the path come from the shared
linear-memory traceback on the scalar CPU kernels (the tie rules every
engine follows). Small inputs only."""

from __future__ import annotations

import numpy as np

from swgpu.align.alignment import Alignment
from swgpu.align.traceback import _OPS, BASE_CELLS, _rev, global_ops
from swgpu.engines.cpu import pairwise
from swgpu.workloads.scan import CANDIDATES_PER_HIT
from swgpu.workloads.strands import oriented, strands_for

NEG = -(1 << 40)


def cull(hits: list, top: int, max_hsps: int | None = None) -> list:
    """The ``top`` best hits that do not overlap a better one on the same target
    and strand, one by one (at most ``max_hsps`` on one target, both strands)."""
    order = sorted(hits, key=lambda h: (-h.score, h.strand != "+", h.target, h.target_start, h.target_end))
    kept: list = []
    per_target: dict[str, int] = {}
    for h in order:
        if h.score <= 0:
            continue
        if max_hsps is not None and per_target.get(h.target, 0) >= max_hsps:
            continue
        if any(k.target == h.target and k.strand == h.strand and h.target_start < k.target_end
               and k.target_start < h.target_end for k in kept):
            continue
        kept.append(h)
        per_target[h.target] = per_target.get(h.target, 0) + 1
        if len(kept) == top:
            break
    return kept


def local_matrix(q: np.ndarray, t: np.ndarray, scoring) -> np.ndarray:
    """H of the local (Gotoh) DP, ``(len(q) + 1) x (len(t) + 1)``."""
    M = scoring.matrix.values.astype(np.int64)
    go, ge = scoring.gap_open, scoring.gap_extend
    m, n = len(q), len(t)
    H = np.zeros((m + 1, n + 1), np.int64)
    F = np.full(n + 1, NEG, np.int64)
    for i in range(1, m + 1):
        F = np.maximum(F - ge, H[i - 1] - go)
        row = np.maximum(H[i - 1, :-1] + M[q[i - 1], t], F[1:])
        row = np.maximum(row, 0)
        e = NEG
        out = np.zeros(n + 1, np.int64)
        for j in range(1, n + 1):
            e = max(e - ge, out[j - 1] - go)
            out[j] = max(row[j - 1], e)
        H[i] = out
    return H


def pair_scores(q, t, H, scoring) -> np.ndarray:
    """``P[i, j] = H(i - 1, j - 1) + s(q_i, t_j)``: alignments ending with that pair (rows, cols 1-based)."""
    M = scoring.matrix.values.astype(np.int64)
    P = np.zeros_like(H)
    P[1:, 1:] = H[:-1, :-1] + M[np.asarray(q)[:, None], np.asarray(t)[None, :]]
    return P


def column_maxima(q, t, scoring) -> np.ndarray:
    """The best score of an alignment ending with a pair at each column (0 at least)."""
    if not len(t):
        return np.zeros(0, np.int64)
    P = pair_scores(q, t, local_matrix(q, t, scoring), scoring)
    return np.maximum(P[1:, 1:].max(axis=0), 0) if len(q) else np.zeros(len(t), np.int64)


def end_points(colmax: np.ndarray, radius: int, min_score: int) -> list[int]:
    """The rule, column by column."""
    out = []
    for j, v in enumerate(colmax.tolist()):
        left = colmax[max(0, j - radius):j]
        right = colmax[j + 1:j + 1 + radius]
        if v >= min_score and (left.size == 0 or v > left.max()) and (right.size == 0 or v >= right.max()):
            out.append(j)
    return out


def _hit(q, rec, P, col: int, scoring, sign: str) -> Alignment:
    column = P[:, col + 1]
    best = int(column.max())
    ie, je = int(np.argmax(column)), col + 1
    m, go, ge = scoring.matrix.values, scoring.gap_open, scoring.gap_extend
    ri, rj = pairwise.sw_start(_rev(q.codes[:ie]), _rev(rec.codes[:je]), m, go, ge, best)
    i0, j0 = ie - ri, je - rj
    ops = global_ops(pairwise, q.codes[i0:ie], rec.codes[j0:je], m, go, ge, BASE_CELLS)
    aln = Alignment.from_ops(q, rec, scoring, i0, j0, _OPS[ops].tobytes().decode("ascii"), score=best)
    aln.strand = sign
    return aln


def scan(queries, genome, scoring, top: int, min_score: int = 1, strand: str = "both") -> list[list[Alignment]]:
    out = []
    for query in queries:
        hits = []
        for sign in strands_for(strand, scoring.alphabet):
            q = oriented(query, sign)
            found = []
            for rec in genome:
                P = pair_scores(q.codes, rec.codes, local_matrix(q.codes, rec.codes, scoring), scoring)
                colmax = np.maximum(P[1:, 1:].max(axis=0), 0)
                for j in end_points(colmax, max(len(q), 1), min_score):
                    found.append((int(colmax[j]), rec, P, j))
            # the best 4 * top end points of this strand: score, then position in the genome
            order = {id(r): k for k, r in enumerate(genome)}
            found.sort(key=lambda f: (-f[0], order[id(f[1])], f[3]))
            for score, rec, P, j in found[:CANDIDATES_PER_HIT * top]:
                hits.append(_hit(q, rec, P, j, scoring, sign))
        out.append(cull(hits, top))
    return out
