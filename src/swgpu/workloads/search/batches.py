"""A search's queries in batches, scored one batch ahead: while the caller
ranks and traces the hits of one batch on the host, the next batch is
already being scored (on a GPU: the kernels run while the host works).

>>> batches = scored_batches("abcde", 2, lambda b: [q.upper() for q in b], ahead=True)
>>> [(first, chunk, scores) for first, chunk, scores, _, _ in batches]
[(0, ['a', 'b'], ['A', 'B']), (2, ['c', 'd'], ['C', 'D']), (4, ['e'], ['E'])]
"""

from __future__ import annotations

import itertools
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Iterable, Iterator

__all__ = ["scored_batches"]


def scored_batches(queries: Iterable, size: int, score: Callable[[list], Any], ahead: bool,
                   meanwhile: Callable[[], Any] | None = None) -> Iterator[tuple[int, list, Any, float, float]]:
    """Consecutive batches of at most ``size`` of ``queries`` and their
    ``score(batch)``: ``(first, batch, scores, seconds, waited)``, ``first`` the
    number of the batch's first query, ``seconds`` how long its scoring took
    and ``waited`` how long the caller waited for it. With ``ahead``, batch
    ``k + 1`` is scored on a thread of its own while the caller handles batch
    ``k`` (the scores of two batches are held at a time); an error of the scoring
    (a query it refuses) is raised where that batch would have come. The
    queries are read on the caller's thread, one batch ahead. ``meanwhile()``
    (with ``ahead``) runs on the caller's thread while the first batch is scored."""
    it = iter(queries)

    def take() -> list:
        return list(itertools.islice(it, max(1, size)))

    def timed(batch: list) -> tuple[Any, float]:
        t0 = time.perf_counter()
        return score(batch), time.perf_counter() - t0

    first, batch = 0, take()
    if not ahead:
        while batch:
            scores, seconds = timed(batch)
            yield first, batch, scores, seconds, seconds
            first, batch = first + len(batch), take()
        return
    pool = ThreadPoolExecutor(1, thread_name_prefix="swgpu-score")
    try:
        pending = pool.submit(timed, batch) if batch else None
        if meanwhile is not None and batch:
            meanwhile()
        while batch:
            t0 = time.perf_counter()
            scores, seconds = pending.result()
            waited = time.perf_counter() - t0
            following = take()
            pending = pool.submit(timed, following) if following else None
            yield first, batch, scores, seconds, waited
            first, batch = first + len(batch), following
    finally:  # (stopped early: the batch being scored is finished, not left running on the engine)
        pool.shutdown(wait=True, cancel_futures=True)
