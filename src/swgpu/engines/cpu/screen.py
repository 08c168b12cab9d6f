"""Bulk pair screening on the CPU with SIMD lanes: the host side of
:mod:`.screen_kernel` (one pair per lane) and of :mod:`.striped` (one pair
per vector, for pairs that would leave most lanes of a batch idle).

Pairs are sorted by shape and cut into batches of one vector's lanes; each
batch runs in the narrowest lanes that hold its largest possible score
(``max(min(m, n)) * match`` plus the bias), so no lane saturates and every
score is exact in one pass. Batches go to all threads through one queue,
largest first (:mod:`.threads`). A long list of pairs is put end to end in
parts (a Python-speed step): the threads score each part while the calling
thread prepares the next, then it joins them.
"""

from __future__ import annotations

import numpy as np

from ...exceptions import InputError
from ...io.compiled import read_only_codes
from ...scoring.checks import check_match_mismatch
from ..bulk import N_CODE, PairBatch, concat_code_arrays, effective_scoring, score_bound
from .lanes import LANE_TYPES, lanes_of

__all__ = ["screen_scores_simd", "plan_batches", "batch_fill"]


def batch_fill(mlens: np.ndarray, nlens: np.ndarray, lanes: int) -> float:
    """Share of a batch's cells (lanes x longest query x longest target) that are real."""
    if mlens.size == 0:
        return 1.0
    return float((mlens * nlens).sum()) / (lanes * int(mlens.max()) * int(nlens.max()))


def _codes(queries, targets):
    """:func:`~swgpu.engines.bulk.concat_code_arrays`, without a Python loop
    over the pairs when they are all uint8 code arrays (the errors, naming the
    pair, come from the general path); a :class:`~swgpu.engines.bulk.PairBatch`
    as it is, its codes checked."""
    if isinstance(queries, PairBatch):
        for name, cat in (("qcodes", queries.qcodes), ("tcodes", queries.tcodes)):
            if cat.size and int(cat.max()) > N_CODE:
                raise InputError(f"PairBatch.{name}: DNA codes must be 0..{N_CODE} (A C G T N)", param=name)
        return queries.qcodes, queries.qoff, queries.tcodes, queries.toff
    if len(queries) == len(targets):
        out = []
        for side in (queries, targets):
            try:
                lengths = np.fromiter(map(len, side), dtype=np.int64, count=len(side))
                cat = np.concatenate(side) if len(side) else np.zeros(0, dtype=np.uint8)
            except (TypeError, ValueError):
                break
            if cat.dtype != np.uint8 or cat.ndim != 1 or cat.size != lengths.sum() or \
                    (cat.size and int(cat.max()) > N_CODE):
                break
            off = np.zeros(len(side) + 1, dtype=np.int64)
            np.cumsum(lengths, out=off[1:])
            out += [cat, off]
        else:
            return tuple(out)
    return concat_code_arrays(queries, targets)


def _batches(mlens, nlens, sels: list[np.ndarray], lanes: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(pairs, cost, fill)`` of batches: the (batches, lanes) pair table
    (-1 in empty lanes), lanes x longest query x longest target, and the share
    of those cells that are real."""
    pairs = np.full((len(sels), lanes), -1, dtype=np.int64)
    for b, sel in enumerate(sels):
        pairs[b, : sel.size] = sel
    used = pairs >= 0
    m = np.where(used, mlens[pairs], 0)
    n = np.where(used, nlens[pairs], 0)
    cost = lanes * m.max(axis=1) * n.max(axis=1)
    fill = (m * n).sum(axis=1) / np.maximum(cost, 1)
    return pairs, cost, fill


def plan_batches(mlens: np.ndarray, nlens: np.ndarray, match: int, mismatch: int) -> dict:
    """``{lane type: [pair index arrays]}``: the non-empty pairs in the
    narrowest lanes their largest possible score fits, sorted by shape and cut
    into batches of one vector's lanes."""
    idx = np.flatnonzero((mlens > 0) & (nlens > 0))
    order = idx[np.lexsort((nlens[idx], mlens[idx]))]
    bound = np.minimum(mlens[order], nlens[order]) * int(match)
    bias = np.minimum(-int(mismatch), bound + 1)  # the clamp of effective_scoring
    plan: dict = {}
    low = np.zeros(order.size, dtype=bool)
    for dtype in LANE_TYPES:
        fits = ~low & (bound + bias <= np.iinfo(dtype).max)
        low |= fits
        sel = order[fits]
        if sel.size:
            lanes = lanes_of(dtype)
            plan[dtype] = [sel[i: i + lanes] for i in range(0, sel.size, lanes)]
    if not low.all():
        raise AssertionError("scores are checked to fit 32 bits")
    return plan


#: Lists of at least this many pairs are put end to end in parts: the threads
#: score one part while the calling thread prepares the next.
PIPELINE_PAIRS = 4096
PIPELINE_PARTS = 4


def _lane_jobs(codes, match, mismatch, gap_open, gap_extend, sparse_fill, out, ends=None):
    """``(jobs, sparse)``: the kernel arguments of each lane type's batches
    (each with its own queue), and the pairs left to the striped kernel;
    ``ends``: where each pair's end cell goes (None: not found)."""
    qcat, qoff, tcat, toff = codes
    # (codes read-only whoever made them, one strand or both: one compiled version of the kernel)
    qcat, tcat = read_only_codes(qcat), read_only_codes(tcat)
    mlens, nlens = np.diff(qoff), np.diff(toff)
    jobs, sparse = [], []
    for dtype, sels in plan_batches(mlens, nlens, match, mismatch).items():
        pairs, cost, fill = _batches(mlens, nlens, sels, lanes_of(dtype))
        thin = fill < sparse_fill
        sparse += [pairs[b][pairs[b] >= 0] for b in np.flatnonzero(thin)]
        pairs, cost = pairs[~thin], cost[~thin]
        if not pairs.size:
            continue
        used = pairs[pairs >= 0]
        bound = score_bound(mlens[used], nlens[used], match)
        mt, mm, go, ge = effective_scoring(bound, match, mismatch, gap_open, gap_extend)
        top = int(np.iinfo(dtype).max)
        queue = np.argsort(-cost, kind="stable").astype(np.int64)
        jobs.append((queue.size, (qcat, qoff, tcat, toff, pairs, queue, np.zeros(1, dtype=np.int64), mt, mm,
                                  min(go, top), min(ge, top), -mm, np.zeros(1, dtype=dtype), out,
                                  _NO_ENDS if ends is None else ends, ends is not None)))
    return jobs, (np.concatenate(sparse) if sparse else np.zeros(0, dtype=np.int64))


#: The kernel's ``ends`` when they are not wanted.
_NO_ENDS = np.zeros((1, 3), dtype=np.int64)


def screen_scores_simd(queries, targets, match: int, mismatch: int, gap_open: int, gap_extend: int,
                       threads: int = 1, sparse_fill: float = 0.0, ends: np.ndarray | None = None
                       ) -> tuple[np.ndarray, int]:
    """Best local score of each pair ``(queries[i], targets[i])`` (DNA code
    arrays or strings, or a :class:`~swgpu.engines.bulk.PairBatch` and None),
    ``int32``, one pair per SIMD lane; the pairs of batches that fill less
    than ``sparse_fill`` of their cells are scored one pair per vector instead
    (striped, largest first). Returns the scores and how many pairs went that
    way. ``ends`` (``int64``, a row per pair): filled with each pair's
    ``(score, end row, end column)`` as :func:`~.pairwise.sw_end` gives them
    (rows of an empty pair left as they are)."""
    from .jit import announce_compile
    from .screen_kernel import screen_batches
    from .threads import get_pool

    check_match_mismatch(match, mismatch, gap_open, gap_extend)
    whole = isinstance(queries, PairBatch) or threads == 1 or targets is None or len(queries) < PIPELINE_PAIRS \
        or len(queries) != len(targets)
    n = len(queries)
    step = n if whole else -(-n // PIPELINE_PARTS)
    out = np.zeros(n, dtype=np.int64)
    announce_compile(screen_batches)
    pool = get_pool(threads - 1) if threads > 1 else None
    joins, futures, leftovers = [], [], []
    try:
        for a in range(0, max(n, 1), max(step, 1)):
            b = min(n, a + step)
            try:
                codes = _codes(queries, targets) if whole else _codes(queries[a:b], targets[a:b])
            except (InputError, TypeError):
                concat_code_arrays(queries, targets)  # the error again, naming the pair in the whole input
                raise
            part = out[a:b] if not whole else out
            part_ends = None if ends is None else (ends[a:b] if not whole else ends)
            jobs, sparse = _lane_jobs(codes, match, mismatch, gap_open, gap_extend, sparse_fill, part, part_ends)
            for items, args in jobs:
                if pool is not None:
                    futures += [pool.submit(screen_batches, *args) for _ in range(min(threads - 1, items - 1))]
                joins.append(args)
            if sparse.size:
                leftovers.append((codes, sparse, part, part_ends))
        for args in joins:  # this thread takes batches from every queue, in order
            screen_batches(*args)
    finally:
        for f in futures:
            f.result()
    one = 0
    for codes, sparse, part, part_ends in leftovers:
        got = _one_by_one(*codes, sparse, match, mismatch, gap_open, gap_extend, threads)
        part[sparse] = got[:, 0]
        if part_ends is not None:
            part_ends[sparse] = got
        one += sparse.size
    return out.astype(np.int32), one


def _one_by_one(qcat, qoff, tcat, toff, pairs, match, mismatch, gap_open, gap_extend, threads) -> np.ndarray:
    """``(score, end row, end column)`` of each of ``pairs``, one at a time (striped), largest first,
    on ``threads`` threads."""
    from concurrent.futures import ThreadPoolExecutor

    from ...io.alphabet import DNA
    from ...scoring import ScoreMatrix
    from .tracer import SimdKernels

    matrix = ScoreMatrix.match_mismatch(match, mismatch, DNA).values
    kernels = SimdKernels()
    cost = (qoff[pairs + 1] - qoff[pairs]) * (toff[pairs + 1] - toff[pairs])
    order = np.argsort(-cost, kind="stable")

    def score(p):
        q, t = qcat[qoff[p]:qoff[p + 1]], tcat[toff[p]:toff[p + 1]]
        return kernels.sw_end(q, t, matrix, gap_open, gap_extend)

    todo = pairs[order].tolist()
    if threads == 1 or len(todo) == 1:
        got = [score(p) for p in todo]
    else:
        with ThreadPoolExecutor(min(threads, len(todo))) as pool:
            got = list(pool.map(score, todo))
    out = np.zeros((pairs.size, 3), dtype=np.int64)
    out[order] = np.array(got, dtype=np.int64).reshape(-1, 3)
    return out
