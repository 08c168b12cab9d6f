"""The compiled pass of :func:`swgpu.align.runs.path_runs` (Numba; loaded on first use)."""

from __future__ import annotations

import numpy as np

from ..io.compiled import announce_compile, load_numba

load_numba()
from numba import njit  # noqa: E402

_EQ, _X, _I, _D = ord("="), ord("X"), ord("I"), ord("D")


@njit(cache=True, nogil=True)
def runs(ops, off, qcodes, qpos, tcodes, tpos, unknown, run_len, run_op, run_off, counts, a, b):  # pragma: no cover
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
                qc = qcodes[i]
                tc = tcodes[j]
                i += 1
                j += 1
                if qc == tc and qc != unknown:
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


announce_compile(runs)
