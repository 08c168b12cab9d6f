"""Property tests: the CPU engine against the reference aligner (and parasail).

Over 10,000 random and adversarial pairs of length 0-300: identical scores,
identical start/end coordinates, and CIGARs whose implied score is the score.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swgpu.align import reference
from swgpu.align.alignment import cigar_to_ops, score_ops
from swgpu.engines.cpu import pairwise
from swgpu.scoring import ScoreMatrix, Scoring
from swgpu.io.sequence import Sequence
from swgpu.align.traceback import local_align

from oracle import parasail, parasail_score

DNA_LETTERS = "ACGT"
DNA_ADVERSARIAL = "ACGTNnacgtRYU"
PROTEIN_LETTERS = "ARNDCQEGHILKMFPSTWYV"
PROTEIN_ADVERSARIAL = "ARNDCQEGHILKMFPSTWYVBZXUO*"

SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), derandomize=False)


@st.composite
def pairs(draw, letters: str, max_len: int = 300):
    # mostly short pairs, one in five up to max_len: keeps 10,000 cases in CI's budget
    n = draw(st.integers(0, max_len) if draw(st.integers(0, 4)) == 0 else st.integers(0, min(max_len, 90)))
    a = draw(st.text(alphabet=letters, min_size=n, max_size=n))
    mode = draw(st.sampled_from(["random", "mutant", "mutant", "identical", "mismatch"]))
    if mode == "identical":
        b = a
    elif mode == "random":
        b = draw(st.text(alphabet=letters, max_size=max(n, 20)))
    elif mode == "mismatch":  # no letter in common: every pair is a mismatch
        other = [c for c in letters if c.upper() not in a.upper()] or [letters[-1]]
        b = draw(st.text(alphabet="".join(other), max_size=max(n, 20)))
    else:  # substitutions and long insertions/deletions
        b = list(a)
        for _ in range(draw(st.integers(0, 6))):
            pos = draw(st.integers(0, len(b)))
            kind = draw(st.sampled_from("SID"))
            length = draw(st.integers(1, 40))
            if kind == "S" and b:
                b[pos % len(b)] = draw(st.sampled_from(letters))
            elif kind == "I":
                b[pos:pos] = draw(st.text(alphabet=letters, min_size=length, max_size=length))
            else:
                del b[pos : pos + length]
        b = "".join(b)
    if draw(st.booleans()):
        a, b = b, a
    return a, b


def _gaps(draw, max_open=20):
    go = draw(st.integers(1, max_open))
    ge = draw(st.integers(0, go))
    return go, ge


def check(a: str, b: str, scoring: Scoring, base_cells: int | None = None) -> None:
    q = Sequence.from_text("q", a, scoring.alphabet)
    t = Sequence.from_text("t", b, scoring.alphabet)
    ref = reference.align(q, t, scoring)
    got = local_align(pairwise, q, t, scoring, **({"base_cells": base_cells} if base_cells else {}))
    key = lambda x: (x.score, x.query_start, x.query_end, x.target_start, x.target_end)  # noqa: E731
    assert key(got) == key(ref), (a, b, scoring.describe())
    if got.score > 0:
        ops = cigar_to_ops(got.cigar)
        assert score_ops(q.codes, t.codes, got.query_start, got.target_start, ops, scoring) == got.score
        assert sum(op in "=XI" for op in ops) == got.query_end - got.query_start
        assert sum(op in "=XD" for op in ops) == got.target_end - got.target_start
        assert ops[0] in "=X" and ops[-1] in "=X"  # local alignments start and end with a pair
        assert score_ops(q.codes, t.codes, ref.query_start, ref.target_start, cigar_to_ops(ref.cigar), scoring) == ref.score
    else:
        assert got.cigar == "" and got.length == 0
    if parasail is not None:
        assert parasail_score(q.codes, t.codes, scoring) == got.score


@settings(max_examples=3000, **SETTINGS)
@given(pair=pairs(DNA_LETTERS), match=st.integers(1, 6), mismatch=st.integers(-8, 0), data=st.data())
def test_dna_affine(pair, match, mismatch, data):
    go, ge = _gaps(data.draw)
    check(*pair, Scoring(ScoreMatrix.match_mismatch(match, mismatch), go, ge))


@settings(max_examples=2000, **SETTINGS)
@given(pair=pairs(DNA_ADVERSARIAL), match=st.integers(1, 6), mismatch=st.integers(-8, 0), gap=st.integers(1, 12))
def test_dna_linear_with_ambiguity_codes(pair, match, mismatch, gap):
    check(*pair, Scoring(ScoreMatrix.match_mismatch(match, mismatch), gap, gap))


@settings(max_examples=2500, **SETTINGS)
@given(pair=pairs(PROTEIN_LETTERS), name=st.sampled_from(["BLOSUM62", "BLOSUM45", "BLOSUM80", "PAM30", "PAM250"]),
       data=st.data())
def test_protein_matrices(pair, name, data):
    go, ge = data.draw(st.sampled_from([(11, 1), (10, 2), (5, 5), (1, 1), (20, 0)])) if data.draw(st.booleans()) else _gaps(data.draw)
    check(*pair, Scoring(ScoreMatrix.load(name), go, ge))


@settings(max_examples=1500, **SETTINGS)
@given(pair=pairs(PROTEIN_ADVERSARIAL), data=st.data())
def test_protein_rare_letters_and_nuc44(pair, data):
    if data.draw(st.booleans()):
        check(*pair, Scoring(ScoreMatrix.load("BLOSUM62"), *_gaps(data.draw)))
    else:
        a, b = data.draw(pairs(DNA_ADVERSARIAL, 200))
        check(a, b, Scoring(ScoreMatrix.load("NUC.4.4"), *_gaps(data.draw)))


@settings(max_examples=1500, **SETTINGS)
@given(pair=pairs(DNA_LETTERS, 200), base=st.sampled_from([2, 4, 16, 64, 500]), data=st.data())
def test_linear_memory_recursion(pair, base, data):
    """Force the divide-and-conquer traceback down to tiny base cases."""
    go, ge = _gaps(data.draw, 8)
    check(*pair, Scoring(ScoreMatrix.match_mismatch(2, -3), go, ge), base_cells=base)


@pytest.mark.parametrize("n", [1, 2, 3, 8000])
def test_identical_sequences_large_scores(n):
    """Identical sequences: the largest scores (beyond 8 and 16-bit lanes at n=8000)."""
    rng = np.random.default_rng(n)
    a = "".join(rng.choice(list(PROTEIN_LETTERS), n))
    scoring = Scoring.default("protein")
    q = Sequence.from_text("q", a, "protein")
    got = local_align(pairwise, q, q, scoring)
    expected = int(sum(scoring.matrix.values[c, c] for c in q.codes))
    assert got.score == expected and got.cigar == f"{n}="
    if n == 8000:
        assert got.score > 32767


def test_empty_sequences():
    scoring = Scoring.default("dna")
    for a, b in [("", ""), ("", "ACGT"), ("ACGT", "")]:
        check(a, b, scoring)
