"""The ``pairwise`` view of a whole batch in compiled code, byte for byte the
record-by-record writer's; batches it cannot take are left to that writer."""

from __future__ import annotations

import io

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from test_blast_aligned_columns import _pairs, traced
from test_json_columns import _batch, live_only

from swgpu import Scoring, Sequence
from swgpu.engines import get_engine
from swgpu.io.writers import AlignmentWriter
from swgpu.io.writers.pairwise import format_pairwise
from swgpu.io.writers.pairwise_columns import pairwise_lines


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), protein=st.booleans(), width=st.sampled_from([1, 7, 60]),
       stats=st.booleans())
def test_pairwise_equals_the_record_writer(seed, protein, width, stats):
    rng = np.random.default_rng(seed)
    pairs = _pairs(rng, 25, protein)
    if rng.random() < 0.5:  # a long name moves the columns
        q, t = pairs[0]
        pairs[0] = (Sequence.from_text("a_query_name_longer_than_13", q.text, q.alphabet), t)
    scoring, alns = traced(rng, pairs, protein, stats)
    pairs, alns = live_only(pairs, alns)
    batch, *texts = _batch(pairs, alns)
    want = "".join(format_pairwise(a, scoring, width) for a in alns)
    assert bytes(pairwise_lines(batch, *texts, scoring, width)).decode() == want
    if width == 60:
        buf = io.StringIO()
        with AlignmentWriter(buf, "pairwise", scoring=scoring) as w:
            assert w.letters == (True, True) and w.write_columns(batch, *texts)
        assert buf.getvalue() == want


def test_what_the_record_writer_keeps():
    scoring = Scoring.default("dna")
    q, t = Sequence.from_text("q\u00e9", "ACGTACGTAC"), Sequence.from_text("t", "TTTTACGTACGTACTT")
    aln = get_engine("cpu").tracer(scoring).align(q, t)
    assert pairwise_lines(*_batch([(q, t)], [aln]), scoring) is None  # padded by characters, not bytes
    q = Sequence.from_text("q", "ACGTACGTAC")
    aln = get_engine("cpu").tracer(scoring).align(q, t)
    assert pairwise_lines(*_batch([(q, t)], [aln]), None) is None  # no matrix for the match line
    assert pairwise_lines(*_batch([(q, t)], [aln]), scoring) is not None
