"""The end-point rule when few columns reach the threshold (each one's
window read directly) against the column-by-column rule, own ranges
included."""

from __future__ import annotations

import numpy as np
import scan_oracle as oracle
from hypothesis import given, settings
from hypothesis import strategies as st

from swgpu.align.scan_rule import end_points


@given(st.lists(st.integers(0, 12), min_size=1, max_size=400), st.lists(st.tuples(st.integers(0, 399),
       st.integers(10, 40)), max_size=6), st.integers(1, 60), st.integers(8, 30), st.data())
@settings(max_examples=300, deadline=None)
def test_sparse_columns_follow_the_rule(base, peaks, radius, min_score, data):
    x = np.array(base, dtype=np.int32)
    for at, v in peaks:  # a few high columns: plateaus, neighbours, record ends
        x[at % x.size:at % x.size + 2] = v
    a = data.draw(st.integers(0, x.size))
    b = data.draw(st.integers(a, x.size))
    cols, scores = end_points(x, 100, 100 + x.size, radius, min_score, own=(100 + a, 100 + b))
    want = [j for j in oracle.end_points(x, radius, min_score) if a <= j < b]
    assert (cols - 100).tolist() == want
    assert scores.tolist() == [int(x[j]) for j in want]
