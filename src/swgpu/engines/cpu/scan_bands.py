"""A long query's column maxima on all threads, every cell once: row bands
in a pipeline.

The chunks of :mod:`.scan` each start their pass ``span - 1 + radius``
letters early, so that their column maxima are exact; for a query of tens of
kilobases that lead is several chunks long, and most of the pass is computed
again and again. Here the query's rows are cut into bands instead, one a
thread. Band ``b`` takes the target a piece (:data:`PIECE` columns) at a time,
once band ``b - 1`` has handed it that piece's edge: ``H`` of the row above
and the vertical gap entering its first row, two numbers a column. Each band
keeps its own rows' ``H`` and horizontal gap between pieces, and merges its
column maxima into the problem's after the band above did, so the result is
the whole matrix's. The bands run down the rows as a pipeline; several
problems (a query against a record) follow one another without draining it.

A band's edges are kept in a ring of :data:`AHEAD` pieces: a band runs at
most that many pieces ahead of the band below it.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .scan_striped import column_maxima_striped

__all__ = ["AHEAD", "MIN_BAND_ROWS", "PIECE", "band_cuts", "column_maxima_bands"]

#: Target columns a band takes at a time: whole tiles in every lane width, so
#: that a band's left edge after a piece is the piece's last column.
PIECE = 1 << 14
#: The fewest query rows of a band.
MIN_BAND_ROWS = 512
#: Pieces a band may run ahead of the band below it.
AHEAD = 4


def band_cuts(m: int, threads: int) -> np.ndarray:
    """Row cuts of a query of ``m`` letters into at most ``threads`` bands of
    at least :data:`MIN_BAND_ROWS` rows (one band for a shorter query).

    >>> band_cuts(10_000, 4).tolist()
    [0, 2500, 5000, 7500, 10000]
    >>> band_cuts(700, 4).tolist()
    [0, 700]
    """
    bands = max(1, min(int(threads), m // MIN_BAND_ROWS))
    return np.linspace(0, m, bands + 1).round().astype(np.int64)


class _Failed(Exception):
    """Another band failed: this one stops."""


def column_maxima_bands(problems, matrix: np.ndarray, genome: np.ndarray, gap_open: int, gap_extend: int,
                        threads: int, on_piece=None, on_problem=None) -> None:
    """Column maxima of each problem ``(codes, c0, c1)`` -- a pass of the
    query's codes starting fresh at genome column ``c0``, to ``c1`` -- on
    ``threads`` threads. ``on_problem(index, colmax)`` gets each problem's
    ``int32`` maxima (``colmax[j - c0]``) once they are whole, in the thread
    that finished them; ``on_piece(index, a, b)`` after columns ``[a, b)`` of
    a problem are whole. Both run on the bands' threads."""
    threads = max(1, int(threads))
    for p, (_, c0, c1) in enumerate(problems):
        if c1 <= c0 and on_problem is not None:  # no columns: no piece
            on_problem(p, np.zeros(0, np.int32))
    cuts = [band_cuts(int(q.size), threads) for q, _, _ in problems]
    items = [(p, a, min(c1, a + PIECE)) for p, (_, c0, c1) in enumerate(problems) for a in range(c0, c1, PIECE)]
    bands = max((c.size - 1 for c in cuts), default=1)
    lock = threading.Lock()
    wake = [threading.Condition(lock) for _ in range(bands)]
    done = [0] * bands  # items each band has finished (or had no rows in)
    failed: list[BaseException] = []
    slots = [[(np.zeros(PIECE + 1, np.int64), np.zeros(PIECE + 1, np.int64)) for _ in range(AHEAD)]
             for _ in range(bands - 1)]
    outs: dict[int, np.ndarray] = {}

    def wait(b: int, ready) -> None:
        with lock:
            while not ready():
                if failed:
                    raise _Failed
                wake[b].wait()

    def finish(b: int, g: int) -> None:
        with lock:
            done[b] = g + 1
            for x in (b - 1, b + 1):
                if 0 <= x < bands:
                    wake[x].notify()

    def band(b: int) -> None:
        edge = None
        try:
            for g, (p, a, z) in enumerate(items):
                codes, c0, c1 = problems[p]
                n_bands = cuts[p].size - 1
                if b < n_bands:
                    r0, r1 = int(cuts[p][b]), int(cuts[p][b + 1])
                    if a == c0:
                        edge = (np.zeros(r1 - r0, np.int64), np.zeros(r1 - r0, np.int64))
                        if b == 0:
                            outs[p] = np.zeros(c1 - c0, np.int32)
                    if b:
                        wait(b, lambda: done[b - 1] > g)
                    last = b == n_bands - 1
                    if not last:
                        wait(b, lambda: done[b + 1] > g - AHEAD)
                    width = z - a + 1
                    top = None if b == 0 else tuple(x[:width] for x in slots[b - 1][g % AHEAD])
                    bottom = None if last else tuple(x[:width] for x in slots[b][g % AHEAD])
                    out = outs[p]
                    column_maxima_striped(codes[r0:r1], matrix, genome, a, z, gap_open, gap_extend, out[a - c0:],
                                          stretch=PIECE, edge=edge, top=top, bottom=bottom, merge=True)
                    if last:
                        if on_piece is not None:
                            on_piece(p, a, z)
                        if z == c1:
                            del outs[p]
                            if on_problem is not None:
                                on_problem(p, out)
                finish(b, g)
        except _Failed:
            return
        except BaseException as exc:
            with lock:
                failed.append(exc)
                for w in wake:
                    w.notify_all()
            raise

    if bands == 1:
        band(0)
        return
    with ThreadPoolExecutor(bands, thread_name_prefix="swgpu-band") as pool:
        futures = [pool.submit(band, b) for b in range(bands)]
    if failed:
        raise failed[0]
    for f in futures:
        f.result()
