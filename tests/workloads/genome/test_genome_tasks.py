"""Genome tasks: a device out of memory halves the columns and retries."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu import Scoring
from swgpu.engines import get_engine
from swgpu.workloads.genome import tasks as genome_tasks


class _Small:
    """A genome scanner with room for ``room`` columns at a time."""

    def __init__(self, inner, room: int):
        self.inner, self.room, self.calls = inner, room, []

    def candidates(self, queries, genome, bounds, floors, keep, on_done=None, own=None, radius=None, max_span=None):
        self.calls.append(own)
        if own[1] - own[0] > self.room:
            if on_done is not None:  # a batch queued before the failure
                on_done(0, (own[1] - own[0]) // 3)
            raise MemoryError("out of memory allocating 4,294,967,296 bytes")
        return self.inner.candidates(queries, genome, bounds, floors, keep, on_done, own=own, radius=radius,
                                     max_span=max_span)


@pytest.mark.parametrize("room", [10_000, 2_600, 700])
def test_out_of_memory_halves_the_columns(monkeypatch, room):
    monkeypatch.setattr(genome_tasks, "MIN_HALVING", 500)
    rng = np.random.default_rng(room)
    genome = rng.integers(0, 4, 9_000).astype(np.uint8)
    bounds = np.array([0, 4_000, 9_000])
    queries = [genome[1_000:1_080].copy(), genome[5_500:5_620].copy(), rng.integers(0, 4, 30).astype(np.uint8)]
    queries[0][::9] = 3
    inner = get_engine("cpu").genome_scanner(Scoring.default("dna"))
    want = inner.candidates(queries, genome, bounds, 8, 6)
    small = _Small(inner, room)
    letters: dict[int, int] = {}
    seen: dict[int, int] = {}
    inner.candidates(queries, genome, bounds, 8, 6, lambda k, n: letters.__setitem__(k, letters.get(k, 0) + n))
    got = genome_tasks.candidates_halving(small, queries, genome, bounds, 8, 6,
                                          lambda k, n: seen.__setitem__(k, seen.get(k, 0) + n))
    for (gc, gs), (wc, ws) in zip(got, want):
        assert gc.tolist() == wc.tolist() and gs.tolist() == ws.tolist()
    assert len(small.calls) > 1 or room >= 9_000
    assert seen == letters  # progress counts every letter once, failed attempts included


def test_out_of_memory_on_a_small_part_is_raised(monkeypatch):
    monkeypatch.setattr(genome_tasks, "MIN_HALVING", 500)
    genome = np.zeros(2_000, dtype=np.uint8)
    small = _Small(get_engine("cpu").genome_scanner(Scoring.default("dna")), 100)
    with pytest.raises(MemoryError):
        genome_tasks.candidates_halving(small, [genome[:50]], genome, np.array([0, 2_000]), 1, 3)


@pytest.mark.gpu
def test_gpu_out_of_memory_halves_the_columns():
    """With CuPy's pool limited below the row buffers of the whole genome,
    a long query's end points come from halves, equal to the unlimited run."""
    from swgpu.engines import cuda_available

    if not cuda_available():
        pytest.skip("needs CuPy and a CUDA GPU")
    import cupy as cp

    rng = np.random.default_rng(7)
    genome = rng.integers(0, 4, 3_000_000).astype(np.uint8)
    query = genome[2_000_000:2_005_000].copy()
    query[::50] = (query[::50] + 1) % 4
    bounds = np.array([0, genome.size])
    scanner = get_engine("cuda").genome_scanner(Scoring.default("dna"))
    want = scanner.candidates([query], genome, bounds, 50, 20)
    pool = cp.get_default_memory_pool()
    pool.free_all_blocks()
    pool.set_limit(size=48 << 20)
    try:
        with pytest.raises(MemoryError):
            scanner.candidates([query], genome, bounds, 50, 20)
        got = genome_tasks.candidates_halving(scanner, [query], genome, bounds, 50, 20)
    finally:
        pool.set_limit(size=0)
    assert got[0][0].tolist() == want[0][0].tolist() and got[0][1].tolist() == want[0][1].tolist()
    assert want[0][1][0] > 4_000
