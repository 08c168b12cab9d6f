"""The last row of a global alignment (:mod:`.global_kernel`) on several
threads, for the few large pieces of the first Myers-Miller levels.

The target's tiles are cut into ranges of consecutive tiles, one per thread,
as :mod:`.striped_threads` cuts the local pass: a block of rows crosses the
tiles left to right, each tile passing every row's last ``H`` and outgoing
horizontal gap to the next (``bh``/``be``), so part ``p`` runs block ``b``
once part ``p - 1`` has published it (a store with release order). Parts
take their index from a shared counter as their threads start, so a part
only ever waits for one that is already running. Every cell is computed by
the same vector steps as in one thread: the same ``(CC, DD)``, bit for bit.

>>> import numpy as np
>>> from swgpu.engines.cpu.global_kernel import nw_last_row
>>> m = np.where(np.eye(4, dtype=bool), 2, -3).astype(np.int32)
>>> rng = np.random.default_rng(2)
>>> a, b = rng.integers(0, 4, 700).astype(np.uint8), rng.integers(0, 4, 40_000).astype(np.uint8)
>>> got = nw_last_row_threads(a, b, m, 5, 2, 5, threads=2)
>>> want = nw_last_row(a, b, m, 5, 2, 5)
>>> all(np.array_equal(x, y) for x, y in zip(got, want))
True
"""

from __future__ import annotations

import numpy as np

from ...io.compiled import read_only_codes
from .global_kernel import BLOCK_ROWS, left_edge, nw_last_row_part, nw_last_row_striped, profiled
from .striped_threads import MIN_TILES_PER_THREAD, _cores

__all__ = ["nw_last_row_threads"]


def nw_last_row_threads(a, b, matrix, gap_open, gap_extend, lead_open, threads: int):
    """:func:`.global_kernel.nw_last_row` with its pass on ``threads`` threads
    (one where ``b`` has too few tiles): the same ``(CC, DD)``, or None when
    the profile of ``b`` would be too large."""
    from .threads import run_shared

    got = profiled(a, b, matrix, gap_open, gap_extend, lead_open)
    if got is None:
        return None
    prof, tiles, seg, lanes, neg = got
    a = read_only_codes(a)
    m, n = a.shape[0], b.shape[0]
    parts = max(1, min(int(threads), _cores(), tiles // MIN_TILES_PER_THREAD))
    if parts == 1 or m == 0:
        return nw_last_row_striped(a, prof, tiles, seg, lanes, n, gap_open, gap_extend, lead_open, neg, BLOCK_ROWS)
    bh, be = left_edge(m, gap_open, gap_extend, lead_open)
    CC = np.empty(n + 1, dtype=np.int32)
    DD = np.empty(n + 1, dtype=np.int32)
    done = np.zeros(parts, dtype=np.int64)
    a = np.ascontiguousarray(a)
    run_shared(nw_last_row_part, lambda counter: (a, prof, tiles, seg, lanes, n, gap_open, gap_extend, lead_open,
                                                  neg, BLOCK_ROWS, parts, bh, be, CC, DD, done, counter),
               threads=parts, items=parts)
    CC[0] = DD[0] = -(lead_open + (m - 1) * gap_extend)
    return CC, DD
