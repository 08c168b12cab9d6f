"""Genome-scale ``align``: end points and alignments against brute force
(the full local matrix per record and strand), planted copies on both
strands, and the command line."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from swgpu import Scoring, Sequence
from swgpu.exceptions import InputError
from swgpu.workloads.longalign import LongAligner
from swgpu.workloads.strands import oriented, strands_for

import scan_oracle as oracle

SCORINGS = [Scoring.default("dna"), Scoring.build("dna", match=1, mismatch=-3, gap_open=5, gap_extend=2),
            Scoring.build("dna", match=1, mismatch=-1, gap_open=1, gap_extend=1)]
COMP = str.maketrans("ACGT", "TGCA")


def brute_force(query, targets, scoring, top, separation, min_score, alignments, strand="both"):
    """End points of every record and strand by the full matrix, the best
    ``top`` (score, plus first, genome column), and the alignments of the first."""
    found, offset = [], 0
    for rec in targets:
        for sign in strands_for(strand, scoring.alphabet):
            q = oriented(query, sign)
            P = oracle.pair_scores(q.codes, rec.codes, oracle.local_matrix(q.codes, rec.codes, scoring), scoring)
            colmax = np.maximum(P[1:, 1:].max(axis=0), 0) if len(rec) else np.zeros(0, np.int64)
            for j in oracle.end_points(colmax, separation, min_score):
                found.append((int(colmax[j]), sign != "+", offset + j, sign, rec, P, q))
        offset += len(rec)
    found.sort(key=lambda f: f[:3])
    found.sort(key=lambda f: (-f[0], f[1], f[2]))
    found = found[:top]
    ends = [(f[0], f[3], f[4].name, f[2] - (sum(len(r) for r in targets[:targets.index(f[4])])) + 1) for f in found]
    alns = [oracle._hit(q, rec, P, col - sum(len(r) for r in targets[:targets.index(rec)]), scoring, sign)
            for score, _, col, sign, rec, P, q in found[:alignments]]
    return ends, alns


@given(st.text("ACGTN", min_size=1, max_size=30), st.lists(st.text("ACGTN", min_size=1, max_size=80), min_size=1,
                                                          max_size=3),
       st.sampled_from(SCORINGS), st.integers(1, 8), st.integers(1, 6), st.integers(0, 3))
@settings(max_examples=120, deadline=None)
def test_end_points_and_alignments_equal_brute_force(q, recs, scoring, top, separation, alignments):
    query = Sequence.from_text("q", q, "dna")
    targets = [Sequence.from_text(f"t{k}", r, "dna") for k, r in enumerate(recs)]
    got = LongAligner(scoring, device="cpu", separation=separation).align(query, targets, top=top,
                                                                         alignments=alignments, min_score=2)
    ends, alns = brute_force(query, targets, scoring, top, separation, 2, alignments)
    assert [(e.score, e.strand, e.target, e.target_end) for e in got.end_points] == ends
    assert [a.to_dict() for a in got.alignments] == [a.to_dict() for a in alns]


def _planted(rng, m=2500, n=40_000):
    q = "".join(rng.choice(list("ACGT"), m))
    t = list("".join(rng.choice(list("ACGT"), n)))
    mut = list(q)
    for k in rng.integers(0, m, m // 25).tolist():
        mut[k] = "ACGT"[int(rng.integers(4))]
    mut = "".join(mut)
    t[1000:1000 + m] = list(mut)  # plus strand
    rc = mut[200:1800].translate(COMP)[::-1]
    t[30_000:30_000 + len(rc)] = list(rc)  # minus strand, part of the query
    t[n - 700:] = list(q[:700])  # at the record end
    return Sequence.from_text("q", q, "dna"), [Sequence.from_text("chr", "".join(t), "dna")]


def test_planted_copies_on_both_strands_and_max_alignment_length():
    rng = np.random.default_rng(3)
    query, targets = _planted(rng)
    scoring = SCORINGS[1]
    full = LongAligner(scoring, device="cpu").align(query, targets, top=10, alignments=3)
    got = [(e.strand, e.target_end) for e in full.end_points[:3]]
    assert [s for s, _ in got] == ["+", "-", "+"]
    assert all(abs(x - y) <= 3 for (_, x), y in zip(got, (3500, 31600, 40000)))  # chance matches at the ends
    a = full.alignments
    assert abs(a[0].target_start - 1000) <= 3 and abs(a[0].query_end - a[0].query_start - 2500) <= 6
    assert a[1].strand == "-" and abs(a[1].target_start - 30000) <= 3
    assert (a[2].target_start, a[2].query_start, a[2].query_end) == (39300, 0, 700) and a[2].cigar == "700="
    # the alignments are no longer than 3,000 target letters: the same answer with that promise
    bounded = LongAligner(scoring, device="cpu", max_alignment_length=3000).align(query, targets, top=10,
                                                                                    alignments=3)
    assert [e.to_dict() for e in bounded.end_points] == [e.to_dict() for e in full.end_points]
    assert [x.to_dict() for x in bounded.alignments] == [x.to_dict() for x in a]


@pytest.mark.parametrize("cap", [10, 299])
def test_max_alignment_length_shorter_than_the_alignment_is_refused(cap):
    """A fragment planted in a random 50 kbp target: with a window shorter
    than its alignment the traced score would fall short of the end point's;
    that is refused, naming the length an alignment of that score can span
    (300: no gap fits the budget), which then aligns exactly."""
    rng = np.random.default_rng(29)
    target = "".join(rng.choice(list("ACGT"), 50_000))
    frag = Sequence.from_text("frag", target[20_000:20_300], "dna")
    genome = [Sequence.from_text("lam", target, "dna")]
    scoring = Scoring.default("dna")
    with pytest.raises(InputError) as err:
        LongAligner(scoring, device="cpu", max_alignment_length=cap).align(frag, genome, top=5)
    assert err.value.param == "max_alignment_length"
    assert "scores 600" in err.value.message and "at least 300" in err.value.message, err.value.message
    result = LongAligner(scoring, device="cpu", max_alignment_length=300).align(frag, genome, top=5, alignments=3)
    best = result.alignments[0]
    assert (best.score, best.target_start, best.target_end, best.cigar) == (600, 20_000, 20_300, "300=")


def test_span_bound_of_a_score():
    from swgpu.align.scan_rule import span_bound

    assert span_bound(300, 2, 5, 2, score=600) == 300  # every letter paired: no gap
    assert span_bound(300, 2, 5, 2, score=590) == 303  # 5 + 2 x 2 <= 10 spare: gaps of 3 letters
    assert span_bound(300, 2, 5, 2) == span_bound(300, 2, 5, 2, score=1) == 300 + (600 - 5 - 1) // 2 + 1


def test_bad_parameters_name_themselves():
    s = SCORINGS[0]
    with pytest.raises(InputError) as e:
        LongAligner(s, device="cpu", separation=0)
    assert e.value.param == "separation"
    with pytest.raises(InputError) as e:
        LongAligner(s, device="cpu").align(Sequence.from_text("q", "ACGT", "dna"),
                                           [Sequence.from_text("t", "ACGT", "dna")], top=0)
    assert e.value.param == "top"


def test_no_tracer_without_alignments():
    """The end points alone make no tracer (no traceback kernels loaded), and
    making the scanner is start-up, not score time."""
    from swgpu import Scoring, Sequence
    from swgpu.workloads.longalign import LongAligner

    q = Sequence.from_text("q", "GATTACAGATTACACCGGTT")
    t = Sequence.from_text("t", "TTTT" + "GATTACAGATTACACCGGTT" + "TTTT")
    aligner = LongAligner(Scoring.default("dna"), device="cpu", separation=4)
    r = aligner.align(q, [t], top=2, alignments=0)
    assert aligner._tracer is None and r.alignments == [] and r.setup_seconds >= 0
    r = aligner.align(q, [t], top=2, alignments=1)
    assert aligner._tracer is not None and r.alignments[0].score == 40 and r.setup_seconds < 1
