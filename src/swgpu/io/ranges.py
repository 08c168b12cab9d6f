"""Work on many records split into ranges, run on threads (the compiled
kernels release the interpreter's lock).

>>> ranges(10, threads=3, least=2)
[(0, 3), (3, 6), (6, 10)]
>>> run_ranges(lambda a, b: b - a, ranges(10, threads=3, least=2))
[3, 3, 4]
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Callable

import numpy as np

__all__ = ["ranges", "run_ranges", "largest", "PARALLEL_LEAST", "LARGEST_PART"]

#: Records of a range worth a thread of its own.
PARALLEL_LEAST = 1 << 15


def ranges(n: int, threads: int | None = None, least: int = PARALLEL_LEAST) -> list[tuple[int, int]]:
    """``[a, b)`` ranges covering ``0 .. n``: one a thread (``threads``, default
    the processors, at most 8), none smaller than ``least`` records (one range
    for a small ``n``)."""
    k = max(1, min(threads or os.cpu_count() or 1, 8, n // max(least, 1)))
    cuts = np.linspace(0, n, k + 1).astype(np.int64).tolist()
    return [(a, b) for a, b in zip(cuts[:-1], cuts[1:]) if b > a] or [(0, 0)]


def run_ranges(fn: Callable[[int, int], object], parts: list[tuple[int, int]]) -> list:
    """``fn(a, b)`` of each range, on threads when there are several; results in order."""
    if len(parts) == 1:
        return [fn(*parts[0])]
    with ThreadPoolExecutor(len(parts)) as pool:
        return list(pool.map(lambda ab: fn(*ab), parts))


#: Elements of an array a thread of :func:`largest` takes at least.
LARGEST_PART = 256 << 20


def largest(data: np.ndarray, least: int = LARGEST_PART) -> int:
    """The largest value of ``data`` (1-D), by parts of at least ``least``
    elements on threads (NumPy's reductions leave the interpreter's lock);
    ``-1`` when it is empty.

    >>> largest(np.array([3, 9, 1], dtype=np.uint8), least=1), largest(np.zeros(0, np.uint8))
    (9, -1)
    """
    if data.size == 0:
        return -1
    return max(run_ranges(lambda a, b: int(data[a:b].max()), ranges(data.size, least=least)))
