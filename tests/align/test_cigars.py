"""CIGAR strings from runs: the table of run texts and the digit-by-digit way agree."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu.align import cigars
from swgpu.align.cigars import MARK, cigar_texts


def _expected(lengths, letters) -> list[str]:
    out, current = [], ""
    for n, c in zip(lengths.tolist(), letters.tobytes().decode("latin-1")):
        if c == chr(MARK):
            out.append(current)
            current = ""
        else:
            current += f"{n}{c}"
    return out


@pytest.mark.parametrize("top", [1, 9, 10, 99, 100, 9999, 65535, 65536, 123_456_789])
def test_cigar_texts(top):
    rng = np.random.default_rng(top)
    lengths = rng.integers(1, top + 1, 2000)
    letters = rng.choice(np.frombuffer(b"=XID\0", dtype=np.uint8), 2000)
    lengths[letters == MARK] = 1
    lengths[0], letters[-1] = top, MARK  # the longest run, and the last alignment's end
    assert cigar_texts(lengths, letters) == _expected(lengths, letters)


def test_table_rows():
    for top in (0, 5, 10, 1000):
        rows, width = cigars._table(top)
        for kind, letter in enumerate("=XID"):
            for n in {0, top // 3, top}:
                assert rows[kind * (top + 1) + n].tobytes().rstrip(b"\0").decode() == f"{n}{letter}"


def test_no_runs():
    assert cigar_texts(np.zeros(0, np.int64), np.zeros(0, np.uint8)) == []
