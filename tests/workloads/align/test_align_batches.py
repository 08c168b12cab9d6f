"""``align_batches``: the alignments of ``align_all``, as columns, batch by batch."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swgpu import Scoring, Sequence
from swgpu.workloads.align import aligner as align_mod
from swgpu.workloads.align import align_all, align_batches
from swgpu.workloads.tracing import Traceback

_DNA = st.text("ACGTN", min_size=1, max_size=60)
_PROTEIN = st.text("ACDEFGHIKLMNPQRSTVWYX", min_size=1, max_size=60)


def _rows(alns):
    return [(a.query, a.target, a.score, a.strand, a.query_start, a.query_end, a.target_start, a.target_end, a.cigar,
             a.evalue) for a in alns]


def _both(queries, targets, scoring, strand, **kw):
    whole = _rows(align_all(queries, targets, scoring, device="cpu", strand=strand))
    batches = list(align_batches(queries, targets, scoring, device="cpu", strand=strand, **kw))
    got = []
    for batch in batches:
        got += _rows(batch.alignments(queries, targets, scoring))
        assert np.all(batch.query_index * len(targets) + batch.target_index
                      == np.arange(len(got) - len(batch), len(got)))
    return whole, got


@settings(max_examples=40, deadline=None)
@given(qs=st.lists(_DNA, min_size=1, max_size=4), ts=st.lists(_DNA, min_size=1, max_size=4),
       strand=st.sampled_from(["both", "plus", "minus"]), gaps=st.sampled_from([(5, 2), (3, 3), (4, 0)]))
def test_dna_on_every_strand_as_align_all(qs, ts, strand, gaps):
    scoring = Scoring.build("dna", match=2, mismatch=-3, gap_open=gaps[0], gap_extend=gaps[1])
    queries = [Sequence.from_text(f"q{k}", s, "dna") for k, s in enumerate(qs)]
    targets = [Sequence.from_text(f"t{k}", s, "dna") for k, s in enumerate(ts)]
    whole, got = _both(queries, targets, scoring, strand)
    assert got == whole


@settings(max_examples=25, deadline=None)
@given(qs=st.lists(_PROTEIN, min_size=1, max_size=4), ts=st.lists(_PROTEIN, min_size=1, max_size=4))
def test_protein_in_small_batches_as_align_all(qs, ts):
    scoring = Scoring.default("protein")
    queries = [Sequence.from_text(f"q{k}", s, "protein") for k, s in enumerate(qs)]
    targets = [Sequence.from_text(f"t{k}", s, "protein") for k, s in enumerate(ts)]
    old = align_mod.BATCH_CELLS
    align_mod.BATCH_CELLS = 1  # (at least 256 pairs a batch)
    try:
        whole, got = _both(queries, targets, scoring, "both")
    finally:
        align_mod.BATCH_CELLS = old
    assert got == whole


def test_long_targets_take_the_windows_as_align_all(monkeypatch):
    rng = np.random.default_rng(5)
    genome = "".join(rng.choice(list("ACGT"), 3000))
    read = genome[1200:1300]
    queries = [Sequence.from_text("r", read[:40] + "T" + read[41:], "dna")]
    targets = [Sequence.from_text("g", genome, "dna"), Sequence.from_text("s", genome[:500], "dna")]
    monkeypatch.setattr(Traceback, "long_target", 1000)
    whole, got = _both(queries, targets, Scoring.default("dna"), "both")
    assert got == whole and got[0][2] > 150


def test_nothing_to_align_gives_no_batch():
    assert list(align_batches([], [Sequence.from_text("t", "ACGT")], Scoring.default("dna"), device="cpu")) == []


@pytest.mark.gpu
def test_gpu_batches_equal_cpu_batches():
    rng = np.random.default_rng(9)
    qs = [Sequence.from_text(f"q{k}", "".join(rng.choice(list("ACGT"), int(rng.integers(20, 200)))), "dna")
          for k in range(30)]
    ts = [Sequence.from_text(f"t{k}", "".join(rng.choice(list("ACGT"), int(rng.integers(50, 400)))), "dna")
          for k in range(20)]
    scoring = Scoring.default("dna")
    cpu = [a for b in align_batches(qs, ts, scoring, device="cpu") for a in _rows(b.alignments(qs, ts, scoring))]
    gpu = [a for b in align_batches(qs, ts, scoring, device="cuda") for a in _rows(b.alignments(qs, ts, scoring))]
    assert gpu == cpu


def test_many_batches_as_one(monkeypatch):
    rng = np.random.default_rng(2)
    letters = list("ACDEFGHIKLMNPQRSTVWY")
    qs = [Sequence.from_text(f"q{k}", "".join(rng.choice(letters, int(rng.integers(5, 80)))), "protein")
          for k in range(25)]
    ts = [Sequence.from_text(f"t{k}", "".join(rng.choice(letters, int(rng.integers(5, 80)))), "protein")
          for k in range(30)]
    monkeypatch.setattr(align_mod, "BATCH_CELLS", 1)  # 256 pairs a batch: 3 batches
    whole, got = _both(qs, ts, Scoring.default("protein"), "both")
    assert got == whole and len(got) == 750
