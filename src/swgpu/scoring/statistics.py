"""E-values and bit scores: Karlin-Altschul statistics as BLAST reports them.

A local alignment score ``S`` found in a search of a query of ``m`` residues
against a database of ``n`` residues in ``N`` sequences is converted with the
Karlin-Altschul parameters ``lambda`` and ``K`` of the scoring system:

* bit score ``S' = (lambda * S - ln K) / ln 2``;
* E-value ``E = K * m' * n' * exp(-lambda * S)``, the number of alignments of
  score ``S`` or more expected by chance, where ``m' * n'`` is the *effective*
  search space (below).

Every scoring system has parameters (:func:`swgpu.scoring.estimated.parameters`):
BLAST's tabulated ones where they exist (:mod:`swgpu.scoring.karlin`, which
says which scoring systems have them and how gap costs map to BLAST's), else
an estimate by simulation (:mod:`swgpu.scoring.simulation`, cached on disk by
:mod:`swgpu.scoring.karlin_cache`). Only a scoring system without a
logarithmic regime (expected score not negative, or gaps cheap enough that
scores grow with length) has none: :class:`Statistics` then reports
``available == False`` with NaN values. For some blastn reward/penalty pairs,
and simulated scorings that favour even scores
(:attr:`KarlinAltschul.round_down`), :func:`evalue` rounds an odd score down
to even first, as BLAST does; :func:`bitscore` never rounds. A search may
instead take its E-values from its own scores, as SSEARCH does
(:meth:`Statistics.search_evalues`, :mod:`swgpu.scoring.search_fit`);
docs/statistics.md compares the routes.

Effective lengths
-----------------
An alignment cannot start near the end of a sequence and still reach a high
score, so BLAST shortens each sequence by a length adjustment ``l`` (an edge
correction using the fitted ``alpha`` and ``beta``): ``l`` is the largest
integer below the fixed point of

    l = beta + (alpha / lambda) * (ln K + ln((m - l) * (n - N * l)))

found by BLAST's bracketed fixed-point iteration (at most 20 steps), kept small
enough that ``K * (m - l) * (n - N * l) > max(m, n)``. The search space is then
``(m - l) * max(1, n - N * l)``. With ``length_correction=False`` it is plain
``m * n``. Ungapped rows use ``alpha = lambda / H`` with the table's ``beta``
(protein) or BLAST's ungapped blastn ``beta`` (-2 for 1/-1 and 2/-3, else 0);
simulated parameters their own fitted ``alpha`` and ``beta``.

Differences from the programs' printed numbers
----------------------------------------------
The search space and E-values here agree with BLAST+ blastn, and with blastp
run as ``blastp -comp_based_stats 0`` with the environment variable
``OLD_FSC`` set. By default blastp rescales scores with composition-based
statistics and applies a finite-size correction to E-values, neither of which
is done here; its bit scores are the plain ones above. SSEARCH by default
estimates its extreme-value parameters from the scores of the search itself
(:meth:`Statistics.search_evalues` does the same).

>>> from swgpu.scoring import ScoreMatrix, Scoring
>>> blosum62 = ScoreMatrix.load("BLOSUM62")
>>> p = lookup(Scoring(blosum62, 12, 1))     # BLAST's default, 11/1
>>> round(bitscore(100, p), 2)
43.13
>>> length_adjustment(p, 300, 10**8, 300_000)       # query 300, 10^8 residues
112
>>> f"{evalue(100, 300, 10**8, 300_000, p):.3g}"
'0.0013'
>>> f"{evalue(100, 300, 10**8, 300_000, p, length_correction=False):.3g}"
'0.00312'
>>> lookup(Scoring(blosum62, 11, 11)) is None   # linear gaps: not tabulated
True
>>> stats = Statistics.for_scoring(Scoring(blosum62, 12, 1))
>>> stats.available
True
>>> stats.bitscore([50, 100]).round(2).tolist()
[23.87, 43.13]
"""

from __future__ import annotations

import math
import threading
from itertools import repeat
from typing import TYPE_CHECKING, Any

import numpy as np

from . import karlin
from .karlin import (  # noqa: F401 - re-exported
    INT2_MAX,
    KarlinAltschul,
    lookup,
    lookup_blast,
    nucleotide_ungapped,
    parse_match_mismatch,
    tabulated_name,
    ungapped,
)
from .length_adjust import adjustment, check_space, log_spaces
from .length_adjust import space as _space
from .search_fit import FitLengths, SearchFit, fit_search, sample_positions

if TYPE_CHECKING:  # pragma: no cover
    from .scoring import Scoring

# The look-ups of swgpu.scoring.karlin are re-exported: this module's API
# predates the split.
__all__ = list(karlin._LAZY) + [
    "INT2_MAX", "KarlinAltschul", "lookup", "lookup_blast", "ungapped", "nucleotide_ungapped",
    "parse_match_mismatch", "tabulated_name",
    "Statistics",
    "length_adjustment",
    "search_space",
    "evalue",
    "evalues",
    "bitscore",
    "bitscores",
]

_LN2 = math.log(2.0)


def __getattr__(name: str):
    # PROTEIN_MATRICES and NUCLEOTIDE_PAIRS come from the data file, on first use.
    if name in ("PROTEIN_MATRICES", "NUCLEOTIDE_PAIRS"):
        return getattr(karlin, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ---------------------------------------------------------------------------
# Effective lengths, E-values, bit scores
# ---------------------------------------------------------------------------


def length_adjustment(params: KarlinAltschul, query_length: int, db_residues: int, db_sequences: int) -> int:
    """BLAST's length adjustment ``l`` (an integer, see the module notes).

    >>> p = lookup_blast("BLOSUM62", 11, 1)
    >>> length_adjustment(p, 300, 698_232, 2_000)
    79
    """
    return adjustment(float(query_length), float(db_residues), float(max(1, int(db_sequences))), params.K,
                      params.logK, params.alpha_over_lambda, params.beta)


def search_space(params: KarlinAltschul, query_length: int, db_residues: int, db_sequences: int,
                 length_correction: bool = True) -> float:
    """Effective search space ``m' * n'`` (``m * n`` without length correction).

    >>> p = lookup_blast("BLOSUM62", 11, 1)
    >>> search_space(p, 300, 698_232, 2_000)
    119391272.0
    """
    m, n = int(query_length), int(db_residues)
    check_space(m, n)
    if not length_correction:
        return float(m) * float(n)
    return _space(m, n, max(1, int(db_sequences)), length_adjustment(params, m, n, db_sequences))


def evalues(scores: Any, query_length: Any, db_residues: int, db_sequences: int, params: KarlinAltschul,
            length_correction: bool = True) -> np.ndarray:
    """Vectorised :func:`evalue`: ``scores`` (and optionally ``query_length``)
    are arrays broadcast together; returns a float64 array. Scores are rounded
    down to even first when ``params.round_down`` is set."""
    q = np.asarray(query_length)
    if q.ndim == 0:
        log_ss = math.log(search_space(params, int(q), db_residues, db_sequences, length_correction))
        return _evalues_in_space(scores, log_ss, params)
    uniq, inverse = np.unique(q.astype(np.int64), return_inverse=True)
    spaces = np.array([search_space(params, int(u), db_residues, db_sequences, length_correction) for u in uniq])
    return _evalues_in_space(scores, np.log(spaces)[inverse].reshape(q.shape), params)


def _evalues_in_space(scores: Any, log_space: Any, params: KarlinAltschul) -> np.ndarray:
    """E-values of ``scores`` in search spaces of logarithm ``log_space``
    (arrays broadcast together; scores rounded down to even first when
    ``params.round_down`` is set)."""
    s = np.asarray(scores, dtype=np.float64)
    if params.round_down:
        s = np.floor(s / 2.0) * 2.0
    return np.exp(params.logK + log_space - params.lambda_ * s)


def evalue(score: float, query_length: int, db_residues: int, db_sequences: int, params: KarlinAltschul,
           length_correction: bool = True) -> float:
    """Expected number of chance alignments scoring ``score`` or more when a
    query of ``query_length`` residues is searched against ``db_sequences``
    sequences of ``db_residues`` residues in all (for one pair: the subject's
    length and 1). BLAST's effective lengths unless ``length_correction`` is
    False, then ``K * m * n * exp(-lambda * S)``. E-values below the smallest
    double come out as 0.0 (BLAST prints those as 0.0 too).
    """
    return float(evalues(score, query_length, db_residues, db_sequences, params, length_correction))


def bitscores(scores: Any, params: KarlinAltschul) -> np.ndarray:
    """Vectorised :func:`bitscore`."""
    s = np.asarray(scores, dtype=np.float64)
    return (params.lambda_ * s - params.logK) / _LN2


def bitscore(score: float, params: KarlinAltschul) -> float:
    """Bit score ``(lambda * S - ln K) / ln 2`` (of the unrounded score, also
    when :attr:`KarlinAltschul.round_down` is set, as BLAST prints it)."""
    return float(bitscores(score, params))


# ---------------------------------------------------------------------------
# Statistics: the object a search holds
# ---------------------------------------------------------------------------


class Statistics:
    """E-values and bit scores for one scoring system.

    ``Statistics.for_scoring(scoring)`` gives every scoring system E-values:
    BLAST's tabulated parameters where they exist (:func:`lookup`), else
    parameters estimated by simulation (:func:`swgpu.scoring.estimated.estimated`:
    seconds the first time on a machine, then read from the disk cache). The
    estimate is made when first needed (the first E-value, bit score,
    :attr:`params` or :attr:`available`), once, whichever thread asks.
    ``for_scoring(scoring, estimate=False)`` keeps to the tables.

    :attr:`available` is False only without a logarithmic regime (see the
    module notes) or for ``Statistics(None)``: :attr:`params` is then None and
    :meth:`evalue` / :meth:`bitscore` return NaN (a float, or an array of NaN
    shaped like the scores). :meth:`search_evalues`: SSEARCH's E-values.

    >>> from swgpu.scoring import Scoring
    >>> s = Statistics.for_scoring(Scoring.default("dna"), estimate=False)   # BLAST 3/2: not in blastn's table
    >>> s.available, s.bitscore(40)
    (False, nan)
    >>> Statistics(None).available
    False
    """

    def __init__(self, params: KarlinAltschul | None, description: str = "", *, scoring: "Scoring | None" = None):
        self._params = params
        self._pending: "Scoring | None" = None
        self._lock = threading.Lock()
        self.description = description
        self.scoring = scoring  #: the scoring system, where known (needed by :meth:`search_fit`)
        self._ungapped: tuple[float, float] | None = None
        self._lengths: tuple | None = None  # the last read-only lengths fitted against: (them, FitLengths, sample)

    @classmethod
    def for_scoring(cls, scoring: "Scoring", estimate: bool = True) -> "Statistics":
        params = lookup(scoring)
        describe = getattr(scoring, "describe", None)
        text = describe() if callable(describe) else str(scoring)
        stats = cls(params, text, scoring=scoring)
        if params is None and estimate:
            stats._pending = scoring
        return stats

    @property
    def params(self) -> KarlinAltschul | None:
        """The parameters in use (estimated on first use where not tabulated)."""
        if self._pending is not None:
            with self._lock:
                if self._pending is not None:
                    from .estimated import estimated

                    self._params = estimated(self._pending)
                    self._pending = None
        return self._params

    def __getstate__(self) -> dict:
        # Sent to other processes (Dask workers) with its parameters resolved.
        return {"params": self.params, "description": self.description, "scoring": self.scoring}

    def __setstate__(self, state: dict) -> None:
        self.__init__(state["params"], state["description"], scoring=state.get("scoring"))

    @property
    def available(self) -> bool:
        return self.params is not None

    def __repr__(self) -> str:
        if self.params is None:
            return f"Statistics({self.description or 'untabulated'}: no E-values)"
        p = self.params
        return f"Statistics(lambda={p.lambda_}, K={p.K}, H={p.H}; {p.source})"

    def evalue(self, scores: Any, query_length: Any, db_residues: int, db_sequences: int,
               length_correction: bool = True) -> float | np.ndarray:
        """E-values for a score or an array of scores (see :func:`evalue`)."""
        if self.params is None:
            return _nan_like(scores)
        out = evalues(scores, query_length, db_residues, db_sequences, self.params, length_correction)
        return float(out) if out.ndim == 0 else out

    def bitscore(self, scores: Any) -> float | np.ndarray:
        """Bit scores for a score or an array of scores."""
        if self.params is None:
            return _nan_like(scores)
        out = bitscores(scores, self.params)
        return float(out) if out.ndim == 0 else out

    def annotate(self, alignments, query_length: int, db_residues: int, db_sequences: int) -> None:
        """Set ``evalue`` and ``bitscore`` of each non-empty alignment in place
        (left ``None`` when these settings have no statistics)."""
        self.annotate_each(alignments, repeat((query_length, db_residues, db_sequences)))

    def annotate_each(self, alignments, spaces) -> None:
        """:meth:`annotate` each alignment for its own search space (``spaces``:
        ``(query length, database residues, database sequences)`` of each), the
        same numbers, computed at once: each space's length adjustment once."""
        params = self.params
        if params is None:
            return
        live = [(a, space) for a, space in zip(alignments, spaces) if a.score > 0]
        if not live:
            return
        logs: dict = {}
        log_ss = []
        try:
            for _, space in live:
                space = space if type(space) is tuple else tuple(space)
                found = logs.get(space)
                if found is None:
                    m, n, count = space
                    found = logs[space] = math.log(search_space(params, int(m), n, count))
                log_ss.append(found)
        finally:
            done = live[:len(log_ss)]  # those before a space in error, as one by one
            if done:
                s = np.array([a.score for a, _ in done], dtype=np.float64)
                bits = bitscores(s, params).tolist()
                ev = _evalues_in_space(s, np.array(log_ss), params).tolist()
                for (a, _), e, b in zip(done, ev, bits):
                    a.evalue, a.bitscore = e, b

    def columns(self, scores: np.ndarray, spaces: tuple) -> tuple[np.ndarray, np.ndarray]:
        """E-values and bit scores of alignments scoring ``scores``, each in its
        own search space (``spaces``: arrays of query length, database residues
        and database sequences): the numbers of :meth:`annotate_each`, NaN where
        there are none (no statistics, or a score <= 0). Each distinct space's
        length adjustment is computed once."""
        scores = np.asarray(scores)
        ev, bits = np.full(scores.size, np.nan), np.full(scores.size, np.nan)
        live = np.flatnonzero(scores > 0)
        if self.params is None or not live.size:
            return ev, bits
        rows = np.stack([np.asarray(x, dtype=np.int64)[live] for x in spaces], axis=1)
        distinct, inverse = _distinct_rows(rows)
        logs = log_spaces(self.params, distinct)
        s = scores[live].astype(np.float64)
        ev[live] = _evalues_in_space(s, logs[inverse.reshape(-1)], self.params)
        bits[live] = bitscores(s, self.params)
        return ev, bits

    def search_fit(self, scores: Any, lengths: Any, query_length: int) -> SearchFit:
        """SSEARCH's fit (:func:`~swgpu.scoring.search_fit.fit_search`) of one
        query's ``scores`` against *every* database sequence of ``lengths``
        (``ok`` False: too few unrelated scores; of a large database, a
        sample: :func:`~swgpu.scoring.search_fit.sample`). Needs :attr:`scoring`."""
        if self.scoring is None:
            raise ValueError("search_fit needs the scoring system: use Statistics.for_scoring")
        ungapped = self._ungapped_values()
        dna = getattr(self.scoring.alphabet, "name", "") == "dna"
        facts, pick = self._fit_lengths(lengths)
        scores = np.asarray(scores)
        if scores.size != np.size(lengths):
            raise ValueError(f"{scores.size} scores but {np.size(lengths)} lengths")
        if pick is not None:
            scores = scores.ravel()[pick]
        return fit_search(scores, facts, query_length, ungapped, dna=dna)

    def prepare_search_fit(self, lengths: Any) -> None:
        """What :meth:`search_fit` computes once for every query against the
        database of ``lengths`` (a read-only array), computed now: the
        scoring's ungapped values and the facts of the lengths (a GPU search
        calls it while its first queries are scored)."""
        if self.scoring is not None:
            self._ungapped_values()
            self._fit_lengths(lengths)

    def _ungapped_values(self) -> tuple[float, float]:
        if self._ungapped is None:
            from .ungapped import ungapped_values

            try:
                self._ungapped = ungapped_values(self.scoring.matrix)[:2]
            except ValueError:  # expected score not negative: no cap from it
                self._ungapped = (0.1, 0.1)
        return self._ungapped

    def _fit_lengths(self, lengths: Any) -> tuple[FitLengths, np.ndarray | None]:
        """The :class:`FitLengths` of (a sample of) ``lengths`` and the sample's
        positions (None: all); kept for the next query when ``lengths`` is a
        read-only array (a database's)."""
        kept = self._lengths
        if kept is not None and kept[0] is lengths:
            return kept[1], kept[2]
        array = np.asarray(lengths)
        pick = sample_positions(array.size)
        facts = FitLengths(array if pick is None else array[pick])
        if isinstance(lengths, np.ndarray) and not lengths.flags.writeable:
            self._lengths = (lengths, facts, pick)
        return facts, pick

    def search_evalues(self, scores: Any, lengths: Any, query_length: int, db_residues: int, db_sequences: int,
                       fit: SearchFit | None = None) -> np.ndarray:
        """E-values of ``scores`` of subjects of ``lengths`` found by searching
        a query of ``query_length`` against ``db_sequences`` sequences of
        ``db_residues`` residues: from ``fit`` (:meth:`search_fit` of the whole
        search; without one, ``scores`` and ``lengths`` must be the whole
        search and are fitted) when it succeeded, else from the parameters
        (:meth:`evalue`, BLAST's search space). NaN for scores <= 0."""
        s = np.asarray(scores)
        if fit is None:
            fit = self.search_fit(s, lengths, query_length)
        if fit.ok:
            out = fit.evalues(s, lengths, db_sequences, db_residues)
        else:
            out = np.asarray(self.evalue(s, query_length, db_residues, db_sequences), dtype=np.float64)
        return np.where(s > 0, out, np.nan)

    def search_space(self, query_length: int, db_residues: int, db_sequences: int,
                     length_correction: bool = True) -> float:
        """Effective search space, NaN when unavailable."""
        if self.params is None:
            return float("nan")
        return search_space(self.params, query_length, db_residues, db_sequences, length_correction)


def _distinct_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``rows`` (non-negative ints) and where each row is
    among them (one sort of a number per row when they fit in 63 bits)."""
    top = rows.max(axis=0).astype(np.float64) + 1 if rows.size else np.ones(rows.shape[1])
    if float(np.prod(top)) < 2.0 ** 62:
        key = np.zeros(rows.shape[0], dtype=np.int64)
        for c in range(rows.shape[1]):
            key = key * int(top[c]) + rows[:, c]
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        return rows[first], inverse.reshape(-1)
    distinct, inverse = np.unique(rows, axis=0, return_inverse=True)
    return distinct, inverse.reshape(-1)


def _nan_like(scores: Any) -> float | np.ndarray:
    shape = np.shape(scores)
    if shape == ():
        return float("nan")
    return np.full(shape, np.nan)
