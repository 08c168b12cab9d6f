"""Compute engines: ``cpu`` (Numba) and ``cuda`` (CUDA C++ through CuPy).

Engines hold only kernels; batching, result assembly and traceback live in the
shared host-side modules.
"""

from __future__ import annotations

from ..exceptions import EngineError

__all__ = ["resolve_device", "cuda_available"]


def cuda_available() -> bool:
    """True when CuPy imports and sees at least one CUDA device."""
    from .cuda import runtime

    return runtime.available()


def resolve_device(device: str = "auto") -> str:
    """Turn ``auto|cpu|cuda`` into the engine name to use.

    ``auto`` picks ``cuda`` when a GPU and CuPy are present, else ``cpu``;
    ``cuda`` without a GPU is an :class:`~swgpu.exceptions.EngineError`.
    """
    device = (device or "auto").lower()
    if device == "cpu":
        return "cpu"
    if device in ("cuda", "gpu"):
        if not cuda_available():
            from .cuda import runtime

            raise EngineError(f"--device cuda: no usable GPU ({runtime.why_unavailable()}); use --device cpu")
        return "cuda"
    if device == "auto":
        return "cuda" if cuda_available() else "cpu"
    raise EngineError(f"unknown device {device!r}: use auto, cpu or cuda")
