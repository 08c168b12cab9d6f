"""The path pass of many boxes in SIMD lanes gives each box the path of the
one-box pass (:func:`swgpu.engines.cpu.pairwise.nw_path`), direction for
direction: random boxes of different sizes in one group, N/X letters, one row
or column, all mismatches, long gaps, lead and tail gap costs of a piece."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from swgpu import Scoring
from swgpu.engines.cpu.pairwise import nw_path
from swgpu.engines.cpu.path_lanes import LANES, nw_paths_lanes

_SCORINGS = [Scoring.default("dna"), Scoring.build("dna", match=1, mismatch=-1, gap_open=1, gap_extend=1),
             Scoring.build("dna", match=5, mismatch=-4, gap_open=9, gap_extend=1), Scoring.default("protein")]


def _box(draw, k: int):
    size = draw(st.sampled_from([1, 2, 5, 30, 120]))
    m = draw(st.integers(1, size))
    n = draw(st.integers(1, size + 10))
    q = draw(st.lists(st.integers(0, k - 1), min_size=m, max_size=m))
    kind = draw(st.sampled_from(["random", "copy", "mismatch"]))
    if kind == "copy":  # a copy with a gap: long gaps, identical stretches
        cut = draw(st.integers(0, m))
        t = (q[:cut] + [0] * draw(st.integers(0, 20)) + q[cut:])[:max(1, n)] or [0]
    elif kind == "mismatch":
        t = [(x + 1) % k for x in q][:n] or [1 % k]
    else:
        t = draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))
    return np.array(q, np.uint8), np.array(t, np.uint8)


@settings(max_examples=150, deadline=None)
@given(data=st.data(), which=st.integers(0, len(_SCORINGS) - 1), count=st.integers(1, LANES),
       lead=st.sampled_from(["open", "extend"]), tail=st.sampled_from(["open", "extend"]))
def test_each_lane_gets_the_one_box_path(data, which, count, lead, tail):
    scoring = _SCORINGS[which]
    matrix = np.ascontiguousarray(scoring.matrix.values, dtype=np.int32)
    k = matrix.shape[0]  # (the last codes are the unknown letters: N, X)
    go, ge = scoring.gap_open, scoring.gap_extend
    lead_open = go if lead == "open" else ge
    tail_open = go if tail == "open" else ge
    boxes = [_box(data.draw, k) for _ in range(count)]
    qcodes = np.concatenate([q for q, _ in boxes])
    tcodes = np.concatenate([t for _, t in boxes])
    qlen = np.array([q.size for q, _ in boxes], np.int64)
    tlen = np.array([t.size for _, t in boxes], np.int64)
    qpos = np.concatenate([[0], np.cumsum(qlen)[:-1]]).astype(np.int64)
    tpos = np.concatenate([[0], np.cumsum(tlen)[:-1]]).astype(np.int64)
    room = np.concatenate([[0], np.cumsum(qlen + tlen)]).astype(np.int64)
    ops = np.zeros(int(room[-1]), np.uint8)
    got = np.zeros(LANES, np.int64)
    nw_paths_lanes(qcodes, qpos, qlen, tcodes, tpos, tlen, count, matrix, go, ge, lead_open, tail_open, ops,
                   room[:-1], got)
    for l, (q, t) in enumerate(boxes):
        want, _ = nw_path(q, t, matrix, go, ge, lead_open, tail_open)
        assert ops[room[l]:room[l] + got[l]].tolist() == want.tolist(), l
