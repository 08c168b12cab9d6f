"""Tests of scoring: substitution matrices, match/mismatch scores, affine gaps."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from swgpu import Aligner
from swgpu.io.alphabet import DNA, PROTEIN
from swgpu.exceptions import ScoringError, SwgpuError
from swgpu.io.readers import read_sequences
from swgpu.scoring import MATRIX_NAMES, ScoreMatrix, Scoring

EXAMPLES = Path(str(resources.files("swgpu").joinpath("data", "examples")))
STANDARD_AA = "ARNDCQEGHILKMFPSTWYV"
PROTEIN_MATRICES = [n for n in MATRIX_NAMES if n != "NUC.4.4"]

# A few well-known NCBI values (standard amino acids) per matrix.
KNOWN = {
    "BLOSUM45": {("A", "A"): 5, ("W", "W"): 15, ("C", "C"): 12},
    "BLOSUM50": {("A", "A"): 5, ("W", "W"): 15, ("C", "C"): 13},
    "BLOSUM62": {("A", "A"): 4, ("W", "W"): 11, ("C", "C"): 9, ("A", "R"): -1, ("W", "C"): -2},
    "BLOSUM90": {("A", "A"): 5, ("W", "W"): 11, ("C", "C"): 9},
    "PAM30": {("A", "A"): 6, ("W", "W"): 13, ("C", "C"): 10},
    "PAM70": {("A", "A"): 5, ("W", "W"): 13, ("C", "C"): 9},
    "PAM250": {("A", "A"): 2, ("W", "W"): 17, ("C", "C"): 12},
}


def _write_matrix(path: Path, letters: str, score) -> Path:
    """An NCBI-format matrix file over ``letters`` with ``score(a, b)``."""
    lines = ["# handwritten test matrix", "   " + "  ".join(letters)]
    for a in letters:
        lines.append(a + " " + " ".join(f"{score(a, b):>2}" for b in letters))
    path.write_text("\n".join(lines) + "\n")
    return path


def _std_block(m: ScoreMatrix) -> np.ndarray:
    idx = [PROTEIN.letters.index(c) for c in STANDARD_AA]
    return m.values[np.ix_(idx, idx)]


# ------------------------------------------------------------- defaults


def test_protein_default():
    s = Scoring.default("protein")
    assert s.matrix.name == "BLOSUM62"
    assert (s.gap_open, s.gap_extend) == (11, 1)
    assert s.alphabet is PROTEIN
    assert s.score_pair("W", "W") == 11
    assert s.score_pair("A", "A") == 4


def test_dna_default():
    s = Scoring.default("dna")
    assert (s.gap_open, s.gap_extend) == (5, 2)
    assert s.alphabet is DNA
    assert s.score_pair("A", "A") == 2
    assert s.score_pair("A", "C") == -3
    assert s.score_pair("N", "N") == -3  # the unknown code never matches
    assert s.score_pair("N", "A") == -3
    assert s.matrix.name == "match2/mismatch-3"


def test_build_with_nothing_set_is_the_default():
    for alpha in ("protein", "dna", "rna"):
        b, d = Scoring.build(alpha), Scoring.default(alpha)
        assert b.matrix.name == d.matrix.name
        np.testing.assert_array_equal(b.matrix.values, d.matrix.values)
        assert (b.gap_open, b.gap_extend) == (d.gap_open, d.gap_extend)


def test_describe():
    assert Scoring.default("protein").describe() == "BLOSUM62, gap open 11, gap extend 1"
    assert Scoring.default("dna").describe() == "match2/mismatch-3, gap open 5, gap extend 2"


# ------------------------------------------------------------- gaps


def test_gap_cost():
    s = Scoring.default("protein")
    assert [s.gap_cost(k) for k in (-1, 0, 1, 2, 3, 10)] == [0, 0, 11, 12, 13, 20]
    d = Scoring.default("dna")
    assert [d.gap_cost(k) for k in (0, 1, 2, 5)] == [0, 5, 7, 13]


def test_linear_gaps():
    s = Scoring.build("dna", gap_open=3, gap_extend=3)
    assert s.linear
    assert s.gap_cost(4) == 12
    assert not Scoring.default("dna").linear


def test_blast_gap_costs():
    assert Scoring.default("protein").blast_gap_costs() == (10, 1)
    assert Scoring.default("dna").blast_gap_costs() == (3, 2)
    assert Scoring.build("protein", gap_open=12, gap_extend=1).blast_gap_costs() == (11, 1)
    assert Scoring.build("dna", gap_open=4, gap_extend=4).blast_gap_costs() == (0, 4)
    # BLAST's existence + k * extension is swgpu's open + (k - 1) * extend
    s = Scoring.build("protein", gap_open=9, gap_extend=2)
    e, x = s.blast_gap_costs()
    assert all(e + k * x == s.gap_cost(k) for k in range(1, 8))


@pytest.mark.parametrize("go, ge, text", [
    (-1, 1, "positive"),
    (11, -1, "positive"),
    (-1, -1, "positive"),
    (0, 0, "at least 1"),
    (2, 5, "must not exceed"),
    (20000, 1, "10000"),
    (11.5, 1, "integer"),
    (11, 0.5, "integer"),
])
def test_invalid_gap_penalties(go, ge, text):
    with pytest.raises(ScoringError, match=text):
        Scoring(Scoring.default("protein").matrix, go, ge)


def test_build_invalid_gaps():
    with pytest.raises(ScoringError):
        Scoring.build("protein", gap_open=-1)
    with pytest.raises(ScoringError, match="must not exceed"):
        Scoring.build("protein", gap_open=2, gap_extend=5)
    with pytest.raises(ScoringError, match="must not exceed"):
        Scoring.build("protein", gap_extend=20)  # default open 11


def test_build_gap_open_below_default_extend_lowers_extend():
    s = Scoring.build("dna", gap_open=1)
    assert (s.gap_open, s.gap_extend) == (1, 1)


def test_zero_gap_extend_is_allowed():
    s = Scoring.build("protein", gap_open=5, gap_extend=0)
    assert s.gap_cost(10) == 5


# ------------------------------------------------------------- match / mismatch


def test_match_mismatch_matrix():
    m = ScoreMatrix.match_mismatch(1, -1)
    assert m.alphabet is DNA
    assert m.values.shape == (5, 5)
    assert m["A", "A"] == 1 and m["A", "G"] == -1 and m["N", "N"] == -1
    assert m.name == "match1/mismatch-1"


def test_zero_mismatch_is_allowed():
    m = ScoreMatrix.match_mismatch(1, 0)
    assert m["A", "C"] == 0


@pytest.mark.parametrize("match, mismatch, text", [
    (0, -1, "^match: score must be positive"),
    (-2, -1, "^match: score must be positive"),
    (1, 1, "^mismatch: score must be zero or negative"),
])
def test_match_mismatch_validation(match, mismatch, text):
    with pytest.raises(ScoringError, match=text):
        ScoreMatrix.match_mismatch(match, mismatch)
    with pytest.raises(ScoringError, match=text):
        Scoring.build("dna", match=match, mismatch=mismatch)


@pytest.mark.parametrize("match, mismatch, param, limit", [
    (3_000_000_000, -3, "match", "1,073,741,823"),
    ((1 << 30), -3, "match", "1,073,741,823"),
    (2, -3_000_000_000, "mismatch", "-268,435,456"),
    (2, -(1 << 28) - 1, "mismatch", "-268,435,456"),
])
def test_match_and_mismatch_beyond_the_kernels_range_are_refused(match, mismatch, param, limit):
    """Scores that cannot fit the kernels' 32-bit arithmetic: a ScoringError
    naming the limit, never NumPy's OverflowError or a silently wrapped value."""
    for alphabet in ("dna", "protein"):
        with pytest.raises(ScoringError) as err:
            Scoring.build(alphabet, match=match, mismatch=mismatch)
        assert err.value.param == param and limit in err.value.message and "32-bit" in err.value.message
    largest = ScoreMatrix.match_mismatch((1 << 30) - 1, -(1 << 28))
    assert largest["A", "A"] == (1 << 30) - 1 and largest["A", "C"] == -(1 << 28)


@pytest.mark.parametrize("value", [2**31, -2**31, 1 << 30, float("nan")])
def test_matrix_values_beyond_the_kernels_range_are_refused(value):
    values = np.full((DNA.size, DNA.size), 1, dtype=np.float64 if value != value else np.int64)
    values[0, 1] = value
    with pytest.raises(ScoringError) as err:
        ScoreMatrix("huge", DNA, values)
    assert err.value.param == "matrix" and "32-bit" in err.value.message


def test_build_dna_match_mismatch():
    s = Scoring.build("dna", match=1, mismatch=-1, gap_open=2, gap_extend=1)
    assert s.score_pair("A", "A") == 1 and s.score_pair("A", "T") == -1
    assert (s.gap_open, s.gap_extend) == (2, 1)
    # only one of the two given: the other keeps the DNA default
    assert Scoring.build("dna", match=5).score_pair("A", "C") == -3
    assert Scoring.build("dna", mismatch=-1).score_pair("A", "A") == 2


def test_build_protein_match_mismatch():
    s = Scoring.build("protein", match=3)
    assert s.alphabet is PROTEIN
    assert s.score_pair("W", "W") == 3 and s.score_pair("W", "A") == -1
    assert s.score_pair("X", "X") == -1


def test_matrix_and_match_together_is_an_error():
    with pytest.raises(ScoringError, match="not both"):
        Scoring.build("protein", matrix="BLOSUM62", match=1)


def test_scoring_error_is_a_swgpu_error():
    assert issubclass(ScoringError, SwgpuError) and issubclass(ScoringError, ValueError)


# ------------------------------------------------------------- matrices by name


@pytest.mark.parametrize("name", MATRIX_NAMES)
def test_named_matrices_load(name):
    m = ScoreMatrix.load(name)
    assert m.name == name
    expected = DNA if name == "NUC.4.4" else PROTEIN
    assert m.alphabet is expected
    assert m.values.shape == (expected.size, expected.size)
    assert m.values.dtype == np.int32
    assert m.values.flags.c_contiguous
    assert not m.values.flags.writeable
    np.testing.assert_array_equal(m.values, m.values.T)  # all shipped matrices are symmetric
    assert m.max_score > 0 > m.min_score
    Scoring(m, 11, 1)  # usable


@pytest.mark.parametrize("name", sorted(KNOWN))
def test_named_matrices_known_values(name):
    m = ScoreMatrix.load(name)
    for (a, b), v in KNOWN[name].items():
        assert m[a, b] == v, (name, a, b)


def test_matrix_names_are_case_insensitive():
    a, b = ScoreMatrix.load("blosum62"), ScoreMatrix.load("BLOSUM62")
    assert a.name == "BLOSUM62"
    np.testing.assert_array_equal(a.values, b.values)
    assert ScoreMatrix.load("nuc.4.4").alphabet is DNA


def test_nuc44_values():
    m = ScoreMatrix.load("NUC.4.4")
    assert m["A", "A"] == 5 and m["A", "C"] == -4 and m["A", "N"] == -2 and m["N", "N"] == -1
    s = Scoring.build("dna", matrix="NUC.4.4")
    assert s.describe() == "NUC.4.4, gap open 5, gap extend 2"


def test_build_protein_with_named_matrix():
    s = Scoring.build("protein", matrix="PAM30", gap_open=9, gap_extend=1)
    assert s.matrix.name == "PAM30"
    assert s.score_pair("W", "W") == 13


def test_unknown_matrix_name():
    with pytest.raises(ScoringError) as info:
        ScoreMatrix.load("BLOSUM99")
    msg = str(info.value)
    assert "BLOSUM99" in msg
    for name in MATRIX_NAMES:
        assert name in msg


# ------------------------------------------------------------- matrices from files


def test_shared_blosum62_file_standard_block_equals_named(shared_data):
    f = ScoreMatrix.load(shared_data / "matrices" / "BLOSUM62")
    n = ScoreMatrix.load("BLOSUM62")
    assert f.name == "BLOSUM62"
    assert f.alphabet is PROTEIN
    np.testing.assert_array_equal(_std_block(f), _std_block(n))
    # same scoring, same alignments
    q = read_sequences(EXAMPLES / "queries.fasta")
    s_file, s_name = Scoring(f, 11, 1), Scoring(n, 11, 1)
    assert Aligner(s_file).align(q[0], q[1]).score == Aligner(s_name).align(q[0], q[1]).score
    assert Aligner(s_file).align(q[0], q[0]).score == 719


def test_shared_blosum62_file_equals_named_everywhere(shared_data):
    f = ScoreMatrix.load(shared_data / "matrices" / "BLOSUM62")
    n = ScoreMatrix.load("BLOSUM62")
    np.testing.assert_array_equal(f.values, n.values)


@pytest.mark.parametrize("name", PROTEIN_MATRICES)
def test_shared_matrix_files_standard_block_equals_named(shared_data, name):
    f = ScoreMatrix.load(shared_data / "matrices" / name)
    n = ScoreMatrix.load(name)
    np.testing.assert_array_equal(_std_block(f), _std_block(n))


def test_shared_nuc44_file_equals_named(shared_data):
    f = ScoreMatrix.load(shared_data / "matrices" / "NUC.4.4")
    assert f.alphabet is DNA
    np.testing.assert_array_equal(f.values, ScoreMatrix.load("NUC.4.4").values)


def test_handwritten_protein_file_equals_named(tmp_path):
    named = ScoreMatrix.load("BLOSUM62")
    letters = "ARNDCQEGHILKMFPSTWYVBZX*"
    path = _write_matrix(tmp_path / "my_blosum62.txt", letters, lambda a, b: named[a, b])
    m = ScoreMatrix.load(path)
    assert m.name == "my_blosum62.txt"
    assert m.alphabet is PROTEIN
    np.testing.assert_array_equal(m.values, named.values)
    # through a str path and through Scoring.build as well
    np.testing.assert_array_equal(ScoreMatrix.load(str(path)).values, named.values)
    np.testing.assert_array_equal(Scoring.build("protein", matrix=str(path)).matrix.values, named.values)


def test_handwritten_dna_file_equals_nuc44(tmp_path):
    path = tmp_path / "nuc"
    path.write_text(
        "   A  C  G  T  N\n"
        "A  5 -4 -4 -4 -2\n"
        "C -4  5 -4 -4 -2\n"
        "G -4 -4  5 -4 -2\n"
        "T -4 -4 -4  5 -2\n"
        "N -2 -2 -2 -2 -1\n"
    )
    m = ScoreMatrix.load(path)
    assert m.alphabet is DNA
    np.testing.assert_array_equal(m.values, ScoreMatrix.load("NUC.4.4").values)
    np.testing.assert_array_equal(Scoring.build("dna", matrix=str(path)).matrix.values, m.values)


def test_file_with_only_standard_letters(tmp_path):
    path = _write_matrix(tmp_path / "id20", STANDARD_AA, lambda a, b: 5 if a == b else -1)
    m = ScoreMatrix.load(path)
    assert m.alphabet is PROTEIN
    assert m["W", "W"] == 5 and m["W", "A"] == -1
    # no X in the file: X and * take the lowest score
    assert m["X", "X"] == -1 and m["*", "A"] == -1


@pytest.mark.parametrize("missing", ["W", "AC"])
def test_file_missing_standard_amino_acids(tmp_path, missing):
    letters = "".join(c for c in STANDARD_AA if c not in missing)
    path = _write_matrix(tmp_path / "short", letters, lambda a, b: 5 if a == b else -1)
    with pytest.raises(ScoringError, match=f"lacks the amino acids {missing}"):
        ScoreMatrix.load(path)
    with pytest.raises(ScoringError, match="lacks"):
        Scoring.build("protein", matrix=str(path))


def test_tiny_file_used_for_protein(tmp_path):
    path = _write_matrix(tmp_path / "ard", "ARND", lambda a, b: 5 if a == b else -1)
    with pytest.raises(ScoringError, match="lacks the amino acids"):
        ScoreMatrix.load(path, "protein")
    with pytest.raises(ScoringError, match="lacks"):
        ScoreMatrix.load(path)  # guessed DNA, which lacks C G T


def test_file_without_positive_score(tmp_path):
    path = _write_matrix(tmp_path / "neg", STANDARD_AA, lambda a, b: -1)
    m = ScoreMatrix.load(path)
    with pytest.raises(ScoringError, match="no positive score"):
        Scoring(m, 11, 1)


def test_file_with_huge_scores(tmp_path):
    path = _write_matrix(tmp_path / "big", STANDARD_AA, lambda a, b: 2000 if a == b else -1)
    with pytest.raises(ScoringError, match="1000"):
        ScoreMatrix.load(path)


@pytest.mark.parametrize("content", [
    "garbage\nfoo bar\n",
    "",
    "   A  R\nA 1 2 3\n",
    "\x00\x01\x02 binary",
])
def test_unreadable_matrix_file(tmp_path, content):
    path = tmp_path / "bad_matrix"
    path.write_text(content)
    with pytest.raises(ScoringError) as info:
        ScoreMatrix.load(path)
    assert "bad_matrix" in str(info.value)


def test_matrix_shape_must_fit_alphabet():
    with pytest.raises(ScoringError, match="shape"):
        ScoreMatrix("tiny", DNA, np.zeros((3, 3), dtype=np.int32))


# ------------------------------------------------------------- the reference value


def test_p02232_against_itself_scores_719():
    q = read_sequences(EXAMPLES / "queries.fasta")[0]
    assert q.name == "P02232" and len(q) == 144
    aln = Aligner(Scoring.build("protein", matrix="BLOSUM62", gap_open=11, gap_extend=1), device="cpu").align(q, q)
    assert aln.score == 719
    assert (aln.query_start, aln.query_end, aln.target_start, aln.target_end) == (0, 144, 0, 144)
    assert aln.cigar == "144="
