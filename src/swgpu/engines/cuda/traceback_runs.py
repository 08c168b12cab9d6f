"""CIGAR runs of the GPU traceback's paths, made where the paths lie.

When every path of a batch is one base piece of the traceback (short pairs: a
screen's reads, most search hits), the paths lie forwards and end to end on
the device after ``tw_forward_ops``. Two kernels of ``kernels/sw_traceback.cu``
(one thread a path) then make what :func:`swgpu.align.runs.path_runs` makes on
the host -- each path's runs of ``=``, ``X``, ``I``, ``D`` and its counts --
and only the runs come back (a few bytes an alignment instead of a byte a
column, and no host pass over the columns). The letters are compared as the
host pass compares them, so the runs are the same.
"""

from __future__ import annotations

import numpy as np

__all__ = ["path_runs", "joined_runs", "spread_runs", "offsets"]

#: Threads of a block of the runs' kernels (one a path; their ``__launch_bounds__``).
BLOCK = 256


def offsets(sizes) -> np.ndarray:
    """``[0, s0, s0 + s1, ...]`` as int64."""
    off = np.zeros(len(sizes) + 1, dtype=np.int64)
    np.cumsum(np.asarray(sizes, dtype=np.int64), out=off[1:])
    return off


def path_runs(cp, kernels, path, noff: np.ndarray, count: np.ndarray, A, B, qpos, tpos, unknown: int) -> tuple:
    """The runs and counts of the paths packed on the device in ``path`` (path
    ``p``: ``count[p]`` ops from ``noff[p]``, its columns starting at the codes
    ``A[qpos[p]]`` and ``B[tpos[p]]``), as :func:`~swgpu.align.runs.path_runs`
    gives them: a pass counts each path's runs and letters, and a second writes
    the runs where the counts put them. ``kernels``: the traceback's
    (:class:`~.traceback_kernels.Kernels`); launched on the current stream."""
    n = int(count.size)
    grid = (-(-n // BLOCK),)
    args = (path, cp.asarray(noff[:-1]), cp.asarray(count.astype(np.int32)), A, B,
            cp.asarray(np.asarray(qpos, np.int64)), cp.asarray(np.asarray(tpos, np.int64)), np.int32(unknown),
            np.int32(n))
    stats = cp.empty(max(7 * n, 1), dtype=np.int64)
    kernels["tw_path_runs_count"](grid, (BLOCK,), args + (stats,))
    stats = stats[:7 * n].get().reshape(7, n)
    run_off = offsets(stats[0])
    total = int(run_off[-1])
    run_len, run_op = cp.empty(max(total, 1), dtype=np.int32), cp.empty(max(total, 1), dtype=np.uint8)
    kernels["tw_path_runs_fill"](grid, (BLOCK,), args + (cp.asarray(run_off[:-1]), run_len, run_op))
    return (run_len[:total].get().astype(np.int64), run_op[:total].get(), run_off), tuple(stats[1:])


def joined_runs(parts: list) -> tuple:
    """The runs and counts of consecutive launches (:func:`path_runs`) as one."""
    if not parts:
        parts = [((np.zeros(0, np.int64), np.zeros(0, np.uint8), np.zeros(1, np.int64)),
                  tuple(np.zeros((6, 0), np.int64)))]
    lengths = np.concatenate([r[0][0] for r in parts])
    letters = np.concatenate([r[0][1] for r in parts])
    run_off = offsets(np.concatenate([np.diff(r[0][2]) for r in parts]))
    stats = tuple(np.concatenate([r[1][f] for r in parts]) for f in range(6))
    return (lengths, letters, run_off), stats


def spread_runs(runs: tuple, live: np.ndarray, n: int) -> tuple:
    """``runs`` of the pairs ``live`` (of ``n``) as the runs of all ``n``: none, and
    zero counts, for the others."""
    (run_len, run_op, run_off), stats = runs
    per = np.zeros(n, np.int64)
    per[live] = np.diff(run_off)
    full = np.zeros((len(stats), n), np.int64)
    full[:, live] = np.asarray(stats)
    return (run_len, run_op, offsets(per)), tuple(full)
