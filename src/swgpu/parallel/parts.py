"""Splitting a long sequence of records (a genome's chromosomes end to end) into parts.

The records lie end to end, record ``r`` in columns ``[bounds[r], bounds[r+1])``.
:func:`split_columns` cuts the columns into ranges of nearly equal length, each
inside one record, for tasks that each own one range. The genome scanners
take such a range (``own=(a, b)``): they report only end points inside it and
read back before ``a`` themselves as far as an alignment can reach, so
ranges need no overlap.

>>> split_columns(np.array([0, 10, 13, 30]), 3)
[(0, 10), (10, 13), (13, 21), (21, 30)]
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InputError

__all__ = ["split_columns"]


def split_columns(bounds: np.ndarray, parts: int, min_part: int = 1) -> list[tuple[int, int]]:
    """Half-open column ranges ``[a, b)`` covering ``[0, bounds[-1])`` in order,
    each inside one record, of about ``bounds[-1] / parts`` columns.

    A record longer than that is cut into nearly equal ranges; a shorter one is
    one range of its own (so there may be more ranges than ``parts``); an empty
    record has none. No range is shorter than ``min_part`` unless its record is.

    >>> split_columns(np.array([0, 100]), 4)
    [(0, 25), (25, 50), (50, 75), (75, 100)]
    >>> split_columns(np.array([0, 7]), 2)          # sizes differ by at most one
    [(0, 3), (3, 7)]
    >>> split_columns(np.array([0, 100]), 4, min_part=40)
    [(0, 50), (50, 100)]
    >>> split_columns(np.array([0, 0, 5, 5]), 1)    # empty records: no range
    [(0, 5)]
    >>> split_columns(np.array([0]), 2)
    []
    """
    bounds = np.asarray(bounds)
    if bounds.ndim != 1 or bounds.size == 0 or not np.issubdtype(bounds.dtype, np.integer):
        raise InputError(f"record bounds must be a 1-D integer array, got shape {bounds.shape} {bounds.dtype}",
                         param="bounds")
    if int(bounds[0]) != 0 or bool(np.any(np.diff(bounds) < 0)):
        raise InputError("record bounds must start at 0 and never decrease", param="bounds")
    for name, value in (("parts", parts), ("min_part", min_part)):
        if not isinstance(value, (int, np.integer)) or value < 1:
            raise InputError(f"must be a whole number >= 1, got {value!r}", param=name)
    total = int(bounds[-1])
    target = max(int(min_part), -(-total // int(parts)))
    out: list[tuple[int, int]] = []
    for start, end in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        length = end - start
        if length == 0:
            continue
        pieces = max(1, min(-(-length // target), length // int(min_part)))
        cuts = [start + length * k // pieces for k in range(pieces + 1)]
        out += [(cuts[k], cuts[k + 1]) for k in range(pieces)]
    return out
