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


@pytest.mark.parametrize("scoring", [SCORINGS[0], Scoring.default("protein")], ids=["dna", "protein"])
def test_packed_end_at_last_equals_one_at_a_time(scoring, monkeypatch):
    """Many windows traced packed (small ones in one compiled pass, the large
    ones with the striped kernels) give the alignments of one at a time."""
    import numpy as np

    from swgpu import Sequence
    from swgpu.engines.cpu.tracer import CpuTracer

    rng = np.random.default_rng(8)
    letters = "ACGT" if scoring.alphabet.name == "dna" else "ARNDCQEGHILKMFPSTWYV"
    base = "".join(rng.choice(list(letters), 3000))
    pairs = []
    for k in range(40):
        m, n = int(rng.integers(1, 300)), int(rng.integers(1, 600))
        a = int(rng.integers(0, len(base) - m))
        q = list(base[a:a + m])
        for i in rng.integers(0, m, m // 10 + 1):
            q[i] = letters[int(rng.integers(len(letters)))]
        b = max(0, a - int(rng.integers(0, n)))
        pairs.append((Sequence.from_text(f"q{k}", "".join(q), scoring.alphabet),
                      Sequence.from_text(f"t{k}", base[b:b + n], scoring.alphabet)))
    monkeypatch.setattr(CpuTracer, "PACKED_CELLS", 40_000)  # the larger ones one by one
    tracer = get_engine("cpu").tracer(scoring)
    packed = tracer.align_many(pairs, end_at_last=True)
    each = [tracer.align_many([p], end_at_last=True)[0] for p in pairs]
    for (q, t), a, b in zip(pairs, packed, each):
        assert a.to_dict() == b.to_dict(), (q.name, t.name)
        assert a.score == 0 or a.target_end == len(t)
