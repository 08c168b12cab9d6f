"""Every GPU of this process as the workers of a cluster.

A :class:`DeviceExecutor` runs the tasks that the workloads send to a Dask
cluster (the same functions, the same parts and merges, so the same output)
on threads of this process, one per device: a task asks for its engine with
:func:`~swgpu.parallel.workers.worker_engine`, which gives the device of the
thread running it (:func:`bound_device`). Nothing is copied between
processes (``scatter`` hands the object itself), the engines and their
compiled kernels are kept from task to task, and tasks are taken as threads
come free, so a faster device takes more. ``scan`` and genome-scale ``align``
use one for the GPUs of ``--gpus`` when there are several.

>>> ex = DeviceExecutor([0, 1], threads=1)
>>> ex.workers, is_distributed(ex)
(2, True)
>>> sorted(set(ex.map(lambda _: bound_device(), range(8)))) in ([0], [1], [0, 1])
True
>>> ex.map(lambda x: x * x, [3, 4])
[9, 16]
>>> bound_device() is None
True
"""

from __future__ import annotations

import os
import queue
import threading
from typing import Callable, Iterable, Iterator, TypeVar

from .executors import _Pool, is_distributed  # noqa: F401 (is_distributed: the doctest)

__all__ = ["DeviceExecutor", "bound_device", "bound_threads"]

T = TypeVar("T")
R = TypeVar("R")

_local = threading.local()


class _Skipped(Exception):
    """A task not started because another failed."""


def bound_device() -> int | None:
    """The device id of the :class:`DeviceExecutor` thread running the caller, else None."""
    return getattr(_local, "device", None)


def bound_threads() -> int | None:
    """CPU threads of a task on a :class:`DeviceExecutor` thread, else None."""
    return getattr(_local, "threads", None)


class DeviceExecutor:
    """Tasks on one thread per device id of ``devices`` (GPU ids; the same id
    twice gives two workers on one device), each task with ``threads`` CPU
    threads (default: the cores shared among the devices); results in input
    order. An error in a task is raised here once the running tasks end; no
    further task starts."""

    distributed = True

    def __init__(self, devices: list[int], threads: int | None = None):
        if not devices:
            raise ValueError("a device executor needs at least one device")
        self.devices = [int(d) for d in devices]
        cores = os.cpu_count() or 1
        self._threads = max(1, int(threads or cores // len(self.devices)))

    @property
    def workers(self) -> int:
        return len(self.devices)

    @property
    def threads(self) -> int:
        """CPU threads of each worker's tasks."""
        return self._threads

    def __repr__(self) -> str:
        return f"DeviceExecutor(devices={self.devices}, threads={self._threads})"

    def scatter(self, obj):
        """The object itself: the workers share this process's memory."""
        return obj

    def _pool(self) -> _Pool:
        free: queue.SimpleQueue = queue.SimpleQueue()
        for d in self.devices:
            free.put(d)

        def bind() -> None:
            _local.device = free.get()
            _local.threads = self._threads

        return _Pool(len(self.devices), thread_name_prefix="swgpu-device", initializer=bind)

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        items = list(items)
        if not items:
            return []
        failed = threading.Event()

        def run(x):
            if failed.is_set():  # (a task before it in the order failed: its error is the one raised)
                raise _Skipped
            try:
                return fn(x)
            except BaseException:
                failed.set()
                raise

        with self._pool() as pool:
            futures = [pool.submit(run, x) for x in items]
            out, error = [], None
            for f in futures:
                try:
                    out.append(f.result())
                except _Skipped:
                    continue
                except BaseException as exc:  # the first failed task in the order (skipped ones have none)
                    error = exc
                    break
            if error is not None:
                raise error
            return out

    def imap(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        yield from self.map(fn, items)

    def close(self) -> None:
        """Nothing to release (the threads end with each :meth:`map`)."""

    def __enter__(self) -> "DeviceExecutor":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

