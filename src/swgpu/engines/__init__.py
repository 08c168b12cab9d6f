"""Compute engines: ``cpu`` (Numba) and ``cuda`` (CUDA C++ through CuPy), one
interface (:mod:`swgpu.engines.base`); workloads get them from :func:`get_engine`."""

from .base import (
    DatabaseScorer,
    Engine,
    PairScorer,
    Tracer,
    cuda_available,
    describe_devices,
    get_engine,
    gpu_count,
    gpu_unavailable_reason,
    resolve_device,
)

__all__ = ["Engine", "DatabaseScorer", "PairScorer", "Tracer", "get_engine", "resolve_device", "cuda_available",
           "gpu_count", "gpu_unavailable_reason", "describe_devices"]
