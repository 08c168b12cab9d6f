"""Match/mismatch scoring: recognised by its values, and the shared parameter checks."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from swgpu.exceptions import ScoringError
from swgpu.io.alphabet import DNA, PROTEIN
from swgpu.scoring import ScoreMatrix, Scoring, check_match_mismatch
from swgpu.scoring.karlin import lookup

PARAMS = {"matrix", "match", "mismatch", "gap_open", "gap_extend", "alphabet", "evalue"}


def _write_dna_matrix(path: Path, letters: str, score) -> Path:
    lines = ["   " + "  ".join(letters)]
    for a in letters:
        lines.append(a + " " + " ".join(f"{score(a, b):>2}" for b in letters))
    path.write_text("\n".join(lines) + "\n")
    return path


# ------------------------------------------------------------- ScoreMatrix.match_mismatch_scores


@pytest.mark.parametrize("match, mismatch", [(2, -3), (1, -1), (1, 0), (5, -4), (10, -20)])
def test_built_match_mismatch_matrix_is_recognised(match, mismatch):
    assert ScoreMatrix.match_mismatch(match, mismatch).match_mismatch_scores == (match, mismatch)


def test_recognised_by_values_not_by_name():
    m = ScoreMatrix.match_mismatch(2, -3)
    renamed = ScoreMatrix("anything", DNA, m.values)
    assert renamed.match_mismatch_scores == (2, -3)
    v = m.values.copy()
    v[4, 4] = 2                      # N scoring as a match: not match/mismatch scoring
    assert ScoreMatrix("match2/mismatch-3", DNA, v).match_mismatch_scores is None
    v = m.values.copy()
    v[0, 1] = v[1, 0] = -1           # one off-diagonal entry differs
    assert ScoreMatrix("match2/mismatch-3", DNA, v).match_mismatch_scores is None
    v = m.values.copy()
    v[3, 3] = 1                      # diagonal not uniform
    assert ScoreMatrix("x", DNA, v).match_mismatch_scores is None


def test_substitution_matrices_are_not_match_mismatch():
    assert ScoreMatrix.load("NUC.4.4").match_mismatch_scores is None     # N row differs
    assert ScoreMatrix.load("BLOSUM62").match_mismatch_scores is None
    assert ScoreMatrix.match_mismatch(1, -1, PROTEIN).match_mismatch_scores is None   # not DNA


def test_dna_file_with_match_mismatch_values(tmp_path):
    path = _write_dna_matrix(tmp_path / "mm.txt", "ACGT", lambda a, b: 1 if a == b else -2)
    m = ScoreMatrix.load(path)
    assert m.alphabet is DNA and m.match_mismatch_scores == (1, -2)   # N takes the lowest score
    # the statistics follow the values, as for the built matrix
    assert lookup(Scoring(m, 3, 1)) == lookup(Scoring(ScoreMatrix.match_mismatch(1, -2), 3, 1))
    assert lookup(Scoring(m, 3, 1)) is not None


# ------------------------------------------------------------- Scoring.match_mismatch()


def test_scoring_match_mismatch():
    assert Scoring.default("dna").match_mismatch() == (2, -3)
    assert Scoring.build("dna", match=1, mismatch=-1, gap_open=2, gap_extend=1).match_mismatch() == (1, -1)


def test_scoring_match_mismatch_protein_is_an_alphabet_error():
    for s in (Scoring.default("protein"), Scoring.build("protein", match=1, mismatch=-1)):
        with pytest.raises(ScoringError) as info:
            s.match_mismatch()
        assert info.value.param == "alphabet"


def test_scoring_match_mismatch_substitution_matrix_is_a_matrix_error():
    with pytest.raises(ScoringError, match="needs match/mismatch scoring, not a substitution matrix") as info:
        Scoring.build("dna", matrix="NUC.4.4").match_mismatch()
    assert info.value.param == "matrix"
    assert str(info.value).startswith("matrix: ")


# ------------------------------------------------------------- check_match_mismatch


@pytest.mark.parametrize("args", [(2, -3, 5, 2), (1, 0, 0, 0), (1, -1, 0, 3), (np.int64(2), np.int32(-3), 5, 2)])
def test_check_match_mismatch_accepts(args):
    assert check_match_mismatch(*args) is None


@pytest.mark.parametrize("args, param, text", [
    ((0, -3, 5, 2), "match", "must be positive, got 0"),
    ((-1, -3, 5, 2), "match", "must be positive, got -1"),
    ((2, 1, 5, 2), "mismatch", "must be zero or negative, got 1"),
    ((2, -3, -1, 2), "gap_open", "must be zero or positive"),
    ((2, -3, 5, -2), "gap_extend", "must be zero or positive"),
    ((1.5, -3, 5, 2), "match", "must be an integer"),
    ((2, -3, 5, 0.5), "gap_extend", "must be an integer"),
    ((2, -3, "five", 2), "gap_open", "must be an integer"),
])
def test_check_match_mismatch_rejects(args, param, text):
    with pytest.raises(ScoringError, match=text) as info:
        check_match_mismatch(*args)
    assert info.value.param == param
    assert str(info.value) == f"{param}: {info.value.message}"


def test_scoring_uses_the_same_gap_checks():
    matrix = ScoreMatrix.match_mismatch(2, -3)
    for go, ge, param in [(-1, 1, "gap_open"), (5, -1, "gap_extend")]:
        with pytest.raises(ScoringError) as mine:
            Scoring(matrix, go, ge)
        with pytest.raises(ScoringError) as shared:
            check_match_mismatch(2, -3, go, ge)
        assert mine.value.param == shared.value.param == param
        assert mine.value.message == shared.value.message


# ------------------------------------------------------------- messages name parameters, not flags


@pytest.mark.parametrize("make", [
    lambda: ScoreMatrix.match_mismatch(0, -1),
    lambda: ScoreMatrix.match_mismatch(1, 2),
    lambda: ScoreMatrix.load("BLOSUM99"),
    lambda: ScoreMatrix.load("NUC.4.4", "protein"),
    lambda: ScoreMatrix.load("BLOSUM62", "dna"),
    lambda: ScoreMatrix("tiny", DNA, np.zeros((3, 3))),
    lambda: Scoring(ScoreMatrix.match_mismatch(2, -3), -1, -1),
    lambda: Scoring(ScoreMatrix.match_mismatch(2, -3), 0, 0),
    lambda: Scoring(ScoreMatrix.match_mismatch(2, -3), 2, 5),
    lambda: Scoring(ScoreMatrix.match_mismatch(2, -3), 20000, 1),
    lambda: Scoring(ScoreMatrix.match_mismatch(2, -3), 11.5, 1),
    lambda: Scoring(ScoreMatrix("neg", DNA, -np.ones((5, 5))), 5, 2),
    lambda: Scoring.build("protein", matrix="BLOSUM62", match=1),
    lambda: Scoring.default("protein").match_mismatch(),
])
def test_errors_name_a_parameter_not_a_flag(make):
    with pytest.raises(ScoringError) as info:
        make()
    assert info.value.param in PARAMS
    assert "--" not in str(info.value)
    assert str(info.value).startswith(f"{info.value.param}: ")
