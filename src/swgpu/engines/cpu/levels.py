"""The Myers-Miller recursion of :func:`swgpu.align.traceback.global_ops`,
a level at a time, on threads.

Every piece of one level is independent of the others: its forward and
backward half passes (``nw_last_row``), or its direction-matrix path
(``nw_path``) when it is small, are tasks, run on ``threads`` threads
(the kernels release the GIL), largest first; a level of fewer half passes
than threads (the first ones) gives each pass the threads left over, when
the kernels can run one on several (``nw_last_row_threads``,
:mod:`.global_threads`); the split of each piece is
then chosen exactly as :func:`~swgpu.align.traceback.global_ops` chooses it,
so the path is the same, op for op. Memory: the rows of the pieces of one
level in flight, O(m + n) for each of ``threads`` tasks, plus
``base_cells`` bytes per thread.

>>> import numpy as np
>>> from swgpu.align.traceback import global_ops
>>> from swgpu.engines.cpu.tracer import SimdKernels
>>> m = np.where(np.eye(4, dtype=bool), 2, -3).astype(np.int32)
>>> rng = np.random.default_rng(3)
>>> a = rng.integers(0, 4, 300).astype(np.uint8)
>>> b = np.concatenate([a[:120], a[140:], rng.integers(0, 4, 9)]).astype(np.uint8)
>>> got = global_ops_threads(SimdKernels(), a, b, m, 5, 2, base_cells=2000, threads=2)
>>> bool(np.array_equal(got, global_ops(SimdKernels(), a, b, m, 5, 2, base_cells=2000)))
True
"""

from __future__ import annotations

import itertools
import threading

import numpy as np

from ...align.traceback import split_column

__all__ = ["global_ops_threads"]


def _rev(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x[::-1])


class _Piece:
    """A sub-problem ``a[a0:a1]`` against ``b[b0:b1]`` and, once solved or
    split, its parts in order (op arrays and pieces)."""

    __slots__ = ("a0", "a1", "b0", "b1", "lead", "tail", "parts", "rows")

    def __init__(self, a0, a1, b0, b1, lead, tail):
        self.a0, self.a1, self.b0, self.b1, self.lead, self.tail = a0, a1, b0, b1, lead, tail
        self.parts: list = []
        self.rows = None

    @property
    def cells(self) -> int:
        return (self.a1 - self.a0) * (self.b1 - self.b0)


def _run(tasks: list, threads: int) -> None:
    """Call every task (a function of no arguments) on ``threads`` threads, in
    order of the list. The threads are their own, not the kernels' shared pool:
    a task may run a kernel on that pool (:func:`.threads.run_shared`) and wait
    for it, which a pool thread must not do."""
    if threads <= 1 or len(tasks) <= 1:
        for task in tasks:
            task()
        return
    order = itertools.count()
    lock = threading.Lock()
    failed: list = []

    def worker():
        while not failed:
            with lock:
                k = next(order)
            if k >= len(tasks):
                return
            try:
                tasks[k]()
            except BaseException as exc:  # stop the others, raised by the caller
                failed.append(exc)
                return

    n = min(threads, len(tasks))
    helpers = [threading.Thread(target=worker, name="swgpu-level", daemon=True) for _ in range(n - 1)]
    for h in helpers:
        h.start()
    try:
        worker()
    finally:
        for h in helpers:
            h.join()
    if failed:
        raise failed[0]


def global_ops_threads(kernels, a: np.ndarray, b: np.ndarray, matrix: np.ndarray, go: int, ge: int,
                       base_cells: int, threads: int) -> np.ndarray:
    """:func:`swgpu.align.traceback.global_ops`, each level's pieces on ``threads`` threads."""
    a, b = np.ascontiguousarray(a), np.ascontiguousarray(b)
    root = _Piece(0, a.shape[0], 0, b.shape[0], go, go)
    level = [root]
    threaded = getattr(kernels, "nw_last_row_threads", None)
    while level:
        tasks = []  # (cells, function)
        split = []
        inner = [1]  # threads of each half pass of this level (set once its pieces are counted)

        def last_row(x, y, lead, inner=inner):
            if inner[0] > 1:
                return threaded(x, y, matrix, go, ge, lead, inner[0])
            return kernels.nw_last_row(x, y, matrix, go, ge, lead)

        for p in level:
            m, n = p.a1 - p.a0, p.b1 - p.b0
            if m == 0 or n == 0:
                if m or n:
                    p.parts.append(np.full(m + n, 1 if m else 2, dtype=np.uint8))
                continue
            if m <= 1 or n <= 1 or m * n <= base_cells:
                def base(p=p):
                    ops, _ = kernels.nw_path(a[p.a0:p.a1], b[p.b0:p.b1], matrix, go, ge, p.lead, p.tail)
                    p.parts.append(ops)
                tasks.append((m * n, base))
                continue
            mid = p.a0 + m // 2
            p.rows = [None, None]

            def forward(p=p, mid=mid, last_row=last_row):
                p.rows[0] = last_row(a[p.a0:mid], b[p.b0:p.b1], p.lead)

            def backward(p=p, mid=mid, last_row=last_row):
                p.rows[1] = last_row(_rev(a[mid:p.a1]), _rev(b[p.b0:p.b1]), p.tail)

            tasks.append(((mid - p.a0) * n, forward))
            tasks.append(((p.a1 - mid) * n, backward))
            split.append((p, mid))
        if threaded is not None and 0 < 2 * len(split) < threads:  # the first levels: passes get the threads left
            inner[0] = threads // (2 * len(split))
        tasks.sort(key=lambda x: -x[0])  # stable: equal sizes keep their order
        _run([f for _, f in tasks], threads)
        level = []
        for p, mid in split:
            gap, j = split_column(p.rows[0], p.rows[1], go, ge)
            p.rows = None
            if not gap:
                left = _Piece(p.a0, mid, p.b0, p.b0 + j, p.lead, go)
                right = _Piece(mid, p.a1, p.b0 + j, p.b1, go, p.tail)
                p.parts += [left, right]
            else:  # a vertical gap covers a[mid-1] and a[mid] in column j
                left = _Piece(p.a0, mid - 1, p.b0, p.b0 + j, p.lead, ge)
                right = _Piece(mid + 1, p.a1, p.b0 + j, p.b1, ge, p.tail)
                p.parts += [left, np.ones(2, dtype=np.uint8), right]
            level += [left, right]
    out: list[np.ndarray] = []
    stack = [root]
    while stack:  # the parts in order, depth first
        x = stack.pop()
        if isinstance(x, _Piece):
            stack.extend(reversed(x.parts))
        else:
            out.append(x)
    return np.concatenate(out) if out else np.zeros(0, dtype=np.uint8)


def local_align_threads(kernels, query, target, scoring, base_cells: int, end_at_last: bool, threads: int):
    """:func:`swgpu.align.traceback.local_align` with the path between start
    and end found by :func:`global_ops_threads` on ``threads`` threads."""
    from ...align.traceback import local_align

    if threads <= 1:
        return local_align(kernels, query, target, scoring, base_cells, end_at_last)
    return local_align(kernels, query, target, scoring, base_cells, end_at_last,
                       path=lambda *args: global_ops_threads(*args, threads))
