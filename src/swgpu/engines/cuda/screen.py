"""Bulk pair screening on the GPU: the best local SW score of many DNA pairs.

Launcher for ``kernels/bpbc.cu``. Two kernels do the same job:

* ``kernel="bitwise"`` -- Bitwise Parallel Bulk Computation: codes are bit
  transposed into planes (``transpose="ballot"``: warp ballots, or ``"swap"``:
  Hacker's Delight block swaps), one warp evaluates the SW cell circuit for 32
  pairs at once on ``B``-bit bit-sliced scores, and the 32 results are
  untransposed at the end.
* ``kernel="wordwise"`` -- one pair per thread, scores packed ``s16x2`` (two
  query rows per register) or plain 32-bit, with Hopper DPX instructions. Its
  "transpose" phase interleaves the target codes in 16-byte chunks so that a
  warp's loads are contiguous.
* ``kernel="group"`` (``kernels/screen_group.cu``) -- a group of ``G`` threads
  scores two pairs at once (their scores in the two halves of ``s16x2``
  registers, or two 32-bit registers), each thread holding ``R`` query rows;
  H/F pass between threads by warp shuffles. ``G / 2`` threads per pair, for
  batches too small to fill the GPU with one pair per thread. Codes travel
  packed two per byte (half the host-to-device bytes). No transpose; targets
  of different length classes share a launch (see ``_group_batches``).

Scores are exact. ``B`` is the number of bits of the largest reachable score
``max(min(m, n)) * match`` of the pairs launched together; every DP value is
non-negative and at most that bound (see ``swgpu.engines.cpu.bitsliced``).

Pairs are grouped into buckets of similar shape, then padded at their ends
with ``N`` to the bucket's largest query and target; ``N`` padding never
changes a score (proof in ``swgpu.engines.cpu.bitsliced``). A pair whose query
is longer than its target is swapped first: the local score is symmetric in
query and target (the matrix transposes, E and F trade places), and the kernels
keep the query side in registers.

Host data is staged through pinned memory; per-phase times come from CUDA
events on one stream (see :func:`screen_scores_cuda_timed`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from ...exceptions import EngineError, ScoringError
from ..cpu.bitsliced import as_code_arrays, check_scoring, effective_scoring, score_bits, score_bound
from . import runtime

__all__ = ["screen_scores_cuda", "screen_scores_cuda_timed", "ScreenTimings", "KERNELS", "TRANSPOSES"]

KERNEL_FILE = "bpbc.cu"
GROUP_KERNEL_FILE = "screen_group.cu"
KERNELS = ("bitwise", "wordwise", "group")
TRANSPOSES = ("ballot", "swap")
N_CODE = 4
BLOCK = 128
#: Upper bound of device bytes for one launch batch (codes, planes, scratch).
MAX_BATCH_BYTES = 6 << 30


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


def _roundup(x: int, k: int) -> int:
    return -(-int(x) // k) * k


def _length_class(n: int) -> int:
    """Bucket length: ``n`` rounded up to 32 or to 1/16 of its power of two."""
    gran = max(32, 1 << max(0, int(n).bit_length() - 4))
    return _roundup(n, gran)


# Largest score width B for 4 and 2 rows per lane (else 1), by gap model. Set
# from ptxas register counts over B = 4..30 (nvcc 13 and NVRTC 12.9 agree),
# keeping every choice at <= 246 registers with no spill in the step loop.
_ROWS_TABLE = {False: ((4, 12), (2, 22)), True: ((4, 9), (2, 13))}


def _bitwise_rows(nb: int, affine: bool, m: int) -> int:
    """Rows per lane R (1, 2 or 4): fits the registers, wastes few padded rows."""
    r = 1
    for rows, max_bits in _ROWS_TABLE[affine]:
        if nb <= max_bits:
            r = rows
            break
    while r > 1 and 32 * (r // 2) >= m:
        r //= 2
    return r


def _wordwise_packed_ok(bound: int, match: int, mismatch: int, gap_open: int, gap_extend: int) -> bool:
    """True when every intermediate of the s16x2 kernel fits in int16."""
    de = match - mismatch
    off = max(7 * de, 1792 * (-(-de // 256)))
    return (
        bound + match <= 32767
        and gap_open + gap_extend <= 32767
        and mismatch >= -32767
        and match + gap_open + off <= 32767
    )


def _wordwise_k(m: int, packed: bool) -> int:
    per = 2 if packed else 1
    for k in (8, 16, 32, 64):
        if per * k >= m:
            return k
    return 64


# Rows per thread of the group kernel: the compiled choices, and the largest for
# s16x2 and for 32-bit lanes (nvcc 13: at most ~100 registers, no spill).
_GROUP_ROWS = (4, 6, 8, 10, 12, 16)
_GROUP_MAX_ROWS = {True: 16, False: 12}
GROUP_SIZES = (4, 8, 16, 32)
#: The group kernel receives codes packed two per byte (half the host->GPU
#: bytes; ``False``: one per byte).
_GROUP_PACK4 = True


def _group_packed_ok(bound: int, match: int, mismatch: int, gap_open: int, gap_extend: int) -> bool:
    """True when every intermediate of the s16x2 group kernel fits in int16 (with margin).

    Values are in ``[-(bound + 1), bound + match]`` (parameters clamped by
    ``effective_scoring``); the substitution constant is ``match + 7 * (match - mismatch)``.
    """
    return (bound + match <= 32000 and match + 7 * (match - mismatch) <= 32000
            and gap_open <= 32000 and gap_extend <= 32000 and mismatch >= -32000)


def _group_shape(m: int, packed: bool, group_size: int | None = None) -> tuple[int, int, int]:
    """``(G, R, passes)`` for queries of at most ``m`` rows.

    ``G``: the smallest of 4..32 whose threads cover ``m`` at the most rows a
    thread holds (16 in 16-bit lanes, 12 in 32-bit; unless given); ``R``: the
    fewest rows per thread (from ``_GROUP_ROWS``) that cover ``m`` in the fewest
    passes of ``G * R`` rows. Fewer threads holding more rows each measured
    faster on an H100 (m = 128, 32,768 pairs, n = 65,536, linear: G=8/R=16 4,512
    SW GCUPS, G=16/R=8 3,982, G=32/R=4 3,237).
    """
    rmax = _GROUP_MAX_ROWS[packed]
    G = group_size
    if G is None:
        G = GROUP_SIZES[0]
        while G < GROUP_SIZES[-1] and G * rmax < m:
            G *= 2
    m = max(int(m), 1)
    passes = -(-m // (G * rmax))
    need = -(-m // (G * passes))
    R = next(r for r in _GROUP_ROWS if r >= need)
    return G, R, passes


# ----------------------------------------------------------------------------
# Device helpers
# ----------------------------------------------------------------------------


def _pinned(cp, shape, dtype) -> np.ndarray:
    count = int(np.prod(shape))
    mem = cp.cuda.alloc_pinned_memory(max(1, count * np.dtype(dtype).itemsize))
    return np.frombuffer(mem, dtype=dtype, count=count).reshape(shape)


def _fill(host: np.ndarray, seqs: list, idx: np.ndarray) -> None:
    """Rows of ``host`` <- sequences ``seqs[idx]``, padded with N; extra rows all N."""
    width = host.shape[1]
    for r, i in enumerate(idx):
        s = seqs[i]
        row = host[r]
        row[: s.size] = s
        if s.size < width:
            row[s.size :] = N_CODE
    if idx.size < host.shape[0]:
        host[idx.size :] = N_CODE


def _h2d(cp, dst, src: np.ndarray, stream) -> None:
    cp.cuda.runtime.memcpyAsync(dst.data.ptr, src.ctypes.data, src.nbytes, cp.cuda.runtime.memcpyHostToDevice, stream.ptr)


def _d2h(cp, dst: np.ndarray, src, stream) -> None:
    cp.cuda.runtime.memcpyAsync(dst.ctypes.data, src.data.ptr, dst.nbytes, cp.cuda.runtime.memcpyDeviceToHost, stream.ptr)


def _grid(threads: int) -> tuple[int]:
    return (max(1, -(-int(threads) // BLOCK)),)


# ----------------------------------------------------------------------------
# One batch: all pairs share (m_pad, n_pad) and the scoring constants
# ----------------------------------------------------------------------------


def _run_batch(cp, kernel, transpose, qs, ts, idx, m_max, n_max, bound, params, timings: ScreenTimings,
               rows_per_lane: int | None = None) -> np.ndarray:
    match, mismatch, gap_open, gap_extend = params
    affine = gap_open != gap_extend
    nb = score_bits(bound)
    npairs = int(idx.size)
    n_pad = _roundup(max(n_max, 1), 32)
    info = {"pairs": npairs, "m_max": int(m_max), "n_max": int(n_max), "bits": nb}

    if kernel == "bitwise":
        if nb > 30:
            raise ScoringError(f"best possible score {bound} needs {nb} bits; the bit-sliced kernel handles up to 30")
        R = rows_per_lane or _bitwise_rows(nb, affine, m_max)
        m_pad = _roundup(max(m_max, 1), 32 * R)
        ngroups = -(-npairs // 32)
        rows = ngroups * 32
        name = f"bpbc_sw<{nb},{R},{match},{mismatch},{gap_open},{gap_extend},{int(affine)}>"
        info.update(kernel=name, rows_per_lane=R, m_pad=m_pad, n_pad=n_pad)
    else:
        packed = _wordwise_packed_ok(bound, match, mismatch, gap_open, gap_extend)
        K = _wordwise_k(m_max, packed)
        m_pad = _roundup(max(m_max, 1), (2 if packed else 1) * K)
        rows = npairs
        name = f"ww_sw<{K},{int(packed)},{int(affine)},{match},{mismatch},{gap_open},{gap_extend}>"
        info.update(kernel=name, m_pad=m_pad, n_pad=n_pad)

    # compile (first use) and allocate before the first event
    mod = runtime.get_module(KERNEL_FILE, (), (name,))
    sw = mod.get_function(name)
    qd = cp.empty((rows, m_pad), dtype=cp.uint8)
    td = cp.empty((rows, n_pad), dtype=cp.uint8)
    scores_d = cp.empty((rows,), dtype=cp.int32)
    if kernel == "bitwise":
        tk = mod.get_function("bpbc_transpose_" + transpose)
        uk = mod.get_function("bpbc_untranspose_" + transpose)
        qp = cp.empty((ngroups, 3, m_pad), dtype=cp.uint32)
        tp = cp.empty((ngroups, 3, n_pad), dtype=cp.uint32)
        best = cp.empty((ngroups, nb), dtype=cp.uint32)
        nstrips = m_pad // (32 * R)
        ns = (2 if affine else 1) * nb
        scratch = cp.empty((ngroups * ns * n_pad if nstrips > 1 else 1,), dtype=cp.uint32)
    else:
        ik = mod.get_function("ww_interleave")
        tint = cp.empty((n_pad // 16, npairs, 16), dtype=cp.uint8)
        nstrips = m_pad // ((2 if packed else 1) * K)
        nw = 1 if packed else 2
        scratch = cp.empty((n_pad * nw * npairs if nstrips > 1 else 1,), dtype=cp.uint32)
    info["strips"] = nstrips

    t_host = time.perf_counter()
    qh = _pinned(cp, (rows, m_pad), np.uint8)
    th = _pinned(cp, (rows, n_pad), np.uint8)
    _fill(qh, qs, idx)
    _fill(th, ts, idx)
    out_h = _pinned(cp, (rows,), np.int32)
    timings.host_ms += (time.perf_counter() - t_host) * 1e3

    stream = cp.cuda.Stream(non_blocking=True)
    ev = [cp.cuda.Event() for _ in range(6)]
    i32 = np.int32
    with stream:
        ev[0].record(stream)
        _h2d(cp, qd, qh, stream)
        _h2d(cp, td, th, stream)
        ev[1].record(stream)
        if kernel == "bitwise":
            if transpose == "ballot":  # one warp per (group, 32 positions)
                tk(_grid(ngroups * m_pad), (BLOCK,), (qd, qp, i32(ngroups), i32(m_pad)))
                tk(_grid(ngroups * n_pad), (BLOCK,), (td, tp, i32(ngroups), i32(n_pad)))
            else:  # one thread per (group, 4 positions)
                tk(_grid(ngroups * (m_pad // 4)), (BLOCK,), (qd, qp, i32(ngroups), i32(m_pad)))
                tk(_grid(ngroups * (n_pad // 4)), (BLOCK,), (td, tp, i32(ngroups), i32(n_pad)))
            ev[2].record(stream)
            sw(_grid(ngroups * 32), (BLOCK,), (qp, tp, best, scratch, i32(ngroups), i32(m_pad), i32(n_pad)))
            ev[3].record(stream)
            if transpose == "ballot":  # one warp per group
                uk(_grid(ngroups * 32), (BLOCK,), (best, scores_d, i32(ngroups), i32(nb)))
            else:  # one thread per group
                uk(_grid(ngroups), (BLOCK,), (best, scores_d, i32(ngroups), i32(nb)))
            ev[4].record(stream)
        else:
            # target layout [n_pad/16][npairs] of 16-byte chunks (coalesced per warp)
            ik((-(-npairs // 32), -(-(n_pad // 16) // 32)), (32, 8), (td, tint, i32(npairs), i32(n_pad)))
            ev[2].record(stream)
            sw(_grid(npairs), (BLOCK,), (qd, tint, scores_d, scratch, i32(npairs), i32(m_pad), i32(n_pad)))
            ev[3].record(stream)
            ev[4].record(stream)
        _d2h(cp, out_h, scores_d, stream)
        ev[5].record(stream)
    ev[5].synchronize()

    _account(cp, ev, timings, info, rows * m_pad * n_pad)
    return np.array(out_h[:npairs], dtype=np.int32)


def _run_group_batch(cp, qs, ts, idx, nlen, m_max, n_max, bound, params, timings: ScreenTimings,
                     group_size: int | None = None) -> np.ndarray:
    """One launch of the group kernel; ``idx`` sorted by target length, so pairs
    ``2g`` and ``2g + 1`` (group ``g``) have similar targets."""
    match, mismatch, gap_open, gap_extend = params
    affine = gap_open != gap_extend
    npairs = int(idx.size)
    packed = _group_packed_ok(bound, match, mismatch, gap_open, gap_extend)
    G, R, passes = _group_shape(m_max, packed, group_size)
    m_pad = G * R * passes
    n_pad = _roundup(max(n_max, 1), 32)
    ngroups = -(-npairs // 2)
    rows = 2 * ngroups
    pack4 = bool(_GROUP_PACK4)
    div = 2 if pack4 else 1
    name = f"grp_sw<{G},{R},{int(not packed)},{int(affine)},{int(pack4)},{match},{mismatch},{gap_open},{gap_extend}>"
    info = {"pairs": npairs, "m_max": int(m_max), "n_max": int(n_max), "bits": score_bits(bound), "kernel": name,
            "group_size": G, "rows_per_thread": R, "m_pad": m_pad, "n_pad": n_pad, "strips": passes}

    mod = runtime.get_module(GROUP_KERNEL_FILE, (), (name,))
    sw = mod.get_function(name)
    qd = cp.empty((rows, m_pad // div), dtype=cp.uint8)
    td = cp.empty((rows, n_pad // div), dtype=cp.uint8)
    lend = cp.empty((ngroups,), dtype=cp.int32)
    scores_d = cp.empty((rows,), dtype=cp.int32)
    bw = 2 if packed else 4
    scratch = cp.empty((ngroups * n_pad * bw if passes > 1 else 1,), dtype=cp.uint32)

    t_host = time.perf_counter()
    qh = _pinned(cp, (rows, m_pad // div), np.uint8)
    th = _pinned(cp, (rows, n_pad // div), np.uint8)
    for host, seqs, width in ((qh, qs, m_pad), (th, ts, n_pad)):
        if pack4:  # two codes per byte, low nibble first
            tmp = np.empty((rows, width), dtype=np.uint8)
            _fill(tmp, seqs, idx)
            np.bitwise_or(tmp[:, 0::2], tmp[:, 1::2] << 4, out=host)
        else:
            _fill(host, seqs, idx)
    lh = _pinned(cp, (ngroups,), np.int32)
    nl = np.zeros(rows, dtype=np.int32)
    nl[:npairs] = nlen[idx]
    lh[:] = nl.reshape(ngroups, 2).max(axis=1)
    out_h = _pinned(cp, (rows,), np.int32)
    timings.host_ms += (time.perf_counter() - t_host) * 1e3

    stream = cp.cuda.Stream(non_blocking=True)
    ev = [cp.cuda.Event() for _ in range(6)]
    i32 = np.int32
    with stream:
        ev[0].record(stream)
        _h2d(cp, qd, qh, stream)
        _h2d(cp, td, th, stream)
        _h2d(cp, lend, lh, stream)
        ev[1].record(stream)
        ev[2].record(stream)
        sw(_grid(ngroups * G), (BLOCK,), (qd, td, lend, scores_d, scratch, i32(ngroups), i32(m_pad), i32(n_pad)))
        ev[3].record(stream)
        ev[4].record(stream)
        _d2h(cp, out_h, scores_d, stream)
        ev[5].record(stream)
    ev[5].synchronize()
    _account(cp, ev, timings, info, rows * m_pad * n_pad)
    return np.array(out_h[:npairs], dtype=np.int32)


def _account(cp, ev, timings: ScreenTimings, info: dict, padded_cells: int) -> None:
    """Add the phase times between six recorded events to ``timings``."""
    el = [cp.cuda.get_elapsed_time(ev[i], ev[i + 1]) for i in range(5)]
    timings.h2d_ms += el[0]
    timings.transpose_ms += el[1]
    timings.sw_ms += el[2]
    timings.untranspose_ms += el[3]
    timings.d2h_ms += el[4]
    timings.total_ms += cp.cuda.get_elapsed_time(ev[0], ev[5])
    timings.padded_cells += padded_cells
    info.update(h2d_ms=el[0], transpose_ms=el[1], sw_ms=el[2], untranspose_ms=el[3], d2h_ms=el[4])
    timings.batches.append(info)


def _group_batches(mlen: np.ndarray, nlen: np.ndarray, live: np.ndarray, max_batch_bytes: int) -> list:
    """Launch batches of the group kernel: pairs bucketed by query length class
    (``_length_class``), sorted by target length, and cut where the longest
    target would exceed twice the shortest (N padding bytes) or the batch would
    exceed ``max_batch_bytes``. Unlike the other kernels, targets of different
    length classes share a launch: each group stops at its own target end, and
    one launch keeps many pairs in flight."""
    mkey = np.array([_length_class(a) for a in mlen[live]], dtype=np.int64)
    order = live[np.lexsort((nlen[live], mkey))]
    okey = np.sort(mkey, kind="stable")
    starts = np.flatnonzero(np.r_[True, okey[1:] != okey[:-1]])
    ends = np.r_[starts[1:], okey.size]
    out = []
    for a, b in zip(starts, ends):
        bucket = order[a:b]
        m_pad = _roundup(int(mlen[bucket].max()), 128)
        c = 0
        while c < bucket.size:
            n0 = max(int(nlen[bucket[c]]), 32)
            e = c + int(np.searchsorted(nlen[bucket[c:]], 2 * n0, side="right"))
            n_pad = _roundup(int(nlen[bucket[e - 1]]), 32)
            per_pair = m_pad + n_pad + 8 + (8 * n_pad if m_pad > 128 else 0)
            step = max(64, (max_batch_bytes // per_pair) // 64 * 64)
            e = min(e, c + step)
            out.append(bucket[c:e])
            c = e
    return out


def _batch_bytes(kernel: str, rows: int, m_max: int, n_pad: int, nb: int) -> int:
    """Device bytes of a batch of ``rows`` pairs (codes, planes, strip scratch)."""
    m_pad = _roundup(max(m_max, 1), 128)
    strips = m_max > 128 or (kernel == "wordwise" and m_max > 64)
    if kernel == "bitwise":
        words = 3 * (m_pad + n_pad) + (2 * nb * n_pad if strips else 0) + nb
        return rows * (m_pad + n_pad) + -(-rows // 32) * 4 * words
    return rows * (m_pad + 2 * n_pad + 4) + (rows * n_pad * 8 if strips else 0)


def screen_scores_cuda_timed(queries, targets, match: int, mismatch: int, gap_open: int, gap_extend: int,
                             kernel: str = "bitwise", transpose: str = "ballot",
                             max_batch_bytes: int = MAX_BATCH_BYTES,
                             rows_per_lane: int | None = None,
                             group_size: int | None = None) -> tuple[np.ndarray, ScreenTimings]:
    """Like :func:`screen_scores_cuda`, also returning a :class:`ScreenTimings`.

    Phases (CUDA events on one stream): host->GPU copy of the padded codes from
    pinned memory, transpose (bit planes; for ``wordwise`` the 16-byte chunk
    interleave of the targets), the SW kernel,
    untranspose (0 for ``wordwise``), GPU->host copy of the scores. The
    ``group`` kernel has no transpose phases (both 0); its host->GPU copy also
    carries the target length of each pair group. Kernels are
    compiled at first use (NVRTC, cached); call once before timing.

    ``max_batch_bytes`` caps the device memory of one launch batch (a bucket of
    similar shapes is split into batches). ``rows_per_lane`` (1, 2 or 4)
    overrides the bit-sliced kernel's query rows per lane, for experiments; the
    default picks the largest that fits the registers (see ``_ROWS_TABLE``).
    ``group_size`` (4, 8, 16 or 32) overrides the threads per pair group of the
    ``group`` kernel (default: from the query length, see ``_group_shape``).
    """
    if kernel not in KERNELS:
        raise EngineError(f"unknown screening kernel {kernel!r}: use {' or '.join(KERNELS)}")
    if transpose not in TRANSPOSES:
        raise EngineError(f"unknown transpose {transpose!r}: use {' or '.join(TRANSPOSES)}")
    if rows_per_lane not in (None, 1, 2, 4):
        raise EngineError(f"rows_per_lane must be 1, 2 or 4, got {rows_per_lane}")
    if group_size not in (None,) + GROUP_SIZES:
        raise EngineError(f"group_size must be one of {GROUP_SIZES}, got {group_size}")
    check_scoring(match, mismatch, gap_open, gap_extend)
    qs, ts = as_code_arrays(queries, targets)
    cp = runtime.cupy()
    npairs = len(qs)
    scores = np.zeros(npairs, dtype=np.int32)
    timings = ScreenTimings(kernel=kernel, transpose=transpose if kernel == "bitwise" else "")
    timings.pairs = npairs
    if npairs == 0:
        return scores, timings
    # orient every pair so that the query (register-resident side) is the shorter one
    qlen = np.array([q.size for q in qs], dtype=np.int64)
    tlen = np.array([t.size for t in ts], dtype=np.int64)
    swap = qlen > tlen
    rows_seq = [t if sw else q for q, t, sw in zip(qs, ts, swap)]
    cols_seq = [q if sw else t for q, t, sw in zip(qs, ts, swap)]
    mlen = np.minimum(qlen, tlen)
    nlen = np.maximum(qlen, tlen)
    timings.cells = int((qlen * tlen).sum())

    live = np.flatnonzero(mlen > 0)  # empty pairs score 0
    if live.size == 0:
        return scores, timings
    if kernel == "group":
        for idx in _group_batches(mlen, nlen, live, max_batch_bytes):
            bnd = score_bound(mlen[idx], nlen[idx], match)
            params = effective_scoring(bnd, match, mismatch, gap_open, gap_extend)
            scores[idx] = _run_group_batch(cp, rows_seq, cols_seq, idx, nlen, int(mlen[idx].max()),
                                           int(nlen[idx].max()), bnd, params, timings, group_size)
        return scores, timings
    keys = np.array([_length_class(a) for a in mlen[live]], dtype=np.int64) << 32
    keys |= np.array([_length_class(b) for b in nlen[live]], dtype=np.int64)
    order = live[np.argsort(keys, kind="stable")]
    skeys = np.sort(keys, kind="stable")
    starts = np.flatnonzero(np.r_[True, skeys[1:] != skeys[:-1]])
    ends = np.r_[starts[1:], skeys.size]
    for a, b in zip(starts, ends):
        bucket = order[a:b]
        m_max = int(mlen[bucket].max())
        n_max = int(nlen[bucket].max())
        bound = score_bound(mlen[bucket], nlen[bucket], match)
        per_pair = max(1, _batch_bytes(kernel, 32, m_max, _roundup(n_max, 32), score_bits(bound)) // 32)
        step = max(32, (max_batch_bytes // per_pair) // 32 * 32)
        for c in range(0, bucket.size, step):
            idx = bucket[c : c + step]
            bnd = score_bound(mlen[idx], nlen[idx], match)
            params = effective_scoring(bnd, match, mismatch, gap_open, gap_extend)
            scores[idx] = _run_batch(cp, kernel, transpose, rows_seq, cols_seq, idx,
                                     int(mlen[idx].max()), int(nlen[idx].max()), bnd, params, timings,
                                     rows_per_lane)
    return scores, timings


def screen_scores_cuda(queries, targets, match: int, mismatch: int, gap_open: int, gap_extend: int,
                       kernel: str = "bitwise", transpose: str = "ballot") -> np.ndarray:
    """Best local SW score of each pair ``(queries[i], targets[i])`` on the GPU.

    ``queries``/``targets``: lists of DNA code arrays (``uint8`` 0..4, see
    :data:`swgpu.io.alphabet.DNA`) or strings, of any lengths (empty pairs score
    0). ``kernel``: ``"bitwise"`` (bit-sliced BPBC), ``"wordwise"`` (DPX, one
    pair per thread) or ``"group"`` (DPX, a thread group per two pairs);
    ``transpose``: ``"ballot"`` or ``"swap"`` (bitwise only). Returns ``int32``.
    """
    return screen_scores_cuda_timed(queries, targets, match, mismatch, gap_open, gap_extend, kernel, transpose)[0]
