"""A long query's rows in bands over GPUs (``scan_bands``) give the end points
of one GPU and of the CPU engine (``pytest -m gpu``; two GPUs where the
machine has them, else bands that take one GPU in turns)."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu import Scoring
from swgpu.engines import cuda_available, get_engine

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not cuda_available(), reason="needs CuPy and a CUDA GPU")]


def _gpus() -> int:
    from swgpu.engines.cuda import runtime

    return int(runtime.cupy().cuda.runtime.getDeviceCount())


def _case(seed: int, m: int):
    rng = np.random.default_rng(seed)
    q = rng.integers(0, 4, m).astype(np.uint8)
    sizes = (3_000, 50, 40_000, 100, 25_000)  # (records shorter than what a band publishes at once)
    genome = rng.integers(0, 4, sum(sizes)).astype(np.uint8)
    bounds = np.cumsum([0, *sizes])
    for at, piece in ((2_000, q[:900]), (10_000, q), (50_000, q[m // 3:]), (60_000, q[::-1][:m // 2])):
        piece = piece.copy()
        piece[::37] = (piece[::37] + 1) % 4  # mutated copies
        genome[at:at + piece.size] = piece[:genome.size - at]
    rc = (3 - q[::-1]).astype(np.uint8)
    return [q, rc], genome, bounds


@pytest.mark.parametrize("scoring", [Scoring.default("dna"), Scoring.build("dna", match=1, mismatch=-2,
                                                                           gap_open=3, gap_extend=1)],
                         ids=["2/-3/5/2", "1/-2/3/1"])
@pytest.mark.parametrize("bands", [2, 3])
def test_bands_equal_one_gpu_and_the_cpu(scoring, bands):
    from swgpu.engines.cuda.scan_bands import BandedGenomeScanner

    queries, genome, bounds = _case(bands, 6_000)
    devices = list(range(bands)) if _gpus() >= bands else [0] * bands
    banded = BandedGenomeScanner(scoring, devices)
    one = get_engine("cuda").genome_scanner(scoring)
    cpu = get_engine("cpu").genome_scanner(scoring)
    for own, radius, floor, keep in ((None, None, 5, 40), ((1_000, 60_000), 300, 12, 7)):
        got = banded.candidates(queries, genome, bounds, floor, keep, own=own, radius=radius)
        assert banded.last_timings["bands"] == bands
        for want in (one.candidates(queries, genome, bounds, floor, keep, own=own, radius=radius),
                     cpu.candidates(queries, genome, bounds, floor, keep, own=own, radius=radius)):
            for (ca, sa), (cb, sb) in zip(got, want):
                assert ca.tolist() == cb.tolist() and sa.tolist() == sb.tolist()


def test_short_queries_run_on_one_gpu():
    from swgpu.engines.cuda.scan_bands import BandedGenomeScanner

    scoring = Scoring.default("dna")
    queries, genome, bounds = _case(5, 300)
    banded = BandedGenomeScanner(scoring, [0, 0])
    got = banded.candidates(queries, genome, bounds, 5, 10)
    assert banded.last_timings["bands"] == 1
    want = get_engine("cpu").genome_scanner(scoring).candidates(queries, genome, bounds, 5, 10)
    for (ca, sa), (cb, sb) in zip(got, want):
        assert ca.tolist() == cb.tolist() and sa.tolist() == sb.tolist()
