"""A search's hits as columns: each query's best database sequences ranked by
array passes, the hits of a batch of queries traced together into one
:class:`~swgpu.align.batch.AlignmentBatch`, and the E-values of each query's
own fit put in its rows. No object is made per hit.

Ranking: by score, highest first; equal scores by the database sequence's
position in the source file, then by strand (the order the scores are given
in: plus before minus).

>>> import numpy as np
>>> scores = {"+": np.array([5, 9, 0, 9]), "-": np.array([9, 1, 2, 0])}
>>> pos, strand = rank_strands(scores, np.array([3, 2, 1, 0]), 3)
>>> pos.tolist(), strand.tolist()
([3, 1, 0], [0, 0, 1])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...align.batch import AlignmentBatch
from ...align.hsps import least_scores
from ...io.database import Database
from ...io.sequence_batch import SequenceBatch
from ...io.texts import Texts

__all__ = ["HitBatch", "rank_hits", "rank_strands", "rank_strand_hits", "target_rows", "refit", "restat", "fit_values",
           "fit_floors", "grouped", "TRACE_HITS", "TRACE_LETTERS"]


def rank_hits(scores: np.ndarray, index: np.ndarray, top: int) -> np.ndarray:
    """Positions of the ``top`` best positive scores, best first; ties by ``index`` ascending."""
    scores = np.asarray(scores)
    n = scores.size
    if n == 0 or top <= 0:
        return np.zeros(0, np.int64)
    if n > top:  # the positive scores from the top-th best on, all ties at it included (one partition, no gathers)
        kth = scores.dtype.type(max(int(np.partition(scores, n - top)[n - top]), 1))
        found = np.flatnonzero(scores >= kth)
    else:
        found = np.flatnonzero(scores > 0)
    order = np.lexsort((index[found], -scores[found].astype(np.int64)))
    return found[order[:top]]


def rank_strands(scores: dict[str, np.ndarray], index: np.ndarray, top: int) -> tuple[np.ndarray, np.ndarray]:
    """``(positions, strands)`` of the ``top`` best positive scores of all
    strands together, best first (``strands[k]``: which of ``scores``' arrays,
    0 the first); ties by ``index``, then by the order of ``scores``."""
    arrays = list(scores.values())
    found = [rank_hits(s, index, top) for s in arrays]
    if len(found) == 1:
        return found[0], np.zeros(found[0].size, np.int64)
    pos = np.concatenate(found)
    strand = np.repeat(np.arange(len(found), dtype=np.int64), [f.size for f in found])
    score = np.concatenate([s[f].astype(np.int64) for s, f in zip(arrays, found)])
    order = np.lexsort((strand, index[pos], -score))[:top]
    return pos[order], strand[order]


def rank_strand_hits(scores: dict[str, np.ndarray], index: np.ndarray, top: int) -> list[tuple[int, str]]:
    """:func:`rank_strands` as ``(position, strand)`` pairs (``"+"``, ``"-"``)."""
    signs = list(scores)
    pos, strand = rank_strands(scores, index, top)
    return [(i, signs[k]) for i, k in zip(pos.tolist(), strand.tolist())]


def target_rows(db: Database, members: np.ndarray) -> SequenceBatch:
    """The database sequences ``members`` (positions, in that order) as a
    :class:`~swgpu.io.sequence_batch.SequenceBatch`: names, descriptions and
    letters (decoded) as columns, codes a copy of theirs."""
    members = np.asarray(members, dtype=np.int64)
    residues, offsets = db.select(members)
    names, descriptions = db.columns(members)
    letters = Texts(db.alphabet.decode_array(residues), offsets)
    return SequenceBatch.from_columns(names, descriptions, letters, residues, db.alphabet)


@dataclass(eq=False)
class HitBatch:
    """The hits of consecutive queries of a search, as columns.

    ``hits``: best first within each query, query by query;
    ``hits.query_index`` points into ``queries`` (query ``first + k`` of the
    search), ``hits.target_index`` into ``targets`` (the database sequences
    hit, :func:`target_rows`); ``positions``: each of ``targets`` as a
    database position (sorted order).
    """

    first: int
    queries: SequenceBatch
    targets: SequenceBatch
    positions: np.ndarray
    hits: AlignmentBatch

    def query_bounds(self) -> np.ndarray:
        """Where each query's rows begin in ``hits`` (and, last, their end)."""
        return np.searchsorted(self.hits.query_index, np.arange(len(self.queries) + 1))

    def alignments(self, scoring) -> list[list]:
        """Each query's hits as :class:`~swgpu.align.alignment.Alignment` objects (views made from the columns)."""
        made = self.hits.alignments(self.queries, self.targets, scoring)
        bounds = self.query_bounds().tolist()
        return [made[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def refit(hits: AlignmentBatch, bounds: np.ndarray, fits: list, db: Database) -> None:
    """Put the E-values and bit scores of each query's search fit (``fits[k]``
    for the rows ``bounds[k]:bounds[k + 1]``; ``None``: the parameters' values
    kept) in ``hits``' rows that score above 0."""
    for k, fit in enumerate(fits):
        if fit is None:
            continue
        a, b = int(bounds[k]), int(bounds[k + 1])
        live = a + np.flatnonzero(hits.score[a:b] > 0)
        if not live.size:
            continue
        hits.evalue[live], hits.bitscore[live] = fit_values(fit, hits.score[live], hits.target_length[live], db)


def fit_values(fit, scores: np.ndarray, lengths: np.ndarray, db: Database) -> tuple[np.ndarray, np.ndarray]:
    """E-values and bit scores of ``scores`` against sequences of ``lengths`` of ``db``, by a query's ``fit``."""
    return fit.evalues(scores, lengths, len(db), db.total_residues), fit.bitscores(scores, lengths)


def restat(fit, alignments, db: Database) -> None:
    """E-values and bit scores of a query's ``fit`` for its ``alignments`` (the
    traceback's are the parameters' route, kept where there is no fit)."""
    live = [a for a in alignments if a.score > 0]
    if fit is None or not live:
        return
    ev, bits = fit_values(fit, np.array([a.score for a in live]), np.array([a.target_length for a in live]), db)
    for a, e, b in zip(live, ev.tolist(), bits.tolist()):
        a.evalue, a.bitscore = e, b


def fit_floors(fit, alignments, db: Database, evalue: float) -> np.ndarray:
    """Each alignment's least score of a further alignment of its pair within
    ``evalue`` by a query's ``fit`` (:func:`~swgpu.align.hsps.least_scores`)."""
    lengths = np.array([a.target_length for a in alignments], dtype=np.int64)
    return least_scores(lambda s: fit_values(fit, s, lengths, db)[0], [a.score for a in alignments], evalue)


#: Hits traced together, where there are as many: the hits of several batches
#: of queries are joined (a tracer's call has a fixed cost; a GPU's is a few
#: launches and copies).
TRACE_HITS = 1 << 16
#: ... unless their queries' and targets' letters reach this many first (the
#: traceback's memory of their paths).
TRACE_LETTERS = 1 << 26


def grouped(scored, lengths: np.ndarray):
    """Consecutive batches ``(first, queries, ranked)`` of a search (``ranked[k]``:
    the hits of ``queries[k]``, an object with their database ``positions``,
    and what else goes with them) joined into one until their hits reach
    :data:`TRACE_HITS` or their letters :data:`TRACE_LETTERS` (``lengths``: the
    database's), in order; the first query's number kept.

    >>> from types import SimpleNamespace as S
    >>> hit = lambda n: (S(positions=np.zeros(n, np.int64)), None, None)
    >>> batches = [(0, ["a", "bb"], [hit(2), hit(1)]), (2, ["c"], [hit(1 << 16)]), (3, ["d"], [hit(0)])]
    >>> [(first, queries) for first, queries, _ in grouped(iter(batches), np.array([5]))]
    [(0, ['a', 'bb', 'c']), (3, ['d'])]
    """
    group, hits, letters = [], 0, 0
    for first, queries, ranked in scored:
        group.append((first, queries, ranked))
        for q, (picks, *_) in zip(queries, ranked):
            hits += picks.positions.size
            letters += picks.positions.size * len(q) + int(lengths[picks.positions].sum())
        if hits >= TRACE_HITS or letters >= TRACE_LETTERS:
            yield _joined(group)
            group, hits, letters = [], 0, 0
    if group:
        yield _joined(group)


def _joined(group: list) -> tuple:
    return group[0][0], [q for _, qs, _ in group for q in qs], [r for _, _, rs in group for r in rs]
