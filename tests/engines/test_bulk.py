"""PairBatch, the flat form of many DNA pairs."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu.engines.bulk import PairBatch, concat_code_arrays
from swgpu.exceptions import InputError


def test_from_lists_and_back():
    b = PairBatch.from_lists(["ACG", "", "T"], ["A", "GG", ""])
    assert len(b) == 3
    assert b.qoff.tolist() == [0, 3, 3, 4] and b.toff.tolist() == [0, 1, 3, 3]
    q, qo, t, to = concat_code_arrays(b, None)
    assert q is b.qcodes and t is b.tcodes


def test_empty_batch():
    b = PairBatch.from_lists([], [])
    assert len(b) == 0 and b.qcodes.size == 0


@pytest.mark.parametrize("change, param", [
    (dict(qcodes=np.zeros(3, np.int32)), "qcodes"),
    (dict(qoff=np.array([0, 2], np.int64)), "qoff"),
    (dict(toff=np.array([1, 2], np.int64)), "toff"),
    (dict(qoff=np.array([0, 3, 1, 3], np.int64)), "qoff"),
])
def test_bad_batches(change, param):
    b = PairBatch.from_lists(["ACG"], ["AC"])
    fields = dict(qcodes=b.qcodes, qoff=b.qoff, tcodes=b.tcodes, toff=b.toff)
    fields.update(change)
    with pytest.raises(InputError) as err:
        PairBatch(**fields)
    assert err.value.param == param


def test_unequal_sides():
    a = PairBatch.from_lists(["A", "C"], ["A", "C"])
    with pytest.raises(InputError, match="2 queries but 1 targets"):
        PairBatch(a.qcodes, a.qoff, a.tcodes[:1], np.array([0, 1], np.int64))
