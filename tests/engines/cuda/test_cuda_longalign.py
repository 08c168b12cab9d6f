"""Genome-scale ``align`` on the GPU equals the CPU engine (``pytest -m gpu``)."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu import Scoring, Sequence
from swgpu.engines import cuda_available
from swgpu.workloads.longalign import LongAligner

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not cuda_available(), reason="needs CuPy and a CUDA GPU")]

COMP = str.maketrans("ACGT", "TGCA")


def _mutate(rng, text: str, rate: float) -> str:
    s = list(text)
    for k in rng.integers(0, len(s), int(len(s) * rate)).tolist():
        r = rng.random()
        s[k] = "ACGT"[int(rng.integers(4))] if r < 0.8 else ("" if r < 0.9 else s[k] + "A")
    return "".join(s)


@pytest.mark.parametrize("scoring", [Scoring.build("dna", match=1, mismatch=-3, gap_open=5, gap_extend=2),
                                     Scoring.default("dna")], ids=["1/-3/5/2", "2/-3/5/2"])
def test_planted_copies_equal_the_cpu_engine(scoring):
    """A 20 kbp query against 200 kbp in two records, mutated copies of parts
    of it planted on both strands, at a record end and across the GPU's parts."""
    rng = np.random.default_rng(12)
    q = "".join(rng.choice(list("ACGT"), 20_000))
    t = "".join(rng.choice(list("ACGT"), 200_000))
    pieces = [(5_000, _mutate(rng, q, 0.03)), (60_000, _mutate(rng, q[2000:9000], 0.05).translate(COMP)[::-1]),
              (100_000, q[:4000]), (140_000, _mutate(rng, q[10_000:], 0.1))]
    for at, piece in pieces:
        t = t[:at] + piece + t[at + len(piece):]
    query = Sequence.from_text("q", q, "dna")
    targets = [Sequence.from_text("a", t[:104_000], "dna"), Sequence.from_text("b", t[104_000:], "dna")]
    runs = [LongAligner(scoring, device=d, separation=500).align(query, targets, top=60, alignments=4)
            for d in ("cuda", "cpu")]
    (g, c) = runs
    assert [e.to_dict() for e in g.end_points] == [e.to_dict() for e in c.end_points]
    assert [a.to_dict() for a in g.alignments] == [a.to_dict() for a in c.alignments]
    assert g.best_score > 15_000


@pytest.fixture(scope="module")
def ecoli_pair(shared_data):
    """A 200 kbp E. coli slice and a 1 Mbp slice with mutated copies of pieces
    of it planted on both strands, and the CPU engine's result on them."""
    from swgpu import read_sequences

    g = read_sequences(shared_data / "dna" / "ecoli_K12_MG1655.fasta.gz", "dna")[0].text.upper()
    rng = np.random.default_rng(200)
    q = g[100_000:300_000]
    t = g[2_000_000:3_000_000]
    for at, (a, b), minus in ((50_000, (0, 40_000), False), (400_000, (60_000, 90_000), True),
                              (700_000, (150_000, 170_000), False), (999_000 - 15_000, (180_000, 195_000), True)):
        piece = _mutate(rng, q[a:b], 0.03)
        if minus:
            piece = piece.translate(COMP)[::-1]
        t = t[:at] + piece + t[at + len(piece):]
    query, target = Sequence.from_text("q", q, "dna"), [Sequence.from_text("t", t[:1_000_000], "dna")]
    return query, target, _long_run(query, target, "cpu", "auto")


def _long_run(query, target, device, method):
    scoring = Scoring.build("dna", match=1, mismatch=-3, gap_open=5, gap_extend=2)
    return LongAligner(scoring, device=device, max_alignment_length=60_000, method=method).align(
        query, target, top=50, alignments=3)


@pytest.mark.parametrize("method", ["auto", "rowscan"])
def test_ecoli_200_kbp_against_1_mbp(ecoli_pair, method):
    """The top 50 end points and the best 3 alignments (promised under 60 kbp)
    of the 200 kbp slice against the 1 Mbp slice equal the CPU engine's, with
    both score methods (the row-parallel scan runs across its tiles here: a
    gap can reach back 100 kbp)."""
    query, target, c_ = ecoli_pair
    g_ = _long_run(query, target, "cuda", method)
    assert [e.to_dict() for e in g_.end_points] == [e.to_dict() for e in c_.end_points]
    assert [a.to_dict() for a in g_.alignments] == [a.to_dict() for a in c_.alignments]
    assert {a.strand for a in g_.alignments} == {"+", "-"} and g_.best_score > 30_000
