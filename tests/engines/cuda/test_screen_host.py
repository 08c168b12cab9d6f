"""Host-side shape helpers of the GPU screening kernels (no GPU needed)."""

from __future__ import annotations

import numpy as np

from swgpu.engines.cuda.screen_shapes import group_batches, length_class, length_classes


def test_length_classes_match_length_class():
    xs = np.r_[0:3000, [2 ** k + d for k in range(1, 62) for d in (-1, 0, 1)]]
    assert length_classes(xs).tolist() == [length_class(int(x)) for x in xs]


def test_group_batches_cover_every_live_pair_once():
    rng = np.random.default_rng(3)
    m = rng.integers(0, 300, 5000)
    n = rng.integers(0, 3000, 5000)
    live = np.flatnonzero(np.minimum(m, n) > 0)
    batches = group_batches(np.minimum(m, n), np.maximum(m, n), live, 1 << 20)
    got = np.sort(np.concatenate(batches))
    assert np.array_equal(got, np.sort(live))
