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

from ..io.compiled import worth
from ..io.ranges import ranges, run_ranges

__all__ = ["path_runs"]

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
    if not worth(n):
        return _path_runs_arrays(ops, offsets, qcodes, qpos, tcodes, tpos, unknown)
    run_len = np.empty(ops.size, dtype=np.int64)
    run_op = np.empty(ops.size, dtype=np.uint8)
    run_off = np.empty(n + 1, dtype=np.int64)
    counts = np.zeros((6, n), dtype=np.int64)
    qpos, tpos = qpos.astype(np.int64, copy=False), tpos.astype(np.int64, copy=False)
    parts = ranges(n, threads, least=1 << 14)
    from .runs_kernel import runs

    ends = run_ranges(lambda a, b: runs(ops, offsets, qcodes, qpos, tcodes, tpos, np.uint8(unknown), run_len,
                                         run_op, run_off, counts, a, b), parts)
    pieces = [(int(offsets[a]), end) for (a, _), end in zip(parts, ends)]  # each range's runs, end to end
    shift = np.cumsum([0] + [end - start for start, end in pieces])
    for (a, b), (start, _), to in zip(parts, pieces, shift.tolist()):
        run_off[a:b] += to - start
    run_off[n] = int(shift[-1])
    lengths = np.concatenate([run_len[a:b] for a, b in pieces])
    letters = np.concatenate([run_op[a:b] for a, b in pieces])
    return (lengths, letters, run_off), tuple(counts)


_LETTER = np.frombuffer(b"XID", dtype=np.uint8)  # of ops 0 (a pair that is not equal), 1, 2


def _path_runs_arrays(ops, offsets, qcodes, qpos, tcodes, tpos, unknown):
    """:func:`path_runs` with array operations (no compiled code: for few paths)."""
    n = offsets.size - 1
    ops = np.asarray(ops, dtype=np.uint8)[offsets[0]:offsets[-1]]
    sizes = np.diff(offsets)
    owner = np.repeat(np.arange(n), sizes)
    first = offsets[:-1] - offsets[0]
    counts = np.zeros((6, n), dtype=np.int64)
    if not ops.size:
        return (np.zeros(0, np.int64), np.zeros(0, np.uint8), np.zeros(n + 1, np.int64)), tuple(counts)
    uses_q, uses_t = ops != 2, ops != 1
    # each column's letter of each sequence: the path's start plus the letters its earlier columns used
    before_q = np.cumsum(uses_q) - uses_q
    before_t = np.cumsum(uses_t) - uses_t
    head = np.minimum(first, ops.size - 1)  # (an empty path's first column is none: never looked at)
    qi = np.asarray(qpos, np.int64)[owner] + before_q - before_q[head][owner]
    tj = np.asarray(tpos, np.int64)[owner] + before_t - before_t[head][owner]
    letter = _LETTER[ops]
    pair = ops == 0
    a, b = qcodes[qi[pair]], tcodes[tj[pair]]
    same = np.zeros(ops.size, dtype=bool)
    same[pair] = (a == b) & (a != unknown)
    letter[same] = ord("=")
    new = np.ones(ops.size, dtype=bool)
    new[1:] = letter[1:] != letter[:-1]
    new[first[sizes > 0]] = True
    at = np.flatnonzero(new)
    run_len = np.diff(at, append=ops.size)
    run_op = letter[at]
    run_owner = owner[at]
    run_off = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(run_owner, minlength=n), out=run_off[1:])
    gap_run = (run_op == ord("I")) | (run_op == ord("D"))
    counts[0] = np.bincount(owner[same], minlength=n)
    counts[1] = np.bincount(owner[pair & ~same], minlength=n)
    counts[2] = np.bincount(owner[~pair], minlength=n)
    counts[3] = np.bincount(run_owner[gap_run], minlength=n)
    counts[4] = np.bincount(owner[uses_q], minlength=n)
    counts[5] = np.bincount(owner[uses_t], minlength=n)
    return (run_len.astype(np.int64), run_op, run_off), tuple(counts)
