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
  of different length classes share a launch (see ``group_batches``).

Scores are exact. ``B`` is the number of bits of the largest reachable score
``max(min(m, n)) * match`` of the pairs launched together; every DP value is
non-negative and at most that bound (see ``swgpu.engines.cpu.bitsliced``).

Pairs are grouped into buckets of similar shape, then padded at their ends
with ``N`` to the bucket's largest query and target; ``N`` padding never
changes a score (proof in ``swgpu.engines.cpu.bitsliced``). A pair whose query
is longer than its target is swapped first: the local score is symmetric in
query and target (the matrix transposes, E and F trade places), and the kernels
keep the query side in registers.

Host data is staged through pinned memory (:mod:`.staging`); per-phase times
come from CUDA events (see :func:`screen_scores_cuda_timed`).
"""

from __future__ import annotations

import time
from collections import deque

import numpy as np

from ...exceptions import EngineError
from ...scoring import Scoring, check_match_mismatch
from ..bulk import PairBatch, concat_code_arrays, effective_scoring, score_bits, score_bound
from ..kernel_names import PAIR_KERNELS, check_kernel
from . import runtime, staging
from .screen_launch import DevicePairs, run_batch, run_group_batch
from .screen_shapes import GROUP_SIZES, ScreenTimings, batch_bytes, group_batches, length_classes, roundup

__all__ = ["CudaPairScorer", "screen_scores_cuda", "screen_scores_cuda_timed", "ScreenTimings", "TRANSPOSES"]

TRANSPOSES = ("ballot", "swap")
#: Upper bound of device bytes for one launch batch (codes, planes, scratch).
MAX_BATCH_BYTES = 2 << 30
#: Batches launched and not yet collected (each on its own stream).
IN_FLIGHT = 4
#: A batch is cut into up to PIECES launches of at least PIECE_PAIRS pairs, so
#: that scoring starts while the later pairs' codes are still being uploaded.
PIECES = 4
PIECE_PAIRS = 8192


def screen_scores_cuda_timed(queries, targets, match: int, mismatch: int, gap_open: int, gap_extend: int,
                             kernel: str = "bitwise", transpose: str = "ballot",
                             max_batch_bytes: int = MAX_BATCH_BYTES,
                             rows_per_lane: int | None = None,
                             group_size: int | None = None) -> tuple[np.ndarray, ScreenTimings]:
    """Like :func:`screen_scores_cuda`, also returning a :class:`ScreenTimings`.

    Phases (CUDA events): host->GPU copy of the codes through pinned memory
    (one upload of all pairs, which the batches whose codes have arrived
    overlap) and, per batch on its own stream, the packing of its rows,
    transpose (bit planes; for ``wordwise`` the 16-byte chunk interleave of
    the targets), the SW kernel, untranspose (0 for ``wordwise``), GPU->host
    copy of the scores. The
    ``group`` kernel has no transpose phases (both 0); its host->GPU copy also
    carries the target length of each pair group. Kernels are
    compiled at first use (NVRTC, cached); call once before timing.

    ``max_batch_bytes`` caps the device memory of one launch batch (a bucket of
    similar shapes is split into batches). ``rows_per_lane`` (1, 2 or 4)
    overrides the bit-sliced kernel's query rows per lane, for experiments; the
    default picks the largest that fits the registers (see ``ROWS_TABLE``).
    ``group_size`` (4, 8, 16 or 32) overrides the threads per pair group of the
    ``group`` kernel (default: from the query length, see ``group_shape``).
    """
    if kernel not in PAIR_KERNELS:
        raise EngineError(f"unknown screening kernel {kernel!r}: use {' or '.join(PAIR_KERNELS)}")
    if transpose not in TRANSPOSES:
        raise EngineError(f"unknown transpose {transpose!r}: use {' or '.join(TRANSPOSES)}")
    if rows_per_lane not in (None, 1, 2, 4):
        raise EngineError(f"rows_per_lane must be 1, 2 or 4, got {rows_per_lane}")
    if group_size not in (None,) + GROUP_SIZES:
        raise EngineError(f"group_size must be one of {GROUP_SIZES}, got {group_size}")
    check_match_mismatch(match, mismatch, gap_open, gap_extend)
    t_host = time.perf_counter()
    qcat, qoff, tcat, toff = concat_code_arrays(queries, targets)
    cp = runtime.cupy()
    npairs = qoff.size - 1
    scores = np.zeros(npairs, dtype=np.int32)
    timings = ScreenTimings(kernel=kernel, transpose=transpose if kernel == "bitwise" else "")
    timings.pairs = npairs
    if npairs == 0:
        return scores, timings
    # orient every pair so that the query (register-resident side) is the shorter one
    qlen, tlen = np.diff(qoff), np.diff(toff)
    swap = qlen > tlen
    mlen = np.minimum(qlen, tlen)
    nlen = np.maximum(qlen, tlen)
    timings.cells = int((qlen * tlen).sum())

    live = np.flatnonzero(mlen > 0)  # empty pairs score 0
    timings.host_ms += (time.perf_counter() - t_host) * 1e3
    if live.size == 0:
        return scores, timings
    upload_stream, *batch_streams = staging.streams(cp, IN_FLIGHT + 1)
    pairs = DevicePairs(cp, qcat, qoff, tcat, toff, swap, timings, upload_stream,
                        check=isinstance(queries, PairBatch))
    pending: deque = deque()
    ends = [pairs.end]

    def collect() -> None:
        i, p = pending.popleft()
        scores[i] = p.collect(timings)
        ends.append(p.end)

    try:
        for k, idx in enumerate(_batches(kernel, mlen, nlen, live, max_batch_bytes, match)):
            if len(pending) == IN_FLIGHT:
                collect()
            bnd = score_bound(mlen[idx], nlen[idx], match)
            params = effective_scoring(bnd, match, mismatch, gap_open, gap_extend)
            m_max, n_max = int(mlen[idx].max()), int(nlen[idx].max())
            stream, wait = batch_streams[k % IN_FLIGHT], pairs.ready(idx)
            if kernel == "group":
                p = run_group_batch(cp, pairs, idx, nlen, m_max, n_max, bnd, params, timings, stream, wait,
                                    group_size)
            else:
                p = run_batch(cp, kernel, transpose, pairs, idx, m_max, n_max, bnd, params, timings, stream, wait,
                              rows_per_lane)
            pending.append((idx, p))
    finally:
        pairs.finish()
        while pending:
            collect()
    pairs.verify()
    timings.h2d_ms += pairs.h2d_ms()
    timings.total_ms = max(cp.cuda.get_elapsed_time(pairs.start, e) for e in ends)
    return scores, timings


def _pieces(idx: np.ndarray, unit: int) -> list[np.ndarray]:
    """``idx`` cut into up to ``PIECES`` launches of at least ``PIECE_PAIRS``
    pairs (multiples of ``unit``), so that the first start while the codes of
    the later ones are still being uploaded."""
    k = min(PIECES, idx.size // PIECE_PAIRS)
    if k < 2:
        return [idx]
    step = -(-idx.size // k)
    step = -(-step // unit) * unit
    return [idx[a : a + step] for a in range(0, idx.size, step)]


def _batches(kernel, mlen, nlen, live, max_batch_bytes, match):
    """Pair indices of every launch batch of ``kernel``, each cut into pieces."""
    if kernel == "group":
        for batch in group_batches(mlen, nlen, live, max_batch_bytes):
            yield from _pieces(batch, 2)
        return
    keys = length_classes(mlen[live]) << 32
    keys |= length_classes(nlen[live])
    order = live[np.argsort(keys, kind="stable")]
    skeys = np.sort(keys, kind="stable")
    starts = np.flatnonzero(np.r_[True, skeys[1:] != skeys[:-1]])
    ends = np.r_[starts[1:], skeys.size]
    for a, b in zip(starts, ends):
        bucket = order[a:b]
        m_max = int(mlen[bucket].max())
        n_max = int(nlen[bucket].max())
        bound = score_bound(mlen[bucket], nlen[bucket], match)
        per_pair = max(1, batch_bytes(kernel, 32, m_max, roundup(n_max, 32), score_bits(bound)) // 32)
        step = max(32, (max_batch_bytes // per_pair) // 32 * 32)
        for c in range(0, bucket.size, step):
            yield from _pieces(bucket[c : c + step], 32)


def screen_scores_cuda(queries, targets, match: int, mismatch: int, gap_open: int, gap_extend: int,
                       kernel: str = "bitwise", transpose: str = "ballot") -> np.ndarray:
    """Best local SW score of each pair ``(queries[i], targets[i])`` on the GPU.

    ``queries``/``targets``: lists of DNA code arrays (``uint8`` 0..4, see
    :data:`swgpu.io.alphabet.DNA`) or strings, of any lengths (empty pairs score
    0); or a :class:`~swgpu.engines.bulk.PairBatch` as ``queries`` (``targets``
    None), copied as it is and checked on the GPU. ``kernel``: ``"bitwise"`` (bit-sliced BPBC), ``"wordwise"`` (DPX, one
    pair per thread) or ``"group"`` (DPX, a thread group per two pairs);
    ``transpose``: ``"ballot"`` or ``"swap"`` (bitwise only). Returns ``int32``.
    """
    return screen_scores_cuda_timed(queries, targets, match, mismatch, gap_open, gap_extend, kernel, transpose)[0]


class CudaPairScorer:
    """Best local score of DNA pairs on one GPU (a :class:`~swgpu.engines.base.PairScorer`).

    ``kernel``: ``bitwise``, ``wordwise``, ``group`` or ``auto`` (the group
    kernel: the fastest end to end in every measured shape, BENCHMARKS.md).
    ``last_timings`` holds the :class:`ScreenTimings` of the last call.
    """

    def __init__(self, scoring: Scoring, kernel: str = "auto", device_id: int = 0, transpose: str = "ballot"):
        check_kernel(kernel, EngineError)
        self.match, self.mismatch = scoring.match_mismatch()
        self.gap_open, self.gap_extend = scoring.gap_open, scoring.gap_extend
        self.kernel = "group" if kernel == "auto" else kernel
        self.transpose = transpose
        self.device_id = int(device_id)
        self.last_timings: ScreenTimings | None = None

    def scores(self, queries, targets=None) -> np.ndarray:
        """Scores of pairs ``(queries[i], targets[i])``, or of a
        :class:`~swgpu.engines.bulk.PairBatch` given alone."""
        with runtime.cupy().cuda.Device(self.device_id):
            scores, self.last_timings = screen_scores_cuda_timed(
                queries, targets, self.match, self.mismatch, self.gap_open, self.gap_extend,
                kernel=self.kernel, transpose=self.transpose)
        return scores
