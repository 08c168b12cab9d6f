"""JSON lines of a whole batch in compiled code, byte for byte the
record-by-record writer's; batches it cannot take are left to that writer."""

from __future__ import annotations

import io

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from test_blast_aligned_columns import _pairs, traced

from swgpu import Scoring, Sequence
from swgpu.align.alignment import Alignment
from swgpu.align.batch import AlignmentBatch
from swgpu.engines import get_engine
from swgpu.io.texts import Texts
from swgpu.io.writers import AlignmentWriter
from swgpu.io.writers.json_columns import json_lines
from swgpu.io.writers.jsonl import format_json


def live_only(pairs, alns):
    """The pairs and alignments whose alignment is not empty."""
    live = [k for k, a in enumerate(alns) if not a.empty]
    return [pairs[k] for k in live], [alns[k] for k in live]


def _batch(pairs, alns):
    return (AlignmentBatch.from_alignments(alns), Texts.from_strings([q.name for q, _ in pairs]),
            Texts.from_strings([t.name for _, t in pairs]), Texts.from_strings([q.text for q, _ in pairs], "latin-1"),
            Texts.from_strings([t.text for _, t in pairs], "latin-1"))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), protein=st.booleans())
def test_json_lines_equal_the_record_writer(seed, protein):
    rng = np.random.default_rng(seed)
    pairs = _pairs(rng, 25, protein)
    _, alns = traced(rng, pairs, protein)
    pairs, alns = live_only(pairs, alns)
    batch, *texts = _batch(pairs, alns)
    want = "".join(format_json(a) + "\n" for a in alns)
    assert bytes(json_lines(batch, *texts)).decode() == want
    buf = io.StringIO()
    with AlignmentWriter(buf, "json") as w:
        assert w.letters == (True, True) and w.write_columns(batch, *texts)
    assert buf.getvalue() == want


def test_what_the_record_writer_keeps():
    scoring = Scoring.default("dna")
    q, t = Sequence.from_text('q"1', "ACGTACGTAC"), Sequence.from_text("t", "TTTTACGTACGTACTT")
    aln = get_engine("cpu").tracer(scoring).align(q, t)
    assert json_lines(*_batch([(q, t)], [aln])) is None  # a name JSON escapes
    q2 = Sequence.from_text("q2", "GGGG")
    empty = Alignment.empty_for(q2, t)
    assert json_lines(*_batch([(q2, t)], [empty])) is None  # null coordinates
