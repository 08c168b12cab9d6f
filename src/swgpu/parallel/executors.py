"""Executors: run independent tasks and hand back their results in input order.

:class:`ThreadExecutor` runs them on threads of this process (the kernels of
both engines release the GIL). Workloads take any object with the same two
methods, so a distributed executor (Dask) plugs in without changing them;
one that runs tasks on a cluster says so with ``distributed = True``
(:func:`is_distributed`), and the workloads then send their work to its
workers (``scatter``, ``workers``) in place of using this process's engines.

>>> ex = ThreadExecutor(4)
>>> ex.map(lambda x: x * x, [1, 2, 3])
[1, 4, 9]
>>> list(ex.imap(str, range(3)))
['0', '1', '2']
>>> is_distributed(ex), is_distributed(None)
(False, False)
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterable, Iterator, Protocol, TypeVar

__all__ = ["Executor", "ThreadExecutor", "is_distributed"]

T = TypeVar("T")
R = TypeVar("R")


class Executor(Protocol):
    """What workloads need from an executor."""

    #: True for an executor of a cluster (it also has ``scatter`` and ``workers``,
    #: as :class:`~swgpu.parallel.dask_executor.DaskExecutor`).
    distributed: bool

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        """``[fn(x) for x in items]``, computed in parallel."""

    def imap(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        """The same, yielded in order as they finish, with bounded look-ahead."""


class ThreadExecutor:
    """``threads`` worker threads (default: all cores); one thread runs inline."""

    distributed = False

    def __init__(self, threads: int | None = None):
        self.threads = max(1, int(threads or os.cpu_count() or 1))

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        items = list(items)
        if self.threads == 1 or len(items) <= 1:
            return [fn(x) for x in items]
        with _Pool(min(self.threads, len(items))) as pool:
            return list(pool.map(fn, items))

    def imap(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        """Results in input order; at most ``4 * threads`` tasks in flight, so
        memory stays flat on huge inputs."""
        items = list(items)
        if self.threads == 1 or len(items) <= 1:
            yield from map(fn, items)
            return
        with _Pool(self.threads) as pool:
            window = self.threads * 4
            futures = [pool.submit(fn, x) for x in items[:window]]
            nxt = len(futures)
            for k in range(len(items)):
                result = futures[k].result()
                futures[k] = None
                if nxt < len(items):
                    futures.append(pool.submit(fn, items[nxt]))
                    nxt += 1
                yield result


def is_distributed(executor) -> bool:
    """True when ``executor`` runs its tasks on a cluster (its ``distributed``
    flag; an executor without one, or None, runs them here)."""
    return bool(getattr(executor, "distributed", False))


class _Pool(ThreadPoolExecutor):
    """A thread pool whose ``with`` block, left by an exception, cancels the
    tasks not started; left by Ctrl-C (or SIGTERM), or by closing the
    generator of :meth:`ThreadExecutor.imap` early (as an interrupted consumer
    does), it returns without waiting for the running ones either (the
    command line then exits without them)."""

    def __exit__(self, exc_type, exc, tb):
        interrupted = exc_type is not None and issubclass(exc_type, (KeyboardInterrupt, GeneratorExit))
        self.shutdown(wait=not interrupted, cancel_futures=exc_type is not None)
        return False
