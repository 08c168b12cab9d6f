"""The 32-bit guard: jobs whose scores or gap arithmetic could leave the int32
range are refused before scoring, by every workload; jobs just inside it
score exactly."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu import Aligner, Scoring, Sequence
from swgpu.exceptions import ScoringError
from swgpu.io.alphabet import PROTEIN
from swgpu.io.database import Database
from swgpu.scoring import ScoreMatrix
from swgpu.workloads.align import align_all
from swgpu.workloads.limits import GAP_LIMIT, SCORE_LIMIT, check_int32, check_pairs
from swgpu.workloads.screen import Screener
from swgpu.workloads.search import Searcher

SELF = Sequence.from_text("self27", "ACGTTGCAACGTAGCTAGCTAGGATCC")  # 27 bp, the pair


def _workloads(scoring, query, target):
    """Each workload's way of scoring one pair, as callables."""
    return {
        "align_all": lambda: list(align_all([query], [target], scoring, device="cpu")),
        "aligner": lambda: Aligner(scoring, device="cpu").align(query, target),
        "aligner score": lambda: Aligner(scoring, device="cpu").score(query, target),
        "search": lambda: Searcher(Database.from_sequences([target]), scoring, device="cpu").search_one(query),
        "screen auto": lambda: Screener(scoring, device="cpu").scores([query], [target]),
        "screen wordwise": lambda: Screener(scoring, device="cpu", kernel="wordwise").scores([query], [target]),
    }


@pytest.mark.parametrize("name", list(_workloads(Scoring.default("dna"), SELF, SELF)))
def test_huge_match_is_refused_everywhere(name):
    scoring = Scoring.build("dna", match=100_000_000)
    with pytest.raises(ScoringError) as err:
        _workloads(scoring, SELF, SELF)[name]()
    assert err.value.param == "match"
    assert "2,700,000,000" in err.value.message and "32-bit" in err.value.message


@pytest.mark.parametrize("name", list(_workloads(Scoring.default("dna"), SELF, SELF)))
def test_largest_allowed_match_scores_exactly(name):
    match = SCORE_LIMIT // len(SELF)
    scoring = Scoring.build("dna", match=match, mismatch=-match, gap_open=1, gap_extend=1)
    result = _workloads(scoring, SELF, SELF)[name]()
    score = {"align_all": lambda r: r[0].score, "aligner": lambda r: r.score, "aligner score": int,
             "search": lambda r: r.hits[0].score}.get(name, lambda r: int(r[0]))(result)
    assert score == len(SELF) * match <= SCORE_LIMIT


def test_bitwise_screen_at_the_limit():
    match = SCORE_LIMIT // len(SELF)
    scoring = Scoring.build("dna", match=match, mismatch=-match, gap_open=1, gap_extend=1)
    assert Screener(scoring, device="cpu", kernel="bitwise").scores([SELF], [SELF]).tolist() == [len(SELF) * match]


def test_protein_matrix_names_matrix():
    values = np.full((PROTEIN.size, PROTEIN.size), -1, dtype=np.int32)
    np.fill_diagonal(values, 50_000_000)
    scoring = Scoring(ScoreMatrix("huge", PROTEIN, values), 11, 1)
    p = Sequence.from_text("p", "MKVLAAGIVWMKVLAAGIVWMKVLAAGIVW", "protein")
    with pytest.raises(ScoringError) as err:
        Aligner(scoring, device="cpu").align(p, p)
    assert err.value.param == "matrix"


def test_gap_arithmetic_is_refused_before_scoring():
    rng = np.random.default_rng(0)
    long = Sequence.from_text("long", "".join(rng.choice(list("ACGT"), 15_000)), "dna")
    scoring = Scoring.build("dna", gap_open=10_000, gap_extend=10_000)
    with pytest.raises(ScoringError) as err:
        align_all([long], [long], scoring, device="cpu")  # refused when called, before any pair is aligned
    assert err.value.param == "gap_extend" and f"{GAP_LIMIT:,}" in err.value.message
    for call in (lambda: Screener(scoring, device="cpu").scores([long], [long]),
                 lambda: Searcher(Database.from_sequences([long]), scoring, device="cpu").search_one(long)):
        with pytest.raises(ScoringError):
            call()
    check_pairs(Scoring.build("dna", gap_open=10_000, gap_extend=10_000), [200], [50_000_000])  # short side: fine


def test_check_int32_bounds():
    dna = Scoring.build("dna", match=1000, mismatch=-1, gap_open=1, gap_extend=1)
    shorter = SCORE_LIMIT // 1000
    check_int32(dna, shorter, 2 * shorter)  # the largest score bound that fits
    with pytest.raises(ScoringError) as err:
        check_int32(dna, shorter + 1, 2 * shorter + 2)
    assert err.value.param == "match"
    check_pairs(dna, [], [])
    with pytest.raises(ScoringError) as err:
        check_int32(Scoring.build("dna", mismatch=-(GAP_LIMIT + 1)), 10, 20)
    assert err.value.param == "mismatch"
