"""BLAST's Karlin-Altschul tables, read from the package data file."""

from __future__ import annotations

import json
from importlib import resources

import pytest

from swgpu.scoring import statistics
from swgpu.scoring.karlin import PROTEIN_MATRICES, NUCLEOTIDE_PAIRS
from swgpu.scoring.tables import DATA_FILE, INT2_MAX, NucleotideTable, blast_tables

# Every tabulated gap cost pair (BLAST's existence, extension), in the file's order.
PROTEIN_COSTS = {
    "BLOSUM45": [(13, 3), (12, 3), (11, 3), (10, 3), (16, 2), (15, 2), (14, 2), (13, 2), (12, 2),
                 (19, 1), (18, 1), (17, 1), (16, 1)],
    "BLOSUM50": [(13, 3), (12, 3), (11, 3), (10, 3), (9, 3), (16, 2), (15, 2), (14, 2), (13, 2), (12, 2),
                 (19, 1), (18, 1), (17, 1), (16, 1), (15, 1)],
    "BLOSUM62": [(11, 2), (10, 2), (9, 2), (8, 2), (7, 2), (6, 2), (13, 1), (12, 1), (11, 1), (10, 1), (9, 1)],
    "BLOSUM80": [(25, 2), (13, 2), (9, 2), (8, 2), (7, 2), (6, 2), (11, 1), (10, 1), (9, 1)],
    "BLOSUM90": [(9, 2), (8, 2), (7, 2), (6, 2), (11, 1), (10, 1), (9, 1)],
    "PAM30": [(7, 2), (6, 2), (5, 2), (10, 1), (9, 1), (8, 1)],
    "PAM70": [(8, 2), (7, 2), (6, 2), (11, 1), (10, 1), (9, 1)],
    "PAM250": [(15, 3), (14, 3), (13, 3), (12, 3), (11, 3), (17, 2), (16, 2), (15, 2), (14, 2), (13, 2),
               (21, 1), (20, 1), (19, 1), (18, 1), (17, 1)],
}

# (reward, penalty): (gap cost pairs, has a linear row, existence_max, extension_max, round_down)
NUCLEOTIDE = {
    (1, -5): ([(3, 3)], True, 3, 3, False),
    (1, -4): ([(1, 2), (0, 2), (2, 1), (1, 1)], True, 2, 2, False),
    (2, -7): ([(2, 4), (0, 4), (4, 2), (2, 2)], True, 4, 4, True),
    (1, -3): ([(2, 2), (1, 2), (0, 2), (2, 1), (1, 1)], True, 2, 2, False),
    (2, -5): ([(2, 4), (0, 4), (4, 2), (2, 2)], True, 4, 4, True),
    (1, -2): ([(2, 2), (1, 2), (0, 2), (3, 1), (2, 1), (1, 1)], True, 2, 2, False),
    (2, -3): ([(4, 4), (2, 4), (0, 4), (3, 3), (6, 2), (5, 2), (4, 2), (2, 2)], True, 6, 4, True),
    (3, -4): ([(6, 3), (5, 3), (4, 3), (6, 2), (5, 2), (4, 2)], False, 6, 3, True),
    (4, -5): ([(6, 5), (5, 5), (4, 5), (3, 5)], True, 12, 8, False),
    (1, -1): ([(3, 2), (2, 2), (1, 2), (0, 2), (4, 1), (3, 1), (2, 1)], False, 4, 2, False),
    (3, -2): ([(5, 5)], False, 5, 5, False),
    (5, -4): ([(10, 6), (8, 6)], False, 25, 10, False),
}


def _raw():
    return json.loads(resources.files("swgpu").joinpath("data", DATA_FILE).read_text(encoding="utf-8"))


def test_data_file_ships_with_a_header():
    data = _raw()
    assert "NCBI BLAST" in data["source"] and "blast_stat.c" in data["source"]
    assert set(data["columns"]) == {"existence", "extension", "lambda", "K", "H", "alpha", "beta"}
    assert data["protein"]["row"] == data["nucleotide"]["row"] == list(data["columns"])
    assert data["nucleotide"]["linear_row"] == ["lambda", "K", "H", "alpha", "beta"]
    assert "32767" in data["INT2_MAX"]


def test_every_protein_row_present():
    tables = blast_tables()
    assert list(tables.protein) == list(PROTEIN_COSTS) == list(PROTEIN_MATRICES)
    for name, costs in PROTEIN_COSTS.items():
        rows = tables.protein[name]
        assert rows[0][:2] == (INT2_MAX, INT2_MAX), name          # the ungapped row first
        assert [r[:2] for r in rows[1:]] == costs, name
        assert all(len(r) == 7 for r in rows)


def test_every_nucleotide_table_present():
    tables = blast_tables()
    assert list(tables.nucleotide) == list(NUCLEOTIDE) == list(NUCLEOTIDE_PAIRS)
    for pair, (costs, linear, e_max, x_max, round_down) in NUCLEOTIDE.items():
        t = tables.nucleotide[pair]
        assert isinstance(t, NucleotideTable)
        assert [r[:2] for r in t.rows] == costs, pair
        assert all(len(r) == 7 for r in t.rows)
        assert (t.linear is not None, t.existence_max, t.extension_max, t.round_down) == \
            (linear, e_max, x_max, round_down), pair
        if linear:
            assert len(t.linear) == 5


def test_int2_max_round_trips():
    # written as the string "INT2_MAX" in the file, read back as the integer
    raw = _raw()["protein"]["matrices"]
    for name, rows in blast_tables().protein.items():
        assert raw[name][0][:2] == ["INT2_MAX", "INT2_MAX"]
        assert rows[0][:2] == (32767, 32767) and all(type(v) is int for v in rows[0][:2])
        assert all(v != "INT2_MAX" for r in rows for v in r)
        assert all(r[:2] != (INT2_MAX, INT2_MAX) for r in rows[1:])


def test_numbers_keep_their_type():
    # integers in the file stay integers (gap costs, most betas), decimals floats
    row = blast_tables().protein["BLOSUM62"][9]
    assert row == (11, 1, 0.267, 0.041, 0.14, 1.9, -30)
    assert [type(v) for v in row] == [int, int, float, float, float, float, int]
    assert blast_tables().protein["BLOSUM45"][0][6] == -5.7
    assert blast_tables().nucleotide[(2, -3)].linear == (0.55, 0.21, 0.46, 1.2, -5)


def test_loaded_once_and_read_only():
    assert blast_tables() is blast_tables()
    with pytest.raises(TypeError):
        blast_tables().protein["NEW"] = ()  # type: ignore[index]
    assert statistics.PROTEIN_MATRICES == PROTEIN_MATRICES
    assert statistics.NUCLEOTIDE_PAIRS == NUCLEOTIDE_PAIRS
    with pytest.raises(AttributeError):
        statistics.NO_SUCH_NAME  # noqa: B018
