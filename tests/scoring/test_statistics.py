"""Karlin-Altschul statistics: table look-ups, gap-cost mapping, E-values, bit scores."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from swgpu.scoring import ScoreMatrix, Scoring
from swgpu.scoring.statistics import (
    INT2_MAX,
    NUCLEOTIDE_PAIRS,
    KarlinAltschul,
    Statistics,
    bitscore,
    bitscores,
    evalue,
    evalues,
    length_adjustment,
    lookup,
    lookup_blast,
    nucleotide_ungapped,
    parse_match_mismatch,
    search_space,
    ungapped,
)
from swgpu.scoring.tables import blast_tables


@pytest.fixture(scope="module")
def blosum62():
    return ScoreMatrix.load("BLOSUM62")


def dna(reward, penalty, gap_open, gap_extend):
    return Scoring(ScoreMatrix.match_mismatch(reward, penalty), gap_open, gap_extend)


# --- tables -----------------------------------------------------------------

def test_table_sizes_match_blast():
    sizes = {name: len(rows) for name, rows in blast_tables().protein.items()}
    assert sizes == {"BLOSUM45": 14, "BLOSUM50": 16, "BLOSUM62": 12, "BLOSUM80": 10,
                     "BLOSUM90": 8, "PAM30": 7, "PAM70": 7, "PAM250": 16}
    for name, rows in blast_tables().protein.items():
        assert rows[0][:2] == (INT2_MAX, INT2_MAX), name
        costs = [r[:2] for r in rows]
        assert len(set(costs)) == len(costs), name
        for row in rows:
            assert len(row) == 7
            lam, k, h = row[2:5]
            assert 0.1 < lam < 0.4 and 0.005 < k < 0.3 and 0 < h < 2
    assert set(NUCLEOTIDE_PAIRS) == {(1, -5), (1, -4), (2, -7), (1, -3), (2, -5), (1, -2), (2, -3),
                                     (3, -4), (4, -5), (1, -1), (3, -2), (5, -4)}


@pytest.mark.parametrize("name, existence, extension, expected", [
    ("BLOSUM62", 11, 1, (0.267, 0.041, 0.14, 1.9, -30)),
    ("BLOSUM62", 10, 1, (0.243, 0.024, 0.10, 2.5, -44)),
    ("BLOSUM62", 9, 2, (0.279, 0.058, 0.19, 1.5, -19)),
    ("BLOSUM45", 14, 2, (0.195, 0.032, 0.10, 1.9, -36)),
    ("BLOSUM50", 13, 2, (0.193, 0.035, 0.12, 1.6, -32)),
    ("BLOSUM80", 10, 1, (0.299, 0.071, 0.27, 1.1, -14)),
    ("BLOSUM90", 10, 1, (0.290, 0.075, 0.28, 1.04, -15)),
    ("PAM30", 9, 1, (0.294, 0.11, 0.61, 0.48, -6)),
    ("PAM70", 10, 1, (0.291, 0.091, 0.41, 0.71, -9)),
    ("PAM250", 14, 2, (0.182, 0.024, 0.073, 2.5, -53)),
])
def test_protein_rows(name, existence, extension, expected):
    p = lookup_blast(name, existence, extension)
    assert (p.lambda_, p.K, p.H, p.alpha, p.beta) == expected
    assert p.gapped and not p.round_down
    assert name in p.source
    assert lookup_blast(name.lower(), existence, extension) == p


@pytest.mark.parametrize("name, expected", [
    ("BLOSUM45", (0.2291, 0.0924, 0.2514)),
    ("BLOSUM50", (0.2318, 0.112, 0.3362)),
    ("BLOSUM62", (0.3176, 0.134, 0.4012)),
    ("BLOSUM80", (0.3430, 0.177, 0.6568)),
    ("BLOSUM90", (0.3346, 0.190, 0.7547)),
    ("PAM30", (0.3400, 0.283, 1.754)),
    ("PAM70", (0.3345, 0.229, 1.029)),
    ("PAM250", (0.2252, 0.0868, 0.2223)),
])
def test_ungapped_rows(name, expected):
    p = ungapped(name)
    assert (p.lambda_, p.K, p.H) == expected and not p.gapped
    assert lookup_blast(name, INT2_MAX, INT2_MAX) == p


def test_nucleotide_rows_and_multiples():
    p = lookup_blast("match2/mismatch-3", 5, 2)  # blastn's defaults
    assert (p.lambda_, p.K, p.H, p.alpha, p.beta, p.round_down) == (0.625, 0.41, 0.78, 0.8, -2, True)
    assert lookup_blast("match1/mismatch-2", 2, 1).K == 0.49
    assert lookup_blast("match4/mismatch-5", 6, 5).lambda_ == 0.28
    assert lookup_blast("match1/mismatch-1", 0, 2).lambda_ == 0.80
    # a multiple of a tabulated pair: gap costs scale up, lambda and alpha down
    q = lookup_blast("match4/mismatch-6", 10, 4)
    assert q.lambda_ == pytest.approx(0.625 / 2) and q.K == 0.41 and q.alpha == pytest.approx(0.4)
    assert q.round_down
    assert lookup_blast("match2/mismatch-4", 4, 4).lambda_ == pytest.approx(1.33 / 2)
    assert lookup_blast("match2/mismatch-3", 3, 2) is None     # inside the range, not tabulated
    assert lookup_blast("match2/mismatch-1", 5, 2) is None     # pair not tabulated
    assert lookup_blast("NUC.4.4", 5, 2) is None


def test_nucleotide_ungapped_and_linear_fallbacks():
    # at/above the pair's threshold in both costs: the ungapped values
    for e, x in [(6, 4), (10, 5), (100, 50)]:
        p = lookup_blast("match2/mismatch-3", e, x)
        assert not p.gapped and p.round_down
        assert (round(p.lambda_, 3), round(p.K, 3), round(p.H, 3)) == (0.634, 0.408, 0.912)
    assert lookup_blast("match2/mismatch-3", 7, 3) is None       # extension below its threshold
    # linear gaps at the greedy cost reward/2 - penalty use the non-affine row
    assert lookup_blast("match2/mismatch-5", 0, 6).lambda_ == 0.675
    assert lookup_blast("match2/mismatch-7", 0, 8).K == 0.73
    assert lookup_blast("match4/mismatch-5", 0, 7).lambda_ == 0.22
    assert lookup_blast("match2/mismatch-4", 0, 5).lambda_ == pytest.approx(1.28 / 2)
    assert lookup_blast("match4/mismatch-5", 0, 6) is None


@pytest.mark.parametrize("reward, penalty, expected", [
    # (lambda, K, H) as printed by BLAST+ 2.12 blastn for these scores
    ((2), (-3), (0.634, 0.408, 0.912)),
    ((1), (-2), (1.33, 0.621, 1.12)),
    ((1), (-3), (1.37, 0.711, 1.31)),
    ((1), (-1), (1.10, 0.333, 0.549)),
    ((4), (-5), (0.301, 0.306, 0.753)),
    ((3), (-4), (0.410, 0.340, 0.811)),
    ((5), (-4), (0.192, 0.176, 0.357)),
    ((2), (-4), (0.666, 0.621, 1.12)),
])
def test_nucleotide_ungapped_matches_blast(reward, penalty, expected):
    p = nucleotide_ungapped(reward, penalty)
    lam, k, h = expected
    assert p.lambda_ == pytest.approx(lam, abs=0.006)
    assert p.K == pytest.approx(k, abs=0.0006)
    assert p.H == pytest.approx(h, abs=0.006)
    assert p.alpha == pytest.approx(p.lambda_ / p.H)
    assert ungapped(f"match{reward}/mismatch{penalty}") == p


def test_ungapped_unknown():
    assert ungapped("NUC.4.4") is None
    assert ungapped("match3/mismatch-1") is None   # expected score 0: no statistics
    with pytest.raises(ValueError):
        nucleotide_ungapped(3, -1)


def test_nucleotide_ungapped_agrees_with_tabulated_greedy_rows():
    # for these pairs BLAST's non-affine row coincides with the ungapped values
    for pair in [(1, -3), (1, -4), (1, -5)]:
        lam, k, h = blast_tables().nucleotide[pair].linear[:3]
        p = nucleotide_ungapped(*pair)
        assert p.lambda_ == pytest.approx(lam, abs=0.006)
        assert p.K == pytest.approx(k, abs=0.0006)
        assert p.H == pytest.approx(h, abs=0.006)


# --- gap-cost mapping -------------------------------------------------------

def test_open_extend_mapping(blosum62):
    assert lookup(Scoring(blosum62, 12, 1)) == lookup_blast("BLOSUM62", 11, 1)
    default = Scoring.default("protein")
    assert (default.gap_open, default.gap_extend) == (11, 1)
    assert lookup(default) == lookup_blast("BLOSUM62", 10, 1)
    for name, rows in blast_tables().protein.items():
        matrix = blosum62 if name == "BLOSUM62" else ScoreMatrix.load(name)
        for e, x, *_ in rows[1:]:
            assert lookup(Scoring(matrix, int(e + x), int(x))) == lookup_blast(name, e, x)
    assert lookup(dna(2, -3, 7, 2)) == lookup_blast("match2/mismatch-3", 5, 2)
    assert lookup(dna(1, -2, 3, 1)) == lookup_blast("match1/mismatch-2", 2, 1)


def test_untabulated_settings(blosum62, tmp_path):
    assert lookup(Scoring(blosum62, 11, 11)) is None            # linear protein gaps
    assert lookup(Scoring(blosum62, 14, 3)) is None             # BLAST 11/3: not tabulated
    assert lookup(Scoring(ScoreMatrix.load("NUC.4.4"), 10, 2)) is None
    assert lookup(Scoring.default("dna")) is None               # open 5 extend 2 = BLAST 3/2
    assert lookup(dna(3, -1, 6, 2)) is None                     # reward/penalty pair not tabulated
    # match/mismatch scores on the protein alphabet are not blastn's
    prot = Scoring(ScoreMatrix.match_mismatch(2, -3, "protein"), 7, 2)
    assert lookup(prot) is None
    # a file that is merely called BLOSUM62 but holds other scores
    from Bio.Align import substitution_matrices
    bio = substitution_matrices.load("BLOSUM62")
    bio["W", "W"] = 15
    path = tmp_path / "BLOSUM62"
    path.write_text(format(bio))
    modified = ScoreMatrix.load(path)
    assert modified.name == "BLOSUM62"
    assert lookup(Scoring(modified, 12, 1)) is None
    stats = Statistics.for_scoring(Scoring(blosum62, 11, 11), estimate=False)   # tables only
    assert not stats.available and stats.params is None
    assert math.isnan(stats.bitscore(50))
    assert math.isnan(stats.evalue(50, 300, 10**6, 1000))
    out = stats.evalue(np.array([[10, 20], [30, 40]]), 300, 10**6, 1000)
    assert out.shape == (2, 2) and np.isnan(out).all()
    assert np.isnan(stats.bitscore([1, 2, 3])).all()
    assert "no E-values" in repr(stats)


def test_parse_match_mismatch():
    assert parse_match_mismatch("match2/mismatch-3") == (2, -3)
    assert parse_match_mismatch("match1/mismatch-1") == (1, -1)
    assert parse_match_mismatch("match10/mismatch0") == (10, 0)
    assert parse_match_mismatch("BLOSUM62") is None
    assert parse_match_mismatch("match2") is None


# --- bit scores and E-values -------------------------------------------------

def test_bitscore_formula():
    p = lookup_blast("BLOSUM62", 11, 1)
    for s in (0, 1, 37, 100, 792):
        assert bitscore(s, p) == pytest.approx((0.267 * s - math.log(0.041)) / math.log(2))
    assert bitscore(792, p) == pytest.approx(309.686, abs=1e-3)
    assert bitscore(50, p) == pytest.approx(23.87, abs=0.01)   # BLAST prints 23.9


def test_evalue_monotonic_and_linear_in_database():
    p = lookup_blast("BLOSUM62", 11, 1)
    scores = np.arange(20, 400)
    e = evalues(scores, 300, 10**7, 30_000, p)
    assert np.all(np.diff(e) < 0)
    assert np.all(np.diff(evalues(scores, 300, 10**7, 30_000, p, length_correction=False)) < 0)
    for s in (30, 60, 120):
        e1 = evalue(s, 250, 10**6, 3000, p, length_correction=False)
        assert e1 == pytest.approx(0.041 * 250 * 10**6 * math.exp(-0.267 * s))
        for factor in (2, 10, 1000):
            assert evalue(s, 250, factor * 10**6, 3000, p, length_correction=False) == pytest.approx(factor * e1)
        # edge correction shrinks the search space
        assert evalue(s, 250, 10**6, 3000, p) < e1


def test_length_adjustment_and_search_space_match_blast():
    # values printed by BLAST+ 2.12 ("Effective search space used")
    p = lookup_blast("BLOSUM62", 11, 1)
    assert length_adjustment(p, 300, 698_232, 2_000) == 79
    assert search_space(p, 300, 698_232, 2_000) == 119_391_272
    cases = [
        ((2, -3, 5, 2), 531_078_076),
        ((1, -2, 2, 2), 539_048_286),
        ((1, -3, 2, 2), 542_250_370),
        ((1, -1, 4, 2), 515_287_656),
        ((2, -3, 6, 4), 535_854_202),   # ungapped fallback
        ((4, -5, 12, 8), 526_319_950),  # ungapped fallback
        ((2, -4, 4, 4), 539_048_286),   # multiple of 1/-2
        ((3, -4, 6, 3), 521_579_824),
        ((5, -4, 10, 6), 433_475_388),
    ]
    for (r, pen, e, x), expected in cases:
        q = lookup_blast(f"match{r}/mismatch{pen}", e, x)
        assert search_space(q, 500, 1_133_042, 1_000) == expected, (r, pen, e, x)
    assert search_space(p, 300, 698_232, 2_000, length_correction=False) == 300 * 698_232
    # tiny searches: no adjustment
    assert length_adjustment(p, 5, 10, 1) == 0
    with pytest.raises(ValueError):
        search_space(p, 0, 1000, 1)


def test_evalues_match_blast():
    # (score, E-value) as printed by BLAST+ 2.12
    p = lookup_blast("BLOSUM62", 11, 1)  # blastp -comp_based_stats 0, OLD_FSC set
    for score, printed in [(792, 7.11e-86), (744, 2.62e-80), (50, 7.8), (32, 953)]:
        assert evalue(score, 300, 698_232, 2_000, p) == pytest.approx(printed, rel=0.01)
    q = lookup_blast("match2/mismatch-3", 5, 2)
    for score, printed in [(511, 8.06e-131), (427, 5.09e-108), (401, 5.81e-101)]:
        assert evalue(score, 500, 1_133_042, 1_000, q) == pytest.approx(printed, rel=0.002)


def test_round_down_applies_to_evalues_only():
    q = lookup_blast("match2/mismatch-3", 5, 2)
    assert q.round_down
    args = (500, 1_133_042, 1_000, q)
    assert evalue(511, *args) == evalue(510, *args)
    assert evalue(512, *args) < evalue(511, *args)
    assert bitscore(511, q) > bitscore(510, q)
    plain = dataclasses.replace(q, round_down=False)
    assert evalue(511, 500, 1_133_042, 1_000, plain) < evalue(511, *args)
    assert not lookup_blast("match1/mismatch-2", 2, 2).round_down


def test_vectorised_equals_scalar():
    rng = np.random.default_rng(7)
    for p in (lookup_blast("BLOSUM62", 11, 1), lookup_blast("PAM30", 9, 1),
              lookup_blast("match2/mismatch-3", 5, 2), lookup_blast("match1/mismatch-2", 2, 2)):
        scores = rng.integers(10, 300, size=200)
        for lc in (True, False):
            vec = evalues(scores, 350, 5_000_000, 12_000, p, length_correction=lc)
            ref = [evalue(int(s), 350, 5_000_000, 12_000, p, length_correction=lc) for s in scores]
            np.testing.assert_allclose(vec, ref, rtol=1e-12)
        np.testing.assert_allclose(bitscores(scores, p), [bitscore(int(s), p) for s in scores], rtol=1e-12)
        # per-hit query lengths
        qlens = rng.integers(50, 1000, size=scores.size)
        vec = evalues(scores, qlens, 5_000_000, 12_000, p)
        ref = [evalue(int(s), int(m), 5_000_000, 12_000, p) for s, m in zip(scores, qlens)]
        np.testing.assert_allclose(vec, ref, rtol=1e-12)
        # 2-D input keeps its shape
        assert evalues(scores.reshape(20, 10), 350, 10**6, 100, p).shape == (20, 10)


def test_statistics_object(blosum62):
    stats = Statistics.for_scoring(Scoring(blosum62, 12, 1))
    assert stats.available and isinstance(stats.params, KarlinAltschul)
    p = stats.params
    assert isinstance(stats.bitscore(100), float)
    assert stats.bitscore(100) == bitscore(100, p)
    assert isinstance(stats.evalue(100, 300, 10**6, 1000), float)
    assert stats.evalue(100, 300, 10**6, 1000) == evalue(100, 300, 10**6, 1000, p)
    scores = [40, 80, 160]
    np.testing.assert_array_equal(stats.evalue(scores, 300, 10**6, 1000), evalues(scores, 300, 10**6, 1000, p))
    np.testing.assert_array_equal(stats.bitscore(scores), bitscores(scores, p))
    assert stats.search_space(300, 10**6, 1000) == search_space(p, 300, 10**6, 1000)
    assert "0.267" in repr(stats)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.K = 1.0  # type: ignore[misc]


def _plain(score):
    from types import SimpleNamespace

    return SimpleNamespace(score=score, evalue=None, bitscore=None)


@pytest.mark.parametrize("gaps", [(5, 2), (2, 2), (4, 1)])
def test_annotate_each_equals_annotate_one_by_one(gaps):
    """Each alignment's own search space, computed once per space: the same numbers, bit for bit."""
    scoring = Scoring.build("dna", match=1, mismatch=-2, gap_open=gaps[0], gap_extend=gaps[1])
    stats = Statistics.for_scoring(scoring)
    assert stats.available
    rng = np.random.default_rng(gaps[0])
    scores = rng.integers(-3, 300, 3000).tolist()
    spaces = [(int(m), int(n), int(k)) for m, n, k in zip(rng.integers(1, 200, 3000), rng.choice([50, 250, 10**9], 3000),
                                                         rng.choice([1, 1000], 3000))]
    one, each = [_plain(s) for s in scores], [_plain(s) for s in scores]
    for a, space in zip(one, spaces):
        stats.annotate([a], *space)
    stats.annotate_each(each, spaces)
    assert [(a.evalue, a.bitscore) for a in one] == [(a.evalue, a.bitscore) for a in each]
    assert sum(a.evalue is None for a in each) == sum(s <= 0 for s in scores)


def test_annotate_each_without_statistics_and_with_a_bad_space():
    untabulated = Statistics.for_scoring(Scoring.default("dna"), estimate=False)
    alignments = [_plain(10)]
    untabulated.annotate_each(alignments, [(10, 10, 1)])
    assert alignments[0].evalue is None
    stats = Statistics.for_scoring(Scoring.build("dna", match=1, mismatch=-2, gap_open=5, gap_extend=2))
    alignments = [_plain(10), _plain(12), _plain(14)]
    with pytest.raises(ValueError, match="must be positive"):
        stats.annotate_each(alignments, [(10, 10, 1), (0, 10, 1), (10, 10, 1)])
    assert alignments[0].evalue is not None and alignments[1].evalue is alignments[2].evalue is None
