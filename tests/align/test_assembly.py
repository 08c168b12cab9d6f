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


def _paths_of(alns):
    paths = [np.array([_CODE[c] for c in cigar_to_ops(a.cigar)], dtype=np.uint8) for a in alns]
    return paths, np.concatenate([[0], np.cumsum([p.size for p in paths])])


def _pairs(n, letters="ACGTNacgtn", seed=2):
    rng = np.random.default_rng(seed)
    scoring = Scoring.default("dna")
    tracer = get_engine("cpu").tracer(scoring)
    qs, ts, alns = [], [], []
    for i in range(n):
        q = Sequence.from_text(f"q{i}", "".join(rng.choice(list(letters), int(rng.integers(1, 80)))), "dna")
        t = Sequence.from_text(f"t{i}", "".join(rng.choice(list(letters), int(rng.integers(1, 80)))), "dna")
        qs.append(q), ts.append(t), alns.append(tracer.align(q, t))
    return scoring, qs, ts, alns


def test_groups_empty_paths_lowercase_and_offsets_past_zero(monkeypatch):
    from swgpu.align import assembly

    scoring, qs, ts, alns = _pairs(120)
    assert any(a.empty for a in alns) and any(not a.empty for a in alns)
    paths, off = _paths_of(alns)
    ops = np.concatenate([np.full(5, 9, np.uint8), *paths])  # the paths start at offset 5
    for group in (1, 7, 300, 1 << 18):  # paths in groups of about this many columns
        monkeypatch.setattr(assembly, "GROUP_COLUMNS", group)
        got = alignments_from_paths(qs, ts, scoring, [a.query_start for a in alns], [a.target_start for a in alns],
                                    ops, off + 5, [a.score for a in alns])
        for g, a in zip(got, alns):
            assert g.to_dict() == a.to_dict() and g.match_line == a.match_line


def test_letters_holding_the_separator_are_cut_by_position():
    scoring = Scoring.default("dna")
    q = Sequence("q", "AC\0T", np.array([0, 1, 4, 3], np.uint8), scoring.alphabet)  # a text no reader makes
    t = Sequence.from_text("t", "ACGT")
    [a] = alignments_from_paths([q], [t], scoring, [0], [0], np.zeros(4, np.uint8), [0, 4], [1])
    assert a.query_aligned == "AC\0T" and a.target_aligned == "ACGT" and a.cigar == "2=1X1="
