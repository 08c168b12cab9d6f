"""What a task on a worker of a :class:`~swgpu.parallel.dask_executor.DaskExecutor`
runs on: the engine a ``device`` means in that worker process (its GPU, or its
CPU threads). Shared by the tasks of every workload.

>>> device_of("cpu")
'cpu'
"""

from __future__ import annotations

from ..engines.base import get_engine, resolve_device
from ..engines.registry import is_accelerator
from .dask_executor import worker_gpu, worker_threads

__all__ = ["device_of", "worker_engine"]


def device_of(device: str) -> str:
    """The engine name ``device`` (``auto``, ``cpu``, ``cuda``, ...) means on this worker."""
    return resolve_device(device)


def worker_engine(device: str, threads: int | None = None):
    """``(engine, threads)``: the engine ``device`` means in this worker (its
    GPU, or its CPU) with ``threads`` CPU threads (default: the worker's)."""
    name = resolve_device(device)
    threads = threads or worker_threads()
    return get_engine(name, worker_gpu() if is_accelerator(name) else 0, threads=threads), threads
