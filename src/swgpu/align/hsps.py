"""Several local alignments of one query in one target (Waterman-Eggert).

The first alignment of a pair is the one every engine reports (the tie rule
of :mod:`swgpu.align.reference`). Each next one is the best local alignment
that **shares no aligned pair** with those before it (Waterman and Eggert,
1987): the same recurrences with the pairs already aligned forbidden, so a
later alignment may cross or touch an earlier one, never reuse one of its
residue pairs. Among equal scores the reference's tie rule picks it again
(first end in row-major order, latest start, the reference's traceback),
and its path avoids the forbidden pairs too.

The next alignments are computed here, on the host, for every engine alike,
so GPU and CPU outputs stay byte-identical. The end pass visits every cell of
the pair in linear memory; the path keeps one byte per cell of the aligned
rectangle, at most :data:`PATH_CELLS`.

>>> from swgpu.scoring import Scoring
>>> from swgpu.io.sequence import Sequence
>>> from swgpu.align import reference
>>> q = Sequence.from_text("q", "GATTACAGC")
>>> t = Sequence.from_text("t", "TTGATTACAGCGGGGGGGGGGGGGGATTACTGCTT")
>>> scoring = Scoring.default("dna")
>>> first = reference.align(q, t, scoring)
>>> [(a.score, a.target_start, a.cigar) for a in [first, *next_alignments(q, t, scoring, [first], 1)]]
[(18, 2, '9='), (13, 24, '6=1X2=')]
"""

from __future__ import annotations

import numpy as np

from .alignment import Alignment, cigar_runs
from ..exceptions import InputError
from ..scoring import Scoring
from ..io.sequence import Sequence

__all__ = ["PATH_CELLS", "forbidden_pairs", "least_scores", "next_alignments", "next_alignments_many"]

#: Most cells of the rectangle a next alignment is traced in (one byte each).
PATH_CELLS = 1 << 28


def forbidden_pairs(alignments: list[Alignment], query_length: int) -> np.ndarray:
    """``out[h, i] = j`` where alignment ``h`` pairs query residue ``i`` with
    target residue ``j`` (0-based), ``-1`` where it pairs ``i`` with none."""
    out = np.full((max(len(alignments), 1), query_length), -1, dtype=np.int64)
    for h, a in enumerate(alignments):
        ops = np.repeat(*cigar_runs(a.cigar))
        pair = (ops == ord("=")) | (ops == ord("X")) | (ops == ord("M"))
        uses_q = pair | (ops == ord("I"))
        uses_t = pair | (ops == ord("D"))
        qi = a.query_start + np.cumsum(uses_q) - uses_q
        tj = a.target_start + np.cumsum(uses_t) - uses_t
        out[h, qi[pair]] = tj[pair]
    return out


def least_scores(evalues_of, tops, threshold: float) -> np.ndarray:
    """For each pair, the least score in ``1 .. tops[k]`` whose E-value is at
    most ``threshold``, else ``tops[k] + 1``: a further alignment of the pair
    scores at most its first's ``tops[k]``, and below that least score its
    E-value is over the threshold. ``evalues_of(scores)`` gives the E-values of
    an array of scores, one per pair (each in its own search space; NaN where
    there are none), falling as a score rises. A search over the scores, all
    pairs at once.

    >>> least_scores(lambda s: 1000.0 / 2.0 ** s, np.array([20, 5, 0]), 10.0).tolist()
    [7, 6, 1]
    """
    tops = np.maximum(np.asarray(tops, dtype=np.int64), 0)
    lo, hi = np.ones_like(tops), tops + 1
    while True:
        open_ = lo < hi
        if not open_.any():
            return lo
        mid = (lo + hi) // 2
        ev = np.asarray(evalues_of(mid), dtype=np.float64)
        ok = ev <= threshold  # (NaN: no E-value, never within it)
        hi = np.where(open_ & ok, mid, hi)
        lo = np.where(open_ & ~ok, mid + 1, lo)


def next_alignments(query: Sequence, target: Sequence, scoring: Scoring, earlier: list[Alignment],
                    count: int, min_score: int = 1) -> list[Alignment]:
    """Up to ``count`` more alignments of ``query`` in ``target`` after
    ``earlier`` (in that order, best first), each sharing no aligned pair with
    any before it and scoring at least ``min_score`` (and above 0). ``earlier``
    are alignments of the same query strand and target (coordinates of the
    sequences given)."""
    return next_alignments_many([query], [target], [earlier], scoring, count, [min_score])[0]


def next_alignments_many(queries: list[Sequence], targets: list[Sequence], earlier: list[list[Alignment]],
                         scoring: Scoring, count: int, floors) -> list[list[Alignment]]:
    """:func:`next_alignments` of many pairs (``queries[k]`` as aligned,
    ``targets[k]``, their alignments so far ``earlier[k]``, least score
    ``floors[k]``) in one compiled call, which holds no lock of the interpreter:
    the pairs' codes and forbidden pairs packed, and objects made only for the
    alignments found."""
    from . import hsps_kernel as K

    n = len(queries)
    if not n or count <= 0:
        return [[] for _ in range(n)]
    qc = [np.ascontiguousarray(q.codes, dtype=np.uint8) for q in queries]
    tc = [np.ascontiguousarray(t.codes, dtype=np.uint8) for t in targets]
    qo = np.zeros(n + 1, dtype=np.int64)
    np.cumsum([c.size for c in qc], out=qo[1:])
    to = np.zeros(n + 1, dtype=np.int64)
    np.cumsum([c.size for c in tc], out=to[1:])
    rows = [forbidden_pairs([a for a in each if not a.empty], c.size) for each, c in zip(earlier, qc)]
    h0 = np.array([r.shape[0] for r in rows], dtype=np.int64)
    fo = np.zeros(n + 1, dtype=np.int64)
    np.cumsum([r.size for r in rows], out=fo[1:])
    slots = n * count
    nfound = np.zeros(n, dtype=np.int64)
    score, qs, ts = (np.zeros(slots, dtype=np.int64) for _ in range(3))
    opsoff, opslen = np.zeros(slots, dtype=np.int64), np.zeros(slots, dtype=np.int64)
    opsbuf = np.empty(count * int(qo[-1] + to[-1]), dtype=np.uint8)
    floors = np.maximum(np.asarray(floors, dtype=np.int64), 1)
    matrix = np.ascontiguousarray(scoring.matrix.values, dtype=np.int64)
    forbid = np.concatenate([r.ravel() for r in rows])
    K.further_many(np.concatenate(qc), qo, np.concatenate(tc), to, forbid, fo, h0, int(count), floors, matrix,
                   int(scoring.gap_open), int(scoring.gap_extend), PATH_CELLS, nfound, score, qs, ts, opsbuf, opsoff,
                   opslen)
    letters = np.frombuffer(b"MID", dtype=np.uint8)
    out: list[list[Alignment]] = []
    for k in range(n):
        got = int(nfound[k])
        if got < 0:
            slot = k * count
            raise InputError(f"{queries[k].name} vs {targets[k].name}: a further alignment spans "
                             f"{score[slot]} x {qs[slot]} letters, more than --max-hsps traces "
                             f"({PATH_CELLS:,} cells)", param="max_hsps")
        found = []
        for slot in range(k * count, k * count + got):
            ops = letters[opsbuf[opsoff[slot]:opsoff[slot] + opslen[slot]]].tobytes().decode("ascii")
            found.append(Alignment.from_ops(queries[k], targets[k], scoring, int(qs[slot]), int(ts[slot]), ops,
                                            score=int(score[slot])))
        out.append(found)
    return out
