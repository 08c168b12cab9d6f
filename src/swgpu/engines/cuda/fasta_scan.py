"""FASTA text scanned on the GPU (``kernels/fasta_scan.cu``): :class:`DeviceScan`.

A GPU screen that writes only its score table needs no compiled host code but
the FASTA scan, and loading Numba for it (0.5-0.8 s where imports are slow,
holding the interpreter while CuPy imports) was most of what a million pairs'
scores waited on. :class:`DeviceScan` scans a block of FASTA text on the GPU
instead and gives what :func:`swgpu.io.scanner.scan_fasta` gives -- names,
descriptions, letters and codes -- byte for byte the array scan's
(:mod:`swgpu.io.scan_arrays`) for the common case; for anything else it gives
``None``, and the host scans that block as before (and says what is wrong the
same way). :func:`swgpu.io.scanner.use_device_scan` hands it to the reader.
"""

from __future__ import annotations

import numpy as np

from ...io.texts import Texts
from . import runtime

__all__ = ["DeviceScan", "KERNEL_FILE"]

KERNEL_FILE = "fasta_scan.cu"
_THREADS = 256  # threads of a block (the kernels' __launch_bounds__)
_TILE = _THREADS * 32  # bytes (or values) of a tile: FS_TILE
_SMALL = 1 << 16  # values a sum takes in one block (more: by tiles)


class DeviceScan:
    """The FASTA scan of :func:`swgpu.io.scanner.scan_fasta` on GPU ``device_id``
    (see the module notes); called from any thread, each with a stream of its own."""

    def __init__(self, device_id: int = 0):
        self.device_id = int(device_id)
        self._cp = None
        self._text = None

    def text(self):
        """The lines' renderer of this GPU (:class:`~.text_rows.DeviceText`, made once)."""
        if self._text is None:
            from .text_rows import DeviceText

            self._text = DeviceText(self.device_id)
        return self._text

    def prefetch(self) -> None:
        """Start loading (or compiling) the kernels (the scan's and the lines'), and return."""
        from .text_rows import KERNEL_FILE as LINES

        runtime.prefetch([(KERNEL_FILE, (), None), (LINES, (), None)], self.device_id)

    def _kernel(self, name: str):
        return runtime.get_module(KERNEL_FILE).get_function(name)

    def _sums(self, values, m: int):
        """``out[k] = values[0] + ... + values[k - 1]`` for ``k = 0..m`` (``int64``, on the GPU)."""
        cp = self._cp
        out = cp.empty(m + 1, dtype=np.int64)
        if m <= _SMALL:
            self._kernel("fs_scan_small")((1,), (_THREADS,), (values, np.int64(m), out))
            return out
        tiles = -(-m // _TILE)
        sums = cp.empty(tiles, dtype=np.int64)
        self._kernel("fs_sum_tiles")((tiles,), (_THREADS,), (values, np.int64(m), sums))
        before = self._sums(sums, tiles)
        self._kernel("fs_scan_tiles")((tiles,), (_THREADS,), (values, np.int64(m), before, out))
        return out

    def __call__(self, data: np.ndarray, check: np.ndarray, cls: np.ndarray):
        """``(names, descriptions, letters, codes)`` of the FASTA text ``data``
        (``uint8``, beginning with ``>``) with the codes by the 256-byte table
        ``check`` (255: what the array scan does not take as a letter) and the
        byte classes ``cls``; or ``None`` when it is not of the common case, or
        the GPU has not the memory for it now (the host scans it then)."""
        try:
            return self._scan(data, check, cls)
        except Exception as exc:
            if self._cp is not None and isinstance(exc, self._cp.cuda.memory.OutOfMemoryError):
                return None
            raise

    def _scan(self, data: np.ndarray, check: np.ndarray, cls: np.ndarray):
        if self._cp is None:
            if not runtime.available():  # (the host scans it, and says why the GPU is not used where it matters)
                return None
            self._cp = runtime.cupy()
            self.prefetch()  # (the lines' kernels too: loaded while the files are scanned)
        cp = self._cp
        i64 = np.int64
        n = int(data.size)
        with cp.cuda.Device(self.device_id), runtime.thread_stream() as stream:
            d = cp.asarray(data)
            tiles = -(-n // _TILE)
            counts = cp.empty(tiles, dtype=i64)
            self._kernel("fs_count_lines")((tiles,), (_THREADS,), (d, i64(n), counts))
            before = self._sums(counts, tiles)
            nnl = int(before[tiles].get())
            nl = cp.empty(max(nnl, 1), dtype=i64)
            self._kernel("fs_write_lines")((tiles,), (_THREADS,), (d, i64(n), before, nl))
            lines = nnl + (data[-1] != 10)
            lcount = cp.empty(lines, dtype=i64)
            heads = cp.empty(lines, dtype=i64)
            grid = (-(-lines // _THREADS),)
            self._kernel("fs_lines")(grid, (_THREADS,), (d, i64(n), nl, i64(nnl), i64(lines), lcount, heads))
            lstart, hrank = self._sums(lcount, lines), self._sums(heads, lines)
            records, total = int(hrank[lines:].get()[0]), int(lstart[lines:].get()[0])  # (no CuPy kernel to load)
            hline = cp.empty(max(records, 1), dtype=i64)
            loff = cp.empty(records + 1, dtype=i64)
            letters = cp.empty(max(total, 1), dtype=np.uint8)
            codes = cp.empty(max(total, 1), dtype=np.uint8)
            flags = cp.zeros(1, dtype=np.int32)
            table = cp.asarray(np.ascontiguousarray(check, dtype=np.uint8))
            self._kernel("fs_place")((-(-lines * 32 // _THREADS),), (_THREADS,),
                                     (d, i64(n), nl, i64(nnl), i64(lines), heads, lstart, hrank, table, letters,
                                      codes, hline, loff, flags))
            fields = cp.empty(max(4 * records, 1), dtype=i64)
            nsize = cp.empty(max(records, 1), dtype=i64)
            dsize = cp.empty(max(records, 1), dtype=i64)
            self._kernel("fs_headers")((-(-records // _THREADS),), (_THREADS,),
                                       (d, i64(n), nl, i64(nnl), hline, i64(records),
                                        cp.asarray(np.ascontiguousarray(cls, dtype=np.uint8)), loff, fields, nsize,
                                        dsize, flags))
            noff, doff = self._sums(nsize, records), self._sums(dsize, records)
            bad, nbytes, dbytes = int(flags.get()[0]), int(noff[records:].get()[0]), int(doff[records:].get()[0])
            if bad:
                return None
            names = cp.empty(max(nbytes, 1), dtype=np.uint8)
            descriptions = cp.empty(max(dbytes, 1), dtype=np.uint8)
            self._kernel("fs_gather")((-(-records * 32 // _THREADS),), (_THREADS,),
                                      (d, fields, i64(records), noff, doff, names, descriptions))
            out = (Texts(names[:nbytes].get(), noff.get()), Texts(descriptions[:dbytes].get(), doff.get()),
                   Texts(letters[:total].get(), loff.get()), codes[:total].get())
            stream.synchronize()
        return out
