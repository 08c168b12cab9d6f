"""Starting the GPU early: the device of the engine a ``--device`` may resolve
to (the CUDA driver and the first GPU's context) starts on a background
thread as soon as the command line is read, before NumPy and the engines are
imported, so that the start (0.2-0.4 s on a data-centre GPU) overlaps the
imports and the reading of input. Nothing here imports NumPy or CuPy."""

from __future__ import annotations

from . import registry

__all__ = ["start_gpu"]


def start_gpu(device: str = "auto", devices=None) -> None:
    """Start the device in the background when ``device`` may use one (``auto``:
    every registered accelerator's, ``cuda``: the GPU's; see
    :func:`~swgpu.engines.registry.start`): the first, or ``devices`` (ids, or
    ``"all"``); harmless without a GPU."""
    registry.start(device, devices)
