"""``end_at_last`` on the CPU engine: the best alignment that ends at the
target's last letter, against the full-matrix oracle."""

from __future__ import annotations

import pytest
from oracle import last_column_alignment, last_column_pairs

from swgpu import Scoring
from swgpu.engines import get_engine

SCORINGS = [Scoring.default("dna"), Scoring.build("dna", match=1, mismatch=-1, gap_open=1, gap_extend=1),
            Scoring.build("dna", match=5, mismatch=-4, gap_open=9, gap_extend=1)]


@pytest.mark.parametrize("scoring", SCORINGS, ids=["2/-3/5/2", "1/-1/1/1", "5/-4/9/1"])
def test_end_at_last_column(scoring):
    pairs = last_column_pairs()
    got = get_engine("cpu").tracer(scoring).align_many(pairs, end_at_last=True)
    for (q, t), a in zip(pairs, got):
        assert a.to_dict() == last_column_alignment(q, t, scoring).to_dict(), (q.name, t.name)
        assert a.score == 0 or a.target_end == len(t)
