"""``swgpu.parallel.parts.split_columns``: ranges cover the columns in order,
stay inside records, are nearly equal, respect ``min_part``; bad input is refused."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu.exceptions import InputError
from swgpu.parallel.parts import split_columns


def _check(bounds, parts, min_part, ranges):
    bounds = np.asarray(bounds, dtype=np.int64)
    total = int(bounds[-1])
    target = max(min_part, -(-total // parts)) if total else min_part
    # cover [0, total) in order, without gaps or overlaps
    if not ranges:
        assert total == 0
        return
    assert [a for a, _ in ranges] == [0] + [b for _, b in ranges[:-1]]
    assert ranges[-1][1] == total
    for a, b in ranges:
        assert a < b
        r = int(np.searchsorted(bounds, a, side="right")) - 1  # the record holding column a
        assert bounds[r] <= a and b <= bounds[r + 1], (a, b, bounds)  # inside one record
        length = int(bounds[r + 1] - bounds[r])
        # no longer than the share, unless min_part makes the record's ranges fewer
        assert b - a <= target or b - a < 2 * min_part
        assert b - a >= min(min_part, length)
    # a record is cut only when longer than the share, into nearly equal ranges
    for start, end in zip(bounds[:-1], bounds[1:]):
        inside = [b - a for a, b in ranges if start <= a < end]
        if end > start:
            assert max(inside) - min(inside) <= 1
            assert len(inside) == max(1, min(-(-(end - start) // target), (end - start) // min_part))


@pytest.mark.parametrize("seed", range(40))
def test_random_records(seed):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(0, 1000, size=int(rng.integers(1, 12)))
    lengths[rng.random(lengths.size) < 0.2] = 0  # some empty records
    bounds = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    parts = int(rng.integers(1, 20))
    min_part = int(rng.choice([1, 1, 7, 300]))
    _check(bounds, parts, min_part, split_columns(bounds, parts, min_part))


def test_no_columns():
    assert split_columns(np.array([0, 0, 0]), 3) == []
    _check([0, 0, 0], 3, 1, [])


def test_one_record_and_many_parts():
    assert split_columns(np.array([0, 10]), 1) == [(0, 10)]
    assert split_columns(np.array([0, 3]), 10) == [(0, 1), (1, 2), (2, 3)]  # at least one column each
    assert split_columns(np.array([0, 3]), 10, min_part=2) == [(0, 3)]


def test_short_records_are_not_grouped():
    ranges = split_columns(np.array([0, 2, 4, 6, 100]), 2)
    assert ranges[:3] == [(0, 2), (2, 4), (4, 6)]
    assert ranges[3:] == [(6, 53), (53, 100)]


def test_int32_bounds_and_large_columns():
    big = np.array([0, 3_000_000_000, 5_000_000_000], dtype=np.int64)
    ranges = split_columns(big, 5)
    assert ranges[0] == (0, 1_000_000_000) and ranges[-1][1] == 5_000_000_000
    assert split_columns(np.array([0, 8], dtype=np.int32), 2) == [(0, 4), (4, 8)]


@pytest.mark.parametrize("bounds,parts,min_part,param", [
    (np.array([1, 5]), 2, 1, "bounds"),
    (np.array([0, 5, 3]), 2, 1, "bounds"),
    (np.array([[0, 5]]), 2, 1, "bounds"),
    (np.array([0.0, 5.0]), 2, 1, "bounds"),
    (np.array([], dtype=np.int64), 2, 1, "bounds"),
    (np.array([0, 5]), 0, 1, "parts"),
    (np.array([0, 5]), 2, 0, "min_part"),
])
def test_bad_input(bounds, parts, min_part, param):
    with pytest.raises(InputError) as info:
        split_columns(bounds, parts, min_part)
    assert info.value.param == param
