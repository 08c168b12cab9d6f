"""The writers' lines of small batches on the GPU (``kernels/text_rows.cu``).

Below :data:`~swgpu.io.compiled.COMPILED_RECORDS` records a command does not
load Numba (0.3-1 s) for its writers, and the lines were made by NumPy array
passes (:mod:`swgpu.io.writers.arrays`): about 0.1 s for 20,000 SAM records,
most of what a small GPU run spends after its kernels. A process whose GPU
traces alignments makes them on that GPU instead: :class:`DeviceText` has the
two functions of :mod:`~swgpu.io.writers.arrays` that make lines,
``render_rows`` and ``cigar_column``, with the same arguments and the same
bytes (a thread a line: one pass sizes the lines, a second writes them), and
:func:`~swgpu.io.writers.rows.use_device` hands it to the writers.
"""

from __future__ import annotations

import numpy as np

from . import runtime
from .traceback_runs import offsets

__all__ = ["DeviceText", "KERNEL_FILE"]

KERNEL_FILE = "text_rows.cu"
_BLOCK = 256  # threads of a block (the kernels' __launch_bounds__)


class DeviceText:
    """Lines of small batches made on GPU ``device_id`` (see the module notes)."""

    def __init__(self, device_id: int = 0):
        self.device_id = int(device_id)
        self._cp = runtime.cupy()
        runtime.prefetch([(KERNEL_FILE, (), None)], self.device_id)  # (loaded, or compiled, while the work runs)

    def _kernel(self, name: str):
        return runtime.get_module(KERNEL_FILE).get_function(name)

    def _lines(self, sizes_kernel: str, fill_kernel: str, n: int, sized: tuple, filled) -> tuple:
        """Size ``n`` lines (``sized``: the size kernel's arguments before ``n``), then write them
        (``filled(at, out)``: the fill kernel's arguments): the bytes and each line's offset."""
        cp = self._cp
        grid = (-(-n // _BLOCK),)
        sizes = cp.empty(max(n, 1), dtype=np.int64)
        self._kernel(sizes_kernel)(grid, (_BLOCK,), sized + (np.int64(n), sizes))
        at = offsets(sizes[:n].get())
        out = cp.empty(max(int(at[-1]), 1), dtype=np.uint8)
        self._kernel(fill_kernel)(grid, (_BLOCK,), filled(cp.asarray(at[:-1]), out))
        return out[:int(at[-1])].get(), at

    def render_rows(self, n: int, kinds, args, ints, starts, ends, pool_of, pools, const: bytes, coff) -> np.ndarray:
        """:func:`swgpu.io.writers.arrays.render_rows`, on the GPU."""
        if n == 0:
            return np.zeros(0, dtype=np.uint8)
        cp = self._cp
        i64 = np.int64
        with cp.cuda.Device(self.device_id), runtime.thread_stream():  # (runtime.thread_stream: why)
            rows = lambda cols: cp.asarray(np.stack(cols).astype(i64, copy=False) if cols else np.zeros((1, n), i64))
            fields = (cp.asarray(np.asarray(kinds, i64)), cp.asarray(np.asarray(args, i64)), np.int32(len(kinds)),
                      rows(ints), rows(starts), rows(ends), cp.asarray(np.asarray(coff, i64)))
            pool_at = offsets(np.array([p.size for p in pools], dtype=i64))
            joined = cp.empty(max(int(pool_at[-1]), 1), dtype=np.uint8)
            for p, a in zip(pools, pool_at[:-1].tolist()):  # (each pool copied to its place: no join here)
                if p.size:
                    joined[a:a + p.size].set(np.ascontiguousarray(p, dtype=np.uint8))
            consts = cp.asarray(np.frombuffer(const or b"\0", dtype=np.uint8))
            rest = (cp.asarray(np.asarray(pool_of or [0], i64)), cp.asarray(pool_at), joined, consts)
            out, _ = self._lines("tr_row_sizes", "tr_row_fill", n, fields,
                                 lambda at, buf: fields + (np.int64(n),) + rest + (at, buf))
        return out

    def cigar_column(self, run_len, run_op, first, last, left, right, clip: int) -> tuple[np.ndarray, np.ndarray]:
        """:func:`swgpu.io.writers.arrays.cigar_column`, on the GPU."""
        n = int(np.asarray(first).size)
        if n == 0:
            return np.zeros(0, dtype=np.uint8), np.zeros(1, dtype=np.int64)
        cp = self._cp
        i64 = np.int64
        with cp.cuda.Device(self.device_id), runtime.thread_stream():  # (runtime.thread_stream: why)
            lengths = cp.asarray(np.asarray(run_len, i64)) if np.asarray(run_len).size else cp.zeros(1, i64)
            cols = tuple(cp.asarray(np.asarray(x, i64)) for x in (first, last, left, right))
            ops = cp.asarray(np.asarray(run_op, np.uint8)) if np.asarray(run_op).size else cp.zeros(1, np.uint8)
            return self._lines("tr_cigar_sizes", "tr_cigar_fill", n, (lengths,) + cols,
                               lambda at, buf: (lengths, ops) + cols + (np.uint8(clip), at, np.int64(n), buf))
