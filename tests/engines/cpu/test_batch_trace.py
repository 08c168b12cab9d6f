"""The CPU engine's packed traceback gives the alignments of its one-pair traceback."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swgpu import Scoring, Sequence
from swgpu.align.batch import AlignmentBatch
from swgpu.engines import get_engine
from swgpu.io.sequence_batch import SequenceBatch


def _pairs(rng, n, letters, related=0.7):
    out = []
    for k in range(n):
        a = "".join(rng.choice(list(letters), int(rng.integers(0, 80))))
        if rng.random() < related and a:
            b = list(a[int(rng.integers(0, len(a))):])
            for i in range(len(b)):
                if rng.random() < 0.1:
                    b[i] = str(rng.choice(list(letters)))
            b = "".join(rng.choice(list(letters), int(rng.integers(0, 30)))) + "".join(b)
        else:
            b = "".join(rng.choice(list(letters), int(rng.integers(0, 80))))
        out.append((a, b))
    return out


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), protein=st.booleans(), base_cells=st.sampled_from([16, 300, 1 << 22]),
       threads=st.sampled_from([1, 3]), ranges_of_one=st.booleans())
def test_packed_equals_one_by_one(seed, protein, base_cells, threads, ranges_of_one):
    from swgpu.engines.cpu import batch_trace

    with pytest.MonkeyPatch.context() as mp:  # (as for a few pairs of many cells: a range a pair)
        if ranges_of_one:
            mp.setattr(batch_trace, "_CELLS_PER_THREAD", 1)
        _packed_equals_one_by_one(seed, protein, base_cells, threads)


def _packed_equals_one_by_one(seed, protein, base_cells, threads):
    rng = np.random.default_rng(seed)
    alphabet = "protein" if protein else "dna"
    letters = "ARNDCQEGHILKMFPSTWYVX" if protein else "ACGTN"
    gap_open = int(rng.integers(1, 8))
    scoring = Scoring.build(alphabet, matrix="BLOSUM62", gap_open=11, gap_extend=1) if protein else \
        Scoring.build(alphabet, gap_open=gap_open, gap_extend=int(rng.integers(0, min(gap_open, 2) + 1)))
    pairs = _pairs(rng, 40, letters)
    qs = [Sequence.from_text(f"q{k}", a, alphabet) for k, (a, _) in enumerate(pairs)]
    ts = [Sequence.from_text(f"t{k}", b, alphabet) for k, (_, b) in enumerate(pairs)]
    tracer = get_engine("cpu").tracer(scoring)
    tracer.base_cells, tracer.threads = base_cells, threads
    want = [tracer.align(q, t) if len(q) and len(t) else None for q, t in zip(qs, ts)]
    qb, tb = (SequenceBatch([s.name for s in x], [""] * len(x), [s.text for s in x],
                            np.concatenate([s.codes for s in x] + [np.zeros(0, np.uint8)]).astype(np.uint8),
                            np.concatenate([[0], np.cumsum([len(s) for s in x])]).astype(np.int64), alphabet)
              for x in (qs, ts))
    paths = tracer.trace_packed(qb.codes, qb.offsets[:-1], qb.lengths, tb.codes, tb.offsets[:-1], tb.lengths)
    idx = np.arange(len(pairs))
    batch = AlignmentBatch.from_paths(qb.codes, qb.offsets, tb.codes, tb.offsets, idx, idx, paths.i0, paths.j0,
                                      paths.ops, paths.off, paths.best, qb.alphabet.unknown_code)
    got = batch.alignments(qs, ts, scoring)
    for w, g in zip(want, got):
        if w is None:
            assert g.empty and g.score == 0
        else:
            assert g.__dict__ == w.__dict__


def test_a_last_pair_without_alignment():
    """A packed batch whose last pair scores 0 (its path empty, at the end of all runs)."""
    from swgpu.workloads.align import align_all

    qs = [Sequence.from_text("c", "AAAA")]
    ts = [Sequence.from_text("b", "ACGTACGT"), Sequence.from_text("d", "CCCC")]
    got = list(align_all(qs, ts, Scoring.default("dna"), device="cpu", strand="plus"))
    assert [(a.target, a.score, a.cigar) for a in got] == [("b", 2, "1="), ("d", 0, "")]
    idx = np.array([0, 1])
    batch = AlignmentBatch.from_paths(np.zeros(4, np.uint8), np.array([0, 2, 4]), np.zeros(4, np.uint8),
                                      np.array([0, 2, 4]), idx, idx, [0, 0], [0, 0], np.zeros(2, np.uint8),
                                      [0, 2, 2], [4, 0], 4)
    path, offsets = batch.ops()
    assert offsets.tolist() == [0, 2, 2] and path.tolist() == [0, 0]
