"""The reference aligner: slow, plain Gotoh Smith-Waterman with full matrices.

Written for clarity, not speed: every engine is tested against it. It defines
which of several optimal alignments swgpu reports, and every engine follows the
same rule:

1. **Score** -- the maximum of ``H`` over the matrix (0 when nothing scores > 0).
2. **End** -- the first cell holding that maximum in row-major order (smallest
   query end, then smallest target end).
3. **Start** -- among the optimal alignments ending there, the one starting
   latest (largest query start, then largest target start): the shortest one.
4. **Path** -- any optimal global alignment of the two aligned substrings (its
   score equals the local score); only its score is part of the contract.

Recurrences (scores; ``o`` = gap open, ``e`` = gap extend, a gap of length k
costs ``o + (k-1)e``)::

    E[i][j] = max(E[i][j-1] - e, H[i][j-1] - o)      gap in the query  (D)
    F[i][j] = max(F[i-1][j] - e, H[i-1][j] - o)      gap in the target (I)
    H[i][j] = max(0, H[i-1][j-1] + s(q[i], t[j]), E[i][j], F[i][j])

>>> from swgpu.scoring import Scoring
>>> from swgpu.io.sequence import Sequence
>>> r = align(Sequence.from_text("q", "TTACGTACGTTT"), Sequence.from_text("t", "GGACGACGTGG"), Scoring.default("dna"))
>>> r.score, r.query_start, r.query_end, r.target_start, r.target_end, r.cigar
(9, 2, 10, 2, 9, '3=1I4=')
"""

from __future__ import annotations

from .alignment import Alignment
from ..scoring import Scoring
from ..io.sequence import Sequence

__all__ = ["align", "sw_score", "sw_end", "sw_start", "global_path"]

NEG = -(1 << 40)  # minus infinity: far below any reachable score, still an int


def _rows(scoring: Scoring, q, t) -> list[list[int]]:
    """``S[i][j]`` = substitution score of ``q[i]`` against ``t[j]``."""
    m = scoring.matrix.values.tolist()
    return [[m[a][b] for b in t] for a in q]


def sw_end(q, t, scoring: Scoring) -> tuple[int, int, int]:
    """Best local score and its end ``(score, i, j)``: ``q[:i]`` / ``t[:j]`` end the
    alignment (i, j are 1-based DP indices; 0, 0 when the score is 0)."""
    o, e = scoring.gap_open, scoring.gap_extend
    m, n = len(q), len(t)
    H = [[0] * (n + 1) for _ in range(m + 1)]
    E = [[NEG] * (n + 1) for _ in range(m + 1)]
    F = [[NEG] * (n + 1) for _ in range(m + 1)]
    S = _rows(scoring, q, t)
    best, bi, bj = 0, 0, 0
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            E[i][j] = max(E[i][j - 1] - e, H[i][j - 1] - o)
            F[i][j] = max(F[i - 1][j] - e, H[i - 1][j] - o)
            H[i][j] = max(0, H[i - 1][j - 1] + S[i - 1][j - 1], E[i][j], F[i][j])
            if H[i][j] > best:
                best, bi, bj = H[i][j], i, j
    return best, bi, bj


def sw_score(q, t, scoring: Scoring) -> int:
    """Best local alignment score."""
    return sw_end(q, t, scoring)[0]


def sw_start(q, t, scoring: Scoring, best: int, i_end: int, j_end: int) -> tuple[int, int]:
    """Latest start ``(i0, j0)`` (0-based) of an alignment of score ``best`` that ends
    with the pair ``q[i_end-1]``/``t[j_end-1]``.

    ``R[i][j]`` is the best score of an alignment whose first column pairs
    ``q[i]`` with ``t[j]`` and whose last column pairs ``q[i_end-1]`` with ``t[j_end-1]``
    (no zero floor: both ends are fixed), computed backwards from the end.
    """
    o, e = scoring.gap_open, scoring.gap_extend
    # Backwards over suffixes that end with the fixed last pair.  At (i, j) the
    # rest of the alignment covers q[i:i_end] and t[j:j_end] and its first column is
    #   G: the pair q[i]/t[j];
    #   Vs/Vc: q[i] against a gap, first (open) / later (extend) column of its gap;
    #   Ws/Wc: t[j] against a gap, likewise.
    S = _rows(scoring, q[:i_end], t[:j_end])
    rows, cols = i_end + 1, j_end + 1
    G = [[NEG] * cols for _ in range(rows)]
    Vs = [[NEG] * cols for _ in range(rows)]
    Vc = [[NEG] * cols for _ in range(rows)]
    Ws = [[NEG] * cols for _ in range(rows)]
    Wc = [[NEG] * cols for _ in range(rows)]
    for i in range(i_end - 1, -1, -1):
        for j in range(j_end - 1, -1, -1):
            if i == i_end - 1 and j == j_end - 1:
                G[i][j] = S[i][j]
            else:
                G[i][j] = S[i][j] + max(G[i + 1][j + 1], Vs[i + 1][j + 1], Ws[i + 1][j + 1])
            after_v = max(G[i + 1][j], Vc[i + 1][j], Ws[i + 1][j])
            Vs[i][j] = after_v - o
            Vc[i][j] = after_v - e
            after_w = max(G[i][j + 1], Wc[i][j + 1], Vs[i][j + 1])
            Ws[i][j] = after_w - o
            Wc[i][j] = after_w - e
    for i in range(i_end - 1, -1, -1):
        for j in range(j_end - 1, -1, -1):
            if G[i][j] == best:
                return i, j
    raise AssertionError("no start found for the optimal score")


def global_path(q, t, scoring: Scoring) -> str:
    """An optimal global (Needleman-Wunsch-Gotoh) alignment of ``q`` and ``t`` as one
    op letter per column (``M``, ``I``, ``D``), by full-matrix traceback."""
    o, e = scoring.gap_open, scoring.gap_extend
    m, n = len(q), len(t)
    S = _rows(scoring, q, t)
    H = [[NEG] * (n + 1) for _ in range(m + 1)]
    E = [[NEG] * (n + 1) for _ in range(m + 1)]
    F = [[NEG] * (n + 1) for _ in range(m + 1)]
    H[0][0] = 0
    for j in range(1, n + 1):
        E[0][j] = H[0][j] = -(o + (j - 1) * e)
    for i in range(1, m + 1):
        F[i][0] = H[i][0] = -(o + (i - 1) * e)
    for i in range(1, m + 1):
        for j in range(1, n + 1):
            E[i][j] = max(E[i][j - 1] - e, H[i][j - 1] - o)
            F[i][j] = max(F[i - 1][j] - e, H[i - 1][j] - o)
            H[i][j] = max(H[i - 1][j - 1] + S[i - 1][j - 1], E[i][j], F[i][j])
    ops = []
    i, j, state = m, n, "H"
    while i > 0 or j > 0:
        if state == "H":
            if i > 0 and j > 0 and H[i][j] == H[i - 1][j - 1] + S[i - 1][j - 1]:
                ops.append("M")
                i, j = i - 1, j - 1
            elif H[i][j] == E[i][j]:
                state = "E"
            else:
                state = "F"
        elif state == "E":  # t[j-1] against a gap
            ops.append("D")
            if not (j > 1 and E[i][j] == E[i][j - 1] - e):
                state = "H"
            j -= 1
        else:  # q[i-1] against a gap
            ops.append("I")
            if not (i > 1 and F[i][j] == F[i - 1][j] - e):
                state = "H"
            i -= 1
    return "".join(reversed(ops))


def align(query: Sequence, target: Sequence, scoring: Scoring) -> Alignment:
    """The reference local alignment of ``query`` against ``target``."""
    q, t = query.codes.tolist(), target.codes.tolist()
    best, ie, je = sw_end(q, t, scoring)
    if best <= 0:
        return Alignment.empty_for(query, target)
    i0, j0 = sw_start(q, t, scoring, best, ie, je)
    ops = global_path(q[i0:ie], t[j0:je], scoring)
    return Alignment.from_ops(query, target, scoring, i0, j0, ops, score=best)
