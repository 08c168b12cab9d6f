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


def test_every_live_pair_is_launched_once_and_its_score_lands_in_place(monkeypatch):
    """The batch loop of the GPU screen (pieces, launches in flight, collection),
    with stand-ins for the device: a launch "scores" pair i as i + 1."""
    from types import SimpleNamespace

    from swgpu.engines.cuda import screen

    launched, in_flight, most = [], [0], [0]

    class Launch:
        def __init__(self, idx):
            self.idx, self.end = idx, object()
            launched.append(idx)
            in_flight[0] += 1
            most[0] = max(most[0], in_flight[0])

        def collect(self, timings):
            in_flight[0] -= 1
            return (self.idx + 1).astype(np.int32)

    class Pairs:
        def __init__(self, *args, **kwargs):
            self.start = self.end = object()

        def ready(self, idx):
            return None

        def finish(self):
            pass

        def verify(self):
            pass

        def h2d_ms(self):
            return 0.0

    cp = SimpleNamespace(cuda=SimpleNamespace(get_elapsed_time=lambda a, b: 1.0))
    monkeypatch.setattr(screen.runtime, "cupy", lambda: cp)
    monkeypatch.setattr(screen.staging, "streams", lambda cp, n: [object()] * n)
    monkeypatch.setattr(screen, "DevicePairs", Pairs)
    monkeypatch.setattr(screen, "run_group_batch", lambda cp, pairs, idx, *a: Launch(idx))
    monkeypatch.setattr(screen, "run_batch", lambda cp, kernel, transpose, pairs, idx, *a: Launch(idx))
    rng = np.random.default_rng(5)
    n = 3 * screen.PIECE_PAIRS + 77
    qs = [rng.integers(0, 4, int(k), dtype=np.uint8) for k in rng.integers(0, 40, n)]
    ts = [rng.integers(0, 4, int(k), dtype=np.uint8) for k in rng.integers(0, 300, n)]
    live = np.array([q.size > 0 and t.size > 0 for q, t in zip(qs, ts)])
    for kernel in ("group", "wordwise"):
        launched.clear()
        most[0] = 0
        scores, _ = screen.screen_scores_cuda_timed(qs, ts, 2, -3, 5, 2, kernel=kernel)
        np.testing.assert_array_equal(scores, np.where(live, np.arange(n) + 1, 0))
        assert np.array_equal(np.sort(np.concatenate(launched)), np.flatnonzero(live))
        assert in_flight[0] == 0 and 1 <= most[0] <= screen.IN_FLIGHT
    assert len(launched) > 1
