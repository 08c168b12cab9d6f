"""A search's queries in batches, scored ahead: while the caller ranks and
traces the hits of one batch on the host, the next batches are already being
scored (on a GPU: the kernels run while the host works, also while the host
traces the hits of several batches together).

>>> batches = scored_batches("abcde", 2, lambda b: [q.upper() for q in b], ahead=2)
>>> [(first, chunk, scores) for first, chunk, scores, _, _ in batches]
[(0, ['a', 'b'], ['A', 'B']), (2, ['c', 'd'], ['C', 'D']), (4, ['e'], ['E'])]
"""

from __future__ import annotations

import collections
import itertools
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Iterable, Iterator

__all__ = ["scored_batches"]


def scored_batches(queries: Iterable, size: int, score: Callable[[list], Any], ahead: int,
                   meanwhile: Callable[[], Any] | None = None) -> Iterator[tuple[int, list, Any, float, float]]:
    """Consecutive batches of at most ``size`` of ``queries`` and their
    ``score(batch)``: ``(first, batch, scores, seconds, waited)``, ``first`` the
    number of the batch's first query, ``seconds`` how long its scoring took
    and ``waited`` how long the caller waited for it. With ``ahead`` (a number
    of batches; 0 or False: none), up to that many batches after the one the
    caller handles are scored, one after another, on a thread of their own
    (the scores of ``ahead + 1`` batches are held at a time); an error of the
    scoring (a query it refuses) is raised where that batch would have come.
    The queries are read on the caller's thread, ``ahead`` batches ahead.
    ``meanwhile()`` (with ``ahead``) runs on the caller's thread while the
    first batch is scored."""
    it = iter(queries)
    depth = int(ahead)

    def take() -> list:
        return list(itertools.islice(it, max(1, size)))

    def timed(batch: list) -> tuple[Any, float]:
        t0 = time.perf_counter()
        return score(batch), time.perf_counter() - t0

    first, batch = 0, take()
    if depth <= 0:
        while batch:
            scores, seconds = timed(batch)
            yield first, batch, scores, seconds, seconds
            first, batch = first + len(batch), take()
        return
    pool = ThreadPoolExecutor(1, thread_name_prefix="swgpu-score")
    pending: collections.deque = collections.deque()  # (batch, its scoring), in order

    def fill() -> None:
        while len(pending) < depth:
            following = take()
            if not following:
                return
            pending.append((following, pool.submit(timed, following)))

    try:
        if batch:
            pending.append((batch, pool.submit(timed, batch)))
            fill()
            if meanwhile is not None:
                meanwhile()
        while pending:
            batch, running = pending.popleft()
            t0 = time.perf_counter()
            scores, seconds = running.result()
            waited = time.perf_counter() - t0
            fill()
            yield first, batch, scores, seconds, waited
            first += len(batch)
    finally:  # (stopped early: the batch being scored is finished, not left running on the engine)
        pool.shutdown(wait=True, cancel_futures=True)
