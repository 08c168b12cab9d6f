"""CIGAR runs and counts of many alignment paths in one compiled pass.

:func:`path_runs` walks every path once (Numba, without the interpreter's
lock): each column's CIGAR letter (``=`` for equal codes that are not the
unknown letter, ``X`` otherwise, ``I``, ``D``), the runs of equal letters,
and per path its matches, mismatches, gap columns, gap opens (runs of ``I``
or ``D``) and letters used of each sequence -- the fields that
:class:`~swgpu.align.batch.AlignmentBatch` keeps.

>>> import numpy as np
>>> ops = np.array([0, 0, 1, 1, 0, 2], dtype=np.uint8)
>>> q, t = np.array([1, 2, 3, 0, 1], np.uint8), np.array([1, 3, 1, 2], np.uint8)
>>> (lengths, letters, offsets), counts = path_runs(ops, np.array([0, 6]), q, np.array([0]), t, np.array([0]), 4)
>>> lengths.tolist(), bytes(letters), [c.tolist() for c in counts]
([1, 1, 2, 1, 1], b'=XI=D', [[2], [1], [3], [2], [5], [4]])
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..io.ranges import ranges, run_ranges

__all__ = ["path_runs"]

_EQ, _X, _I, _D = ord("="), ord("X"), ord("I"), ord("D")


@njit(cache=True, nogil=True)
def _runs(ops, off, qcodes, qpos, tcodes, tpos, unknown, run_len, run_op, run_off, counts, a, b):  # pragma: no cover
    r = off[a]  # (a path has at most as many runs as columns: the runs of paths a.. fit from here)
    for k in range(a, b):
        run_off[k] = r
        i = qpos[k]
        j = tpos[k]
        m = 0
        x = 0
        gaps = 0
        opens = 0
        prev = np.uint8(0)
        for c in range(off[k], off[k + 1]):
            o = ops[c]
            if o == 0:
                a = qcodes[i]
                b = tcodes[j]
                i += 1
                j += 1
                if a == b and a != unknown:
                    letter = np.uint8(_EQ)
                    m += 1
                else:
                    letter = np.uint8(_X)
                    x += 1
            elif o == 1:
                letter = np.uint8(_I)
                i += 1
                gaps += 1
            else:
                letter = np.uint8(_D)
                j += 1
                gaps += 1
            if letter == prev:
                run_len[r - 1] += 1
            else:
                if letter == _I or letter == _D:
                    opens += 1
                run_op[r] = letter
                run_len[r] = 1
                r += 1
                prev = letter
        counts[0, k] = m
        counts[1, k] = x
        counts[2, k] = gaps
        counts[3, k] = opens
        counts[4, k] = i - qpos[k]
        counts[5, k] = j - tpos[k]
    return r


def path_runs(ops: np.ndarray, offsets: np.ndarray, qcodes: np.ndarray, qpos: np.ndarray, tcodes: np.ndarray,
              tpos: np.ndarray, unknown: int, threads: int | None = None
              ) -> tuple[tuple[np.ndarray, np.ndarray, np.ndarray], tuple]:
    """Runs of the paths ``ops[offsets[k]:offsets[k + 1]]``, the ``k``-th starting at
    ``qcodes[qpos[k]]`` and ``tcodes[tpos[k]]``: ``(run lengths, run letters, run
    offsets)`` and ``(matches, mismatches, gap columns, gap opens, query letters
    used, target letters used)`` of each path (``int64`` arrays). Ranges of
    paths run on ``threads`` threads (default: the processors')."""
    n = offsets.size - 1
    offsets = offsets.astype(np.int64, copy=False)
    run_len = np.empty(ops.size, dtype=np.int64)
    run_op = np.empty(ops.size, dtype=np.uint8)
    run_off = np.empty(n + 1, dtype=np.int64)
    counts = np.zeros((6, n), dtype=np.int64)
    qpos, tpos = qpos.astype(np.int64, copy=False), tpos.astype(np.int64, copy=False)
    parts = ranges(n, threads, least=1 << 14)
    ends = run_ranges(lambda a, b: _runs(ops, offsets, qcodes, qpos, tcodes, tpos, np.uint8(unknown), run_len,
                                         run_op, run_off, counts, a, b), parts)
    pieces = [(int(offsets[a]), end) for (a, _), end in zip(parts, ends)]  # each range's runs, end to end
    shift = np.cumsum([0] + [end - start for start, end in pieces])
    for (a, b), (start, _), to in zip(parts, pieces, shift.tolist()):
        run_off[a:b] += to - start
    run_off[n] = int(shift[-1])
    lengths = np.concatenate([run_len[a:b] for a, b in pieces])
    letters = np.concatenate([run_op[a:b] for a, b in pieces])
    return (lengths, letters, run_off), tuple(counts)
