"""Tile shapes of the search kernel and the cost model that picks one.

A tile is ``(G, R)``: ``G`` threads per pair (or chunk), ``R`` query rows per
thread. The shapes, and which of them share one profile tile per block, are
read from the kernel source (``SWP_VARIANTS`` in ``kernels/sw_search.cu``), so
this list and the kernel's cannot differ.

The model charges a shape's padded query rows times the columns it runs,
divided by the shape's speed. The speeds are fitted constants, not
measurements to quote: kernel GCUPS of each shape on an H100 with whole tiles,
fitted on 100,000 sequences of mean length 366 (one query, corrected for the
wavefront fill) and on 20 queries against 1,000,000 random sequences of 256
(query pairs, chunks of equal columns). Only their ratios matter.
"""

from __future__ import annotations

import functools
import math
import re

import numpy as np

from .runtime import kernel_source
from .search_layout import query_schedule

__all__ = ["variants", "wide_variant", "block_shared", "warps_per_block", "choose_tile", "choose_batch_tile",
           "single_tile_costs", "lockstep_columns"]

KERNEL_FILE = "sw_search.cu"
NWARPS = 2               # warps per block of the warp-private-profile kernels
NWARPS_SHARED = 8        # warps per block when the block shares one profile tile
NWARPS_SHARED_QP = 16    # the same for query pairs: one block (one profile copy) per SM

_SPEED = {(8, 16): 1895, (16, 16): 3735, (16, 24): 3892, (16, 32): 3988, (32, 16): 4110, (32, 24): 4307,
          (32, 32): 4373}
_SPEED_QP = {(8, 16): 4400, (16, 16): 3000, (16, 24): 5050, (16, 32): 5150, (32, 16): 4600,
             (32, 24): 4900, (32, 32): 5100}
_ENTRY = re.compile(r"X\((\d+),\s*(\d+),\s*(true|false)\)")


@functools.lru_cache(maxsize=None)
def _table(macro: str) -> tuple[tuple[int, int, bool], ...]:
    text = kernel_source(KERNEL_FILE)
    m = re.search(rf"#define {macro}\(X\)((?:[^\n]*\\\n)*[^\n]*)", text)
    if m is None:
        raise ValueError(f"{KERNEL_FILE}: no {macro} list")
    return tuple((int(g), int(r), bp == "true") for g, r, bp in _ENTRY.findall(m.group(1)))


def variants() -> tuple[tuple[int, int], ...]:
    """The (G, R) tile shapes of the 16-bit kernel.

    >>> variants()[:2]
    ((8, 16), (16, 16))
    """
    return tuple((g, r) for g, r, _ in _table("SWP_VARIANTS"))


def wide_variant() -> tuple[int, int]:
    """The (G, R) shape of the 32-bit re-run of overflowing pairs."""
    g, r, _ = _table("SWP_WIDE_VARIANT")[0]
    return g, r


def block_shared(G: int, R: int) -> bool:
    """Whether a tile shape uses one profile tile per block (else one per warp)."""
    for g, r, bp in _table("SWP_VARIANTS") + _table("SWP_WIDE_VARIANT"):
        if (g, r) == (G, R):
            return bp
    raise ValueError(f"no tile shape ({G}, {R}) in {KERNEL_FILE}")


def warps_per_block(G: int, R: int, qp: bool = False) -> int:
    if block_shared(G, R):
        return NWARPS_SHARED_QP if qp else NWARPS_SHARED
    return NWARPS


def single_tile_costs(Q: int, total_cols: int, npairs: int) -> list[tuple[float, tuple[int, int]]]:
    """(cost, shape) of every shape for one query of length ``Q`` on ``npairs``
    sequence pairs of ``total_cols`` columns: rows padded to whole tiles x
    (columns + a wavefront fill of G + 3 steps per pair and pass) / speed."""
    out = []
    for G, R in variants():
        T = G * R
        rows = max(1, -(-Q // T)) * T
        out.append((rows * (max(total_cols, 1) + max(npairs, 1) * (G + 3)) / _SPEED[(G, R)], (G, R)))
    return out


def choose_tile(Q: int, total_cols: int, npairs: int) -> tuple[int, int]:
    """The cheapest shape for one query (see :func:`single_tile_costs`)."""
    return min(single_tile_costs(Q, total_cols, npairs), key=lambda x: x[0])[1]


def lockstep_columns(chunk_cols, n: int) -> int:
    """Columns that chunks run in lockstep ``n`` at a time take: each set of
    ``n`` consecutive chunks lasts as long as its longest."""
    c = np.asarray(chunk_cols, dtype=np.int64).ravel()
    if c.size == 0:
        return 0
    pad = (-c.size) % n
    c = np.concatenate([c, np.zeros(pad, dtype=np.int64)]).reshape(-1, n)
    return int(c.max(axis=1).sum()) * n


def choose_batch_tile(lengths, total_cols: int, nunits: int, chunk_cols=None) -> tuple[float, tuple[int, int]]:
    """(modelled cost, (G, R)) of the query-pair kernel for a batch of queries:
    rows of the busier half (whole segments) x columns / speed. With
    ``chunk_cols`` (columns of each chunk, in order) the columns are those of
    chunks run in lockstep: the groups of a warp (32 / G), and the warps of a
    block, which meet at a barrier every pass, for block-shared tiles."""
    best = (math.inf, variants()[0])
    for G, R in variants():
        P, _ = query_schedule(lengths, G, R)
        cols = max(total_cols, 1)
        if chunk_cols is not None:
            n = (32 // G) * (NWARPS_SHARED_QP if block_shared(G, R) else 1)
            cols = max(lockstep_columns(chunk_cols, n), 1)
        cost = P * G * R * cols / _SPEED_QP[(G, R)]
        if cost < best[0] * 0.999:
            best = (cost, (G, R))
    return best
