"""End points' windows (:func:`swgpu.workloads.genome.windows.end_windows`): each the record
holding the column, back as far as the span allows, against a one-at-a-time oracle."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from swgpu import Sequence
from swgpu.workloads.genome.windows import end_windows, genome_codes


def _oracle(genome, bounds, ends, span_of):
    out = []
    for q, sign, col, score in ends:
        r = int(np.searchsorted(bounds, col, side="right")) - 1
        lo = int(bounds[r])
        span = span_of(len(q), score)
        start = lo if span is None else max(lo, col - span + 1)
        out.append((genome[r].name, genome[r].text[start - lo:col + 1 - lo], (q.name, sign, score, start - lo,
                                                                             len(genome[r]), len(q))))
    return out


@settings(max_examples=60, deadline=None)
@given(lengths=st.lists(st.integers(1, 40), min_size=1, max_size=5), data=st.data())
def test_windows_match_one_at_a_time(lengths, data):
    rng = np.random.default_rng(len(lengths))
    genome = [Sequence.from_text(f"r{k}", "".join(rng.choice(list("ACGT"), n)), "dna") for k, n in enumerate(lengths)]
    _, bounds = genome_codes(genome)
    queries = [Sequence.from_text(f"q{k}", "ACGTACGT"[:k + 1], "dna") for k in range(4)]
    total = int(bounds[-1])
    count = data.draw(st.integers(0, 12))
    ends = [(queries[data.draw(st.integers(0, 3))], data.draw(st.sampled_from("+-")),
             data.draw(st.integers(0, total - 1)), data.draw(st.integers(1, 12))) for _ in range(count)]
    spans = {}

    def span_of(m, score):  # some unbounded (None), the rest short or long; counted: one call per (length, score)
        spans[(m, score)] = spans.get((m, score), 0) + 1
        return None if score % 5 == 0 else m + score

    pairs, meta = end_windows(genome, bounds, ends, span_of)
    assert all(count == 1 for count in spans.values())
    expected = _oracle(genome, bounds, ends, lambda m, s: None if s % 5 == 0 else m + s)
    assert [(w.name, w.text, m) for (_, w), m in zip(pairs, meta)] == expected
    for (q, w), e in zip(pairs, ends):
        assert q is e[0]
        assert w.codes.tolist() == Sequence.from_text(w.name, w.text, "dna").codes.tolist()
