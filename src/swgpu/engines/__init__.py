"""Compute engines: ``cpu`` (Numba) and ``cuda`` (CUDA C++ through CuPy), one
interface (:mod:`swgpu.engines.base`), looked up by name in
:mod:`swgpu.engines.registry`; workloads get them from :func:`get_engine`."""

import importlib

__all__ = ["Engine", "DatabaseScorer", "PairScorer", "Tracer", "get_engine", "resolve_device", "cuda_available",
           "gpu_count", "gpu_unavailable_reason", "describe_devices", "register_engine", "unregister_engine",
           "fasta_scanner"]

#: Public names, imported on first use from the module that defines them, so
#: that :mod:`swgpu.engines.start` can start the GPU before NumPy is imported.
_FROM = {name: "swgpu.engines.base" for name in __all__}
_FROM.update(register_engine="swgpu.engines.registry", unregister_engine="swgpu.engines.registry",
             fasta_scanner="swgpu.engines.registry")


def __getattr__(name: str):
    if name not in _FROM:
        raise AttributeError(f"module 'swgpu.engines' has no attribute {name!r}")
    value = getattr(importlib.import_module(_FROM[name]), name)
    globals()[name] = value
    return value
