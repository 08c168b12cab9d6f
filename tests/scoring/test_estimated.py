"""E-values for every scoring: simulated parameters, their disk cache, and
matrices recognised by their values. The simulations here are small (a few
million cells: well under a second); test_vs_ssearch.py runs full ones."""

from __future__ import annotations

import json
import math
import pickle

import numpy as np
import pytest

from swgpu.scoring import ScoreMatrix, Scoring, estimated, karlin_cache, simulation
from swgpu.scoring.statistics import Statistics, lookup

SMALL = 3 * simulation.PAIR_LENGTH ** 2      # three pairs of 4000


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty cache folder, small simulations, nothing remembered in memory."""
    monkeypatch.setenv("SWGPU_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(simulation, "CELLS", SMALL)
    estimated.forget()
    yield tmp_path / "karlin"
    estimated.forget()


@pytest.fixture(scope="module")
def blosum62_file(tmp_path_factory):
    """BLOSUM62's values in a file of another name."""
    from importlib import resources

    path = tmp_path_factory.mktemp("m") / "my_favourite.mat"
    path.write_text(resources.files("swgpu").joinpath("data", "matrices", "BLOSUM62").read_text())
    return path


def test_cache_dir_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("SWGPU_CACHE_DIR", str(tmp_path / "a"))
    assert karlin_cache.cache_dir() == tmp_path / "a" / "karlin"
    monkeypatch.delenv("SWGPU_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert karlin_cache.cache_dir() == tmp_path / "x" / "swgpu" / "karlin"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "h"))
    assert karlin_cache.cache_dir() == tmp_path / "h" / ".cache" / "swgpu" / "karlin"


def test_every_scoring_gets_evalues(cache):
    linear = Scoring(ScoreMatrix.load("BLOSUM62"), 11, 11)
    assert lookup(linear) is None
    stats = Statistics.for_scoring(linear)
    assert stats.available and stats.params.gapped and "simulated" in stats.params.source
    p = stats.params
    assert 0.2 < p.lambda_ < 0.3176 and 0 < p.K < 1 and p.alpha > 0
    e = stats.evalue([40, 60], 300, 10**7, 30_000)
    assert e[0] > e[1] > 0 and not math.isnan(stats.bitscore(50))
    assert len(list(cache.glob("*.json"))) == 1
    # tabulated scorings keep BLAST's numbers and write nothing
    assert Statistics.for_scoring(Scoring(ScoreMatrix.load("BLOSUM62"), 12, 1)).params.lambda_ == 0.267
    assert len(list(cache.glob("*.json"))) == 1


def test_the_disk_cache_is_used(cache, monkeypatch):
    scoring = Scoring.default("dna")                    # 2/-3, 5/2: not in blastn's table
    assert estimated.needs_simulation(scoring) and not estimated.needs_simulation(Scoring.default("protein"))
    first = estimated.estimated(scoring)
    assert not estimated.needs_simulation(scoring)
    assert first is not None
    (path,) = cache.glob("*.json")
    record = json.loads(path.read_text())
    assert record["lambda"] == first.lambda_ and record["scoring"] == scoring.describe()
    estimated.forget()

    def no_simulation(*args, **kwargs):
        raise AssertionError("simulated again instead of reading the cache")

    monkeypatch.setattr(simulation, "estimate", no_simulation)
    assert not estimated.needs_simulation(scoring)          # found on disk
    assert estimated.estimated(scoring) == first
    assert Statistics.for_scoring(scoring).params == first


@pytest.mark.parametrize("damage", [b"", b"{not json", b"\xff\xfe\x00", b'{"lambda": "nan", "K": 1}', b"[1, 2, 3]",
                                    b'{"lambda": -1, "K": 0.1, "H": 1, "alpha": 1, "beta": 0}'])
def test_a_corrupt_cache_file_is_recomputed(cache, damage):
    scoring = Scoring.default("dna")
    first = estimated.estimated(scoring)
    (path,) = cache.glob("*.json")
    path.write_bytes(damage)
    estimated.forget()
    again = estimated.estimated(scoring)
    assert again == first                                # deterministic: the same numbers
    assert json.loads(path.read_text())["lambda"] == first.lambda_   # and the file is whole again


def test_an_unwritable_cache_only_means_estimating_again(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("SWGPU_CACHE_DIR", str(blocker))
    monkeypatch.setattr(simulation, "CELLS", SMALL)
    estimated.forget()
    try:
        assert estimated.estimated(Scoring.default("dna")) is not None
    finally:
        estimated.forget()


def test_simulation_is_deterministic_whatever_the_threads():
    m = ScoreMatrix.match_mismatch(1, -2)
    one = simulation.estimate(m, 3, 2, cells=2 * simulation.PAIR_LENGTH ** 2, threads=1)
    two = simulation.estimate(m, 3, 2, cells=2 * simulation.PAIR_LENGTH ** 2, threads=2)
    assert one is not None and (one.lambda_, one.K, one.alpha) == (two.lambda_, two.K, two.alpha)


def test_no_logarithmic_regime_is_cached_as_none(cache):
    assert simulation.estimate(ScoreMatrix.match_mismatch(3, -1), 5, 2, cells=SMALL) is None   # expected score 0
    scoring = Scoring(ScoreMatrix.match_mismatch(3, -2), 1, 1)   # gaps of 1 with match 3: scores grow with length
    stats = Statistics.for_scoring(scoring)
    assert not stats.available and math.isnan(stats.evalue(50, 100, 1000, 1))
    (path,) = cache.glob("*.json")
    assert json.loads(path.read_text())["none"] is True


def test_a_blosum62_file_under_any_name_is_blosum62(cache, blosum62_file):
    named, other = ScoreMatrix.load("BLOSUM62"), ScoreMatrix.load(blosum62_file)
    assert other.name == "my_favourite.mat"
    for go, ge in [(12, 1), (11, 1), (10, 2)]:          # tabulated: BLAST's rows
        a, b = Statistics.for_scoring(Scoring(named, go, ge)), Statistics.for_scoring(Scoring(other, go, ge))
        assert a.params == b.params and a.params.source.startswith("BLAST table, BLOSUM62")
        assert a.evalue([30, 50, 70], 300, 10**7, 30_000).tolist() == b.evalue([30, 50, 70], 300, 10**7, 30_000).tolist()
    # untabulated (linear gaps): the same cached estimate
    a, b = Statistics.for_scoring(Scoring(named, 9, 9)), Statistics.for_scoring(Scoring(other, 9, 9))
    assert a.params == b.params
    assert a.evalue([30, 50], 300, 10**7, 30_000).tolist() == b.evalue([30, 50], 300, 10**7, 30_000).tolist()
    assert len(list(cache.glob("*.json"))) == 1


def test_a_changed_score_is_another_matrix(tmp_path):
    values = np.array(ScoreMatrix.load("BLOSUM62").values)
    values[17, 17] += 1                                   # W-W
    changed = ScoreMatrix("BLOSUM62", ScoreMatrix.load("BLOSUM62").alphabet, values)
    assert lookup(Scoring(changed, 12, 1)) is None
    a = estimated.identity(Scoring(changed, 9, 9))
    b = estimated.identity(Scoring(ScoreMatrix.load("BLOSUM62"), 9, 9))
    assert not np.array_equal(a[0], b[0])


def test_nuc44_uses_the_5_minus_4_table():
    nuc = Scoring(ScoreMatrix.load("NUC.4.4"), 16, 6)       # BLAST 10/6, in blastn's 5/-4 table
    assert lookup(nuc) == lookup(Scoring(ScoreMatrix.match_mismatch(5, -4), 16, 6))
    assert lookup(nuc).source == "blastn table, reward 5 penalty -4 gap existence 10 extension 6"


def test_estimate_false_keeps_to_the_tables_and_statistics_pickle(cache):
    scoring = Scoring.default("dna")
    assert not Statistics.for_scoring(scoring, estimate=False).available
    stats = Statistics.for_scoring(scoring)
    copy = pickle.loads(pickle.dumps(stats))              # parameters resolved on the way
    assert copy.params == stats.params is not None and copy.scoring is not None
