"""SSEARCH-style E-values from a search's own scores (synthetic scores here;
tests/scoring/test_vs_ssearch.py compares with ssearch36 itself)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from swgpu.scoring import ScoreMatrix, Scoring
from swgpu.scoring.search_fit import LENGTH_CUTOFF, fit_search
from swgpu.scoring.statistics import Statistics

UNGAPPED = (0.3176, 0.134)


def _null(count=5000, seed=3, rho=3.6, mu=8.0, scale=4.0):
    """Gumbel scores whose mean grows with ln(length), as unrelated sequences' do."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(40, 2000, count)
    scores = np.round(mu + rho * np.log(lengths) + rng.gumbel(0, scale, count)).astype(np.int64)
    return scores, lengths


def test_regression_recovers_the_trend_and_the_spread():
    scores, lengths = _null()
    fit = fit_search(scores, lengths, 300, UNGAPPED)
    assert fit.ok and fit.method == "regression" and fit.reason == ""
    assert fit.rho_ln == pytest.approx(3.6, abs=0.3)
    # the residual spread of a Gumbel of scale 4: variance pi^2 16 / 6
    assert fit.variance == pytest.approx(math.pi ** 2 * 16 / 6, rel=0.15)
    assert fit.lambda_ == pytest.approx(0.25, rel=0.1)
    assert fit.sequences == scores.size and fit.residues == lengths.sum()


def test_related_scores_are_trimmed():
    scores, lengths = _null()
    plain = fit_search(scores, lengths, 300, UNGAPPED)
    scores = scores.copy()
    scores[:40] += 400                           # 40 homologues
    fit = fit_search(scores, lengths, 300, UNGAPPED)
    assert fit.trimmed >= 40
    assert fit.variance == pytest.approx(plain.variance, rel=0.1)


def test_evalues_protein_and_dna():
    scores, lengths = _null()
    fit = fit_search(scores, lengths, 300, UNGAPPED)
    e = fit.evalues([40, 60, 80], [300, 300, 300])
    assert e[0] > e[1] > e[2] > 0
    # protein: E scales with the number of sequences
    assert fit.evalues(60, 300, sequences=2 * scores.size) == pytest.approx(2 * e[1])
    dna = fit_search(scores, lengths, 300, UNGAPPED, dna=True)
    ed = dna.evalues(60, 300)
    # DNA: with the database's residues over the subject's length
    z = dna.zscores(60, 300)
    tail = math.exp(-math.pi / math.sqrt(6) * float(z) - 0.5772156649015329)
    p = -math.expm1(-tail) if tail > 0.01 else tail      # SSEARCH's small-tail shortcut
    assert float(ed) == pytest.approx(lengths.sum() / 300 * p)
    assert fit.bitscores([40, 60], [300, 300]).tolist() == sorted(fit.bitscores([40, 60], [300, 300]).tolist())


def test_short_subjects_and_nonpositive_scores_get_z_zero():
    scores, lengths = _null()
    fit = fit_search(scores, lengths, 300, UNGAPPED)
    assert fit.zscores([50, 0, 50], [LENGTH_CUTOFF - 1, 300, 300])[:2].tolist() == [0.0, 0.0]


def test_too_few_scores_is_not_a_fit():
    scores, lengths = _null(count=80)
    fit = fit_search(scores, lengths, 300, UNGAPPED)
    assert not fit.ok and "too few scores" in fit.reason and math.isnan(fit.lambda_)
    assert np.isnan(fit.evalues([50], [300])).all()
    assert not fit_search([], [], 300, UNGAPPED).ok
    with pytest.raises(ValueError, match="scores but"):
        fit_search([1, 2], [3], 300, UNGAPPED)


def test_one_length_falls_back_to_maximum_likelihood():
    rng = np.random.default_rng(5)
    lam, K, m, n = 0.25, 0.05, 300, 400
    # Gumbel scores of P(S >= x) = 1 - exp(-K m n e^(-lam x))
    scores = np.round(np.log(K * m * n) / lam + rng.gumbel(0, 1 / lam, 4000)).astype(int)
    fit = fit_search(scores, np.full(4000, n), m, UNGAPPED)
    assert fit.ok and fit.method == "mle" and "length bins" in fit.reason
    assert fit.lambda_ == pytest.approx(lam, rel=0.08)
    e = float(fit.evalues(60, n))
    assert e == pytest.approx(4000 * -math.expm1(-K * m * n * math.exp(-lam * 60)), rel=0.6)


def test_statistics_search_evalues_falls_back_to_lambda_k():
    scoring = Scoring(ScoreMatrix.load("BLOSUM62"), 12, 1)
    stats = Statistics.for_scoring(scoring)
    scores, lengths = _null()
    fit = stats.search_fit(scores, lengths, 300)
    assert fit.ok
    got = stats.search_evalues([60, 0], [300, 300], 300, int(lengths.sum()), lengths.size, fit=fit)
    assert got[0] == pytest.approx(float(fit.evalues(60, 300))) and np.isnan(got[1])
    # too few scores: the lambda/K route with BLAST's search space
    few = stats.search_evalues(scores[:50], lengths[:50], 300, 10**7, 30_000)
    np.testing.assert_allclose(few, stats.evalue(scores[:50], 300, 10**7, 30_000))
    with pytest.raises(ValueError, match="needs the scoring"):
        Statistics(stats.params).search_fit(scores, lengths, 300)


def _same_fit(a, b) -> bool:
    import dataclasses

    da, db = dataclasses.asdict(a), dataclasses.asdict(b)
    return all(da[k] == db[k] or (isinstance(da[k], float) and math.isnan(da[k]) and math.isnan(db[k])) for k in da)


@pytest.mark.parametrize("seed", range(6))
def test_lengths_worked_out_once_give_the_same_fit(seed):
    """A database's FitLengths, made once and kept (read-only lengths), give
    every query the fit its lengths give directly: short subjects, one length,
    high scores, DNA, samples of large databases."""
    from swgpu.scoring.search_fit import SAMPLE, FitLengths, sample

    rng = np.random.default_rng(seed)
    count = [300, 3000, SAMPLE + 17, 90, 20000, 5000][seed]
    lengths = rng.integers([1, 5, 10, 40, 1, 400][seed], 2000, count)
    if seed == 5:
        lengths[:] = 400
    lengths.setflags(write=False)
    scoring = Scoring.default("dna" if seed % 2 else "protein")
    stats = Statistics.for_scoring(scoring)
    for q in range(3):
        scores = np.round(rng.choice([0, 8]) + 3.6 * np.log(lengths) + rng.gumbel(0, [0.1, 4, 9][q], count))
        scores[rng.integers(0, count, count // 20)] = 500
        kept = stats.search_fit(scores, lengths, 250)
        assert stats._lengths is not None and stats._lengths[0] is lengths
        fresh = Statistics.for_scoring(scoring).search_fit(scores, lengths.copy(), 250)  # writable: not kept
        assert _same_fit(kept, fresh)
        s, n = sample(scores, lengths)
        direct = fit_search(s, n, 250, stats._ungapped, dna=bool(seed % 2))
        assert _same_fit(direct, kept) and _same_fit(direct, fit_search(s, FitLengths(n), 250, stats._ungapped,
                                                                       dna=bool(seed % 2)))
    with pytest.raises(ValueError, match="scores but"):
        stats.search_fit(np.ones(count + 1), lengths, 250)


@pytest.mark.parametrize("dna", [False, True])
def test_a_fit_prepared_while_the_gpu_scores_is_the_same_fit(dna):
    """prepare_search_fit (a GPU search's, while its first queries are scored)
    makes what every fit against the database shares, and nothing else: the
    fits after it are the fits without it."""
    rng = np.random.default_rng(3)
    lengths = rng.integers(10, 2000, 30_000)
    lengths.setflags(write=False)
    scoring = Scoring.default("dna" if dna else "protein")
    prepared, plain = Statistics.for_scoring(scoring), Statistics.for_scoring(scoring)
    prepared.prepare_search_fit(lengths)
    assert prepared._ungapped is not None and prepared._lengths[0] is lengths
    for q in range(3):
        scores = np.round(3.6 * np.log(lengths) + rng.gumbel(0, 4, lengths.size))
        assert _same_fit(prepared.search_fit(scores, lengths, 200 + q), plain.search_fit(scores, lengths, 200 + q))
    Statistics(prepared.params).prepare_search_fit(lengths)  # without a scoring: nothing to prepare


@pytest.mark.parametrize("seed", range(40))
def test_the_compiled_passes_give_the_fit_of_the_array_passes(seed, monkeypatch):
    """Every field the same to the last bit (:mod:`swgpu.scoring.fit_kernel`): regressions and
    their fallbacks, short sequences taking no part, related scores, several score types."""
    from swgpu.scoring import search_fit

    search_fit._load()
    rng = np.random.default_rng(seed)
    n = int(rng.choice([90, 400, 3000, 20000]))
    lengths = rng.integers(1 if seed % 3 == 0 else 10, int(rng.choice([60, 500, 3000])), n)
    scores = np.maximum(0, rng.gumbel(rng.uniform(5, 40), rng.uniform(0.5, 8), n) + 3 * np.log(lengths))
    scores = scores.astype([np.int32, np.int64, np.float64][seed % 3])
    if seed % 5 == 0:
        scores[rng.integers(0, n, 20)] = rng.integers(100, 3000, 20)  # related sequences
    if seed % 7 == 0:
        scores[:] = scores[0]
    facts = search_fit.FitLengths(lengths)
    compiled = search_fit.fit_search(scores, facts, 250, (0.3176, 0.134), dna=seed % 4 == 0)
    monkeypatch.setattr(search_fit, "_compiled", lambda: None)
    arrays = search_fit.fit_search(scores, facts, 250, (0.3176, 0.134), dna=seed % 4 == 0)
    assert repr(compiled) == repr(arrays)


def test_the_compiled_passes_load_on_a_thread():
    from swgpu.scoring import search_fit

    search_fit.preload_compiled()
    if search_fit._preloading is not None:
        search_fit._preloading.join(120)
    assert search_fit._compiled() is not None


def test_fits_on_threads_while_the_compiled_passes_load(tmp_path):
    """In a fresh process: fits on four threads while a thread loads the compiled
    passes (a GPU search of many queries) take the array passes until then, with no error, and
    the same values after."""
    import subprocess
    import sys

    script = tmp_path / "fits.py"
    script.write_text(
        "import numpy as np\n"
        "from concurrent.futures import ThreadPoolExecutor\n"
        "from swgpu import Scoring\n"
        "from swgpu.scoring import Statistics, search_fit\n"
        "rng = np.random.default_rng(3)\n"
        "lengths = rng.integers(30, 1500, 20000); lengths.setflags(write=False)\n"
        "st = Statistics.for_scoring(Scoring.default('protein'))\n"
        "scores = [np.maximum(0, rng.gumbel(20, 5, 20000) + 3 * np.log(lengths)).astype(np.int32) for _ in range(60)]\n"
        "search_fit.preload_compiled()\n"
        "fit = lambda s: repr(st.search_fit(s, lengths, 200))\n"
        "with ThreadPoolExecutor(4) as pool:\n"
        "    before = list(pool.map(fit, scores))\n"
        "search_fit._preloading.join()\n"
        "assert search_fit._compiled() is not None\n"
        "with ThreadPoolExecutor(4) as pool:\n"
        "    assert list(pool.map(fit, scores)) == before\n"
        "print('ok')\n")
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr
