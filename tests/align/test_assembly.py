"""Batched assembly of alignments equals Alignment.from_ops, field for field."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu import Scoring, Sequence
from swgpu.align.alignment import cigar_to_ops
from swgpu.align.assembly import alignments_from_paths
from swgpu.engines import get_engine

_CODE = {"=": 0, "X": 0, "I": 1, "D": 2}


@pytest.mark.parametrize("alphabet,letters", [("dna", "ACGTN"), ("protein", "ARNDCQEGHILKMFPSTWYVXBZ")])
def test_same_as_one_by_one(alphabet, letters):
    rng = np.random.default_rng(1)
    scoring = Scoring.default(alphabet)
    tracer = get_engine("cpu").tracer(scoring)
    qs, ts, alns = [], [], []
    for i in range(150):
        q = Sequence.from_text(f"q{i}", "".join(rng.choice(list(letters), int(rng.integers(1, 60)))), alphabet)
        t = Sequence.from_text(f"t{i}", "".join(rng.choice(list(letters), int(rng.integers(1, 60)))), alphabet)
        a = tracer.align(q, t)
        if a.score > 0:
            qs.append(q), ts.append(t), alns.append(a)
    paths = [np.array([_CODE[c] for c in cigar_to_ops(a.cigar)], dtype=np.uint8) for a in alns]
    off = np.concatenate([[0], np.cumsum([p.size for p in paths])])
    got = alignments_from_paths(qs, ts, scoring, [a.query_start for a in alns], [a.target_start for a in alns],
                                np.concatenate(paths), off, [a.score for a in alns])
    assert len(got) == len(alns) > 100
    for g, a in zip(got, alns):
        assert g.to_dict() == a.to_dict() and g.match_line == a.match_line


def test_no_paths():
    assert alignments_from_paths([], [], Scoring.default("dna"), [], [], np.zeros(0, np.uint8), [0], []) == []
