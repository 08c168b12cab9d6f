"""``swgpu screen``'s FASTA scanned on its GPU: with no alignments to trace, a
screen on one GPU needs no compiled host code but the FASTA scan and the score
table's lines, so both run on that GPU (:func:`swgpu.engines.fasta_scanner`) and
Numba, whose load held the interpreter while CuPy imported, never loads."""

from __future__ import annotations

import sys
from contextlib import contextmanager

from . import detach
from ..exceptions import InputError
from .options import gpu_ids
from .paths import large_inputs
from .screen_lanes import input_bytes

__all__ = ["on_cpu", "scans_on_gpu", "gpu_scan", "MOST_BYTES"]

#: Bytes of the two FASTA files up to which a score table is scanned on the GPU. A million pairs (420 MB) took
#: 1.03-1.20 s against 1.35-1.54 s; ten million (4.2 GB) 7.6-7.7 s against 5.5-6.0 s (one H200): there its many
#: small parts cost the scoring more than the start saves, so above this the host scans them as before.
MOST_BYTES = 1 << 30


def on_cpu(args) -> bool:
    """Whether the screen runs on the CPU: ``cpu``, or ``auto`` with no NVIDIA driver (nothing loaded to know)."""
    return args.device == "cpu" or (args.device in (None, "auto") and not detach.nvidia_driver())


def scans_on_gpu(args) -> bool:
    """Whether this screen scans its FASTA files on its GPU and makes its lines there: a score table (no
    alignments) of two files large enough for the compiled scan and together not over :data:`MOST_BYTES`, on one
    GPU driven from this process, in a process that has not loaded Numba. Decided once a command (kept on
    ``args``): its start, reading and part sizes all ask."""
    found = getattr(args, "_scans_on_gpu", None)
    if found is None:
        found = args._scans_on_gpu = _scans_on_gpu(args)
    return found


def _scans_on_gpu(args) -> bool:
    from ..io.compiled import COMPILED_BYTES

    if args.threshold is not None or args.pairs or not (args.query and args.target) or "numba" in sys.modules:
        return False
    if on_cpu(args) or getattr(args, "processes", None) not in (None, 1):
        return False
    try:
        ids = gpu_ids(args.gpus)
    except InputError:
        return False
    return ids is not None and len(set(ids)) == 1 and large_inputs(args, COMPILED_BYTES) and \
        input_bytes(args) <= MOST_BYTES


@contextmanager
def gpu_scan(args):
    """``with gpu_scan(args)``: when :func:`scans_on_gpu`, the GPU's FASTA scan handed to the reader,
    its lines to the writers, and the compiled host paths avoided, for the block; all as before after it."""
    if not scans_on_gpu(args):
        yield
        return
    from ..engines import fasta_scanner
    from ..io import compiled
    from ..io.scanner import use_device_scan
    from ..io.writers.rows import use_device

    scan = fasta_scanner(args.device, gpu_ids(args.gpus)[0])
    if scan is None:  # (no engine of that name has one: the host reads, in the host's parts)
        args._scans_on_gpu = False
        yield
        return
    use_device_scan(scan)
    compiled.AVOID = True
    before = use_device(Lines(scan))
    try:
        yield
    finally:
        use_device_scan(None)
        compiled.AVOID = False
        use_device(before)


class Lines:
    """The renderer of lines handed to :func:`~swgpu.io.writers.rows.use_device`: the scan's GPU's
    (``scan.text()``), made when first used (on the writing thread, once CuPy is loaded); the array passes,
    the same bytes, where that GPU cannot be used after all (``--device auto`` that took the CPU)."""

    def __init__(self, scan):
        self._scan = scan

    def __getattr__(self, name: str):
        from ..exceptions import EngineError

        try:
            renderer = self._scan.text()
        except EngineError:
            from ..io.writers import arrays as renderer
        return getattr(renderer, name)
