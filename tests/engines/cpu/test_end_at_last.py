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


def test_packed_end_at_last_with_a_shorter_equal_alignment_elsewhere(monkeypatch):
    """A window ending in a copy of the query with two mismatches (76 at the last letter), and holding elsewhere
    a perfect copy of the query's last 76 letters (76 too, over fewer rows, nothing higher): the start of the
    alignment at the last letter is the anchored pass's, not the first cell of a local pass that holds 76."""
    import numpy as np

    from swgpu import Sequence
    from swgpu.engines.cpu.tracer import CpuTracer

    monkeypatch.setattr(CpuTracer, "PACKED_CELLS", 1 << 20)  # traced packed, in one compiled pass
    other = lambda c: "ACGT"[("ACGT".index(c) + 2) % 4]  # noqa: E731
    rng = np.random.default_rng(0)
    q = "".join(rng.choice(list("ACGT"), 80))
    mutated = list(q)
    for k in (30, 50):
        mutated[k] = other(q[k])
    before = list("".join(rng.choice(list("ACGT"), 60)))
    before[-4:] = [other(c) for c in q[:4]]  # (the copy cannot grow to the left)
    t = "".join(before) + q[4:] + "".join(rng.choice(list("ACGT"), 60)) + "".join(mutated)
    scoring = Scoring.build("dna", match=1, mismatch=-1, gap_open=2, gap_extend=1)
    pair = (Sequence.from_text("q", q, "dna"), Sequence.from_text("t", t, "dna"))
    got = get_engine("cpu").tracer(scoring).align_many([pair] * 3, end_at_last=True)
    want = last_column_alignment(*pair, scoring).to_dict()
    assert want["score"] == 76 and want["query_start"] == 0 and want["target_end"] == len(t)
    assert all(a.to_dict() == want for a in got)
