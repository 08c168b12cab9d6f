"""Compute engines: ``cpu`` (Numba) and ``cuda`` (CUDA C++ through CuPy), one
interface (:mod:`swgpu.engines.base`); workloads get them from :func:`get_engine`."""

import importlib

__all__ = ["Engine", "DatabaseScorer", "PairScorer", "Tracer", "get_engine", "resolve_device", "cuda_available",
           "gpu_count", "gpu_unavailable_reason", "describe_devices"]

#: Public names, imported from :mod:`swgpu.engines.base` on first use, so
#: that :mod:`swgpu.engines.start` can start the GPU before NumPy is imported.
_FROM_BASE = frozenset(__all__)


def __getattr__(name: str):
    if name not in _FROM_BASE:
        raise AttributeError(f"module 'swgpu.engines' has no attribute {name!r}")
    value = getattr(importlib.import_module("swgpu.engines.base"), name)
    globals()[name] = value
    return value
