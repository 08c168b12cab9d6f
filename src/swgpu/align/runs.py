"""CIGAR runs and counts of many alignment paths in one compiled pass (by array
passes below :data:`ARRAY_COLUMNS` columns, or where loading Numba would cost more).

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

from ..io.compiled import read_only_codes, worth
from ..io.ranges import ranges, run_ranges

__all__ = ["path_runs", "ARRAY_COLUMNS"]

#: Columns below which the array passes are taken even with Numba loaded (about 20 ms: less than loading
#: the compiled pass from its cache, and no compile on a machine's first run).
ARRAY_COLUMNS = 1 << 21


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
    if not worth(n) or ops.size < ARRAY_COLUMNS:
        return _path_runs_arrays(ops, offsets, qcodes, qpos, tcodes, tpos, unknown)
    run_len = np.empty(ops.size, dtype=np.int32)  # (room for a run a column: half the bytes of int64; a run < 2^31)
    run_op = np.empty(ops.size, dtype=np.uint8)
    run_off = np.empty(n + 1, dtype=np.int64)
    counts = np.zeros((6, n), dtype=np.int64)
    qpos, tpos = qpos.astype(np.int64, copy=False), tpos.astype(np.int64, copy=False)
    # (codes read-only whoever made them, a strand or its reverse complement: one compiled version)
    qcodes, tcodes = read_only_codes(qcodes), read_only_codes(tcodes)
    parts = ranges(n, threads, least=1 << 14)
    from .runs_kernel import runs

    ends = run_ranges(lambda a, b: runs(ops, offsets, qcodes, qpos, tcodes, tpos, np.uint8(unknown), run_len,
                                         run_op, run_off, counts, a, b), parts)
    pieces = [(int(offsets[a]), end) for (a, _), end in zip(parts, ends)]  # each range's runs, end to end
    shift = np.cumsum([0] + [end - start for start, end in pieces])
    for (a, b), (start, _), to in zip(parts, pieces, shift.tolist()):
        run_off[a:b] += to - start
    run_off[n] = int(shift[-1])
    lengths = np.concatenate([run_len[a:b] for a, b in pieces]).astype(np.int64)
    letters = np.concatenate([run_op[a:b] for a, b in pieces])
    return (lengths, letters, run_off), tuple(counts)


_CLASS_LETTER = np.frombuffer(b"=XID", dtype=np.uint8)  # of the column classes 0-3


def _path_runs_arrays(ops, offsets, qcodes, qpos, tcodes, tpos, unknown):
    """:func:`path_runs` with array operations (no compiled code: for few paths). Each column's class
    (``=``, ``X``, ``I``, ``D``) from the letters it pairs, the runs where the class changes or a path
    begins, and each path's counts from sums over its runs."""
    n = offsets.size - 1
    ops = np.asarray(ops, dtype=np.uint8)[offsets[0]:offsets[-1]]
    size = ops.size
    first = offsets[:-1] - offsets[0]
    if not size:
        empty = (np.zeros(0, np.int64), np.zeros(0, np.uint8), np.zeros(n + 1, np.int64))
        return empty, tuple(np.zeros((6, n), dtype=np.int64))
    sizes = np.diff(offsets)
    head = np.minimum(first, size - 1)  # (an empty path's first column is none: never looked at)

    def position(uses, start):  # each column's letter of a sequence: the path's start + its earlier columns' use
        before = np.cumsum(uses, dtype=np.intp)
        before -= uses
        before += np.repeat(np.asarray(start, np.intp) - before[head], sizes)
        return before

    qi = position(ops != 2, qpos)
    tj = position(ops != 1, tpos)
    # (a gap column's letter may lie past its sequence: clipped, never looked at)
    a = np.take(qcodes, qi, mode="clip") if qcodes.size else np.zeros(size, np.uint8)
    b = np.take(tcodes, tj, mode="clip") if tcodes.size else np.zeros(size, np.uint8)
    # class of each column: 0 '=', 1 'X', 2 'I', 3 'D'
    cls = ops + np.uint8(1)
    pair = ops == 0
    cls[pair] = ((a != b) | (a == unknown))[pair]
    new = np.empty(size, dtype=bool)
    new[0] = True
    np.not_equal(cls[1:], cls[:-1], out=new[1:])
    new[first[sizes > 0]] = True
    at = np.flatnonzero(new)
    run_len = np.diff(at, append=size)
    run_cls = cls[at]
    run_off = np.append(np.searchsorted(at, first), at.size).astype(np.int64)  # (a path's first column starts a run)

    def per_path(values):  # a sum over each path's runs
        c = np.zeros(at.size + 1, np.int64)
        np.cumsum(values, out=c[1:])
        return c[run_off[1:]] - c[run_off[:-1]]

    is_eq, is_x, is_i, is_d = (run_cls == 0), (run_cls == 1), (run_cls == 2), (run_cls == 3)
    matches = per_path(np.where(is_eq, run_len, 0))
    mismatches = per_path(np.where(is_x, run_len, 0))
    ins = per_path(np.where(is_i, run_len, 0))
    dels = per_path(np.where(is_d, run_len, 0))
    opens = per_path(is_i | is_d)
    used = matches + mismatches
    return (run_len.astype(np.int64), _CLASS_LETTER[run_cls], run_off), (matches, mismatches, ins + dels, opens,
                                                                       used + ins, used + dels)
