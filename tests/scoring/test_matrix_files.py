"""NCBI-format matrix files: the bundled ones read as Biopython reads them,
and malformed files give one ScoringError naming the line."""

from __future__ import annotations

import warnings
from importlib import resources

import numpy as np
import pytest

from swgpu.exceptions import ScoringError
from swgpu.scoring.matrices import MATRIX_NAMES, ScoreMatrix, _read_ncbi


@pytest.mark.parametrize("name", MATRIX_NAMES)
def test_bundled_matrices_read_as_biopython_reads_them(name):
    substitution_matrices = pytest.importorskip("Bio.Align.substitution_matrices")
    src = resources.files("swgpu").joinpath("data", "matrices", name)
    letters, arr = _read_ncbi(name, src)
    with resources.as_file(src) as path:
        bio = substitution_matrices.read(str(path))
    assert letters == "".join(bio.alphabet)
    assert np.array_equal(arr, np.asarray(bio, dtype=float))


def test_file_with_comments(tmp_path):
    f = tmp_path / "m.txt"
    f.write_text("# a matrix\n\n   A  C  G  T  N\nA  1 -2 -2 -2 -1  # row A\nC -2  1 -2 -2 -1\n"
                 "G -2 -2  1 -2 -1\nT -2 -2 -2  1 -1\nN -1 -1 -1 -1 -1\n")
    m = ScoreMatrix.load(str(f), "dna")
    assert m["A", "A"] == 1 and m["A", "C"] == -2 and m["N", "A"] == -1


@pytest.mark.parametrize("text, where", [
    ("   A  C\nA 1 -1\nC -1\n", "line 3"),
    ("   A  A\nA 1 -1\nA -1 1\n", "line 1"),
    ("   A  C\nA 1 x\nC -1 1\n", "line 2"),
    ("   A  C\nC 1 -1\nA -1 1\n", "line 2"),
    ("   A  C\nA 1 -1\n", "1 of 2 rows"),
    ("", "0 of 0 rows"),
])
def test_malformed_files(tmp_path, text, where):
    f = tmp_path / "bad.txt"
    f.write_text(text)
    with pytest.raises(ScoringError, match=where) as err:
        ScoreMatrix.load(str(f), "dna")
    assert err.value.param == "matrix"


def _shipped(name: str) -> str:
    return resources.files("swgpu").joinpath("data", "matrices", name).read_text()


@pytest.mark.parametrize("what", ["edited", "junk", "folder"])
def test_a_name_means_the_shipped_matrix_whatever_lies_in_the_folder(tmp_path, monkeypatch, what):
    monkeypatch.chdir(tmp_path)
    if what == "folder":
        (tmp_path / "BLOSUM62").mkdir()
    else:
        lines = _shipped("BLOSUM62").splitlines(keepends=True)
        edited = "".join(line.replace(" 11 ", " 99 ") if line.startswith("W ") else line for line in lines)
        (tmp_path / "BLOSUM62").write_text(edited if what == "edited" else "junk\n")
    shipped = ScoreMatrix.load("BLOSUM62")
    assert shipped.name == "BLOSUM62" and shipped["W", "W"] == 11
    assert ScoreMatrix.load("blosum62").values.tobytes() == shipped.values.tobytes()
    if what == "edited":  # given as a path, the file is used
        assert ScoreMatrix.load("./BLOSUM62")["W", "W"] == 99


def test_an_asymmetric_matrix_warns_and_is_used(tmp_path):
    f = tmp_path / "m.txt"
    f.write_text("   A  C  G  T\nA  1 -2 -2 -2\nC -3  1 -2 -2\nG -2 -2  1 -2\nT -2 -2 -2  1\n")
    with pytest.warns(UserWarning, match=r"m.txt is not symmetric \(A-C scores -2, C-A -3\)"):
        m = ScoreMatrix.load(str(f), "dna")
    assert m["A", "C"] == -2 and m["C", "A"] == -3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ScoreMatrix.load("BLOSUM62")
        ScoreMatrix.load("NUC.4.4")
