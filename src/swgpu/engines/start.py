"""Starting the GPU early: the CUDA driver and the first GPU's context start on
a background thread as soon as the command line is read, before NumPy and
the engines are imported, so that the start (0.2-0.4 s on a data-centre GPU)
overlaps the imports and the reading of input. Nothing here imports NumPy
or CuPy."""

from __future__ import annotations

__all__ = ["start_gpu"]


def start_gpu(device: str = "auto") -> None:
    """Start the GPU in the background when ``device`` may use it (``auto``,
    ``cuda``); harmless without a GPU."""
    if (device or "auto").lower() in ("auto", "cuda", "gpu"):
        from .cuda import runtime  # ctypes and the standard library only, until CuPy is asked for

        runtime.prime()
