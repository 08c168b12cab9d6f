"""Long pairs: the CPU engine's SIMD traceback reports the same optimal
alignment as the scalar row kernels (and so as the GPU engine), also where
the Myers-Miller recursion splits. Which of several optimal paths is reported
depends on the split points, so every engine splits pieces larger than the
one shared ``BASE_CELLS``."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu import Scoring, Sequence
from swgpu.align import traceback as shared
from swgpu.align.traceback import local_align
from swgpu.engines import get_engine
from swgpu.engines.cpu import pairwise


def _mutated(rng, text: str, rate: float) -> str:
    s = list(text)
    for _ in range(int(len(s) * rate)):
        k = int(rng.integers(len(s)))
        r = rng.random()
        s[k] = "ACGT"[int(rng.integers(4))] if r < 0.6 else ("" if r < 0.8 else s[k] + "ACGT"[int(rng.integers(4))] * 3)
    return "".join(s)


def test_every_engine_splits_at_the_shared_base_cells():
    assert get_engine("cpu").tracer(Scoring.default("dna")).base_cells == shared.BASE_CELLS


@pytest.mark.parametrize("params", [(2, -3, 5, 2), (40, -60, 80, 10), (1, -1, 1, 1)])
def test_split_pairs_match_the_row_kernels(params):
    match, mismatch, go, ge = params
    scoring = Scoring.build("dna", match=match, mismatch=mismatch, gap_open=go, gap_extend=ge)
    rng = np.random.default_rng(20)
    a = "".join(rng.choice(list("ACGT"), 2_600))
    b = _mutated(rng, a, 0.1)[:2_600]
    pairs = [(Sequence.from_text("a", a), Sequence.from_text("b", b))]
    tracer = get_engine("cpu").tracer(scoring)
    for base in (shared.BASE_CELLS, 1 << 16):  # the default, and a small one: splits on every level
        tracer.base_cells = base
        for q, t in pairs:
            want = local_align(pairwise, q, t, scoring, base)
            assert tracer.align(q, t).to_dict() == want.to_dict()
