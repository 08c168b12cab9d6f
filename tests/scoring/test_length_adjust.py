"""The length adjustment of many search spaces at once (compiled) equals one at a time."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swgpu.scoring import Scoring
from swgpu.scoring import length_adjust
from swgpu.scoring.statistics import Statistics, lookup_blast, nucleotide_ungapped, search_space

_PARAMS = [lookup_blast("BLOSUM62", 11, 1), lookup_blast("BLOSUM62", 9, 2), lookup_blast("PAM30", 9, 1),
           nucleotide_ungapped(2, -3)]

_rows = st.lists(st.tuples(st.integers(1, 30_000), st.integers(1, 10**10), st.integers(-2, 10**6)),
                 min_size=1, max_size=40)


@settings(max_examples=60, deadline=None)
@given(rows=_rows, which=st.integers(0, len(_PARAMS) - 1), compiled=st.booleans())
def test_log_spaces_equal_one_at_a_time(rows, which, compiled):
    params = _PARAMS[which]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(length_adjust, "COMPILED_FROM", 1 if compiled else 10**9)
        got = length_adjust.log_spaces(params, np.array(rows))
    want = [math.log(search_space(params, m, n, count)) for m, n, count in rows]
    assert got.tolist() == want  # bit for bit


def test_log_spaces_refuses_an_empty_space():
    p = _PARAMS[0]
    for rows in ([[0, 10, 1]], [[5, 0, 1]] * 5000):
        with pytest.raises(ValueError, match="must be positive"):
            length_adjust.log_spaces(p, np.array(rows))


def test_statistics_columns_of_many_pairs_equal_each_pair():
    st_ = Statistics.for_scoring(Scoring.default("protein"))
    rng = np.random.default_rng(3)
    n = length_adjust.COMPILED_FROM + 500
    m, t = rng.integers(20, 2000, n), rng.integers(20, 2000, n)
    scores = rng.integers(-5, 300, n)
    ev, bits = st_.columns(scores, (m, t, np.ones(n, np.int64)))
    for k in range(0, n, 97):
        if scores[k] <= 0:
            assert math.isnan(ev[k]) and math.isnan(bits[k])
            continue
        one = st_.evalue(int(scores[k]), int(m[k]), int(t[k]), 1)
        assert ev[k] == one
