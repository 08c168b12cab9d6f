"""E-values from a search's own scores, as FASTA36's SSEARCH computes them by
default (``-z 1``: regression of score on ln(length), Pearson 1998).

A query is scored against every database sequence; most of those scores are
of unrelated sequences, and their distribution gives the statistics. Scores
grow with the logarithm of the subject's length, so SSEARCH fits

    mean score of length n  =  mu + rho * 10 ln(n)

by weighted least squares over bins of ``round(10 ln n)`` (each bin weighted
by its count over its variance), then takes the variance of the residuals;
a score's z-score is ``(S - mu - rho * 10 ln n) / sqrt(variance)`` and its
E-value the extreme-value tail of that standardised score times the number of
database sequences (for DNA, times the database's residues over the subject's
length):

    E = N * (1 - exp(-exp(-(pi / sqrt 6) z - gamma)))

High scores (related sequences) are removed before the final fit: scores are
first capped at the score that an E-value of 0.01 would need with the
ungapped ``lambda`` (times 0.7 for protein) and ``K``; scores whose z-score is
below -3 or above a bound that grows with the number of scores are trimmed;
then the bins whose residual variance is out of line (more than three times
the typical spread after a second regression of the variance on length) are
dropped and the fit repeated. Sequences shorter than 10 residues take no
part and get z-score 0. This module follows that procedure as SSEARCH 36.3.8
does; the code is written from its description and source notes, not copied.

When the regression cannot be fitted (fewer than 5 length bins with two or
more sequences, as in a database of one gene family; fewer than 50 scores
left after trimming; no spread about the length trend) SSEARCH falls back to
a censored maximum-likelihood fit of ``P(S >= x) = 1 - exp(-K m n e^(-lambda
x))`` (the top and bottom 2.5% censored), and so does this module
(``method == "mle"``). Too few scores for any of this -- fewer than about 84,
so that no bound for trimming related sequences exists -- or scores spanning
fewer than 10 units give a fit with ``ok`` False and a ``reason``: SSEARCH
then uses Altschul and Gish's tables, swgpu's caller the ``lambda``/``K``
route (:meth:`swgpu.scoring.Statistics.search_evalues` does it).

One difference remains: SSEARCH leaves some of the very highest-scoring
sequences out of its sample before fitting (they are trimmed here instead),
which changes the fit of queries with hundreds of homologues by up to 10%.

>>> import numpy as np
>>> rng = np.random.default_rng(7)
>>> lengths = rng.integers(50, 1500, 3000)
>>> scores = np.round(8 + 3.6 * np.log(lengths) + rng.gumbel(0, 4, 3000)).astype(int)
>>> fit = fit_search(scores, lengths, 300, ungapped=(0.3176, 0.134))
>>> fit.ok, abs(fit.rho_ln - 3.6) < 0.3      # score per unit of ln(length)
(True, True)
>>> e = fit.evalues([60, 90], [400, 400])
>>> bool(e[0] > e[1])
True
>>> fit_search(scores[:50], lengths[:50], 300, ungapped=(0.3176, 0.134)).reason
'too few scores (50) to trim related sequences'
>>> fit_search(scores, np.full(3000, 400), 300, ungapped=(0.3176, 0.134)).method   # one length: no regression
'mle'
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .search_mle import PI_SQRT6 as _PI_SQRT6
from .search_mle import censored_mle

__all__ = ["SearchFit", "FitLengths", "fit_search", "sample", "LENGTH_CUTOFF", "SAMPLE"]

#: Sequences shorter than this take no part in the fit (z-score 0).
LENGTH_CUTOFF = 10
_LN_FACT = 10.0          # bins of round(10 ln n)
_MAX_BIN = 200
_EULER = 0.57721566490153286060


@dataclass(frozen=True)
class SearchFit:
    """The fitted extreme-value parameters of one query's search.

    ``rho`` and ``mu``: mean score ``mu + rho * 10 ln(n)`` of a subject of
    length ``n`` (``rho_ln = 10 rho`` per unit of ln n, as SSEARCH prints it);
    ``variance``: of the scores about that mean; ``lambda_``: the implied
    ``pi / sqrt(6 variance)``. ``dna``: E-values scale with the database's
    residues over the subject's length instead of its number of sequences.
    ``sequences`` and ``residues``: the database the scores came from (the
    default search space of :meth:`evalues`). ``ok`` False: no fit
    (``reason`` says why); the numbers are then NaN.
    """

    ok: bool
    reason: str
    rho: float
    mu: float
    variance: float
    dna: bool
    sequences: int
    residues: int
    query_length: int = 0
    used: int = 0        #: scores in the final fit
    trimmed: int = 0     #: scores trimmed by z-score
    #: "regression", or "mle" (SSEARCH's censored maximum likelihood, when the
    #: regression cannot be fitted: ``mle_lambda`` and ``mle_K``)
    method: str = "regression"
    mle_lambda: float = float("nan")
    mle_K: float = float("nan")

    @property
    def rho_ln(self) -> float:
        return _LN_FACT * self.rho

    @property
    def lambda_(self) -> float:
        if self.method == "mle":
            return self.mle_lambda
        return _PI_SQRT6 / math.sqrt(self.variance) if self.ok else float("nan")

    def zscores(self, scores: Any, lengths: Any) -> np.ndarray:
        """Standardised scores (mean 0, variance 1 for unrelated subjects);
        0 for scores <= 0 and subjects shorter than :data:`LENGTH_CUTOFF`."""
        s = np.asarray(scores, dtype=np.float64)
        n = np.asarray(lengths, dtype=np.float64)
        s, n = np.broadcast_arrays(s, n)
        if self.method == "mle":
            m = max(float(self.query_length), 1.0)
            z1 = self.mle_lambda * s - np.log(self.mle_K * np.maximum(n, 1.0) * m)
            return (z1 - _EULER) / _PI_SQRT6
        z = np.zeros(s.shape)
        live = (s > 0) & (n >= LENGTH_CUTOFF)
        z[live] = (s[live] - self.rho * _LN_FACT * np.log(n[live]) - self.mu) / math.sqrt(self.variance)
        return z

    def evalues(self, scores: Any, lengths: Any, sequences: int | None = None,
                residues: int | None = None) -> np.ndarray:
        """E-values of ``scores`` of subjects of ``lengths`` (arrays broadcast
        together) in a database of ``sequences`` sequences (protein) or
        ``residues`` residues (DNA), by default the searched one's."""
        if not self.ok:
            return np.full(np.broadcast(np.asarray(scores), np.asarray(lengths)).shape, np.nan)
        z = self.zscores(scores, lengths)
        e = np.exp(-_PI_SQRT6 * z - _EULER)
        p = np.where(e > 0.01, -np.expm1(-e), e)
        if self.dna:
            total = self.residues if residues is None else int(residues)
            count = np.maximum(1.0, total / np.maximum(np.asarray(lengths, dtype=np.float64), 1.0))
        else:
            count = float(max(1, self.sequences if sequences is None else int(sequences)))
        return count * p

    def bitscores(self, scores: Any, lengths: Any) -> np.ndarray:
        """SSEARCH's bit scores: ``((pi / sqrt 6) z + gamma + ln(m n)) / ln 2``
        for a query of ``m`` and a subject of ``n`` residues."""
        z = self.zscores(scores, lengths)
        n = np.maximum(np.asarray(lengths, dtype=np.float64), 1.0)
        return (_PI_SQRT6 * z + _EULER + np.log(max(self.query_length, 1) * n)) / math.log(2.0)


def _failed(reason: str, dna: bool, sequences: int, residues: int, query_length: int) -> SearchFit:
    nan = float("nan")
    return SearchFit(False, reason, nan, nan, nan, dna, sequences, residues, query_length)


class _Bins:
    """Count, sum and sum of squares of (capped) scores per length bin."""

    def __init__(self, count: np.ndarray, sums: np.ndarray, squares: np.ndarray):
        self.count, self.sums, self.squares = count, sums, squares

    @classmethod
    def summed(cls, bins: np.ndarray, scores: np.ndarray, size: int, count: np.ndarray) -> "_Bins":
        """The bins of ``scores`` (``count``: the bins' counts, the same for every query of a database; bins
        from _MAX_BIN + 1 to ``size`` hold what takes no part: left out of the sums, which are the same)."""
        return cls(count.copy(), np.bincount(bins, weights=scores, minlength=size)[:_MAX_BIN + 1],
                   np.bincount(bins, weights=scores * scores, minlength=size)[:_MAX_BIN + 1])

    def subtract(self, count: np.ndarray, sums: np.ndarray, squares: np.ndarray) -> None:
        """Take out the scores of these counts, sums and sums of squares (per bin)."""
        self.count -= count
        self.sums -= sums
        self.squares -= squares


def _regress(b: _Bins, floor: float, first_any: bool) -> tuple[float, float, np.ndarray] | None:
    """Weighted regression of the bins' mean score on ``j + 0.5`` over bins
    with two or more scores below the last bin, from the first bin with any
    score (``first_any``) or with two or more; ``None`` when it fails."""
    j = np.arange(_MAX_BIN + 1)
    occupied = np.flatnonzero(b.count > 0) if first_any else np.flatnonzero(b.count > 1)
    start = int(occupied[0]) if occupied.size else _MAX_BIN
    use = (b.count > 1) & (j >= start) & (j < _MAX_BIN)
    if use.sum() < 5:
        return None
    c = b.count[use]
    var = (b.squares[use] / c - (b.sums[use] / c) ** 2) / (c - 1)
    var = np.maximum(var, floor)
    x = j[use] + 0.5
    n_w, sx = np.sum(c / var), np.sum(c * x / var)
    sy, sx2, sxy = np.sum(b.sums[use] / var), np.sum(c * x * x / var), np.sum(x * b.sums[use] / var)
    det = n_w * sx2 - sx * sx
    if det <= 0.001:
        return None
    return (n_w * sxy - sx * sy) / det, (sx2 * sy - sx * sxy) / det, (b.count > 1) & (j >= start)


def _residual_variance(b: _Bins, rho: float, mu: float, use: np.ndarray) -> float:
    x = np.arange(_MAX_BIN + 1)[use] + 0.5
    u = rho * x + mu
    resid = b.squares[use] - 2.0 * b.sums[use] * u + b.count[use] * u * u
    return float(resid.sum() / b.count[use].sum())


def _drop_wild_bins(b: _Bins, rho: float, mu: float, use: np.ndarray, max_length: int) -> None:
    """Regress the bins' residual variance on length and drop the bins whose
    squared excess over it is more than three times the typical one."""
    x_all = np.arange(_MAX_BIN + 1) + 0.5
    c, x = b.count[use], x_all[use]
    n = c.sum()
    mean_x = np.sum(c * x) / n
    var_x = np.sum(c * x * x) / n - mean_x * mean_x
    u = rho * x + mu
    y2 = b.squares[use] - 2.0 * b.sums[use] * u + c * u * u
    mean_y2 = y2.sum() / n
    rho2 = (np.sum(x * y2) / n - mean_x * mean_y2) / var_x if var_x > 0 else 0.0
    mu2 = mean_y2 - rho2 * mean_x
    if rho2 < 0:
        z = max_length if rho2 * _LN_FACT * math.log(max_length) + mu2 > 0 else math.exp((-1.0 - mu2 / rho2) / _LN_FACT)
    else:
        z = math.exp((1.0 - mu2 / rho2) / _LN_FACT) if rho2 else LENGTH_CUTOFF
    z = max(z, 2 * LENGTH_CUTOFF)
    cutoff = rho2 * _LN_FACT * math.log(z) + mu2
    live = np.flatnonzero((b.count > 1) & use & (np.arange(_MAX_BIN + 1) < _MAX_BIN))
    if not live.size:
        return
    cl, xl = b.count[live], x_all[live]
    mean_l = rho * xl + mu
    v = np.maximum(rho2 * xl + mu2, cutoff)
    u2 = (b.squares[live] - 2.0 * mean_l * b.sums[live] + cl * mean_l * mean_l) - v * cl
    spread = u2 * u2 / (cl - 1)
    typical = math.sqrt(spread.mean())
    wild = live[np.sqrt(spread) > 3.0 * typical]
    b.count[wild] = 0


def _by_mle(s, n, query_length, dna, count, residues, why: str) -> SearchFit:
    found = censored_mle(s, n, query_length)
    if found is None:
        return _failed(f"{why}; maximum likelihood did not converge", dna, count, residues, query_length)
    nan = float("nan")
    return SearchFit(True, why, nan, nan, nan, dna, count, residues, int(query_length), count, 0, "mle", *found)


#: Most scores of one search that are fitted: of a larger database, a sample
#: (:func:`sample`; the fit settles long before, and costs 30 ms a query at a
#: million sequences).
SAMPLE = 100_000


def sample(scores: Any, lengths: Any) -> tuple[np.ndarray, np.ndarray]:
    """At most :data:`SAMPLE` of the ``scores`` and their ``lengths``, evenly
    spaced in the order given (all of them when there are fewer)."""
    scores, lengths = np.asarray(scores), np.asarray(lengths)
    pick = sample_positions(scores.size)
    return (scores, lengths) if pick is None else (scores[pick], lengths[pick])


def sample_positions(count: int) -> np.ndarray | None:
    """The positions :func:`sample` keeps of ``count`` scores (None: all)."""
    return None if count <= SAMPLE else np.linspace(0, count - 1, SAMPLE).astype(np.int64)


class FitLengths:
    """What a fit needs of a database's sequence lengths, worked out once for
    every query searched against it (:func:`fit_search` takes it in place of
    the lengths)."""

    def __init__(self, lengths: Any):
        n = np.asarray(lengths, dtype=np.int64).ravel()
        self.n = n
        self.count, self.residues = int(n.size), int(n.sum())
        self.mean = float(n.mean()) if n.size else 0.0
        self.ok = n >= LENGTH_CUTOFF
        self.all_ok = bool(self.ok.all())
        self.any_ok = bool(self.all_ok or self.ok.any())
        self.ln_n = np.log(np.maximum(n, 1))
        self.bins = np.clip((_LN_FACT * self.ln_n + 0.5).astype(np.int64), 0, _MAX_BIN)
        #: the bins, those of sequences that take part in no fit one past the last (``bins_size`` bins)
        self.bins_ok = self.bins if self.all_ok else np.where(self.ok, self.bins, _MAX_BIN + 1)
        self.bins_size = _MAX_BIN + (1 if self.all_ok else 2)
        self.longest_ok = int(n.max(initial=0, where=self.ok))
        #: the sequences in each bin that takes part (what :class:`_Bins` counts, the same for every query)
        self.bin_counts = np.bincount(self.bins_ok, minlength=self.bins_size)[:_MAX_BIN + 1].astype(np.float64)


def _compiled():
    """The compiled passes (:mod:`.fit_kernel`) once :func:`preload_compiled`
    has loaded them, else None (the array passes: the same values)."""
    return _kernel


def compiled_ready() -> bool:
    """Whether the fits now take the compiled passes (loaded by :func:`preload_compiled`)."""
    return _compiled() is not None


def _load() -> None:
    global _kernel
    from . import fit_kernel

    fit_kernel.load()
    _kernel = fit_kernel


def preload_compiled() -> None:
    """Load the compiled passes on a background thread (a search on the CPU,
    whose process has Numba loaded, or of many queries against a large
    database on a GPU; its fits take them once loaded, the array passes until
    then). A second call does nothing."""
    global _preloading
    if _preloading is not None or _kernel is not None:
        return
    import threading

    def load():
        try:
            _load()
        except Exception:  # (the array passes stay: the same values)
            pass

    _preloading = threading.Thread(target=load, name="swgpu-fit", daemon=True)
    _preloading.start()


_kernel = None  # the loaded fit_kernel module
_preloading = None


def fit_search(scores: Any, lengths: Any, query_length: int, ungapped: tuple[float, float],
               dna: bool = False) -> SearchFit:
    """SSEARCH's ``-z 1`` fit of one query's scores against every database
    sequence (``scores`` and ``lengths``: one entry per database sequence, the
    lengths also as a :class:`FitLengths`; ``query_length``; ``ungapped``: the
    scoring's ungapped ``(lambda, K)``, which set the cap on high scores;
    ``dna``: nucleotide search)."""
    raw = np.asarray(scores).ravel()
    facts = lengths if isinstance(lengths, FitLengths) else FitLengths(lengths)
    n = facts.n
    if raw.shape != n.shape:
        raise ValueError(f"{raw.size} scores but {n.size} lengths")
    kernel = _compiled() if raw.dtype in (np.int32, np.int64, np.float64) else None
    s = raw.astype(np.float64) if kernel is None else None  # (the compiled passes take the scores as they are)
    count, residues = facts.count, facts.residues
    if count == 0:
        return _failed("no scores", dna, count, residues, query_length)
    lam, K = ungapped
    cap = int(-math.log(0.01 / (count * max(K, 1e-50) * query_length * facts.mean)) / (lam * (1.0 if dna else 0.7))
              + 0.5)
    z = (math.log(count) - _EULER) / _PI_SQRT6
    if z < 3.0:
        return _failed(f"too few scores ({count}) to trim related sequences", dna, count, residues, query_length)
    ztrim = 10.0 * z + 50.0
    if not facts.any_ok:
        return _failed("no sequence of 10 residues or more", dna, count, residues, query_length)
    ok, ln_n, bins = facts.ok, facts.ln_n, facts.bins
    if kernel is None:
        capped = np.minimum(s, cap)
        b = _Bins.summed(facts.bins_ok, capped, facts.bins_size, facts.bin_counts)
        if facts.all_ok:
            low, high = s.min(), s.max()
        else:
            low, high = 0.0, s.max(initial=-np.inf, where=ok)
    else:
        sums, squares = np.zeros(facts.bins_size), np.zeros(facts.bins_size)
        low, high = kernel.bin_sums(raw, facts.bins_ok, float(cap), ok, facts.all_ok, sums, squares)
        b = _Bins(facts.bin_counts.copy(), sums[:_MAX_BIN + 1], squares[:_MAX_BIN + 1])
    if high - low < 10:
        return _failed("scores span fewer than 10 units", dna, count, residues, query_length)

    def floats() -> np.ndarray:
        return raw.astype(np.float64) if s is None else s

    first = _regress(b, 0.1, True)
    if first is None:
        why = "fewer than 5 length bins with two or more sequences"
        return _by_mle(floats(), n, query_length, dna, count, residues, why)
    rho, mu, use = first
    variance = _residual_variance(b, rho, mu, use)
    if variance <= 0.01:
        return _by_mle(floats(), n, query_length, dna, count, residues,
                       "no spread of the scores about their length trend")
    if kernel is None:
        live = s > 0
        if not facts.all_ok:
            live &= ok
        # (in place, one array: the same values as ``50 + 10 * where(live, (s - rho * _LN_FACT * ln_n - mu) / sd, -5)``)
        zs = np.multiply(rho * _LN_FACT, ln_n)
        np.subtract(s, zs, out=zs)
        np.subtract(zs, mu, out=zs)
        np.divide(zs, math.sqrt(variance), out=zs)
        zs[~live] = -5.0
        np.multiply(zs, 10.0, out=zs)
        np.add(zs, 50.0, out=zs)
        out = zs < 20.0
        out |= zs > ztrim
        trimmed = int(out.sum())
        gone = out & live
        bins_gone, scores_gone = bins[gone], capped[gone]
        b.subtract(np.bincount(bins_gone, minlength=_MAX_BIN + 1),
                   np.bincount(bins_gone, weights=scores_gone, minlength=_MAX_BIN + 1),
                   np.bincount(bins_gone, weights=scores_gone * scores_gone, minlength=_MAX_BIN + 1))
    else:
        gone_count, gone_sums, gone_squares = np.zeros(_MAX_BIN + 1, np.int64), np.zeros(_MAX_BIN + 1), \
            np.zeros(_MAX_BIN + 1)
        trimmed = int(kernel.trim(raw, ln_n, bins, float(cap), ok, facts.all_ok, float(rho * _LN_FACT), float(mu),
                                  math.sqrt(variance), float(ztrim), gone_count, gone_sums, gone_squares))
        b.subtract(gone_count, gone_sums, gone_squares)
    if count - trimmed < 50:
        why = f"fewer than 50 scores ({count - trimmed}) left after trimming"
        return _by_mle(floats(), n, query_length, dna, count, residues, why)
    second = _regress(b, 1.0, False)
    if second is None:
        return _by_mle(floats(), n, query_length, dna, count, residues, "the trimmed length regression failed")
    _drop_wild_bins(b, second[0], second[1], second[2], facts.longest_ok)
    final = _regress(b, 0.1, True)
    if final is None:
        return _by_mle(floats(), n, query_length, dna, count, residues, "the final length regression failed")
    rho, mu, use = final
    variance = _residual_variance(b, rho, mu, use)
    if variance <= 0.01:
        return _by_mle(floats(), n, query_length, dna, count, residues,
                       "no spread of the scores about their length trend")
    return SearchFit(True, "", float(rho), float(mu), float(variance), dna, count, residues, int(query_length),
                     int(b.count[use].sum()), trimmed)
