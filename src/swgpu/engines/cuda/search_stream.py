"""The search database on one GPU: resident, or streamed in parts.

A database that fits the memory limit is uploaded once (pageable copies:
pinning it would cost more) and its unit codes are built on the GPU. A larger one is cut into
parts of consecutive units (length order); for every batch of queries the
parts are uploaded in turn into two code buffers on a copy stream, the next
part's upload overlapping the current part's kernels. Each part's codes are
built on the host once (in compiled code for large parts) and kept for the
next batches where the host's memory allows.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from ...io.compiled import read_only_codes
from .search_layout import Units, host_unit_codes

__all__ = ["Part", "DatabaseParts", "BYTES_PER_COLUMN", "BYTES_PER_SEQUENCE", "unit_codes"]

BYTES_PER_COLUMN = 12    # GPU memory per database column: codes, pair codes, boundary
BYTES_PER_SEQUENCE = 48  # and per sequence: offsets, lengths, indices, chunks


@dataclass
class Part:
    """Units ``a .. a + units.n - 1`` (length order) and their device arrays."""

    a: int
    units: Units
    uoff: object
    ulen: object
    uorig: object
    codes: object = None
    pairs: object = None              # device sequence-pair layout of all units (cached)
    pair_meta: tuple | None = None    # its device arrays but the codes (kept while the part's codes come and go)
    chunks: dict = field(default_factory=dict)  # chunk tables by target columns


#: Bytes of a resident database copied per call (pageable copies of a memory-mapped file).
UPLOAD_STEP = 64 << 20
#: Bytes of a resident database from which it goes through the pinned ring
#: of :mod:`.staging` (threads fill it) instead of pageable copies.
STAGED_UPLOAD = 1 << 30
#: Columns of a streamed part from which its codes are gathered in compiled
#: code (NumPy's gather: about 12 ns a residue, 0.5 s for 40M on two cores).
COMPILED_COLUMNS = 1 << 22


def unit_codes(res: np.ndarray, units: Units, pad: int, out: np.ndarray) -> np.ndarray:
    """:func:`~.search_layout.host_unit_codes`, the residues of a large part
    copied in compiled code (:func:`swgpu.io.kernels.copy_two`)."""
    return host_unit_codes(res, units, pad, out, None if units.total_cols < COMPILED_COLUMNS else _copy_compiled)


def _copy_compiled(res: np.ndarray, units: Units, out: np.ndarray) -> None:
    from ...io import kernels as K

    nz = np.flatnonzero(units.length > 0)
    first = units.src[nz]
    res = read_only_codes(res)  # (the compiled version the writers use too)
    K.copy_two(res, res, np.zeros(nz.size, np.uint8), first, first + units.length[nz], units.uoff[nz], out)


def host_cache_fits(columns: int) -> bool:
    """Whether the codes of every part (``columns`` bytes) may be kept in host
    memory between batches: at most a quarter of the machine's memory."""
    try:
        memory = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return False
    return columns <= memory // 4


def part_bounds(units: Units, limit: int) -> list[int]:
    """Unit indices where parts start (and the end): one part when the whole
    database fits ``limit`` bytes, else parts of at most half of it (one part
    computes while the next uploads)."""
    n, fixed = units.n, units.n * BYTES_PER_SEQUENCE
    if units.total_cols * BYTES_PER_COLUMN + fixed <= limit:
        return [0, n]
    part_cols = (limit - fixed) // (2 * BYTES_PER_COLUMN)
    longest = int(units.ulen[0]) if n else 0
    if part_cols < longest:
        raise ValueError(f"GPU memory limit {limit:,} bytes is too small for the longest sequence "
                         f"({longest:,} residues) and {n:,} sequences")
    cid = units.uoff // part_cols
    return [int(x) for x in np.flatnonzero(np.diff(cid, prepend=-1))] + [n]


class DatabaseParts:
    """The parts of a database on one GPU; :meth:`activate` / :meth:`release`
    bracket the kernels enqueued for each part on ``stream``."""

    def __init__(self, cp, stream, build_units, res: np.ndarray, units: Units, limit: int, pad: int):
        self._cp, self._stream, self._pad = cp, stream, pad
        bounds = part_bounds(units, limit)
        self.parts = [self._make_part(units, a, b) for a, b in zip(bounds[:-1], bounds[1:])]
        if not self.parts:
            self.parts.append(self._make_part(units, 0, 0))
        self.starts = np.array([p.a for p in self.parts], dtype=np.int64)
        if len(self.parts) == 1:  # resident: codes built on the GPU
            self._upload_resident(self.parts[0], res, build_units)
            return
        self._res = np.asarray(res)  # host residues, uploaded part by part
        # each part's codes, built once and kept (where the host has room) for the next batches
        self._host_codes = [None] * len(self.parts) if host_cache_fits(units.total_cols) else None
        biggest = max(p.units.total_cols for p in self.parts)
        self._code_bufs = [cp.empty(max(biggest, 4), dtype=np.uint8) for _ in range(2)]
        self._staging = [cp.cuda.alloc_pinned_memory(max(biggest, 4)) for _ in range(2)]
        self._copy_stream = cp.cuda.Stream(non_blocking=True)
        self._uploaded = [None, None]     # part index held by each code buffer
        self._upload_done = [None, None]  # event: that upload finished
        self._buf_free = [None, None]     # event: the kernels reading that buffer finished

    def __len__(self) -> int:
        return len(self.parts)

    def _make_part(self, units: Units, a: int, b: int) -> Part:
        cp = self._cp
        sub = units.part(a, b)
        if b == a:
            return Part(a, sub, cp.zeros(1, np.int64), cp.zeros(1, np.int32), cp.full(1, -1, np.int32))
        return Part(a, sub, cp.asarray(sub.uoff), cp.asarray(sub.ulen.astype(np.int32)),
                    cp.asarray(sub.order.astype(np.int32)))

    def _upload_resident(self, part: Part, res: np.ndarray, build_units) -> None:
        """Residues copied from where they lie, then the unit codes built on the GPU.

        One upload of a database: pinning memory for it costs more than the
        driver's own staging of a pageable copy (about 7 GB/s: 50 ms for a
        million proteins), so below :data:`STAGED_UPLOAD` nothing is pinned."""
        cp, sub = self._cp, part.units
        with self._stream:
            d_res = cp.empty(max(res.size, 1), dtype=np.uint8)
            if res.size >= STAGED_UPLOAD:  # (the stager's threads fill its pinned ring: several times faster)
                from .staging import stager

                stager(cp).upload([(res, d_res)], self._stream).finish()
            else:
                for a in range(0, res.size, UPLOAD_STEP):
                    b = min(a + UPLOAD_STEP, res.size)
                    d_res[a:b].set(np.asarray(res[a:b]), stream=self._stream)
            codes = cp.empty(max(sub.total_cols, 4), dtype=np.uint8)
            if sub.n:
                build_units((sub.n,), (128,),
                            (d_res, cp.asarray(sub.src), cp.asarray(sub.length.astype(np.int32)), part.uoff,
                             part.ulen, np.int32(sub.n), np.int32(self._pad), codes))
            part.codes = codes
            self._stream.synchronize()

    def _upload(self, index: int) -> None:
        """Codes of part ``index`` built on the host into a pinned staging
        buffer and copied on the copy stream into one of the two code
        buffers, after the kernels that last read that buffer."""
        part = self.parts[index]
        slot = index % 2
        if self._uploaded[slot] == index:
            return
        if self._uploaded[slot] is not None:  # the part leaving the GPU frees its pair codes
            self.parts[self._uploaded[slot]].pairs = None
        if self._upload_done[slot] is not None:
            self._upload_done[slot].synchronize()  # the staging buffer is free again
        staged = np.frombuffer(self._staging[slot], dtype=np.uint8, count=max(part.units.total_cols, 4))
        kept = self._host_codes[index] if self._host_codes is not None else None
        if kept is not None:
            np.copyto(staged, kept)
        else:
            unit_codes(self._res, part.units, self._pad, staged)
            if self._host_codes is not None:
                self._host_codes[index] = staged.copy()
        buf = self._code_bufs[slot]
        with self._copy_stream:
            if self._buf_free[slot] is not None:
                self._copy_stream.wait_event(self._buf_free[slot])
            buf[: staged.size].set(staged, stream=self._copy_stream)
            done = self._cp.cuda.Event()
            done.record(self._copy_stream)
        self._upload_done[slot] = done
        self._uploaded[slot] = index

    def activate(self, index: int) -> Part:
        """Part ``index``, its codes on the GPU (streamed parts: the compute
        stream waits, on the GPU, for its upload)."""
        part = self.parts[index]
        if len(self.parts) == 1:
            return part
        self._upload(index)
        slot = index % 2
        self._stream.wait_event(self._upload_done[slot])
        part.codes = self._code_bufs[slot]
        return part

    def release(self, index: int) -> None:
        """The kernels of part ``index`` are enqueued: its buffer may be
        refilled once they finish; start the upload of the next part."""
        if len(self.parts) == 1:
            return
        ev = self._cp.cuda.Event()
        ev.record(self._stream)
        self._buf_free[index % 2] = ev
        if index + 1 < len(self.parts):
            self._upload(index + 1)
