"""Shapes and batches of the GPU screening kernels (host side, numpy only):
per-phase timings, length classes, rows per thread, the group kernel's tile
and its launch batches, and device bytes per batch.

The register-fitted constants below were set from ptxas register counts (no
spill) and H100 measurements; BENCHMARKS.md has the measurements.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["ScreenTimings", "GROUP_SIZES", "GROUP_PACK4", "roundup", "length_class", "length_classes", "bitwise_rows",
           "wordwise_packed_ok", "wordwise_k", "group_packed_ok", "group_shape", "group_batches", "batch_bytes"]


@dataclass
class ScreenTimings:
    """Milliseconds per phase, summed over batches (CUDA events, one stream).

    ``total_ms`` spans the first host-to-device copy to the last device-to-host
    copy; ``host_ms`` is the host-side packing into pinned buffers (wall clock,
    not part of ``total_ms``). ``cells`` counts real (unpadded) DP cells.
    """

    kernel: str = ""
    transpose: str = ""
    h2d_ms: float = 0.0
    transpose_ms: float = 0.0
    sw_ms: float = 0.0
    untranspose_ms: float = 0.0
    d2h_ms: float = 0.0
    total_ms: float = 0.0
    host_ms: float = 0.0
    pairs: int = 0
    cells: int = 0
    padded_cells: int = 0
    batches: list = field(default_factory=list)

    @property
    def gcups(self) -> float:
        """Real cells per second over ``total_ms``, in billions."""
        return self.cells / (self.total_ms * 1e6) if self.total_ms > 0 else 0.0

    @property
    def sw_gcups(self) -> float:
        return self.cells / (self.sw_ms * 1e6) if self.sw_ms > 0 else 0.0

    def as_dict(self) -> dict:
        d = {k: getattr(self, k) for k in ("kernel", "transpose", "h2d_ms", "transpose_ms", "sw_ms", "untranspose_ms",
                                           "d2h_ms", "total_ms", "host_ms", "pairs", "cells", "padded_cells")}
        d["gcups"] = self.gcups
        d["sw_gcups"] = self.sw_gcups
        d["batches"] = list(self.batches)
        return d


# ----------------------------------------------------------------------------
# Shapes and kernel choices
# ----------------------------------------------------------------------------


def roundup(x: int, k: int) -> int:
    return -(-int(x) // k) * k


def length_class(n: int) -> int:
    """Bucket length: ``n`` rounded up to 32 or to 1/16 of its power of two."""
    gran = max(32, 1 << max(0, int(n).bit_length() - 4))
    return roundup(n, gran)


def length_classes(n: np.ndarray) -> np.ndarray:
    """:func:`length_class` of every length (int64 array), at once."""
    n = np.asarray(n, dtype=np.int64)
    bits = np.frexp(n.astype(np.float64))[1].astype(np.int64)  # bit_length of each, or one off past 2**53
    bits -= (n > 0) & ((np.int64(1) << np.maximum(bits - 1, 0)) > n)
    bits += (n >> np.minimum(bits, 63)) > 0
    gran = np.maximum(32, np.left_shift(1, np.maximum(0, bits - 4)))
    return -(-n // gran) * gran


# Largest score width B for 4 and 2 rows per lane (else 1), by gap model. Set
# from ptxas register counts over B = 4..30 (nvcc 13 and NVRTC 12.9 agree),
# keeping every choice at <= 246 registers with no spill in the step loop.
ROWS_TABLE = {False: ((4, 12), (2, 22)), True: ((4, 9), (2, 13))}


def bitwise_rows(nb: int, affine: bool, m: int) -> int:
    """Rows per lane R (1, 2 or 4): fits the registers, wastes few padded rows."""
    r = 1
    for rows, max_bits in ROWS_TABLE[affine]:
        if nb <= max_bits:
            r = rows
            break
    while r > 1 and 32 * (r // 2) >= m:
        r //= 2
    return r


def wordwise_packed_ok(bound: int, match: int, mismatch: int, gap_open: int, gap_extend: int) -> bool:
    """True when every intermediate of the s16x2 kernel fits in int16."""
    de = match - mismatch
    off = max(7 * de, 1792 * (-(-de // 256)))
    return (
        bound + match <= 32767
        and gap_open + gap_extend <= 32767
        and mismatch >= -32767
        and match + gap_open + off <= 32767
    )


def wordwise_k(m: int, packed: bool) -> int:
    per = 2 if packed else 1
    for k in (8, 16, 32, 64):
        if per * k >= m:
            return k
    return 64


# Rows per thread of the group kernel: the compiled choices, and the largest for
# s16x2 and for 32-bit lanes (nvcc 13: at most ~100 registers, no spill).
GROUP_ROWS = (4, 6, 8, 10, 12, 16)
GROUP_MAX_ROWS = {True: 16, False: 12}
GROUP_SIZES = (4, 8, 16, 32)
#: The group kernel receives codes packed two per byte (half the host->GPU
#: bytes; ``False``: one per byte).
GROUP_PACK4 = True


def group_packed_ok(bound: int, match: int, mismatch: int, gap_open: int, gap_extend: int) -> bool:
    """True when every intermediate of the s16x2 group kernel fits in int16 (with margin).

    Values are in ``[-(bound + 1), bound + match]`` (parameters clamped by
    ``effective_scoring``); the substitution constant is ``match + 7 * (match - mismatch)``.
    """
    return (bound + match <= 32000 and match + 7 * (match - mismatch) <= 32000
            and gap_open <= 32000 and gap_extend <= 32000 and mismatch >= -32000)


def group_shape(m: int, packed: bool, group_size: int | None = None) -> tuple[int, int, int]:
    """``(G, R, passes)`` for queries of at most ``m`` rows.

    ``G``: the smallest of 4..32 whose threads cover ``m`` at the most rows a
    thread holds (16 in 16-bit lanes, 12 in 32-bit; unless given); ``R``: the
    fewest rows per thread (from ``GROUP_ROWS``) that cover ``m`` in the fewest
    passes of ``G * R`` rows. Fewer threads holding more rows each measured
    faster (BENCHMARKS.md, group kernel shapes).
    """
    rmax = GROUP_MAX_ROWS[packed]
    G = group_size
    if G is None:
        G = GROUP_SIZES[0]
        while G < GROUP_SIZES[-1] and G * rmax < m:
            G *= 2
    m = max(int(m), 1)
    passes = -(-m // (G * rmax))
    need = -(-m // (G * passes))
    R = next(r for r in GROUP_ROWS if r >= need)
    return G, R, passes


def group_batches(mlen: np.ndarray, nlen: np.ndarray, live: np.ndarray, max_batch_bytes: int) -> list:
    """Launch batches of the group kernel: pairs bucketed by query length class
    (``length_class``), sorted by target length, and cut where the longest
    target would exceed twice the shortest (N padding bytes) or the batch would
    exceed ``max_batch_bytes``. Unlike the other kernels, targets of different
    length classes share a launch: each group stops at its own target end, and
    one launch keeps many pairs in flight."""
    mkey = length_classes(mlen[live])
    n = nlen[live]
    if live.size and max(int(mkey.max()), int(n.max())) < 1 << 31:  # one sort of both keys (lexsort's order)
        by = np.argsort((mkey << 32) | n, kind="stable")
    else:
        by = np.lexsort((n, mkey))
    order, okey = live[by], mkey[by]
    starts = np.flatnonzero(np.r_[True, okey[1:] != okey[:-1]])
    ends = np.r_[starts[1:], okey.size]
    out = []
    for a, b in zip(starts, ends):
        bucket = order[a:b]
        m_pad = roundup(int(mlen[bucket].max()), 128)
        c = 0
        while c < bucket.size:
            n0 = max(int(nlen[bucket[c]]), 32)
            e = c + int(np.searchsorted(nlen[bucket[c:]], 2 * n0, side="right"))
            n_pad = roundup(int(nlen[bucket[e - 1]]), 32)
            per_pair = m_pad + n_pad + 8 + (8 * n_pad if m_pad > 128 else 0)
            step = max(64, (max_batch_bytes // per_pair) // 64 * 64)
            e = min(e, c + step)
            out.append(bucket[c:e])
            c = e
    return out


def batch_bytes(kernel: str, rows: int, m_max: int, n_pad: int, nb: int) -> int:
    """Device bytes of a batch of ``rows`` pairs (codes, planes, strip scratch)."""
    m_pad = roundup(max(m_max, 1), 128)
    strips = m_max > 128 or (kernel == "wordwise" and m_max > 64)
    if kernel == "bitwise":
        words = 3 * (m_pad + n_pad) + (2 * nb * n_pad if strips else 0) + nb
        return rows * (m_pad + n_pad) + -(-rows // 32) * 4 * words
    return rows * (m_pad + 2 * n_pad + 4) + (rows * n_pad * 8 if strips else 0)
