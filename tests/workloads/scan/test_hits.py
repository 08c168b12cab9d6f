"""``scan``'s hits as columns (:mod:`swgpu.workloads.scan.hits`): the culling
rank by rank against the hit-by-hit oracle, and the traced rounds against
culling the hits of every end point."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
from hypothesis import given, settings, strategies as st

from swgpu.workloads.scan import cull_columns, trace_rounds

import scan_oracle as oracle

NAMES = ["chr2", "chr1", "chr10", "chr1"]  # (two records share a name: one target for the rule)
HIT = st.tuples(st.integers(0, 3), st.integers(-1, 9), st.sampled_from("+-"), st.integers(0, 3),
                st.integers(0, 50), st.integers(1, 20))


def _columns(hits):
    q, score, sign, record, start, length = (np.array(x, dtype=object) for x in zip(*hits)) if hits else [[]] * 6
    rank = np.unique(np.array(NAMES), return_inverse=True)[1].reshape(-1)
    return (np.array(q, np.int64), np.array(score, np.int64), (np.array(sign) == "-").astype(np.uint8),
            rank[np.array(record, np.int64)], np.array(start, np.int64), np.array(start, np.int64) +
            np.array(length, np.int64))


def _objects(hits):
    return [SimpleNamespace(score=s, strand=sign, target=NAMES[r], target_start=a, target_end=a + n, k=k)
            for k, (_, s, sign, r, a, n) in enumerate(hits)]


@settings(max_examples=300, deadline=None)
@given(st.lists(HIT, max_size=40), st.integers(1, 6), st.sampled_from([None, 1, 2]))
def test_cull_columns_equals_culling_hit_by_hit(hits, top, max_hsps):
    got = cull_columns(*_columns(hits), top, max_hsps)
    expected = [h.k for q in range(4) for h in oracle.cull([h for h in _objects(hits) if hits[h.k][0] == q], top,
                                                           max_hsps)]
    assert got.tolist() == expected


@settings(max_examples=200, deadline=None)
@given(st.lists(HIT, max_size=40), st.integers(1, 6), st.sampled_from([None, 2]))
def test_trace_rounds_equal_culling_every_end_point(ends, top, max_hsps):
    """Tracing in rounds, best first, gives the hits that culling the hits of
    every end point gives, and traces each end point at most once."""
    ends = [e for e in ends if e[1] > 0]  # (end points score at least 1)
    cols = _columns(ends)
    calls = []

    def trace(chosen):
        calls.append(chosen)
        return chosen

    def cull(rounds, take=None):
        at = np.concatenate(rounds)
        return cull_columns(*(c[at] for c in cols), top, max_hsps, None if take is None else take)

    rounds, traced = trace_rounds(cols[0], cols[1], 4, top, trace, cull)
    assert sorted(traced.tolist()) == sorted(set(traced.tolist()))
    assert traced.tolist() == (np.concatenate(calls).tolist() if calls else [])
    got = traced[cull(rounds)] if rounds else traced
    assert got.tolist() == cull_columns(*cols, top, max_hsps).tolist()
