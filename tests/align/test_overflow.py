"""``swgpu.align.overflow.OverflowPolicy``: the 16-bit limit, which scores are
suspects, how they are replaced; and the CPU search scorer re-scoring in 32 bits
the scores that passed the limit."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu import Scoring, Sequence
from swgpu.align import reference
from swgpu.align.overflow import OverflowPolicy
from swgpu.engines.base import get_engine
from swgpu.io.database import Database


@pytest.mark.parametrize("max_match,headroom", [(11, 12), (0, 0), (5, 0), (100, 2), (-3, 4), (1000, 7)])
def test_limit_16_bits(max_match, headroom):
    p = OverflowPolicy(max_match=max_match, headroom=headroom, bits=16)
    assert p.limit == 32767 - max(max_match, 0) - headroom


def test_limit_default_bits_and_other_widths():
    assert OverflowPolicy(max_match=11).bits == 16
    assert OverflowPolicy(max_match=11).limit == 32767 - 11
    assert OverflowPolicy(max_match=3, headroom=1, bits=8).limit == 127 - 3 - 1


def test_suspects():
    p = OverflowPolicy(max_match=11, headroom=12)  # limit 32744
    scores = np.array([5, 32744, 32745, -3, 32767, -32768, 0], dtype=np.int16)
    assert p.suspects(scores).tolist() == [2, 4]
    assert p.suspects(scores.astype(np.int32)).tolist() == [2, 4]
    assert p.suspects([32745, 1]).tolist() == [0]  # any array-like
    assert p.suspects(np.zeros(0, dtype=np.int32)).size == 0


def test_resolve_replaces_only_suspects():
    p = OverflowPolicy(max_match=100, headroom=2)
    lim = p.limit
    scores = np.array([1, lim + 1, lim, 32767, 7, lim + 50], dtype=np.int32)
    calls = []

    def rescore(positions):
        calls.append(positions.copy())
        return 100_000 + positions * 10

    before = scores.copy()
    assert p.resolve(scores, rescore) == 3
    assert len(calls) == 1
    assert calls[0].tolist() == [1, 3, 5]
    assert scores.tolist() == [1, 100_010, lim, 100_030, 7, 100_050]
    untouched = np.setdiff1d(np.arange(scores.size), calls[0])
    np.testing.assert_array_equal(scores[untouched], before[untouched])


def test_resolve_without_suspects_does_not_call_rescore():
    p = OverflowPolicy(max_match=11)
    scores = np.array([0, 10, p.limit], dtype=np.int32)

    def rescore(positions):  # pragma: no cover - must not run
        raise AssertionError("re-scored without a suspect")

    assert p.resolve(scores, rescore) == 0
    assert scores.tolist() == [0, 10, p.limit]


def test_cpu_search_rescores_overflows_in_32_bits():
    """A 400-residue self-hit at match 100 scores 40,000: past 16 bits, exact in 32."""
    scoring = Scoring.build("dna", match=100, mismatch=-100, gap_open=150, gap_extend=50)
    rng = np.random.default_rng(7)
    letters = np.array(list("ACGT"))
    long_text = "".join(rng.choice(letters, 400))
    query = Sequence.from_text("q", long_text, "dna")
    others = [Sequence.from_text(f"s{i}", "".join(rng.choice(letters, n)), "dna")
              for i, n in enumerate([5, 30, 60, 90, 120])]
    db = Database.from_sequences(others + [Sequence.from_text("self", long_text, "dna")])
    scorer = get_engine("cpu").database_scorer(scoring)
    scorer.load_database(db.residues, db.offsets)
    (got,) = scorer.scores_many([query.codes])
    assert got.dtype == np.int32
    want = [reference.sw_score(query.codes.tolist(), db.sequence(i).codes.tolist(), scoring) for i in range(len(db))]
    assert got.tolist() == want
    self_pos = db.names.index("self")
    assert got[self_pos] == 400 * 100  # 40,000: past the 16-bit range
    assert scorer.last_timing["rescored"] >= 1
