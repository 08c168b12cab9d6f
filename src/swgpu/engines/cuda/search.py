"""Database search scoring on the GPU: queries against every database sequence.

Launcher for ``kernels/sw_search.cu`` (exact Smith-Waterman local scores,
affine gaps, substitution matrix; no traceback). The pieces around it:
:mod:`.search_layout` (the database layout, host side), :mod:`.search_tiling`
(tile shapes and the cost model), :mod:`.search_stream` (resident or streamed
database parts), :mod:`.search_args` (the kernel's argument struct).

* Several queries (:meth:`CudaSearchEngine.scores_many`): the two 16-bit
  halves of a register hold two queries, so one group of ``G`` threads scores
  database sequences against both and reads the substitution scores of a
  column straight from a shared profile word. Each half runs its own list of
  queries, longest first, in segments of ``R`` rows. A group streams a chunk
  of consecutive sequences as one run of columns (the wavefront fills once per
  chunk).
* One query: the two halves hold two database sequences of nearly equal
  length (neighbours in length order, codes interleaved; built on first use).
* Either way the 16-bit DPX kernel lists the pairs whose maximum came close to
  the 16-bit limit (:class:`~swgpu.align.overflow.OverflowPolicy`); those are
  re-scored exactly in 32 bits, and the scores come back in database order.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ...align.overflow import OverflowPolicy
from ...exceptions import InputError
from ...io.ranges import largest
from ..layout import padded_matrix
from . import runtime
from .search_args import pack_args
from .search_layout import pair_layout, pairs_of_units, query_schedule, unit_layout
from .search_scoring import BatchScoring
from .search_stream import DatabaseParts, Part
from .search_tiling import (KERNEL_FILE, block_shared, choose_batch_tile, choose_tile, single_tile_costs,
                            variants, warps_per_block, wide_variant)

__all__ = ["CudaSearchEngine", "VARIANTS", "pair_layout", "query_schedule"]

#: (G, R) tile shapes of the 16-bit kernel (from the kernel source).
VARIANTS = variants()
MAX_ABS_SCORE = 8192    # matrix entries must fit the 16-bit profile with the pad margin
MAX_CODES = 32          # alphabet size the kernels take (profile letters: + pad + 2 closing)
BATCH_QUERIES = 64      # scores_many: queries in flight at once
CHUNKS_PER_SM = 512     # query-pair kernel: chunks of sequences per SM


@dataclass
class DevicePairs:
    """A sequence-pair layout on the GPU (codes interleaved two per column)."""

    codes: object
    poff: object
    plen: object
    porig: object
    npairs: int
    total_cols: int


class CudaSearchEngine(BatchScoring):
    """Exact SW scores of queries against a GPU-resident database (a
    :class:`~swgpu.engines.base.DatabaseScorer`).

    ``matrix``: ``int32`` ``(K, K)``, ``K <= 32``, ``matrix[q, t]`` scores query
    code ``q`` against database code ``t``; gaps: positive costs, a gap of
    length ``k`` costs ``open + (k - 1) * extend``; ``device_id``: the GPU.

    Scoring itself (the batch loop, launches, the 32-bit re-run) is
    :class:`~swgpu.engines.cuda.search_scoring.BatchScoring`.

    ``last_timing`` holds the seconds of the last :meth:`scores_many` call:
    ``kernel`` (profiles + 16-bit kernels, CUDA events), ``overflow_rerun``
    (32-bit re-run), ``d2h`` (scores back) and ``total`` (wall clock).
    ``last_config`` holds the kernels and tile shapes used and the number of
    re-scored (query, sequence) pairs.
    """

    def __init__(self, matrix: np.ndarray, gap_open: int, gap_extend: int, device_id: int = 0):
        cp = runtime.cupy()
        self._cp = cp
        m = np.ascontiguousarray(matrix, dtype=np.int64)
        if m.ndim != 2 or m.shape[0] != m.shape[1] or not 1 <= m.shape[0] <= MAX_CODES:
            raise InputError(f"must be square with at most {MAX_CODES} codes, got shape {m.shape}", param="matrix")
        if np.abs(m).max() > MAX_ABS_SCORE:
            raise InputError(f"entries must lie within +-{MAX_ABS_SCORE}", param="matrix")
        gap_open, gap_extend = int(gap_open), int(gap_extend)
        for name, v in (("gap_open", gap_open), ("gap_extend", gap_extend)):
            if not 0 <= v <= 30000:
                raise InputError(f"must lie in 0..30000, got {v}", param=name)
        self.K = int(m.shape[0])
        self.matrix = m.astype(np.int32)
        self.gap_open, self.gap_extend = gap_open, gap_extend
        self.device_id = int(device_id)
        self.overflow = OverflowPolicy(max_match=int(m.max()), headroom=gap_open + 1)
        self.pad_code = self.K
        self.nlet = self.K + 1
        #: Force one (G, R) tile shape for every query (None: cost model).
        self.config_override: tuple[int, int] | None = None
        #: Kernel for batches of queries: "auto" (cost model), "pairs" (two
        #: database sequences per register) or "queries" (two queries per register).
        self.batch_mode = "auto"
        #: Columns per chunk of the query-pair kernel (None: CHUNKS_PER_SM chunks per SM).
        self.chunk_columns: int | None = None
        #: GPU memory the database may take (bytes; None: 70% of the free memory);
        #: a larger database is streamed in parts. Set before load_database().
        self.memory_limit: int | None = None
        #: Warps per thread block (None: the tile shape's default).
        self.nwarps: int | None = None
        self.last_timing: dict = {"kernel": 0.0, "overflow_rerun": 0.0, "d2h": 0.0, "total": 0.0}
        self.last_config: dict = {}
        self.n = 0
        self._kernels: dict = {}
        self._mx = padded_matrix(self.matrix)  # profile values with the pad letter
        with cp.cuda.Device(self.device_id):
            self._sms = int(cp.cuda.Device(self.device_id).attributes["MultiProcessorCount"])
            self._stream = cp.cuda.Stream(non_blocking=True)
            # Every array the kernels read is written on the scorer's stream: a
            # non-blocking stream is not ordered after copies on the null stream.
            with self._stream:
                self._d_matrix = cp.asarray(self.matrix.ravel())
        self._db: DatabaseParts | None = None
        self._limit_at_load = 0
        self._pinned = None
        self._pinned_len = 0
        self._bnd_buf = None

    @property
    def threshold(self) -> int:
        """Largest 16-bit score that proves no 16-bit addition wrapped (the
        kernel stores every value shifted up by ``gap_open + 1``)."""
        return self.overflow.limit

    # ------------------------------------------------------------------ kernels
    def _helper(self, name: str):
        k = self._kernels.get(name)
        if k is None:
            with self._cp.cuda.Device(self.device_id):
                k = runtime.get_module(KERNEL_FILE).get_function(name)
            self._kernels[name] = k
        return k

    def _warps(self, G: int, R: int, qp: bool = False) -> int:
        return int(self.nwarps) if self.nwarps else warps_per_block(G, R, qp)

    def _module_job(self, G: int, R: int, wide: bool, qp: bool) -> tuple:
        """``(file, options, (kernel name, shared-memory query name))`` of a shape's module."""
        b = lambda x: "true" if x else "false"  # noqa: E731
        targs = f"{G}, {R}, {b(wide)}, {b(block_shared(G, R))}, {b(qp)}"
        return KERNEL_FILE, (f"-DSWP_NWARPS={self._warps(G, R, qp)}",), (f"sw_search<{targs}>", f"sw_search_smem<{targs}>")

    def _kernel(self, G: int, R: int, wide: bool, qp: bool):
        """(kernel, shared-memory bytes) of a shape, compiled on first use; the
        shared memory is the kernel's own figure (``sw_search_smem``)."""
        nw = self._warps(G, R, qp)
        key = (G, R, wide, qp, nw)
        k = self._kernels.get(key)
        if k is None:
            _, options, (name, smem_name) = self._module_job(G, R, wide, qp)
            cp = self._cp
            with cp.cuda.Device(self.device_id):
                mod = runtime.get_module(KERNEL_FILE, options, (name, smem_name))
                kern = mod.get_function(name)
                out = cp.zeros(2, dtype=np.int64)
                query = mod.get_function(smem_name)
                query((1,), (1,), (np.int32(MAX_CODES + 3), out[0:]))  # enough for any alphabet
                query((1,), (1,), (np.int32(self._letters(qp)), out[1:]))
                most, smem = (int(x) for x in out.get())
                if most > 48 * 1024:
                    kern.max_dynamic_shared_size_bytes = most
                # all of the unified L1/shared memory as shared memory (the kernel
                # caches little in L1), so that as many blocks fit as registers allow
                kern.preferred_shared_memory_carveout = 100
            k = self._kernels[key] = (kern, smem)
        return k

    def _launch(self, G: int, R: int, wide: bool, qp: bool, ngroups: int, **fields):
        nw = self._warps(G, R, qp)
        grid = -(-ngroups // (nw * (32 // G)))
        if grid:
            kern, smem = self._kernel(G, R, wide, qp)
            args = pack_args(ngroups=ngroups, first=0, gap_open=self.gap_open, gap_ext=self.gap_extend,
                             pad=self.pad_code, **fields)
            kern((grid,), (nw * 32,), (args,), shared_mem=smem)

    def _letters(self, qp: bool) -> int:
        """Profile rows: the alphabet and the pad letter, and for query pairs
        the two closing letters of a sequence (profile rows of the pad)."""
        return self.nlet + 2 if qp else self.nlet

    def compile(self, query_lengths=(), variants=None) -> float:
        """Compile (or load from CuPy's cache) the kernels that scoring the given
        query lengths one by one and together would use, plus the helpers and
        the 32-bit re-run kernel; returns seconds."""
        t0 = time.perf_counter()
        shapes = {(tuple(v), False) for v in (variants or ())}
        lengths = [int(q) for q in query_lengths if int(q) > 0]
        if self._db is not None:
            for q in lengths:
                shapes.add((self._single_tile(q), False))
            if len(lengths) > 1:
                mode, tile = self._batch_plan(lengths)
                if mode == "queries":
                    shapes.add((tile, True))
        kernels = [(G, R, False, qp) for (G, R), qp in sorted(shapes)] + [(*wide_variant(), True, False)]
        runtime.get_modules([(KERNEL_FILE, (), None)] + [self._module_job(*k) for k in kernels], self.device_id)
        for name in ("swp_build_profile", "swp_build_pairs", "swp_build_units"):
            self._helper(name)
        for k in kernels:
            self._kernel(*k)
        return time.perf_counter() - t0

    # ----------------------------------------------------------------- database
    def load_database(self, residues: np.ndarray, offsets: np.ndarray) -> None:
        """Database of sequences ``residues[offsets[i]:offsets[i+1]]``: resident
        on the GPU when it fits ``memory_limit`` bytes (default: 70% of the free
        GPU memory), else streamed in parts (:mod:`.search_stream`)."""
        cp = self._cp
        res = np.ascontiguousarray(residues, dtype=np.uint8).ravel()
        off = np.ascontiguousarray(offsets, dtype=np.int64).ravel()
        if off.size < 1 or off[0] != 0 or off[-1] != res.size or np.any(np.diff(off) < 0):
            raise InputError("must start at 0, be non-decreasing and end at len(residues)", param="offsets")
        if largest(res) >= self.K:
            raise InputError(f"database codes must be < {self.K}", param="residues")
        self._db = None
        self._bnd_buf = None
        units = unit_layout(off)
        with cp.cuda.Device(self.device_id), self._stream:
            limit = self.memory_limit
            if limit is None:
                limit = int(0.7 * cp.cuda.runtime.memGetInfo()[0])
            self._limit_at_load = limit
            self._dummy = cp.zeros(2, dtype=np.int32)
            try:
                db = DatabaseParts(cp, self._stream, self._helper("swp_build_units"), res, units, limit, self.pad_code)
            except ValueError as exc:
                raise InputError(str(exc), param="memory_limit") from None
        self._units = units
        self._db = db
        self.n = units.n

    @property
    def db_residues(self) -> int:
        return 0 if self._db is None else int(self._units.length.sum())

    @property
    def parts(self) -> int:
        """Parts the database is streamed in (1: resident on the GPU)."""
        return len(self._db) if self._db is not None else 0

    def _pair_db(self, part: Part, ids: np.ndarray | None = None) -> DevicePairs:
        """Sequence-pair layout of units ``ids`` of ``part`` (all when None;
        cached), codes interleaved on the GPU from the part's codes. A streamed
        part keeps the layout's device arrays while its codes come and go, so
        a query alone waits for no copy to the GPU but its codes' upload."""
        if ids is None and part.pairs is not None:
            return part.pairs
        if ids is not None:
            meta = self._pair_meta(part.units, pairs_of_units(part.units, np.sort(ids)))
        else:
            if part.pair_meta is None:
                part.pair_meta = self._pair_meta(part.units, pairs_of_units(part.units, np.arange(part.units.n)))
            meta = part.pair_meta
        cp = self._cp
        sa, sb, la, lb, poff, plen, porig, npairs, total_cols = meta
        codes = cp.empty(2 * max(total_cols, 4), dtype=np.uint8)
        if npairs:
            self._helper("swp_build_pairs")(
                (npairs,), (128,),
                (part.codes, sa, sb, la, lb, poff, plen, np.int32(npairs), np.int32(self.pad_code), codes))
        out = DevicePairs(codes, poff, plen, porig, npairs, total_cols)
        if ids is None:
            part.pairs = out
        return out

    def _pair_meta(self, units, lay) -> tuple:
        """The device arrays of the pair layout ``lay`` of ``units``: where each
        pair's two units start, their lengths, the pairs' columns and original
        indices; then the number of pairs and their columns."""
        cp, npairs = self._cp, lay.npairs
        if not npairs:
            zero = cp.zeros(1, dtype=np.int64)
            return zero, zero, zero, zero, zero, cp.zeros(1, dtype=np.int32), cp.full(2, -1, dtype=np.int32), 0, 0
        sa = units.uoff[lay.ua]
        sb = np.where(lay.ub >= 0, units.uoff[np.maximum(lay.ub, 0)], 0)
        return (cp.asarray(sa), cp.asarray(sb), cp.asarray(lay.la.astype(np.int32)), cp.asarray(lay.lb.astype(np.int32)),
                cp.asarray(lay.poff), cp.asarray(lay.plen.astype(np.int32)), cp.asarray(lay.porig.ravel()), npairs,
                lay.total_cols)

    def _chunks(self, part: Part):
        """(column ranges, first units, columns on the host) of the chunks the
        query-pair kernel streams in ``part``: consecutive non-empty sequences,
        about ``chunk_columns`` columns each (default: CHUNKS_PER_SM chunks per
        SM over the part: a streamed part fills the GPU as the whole database
        would, instead of leaving the last wave of its chunks a fraction of
        the GPU). Chunks go to groups longest first, so the
        chunks that run in lockstep (the groups of a warp, the warps of a
        block) have about equal columns, and the longest start first."""
        target = int(self.chunk_columns or 0)
        if target not in part.chunks:
            units = part.units
            nz = int(np.count_nonzero(units.length))
            cols_each = target or -(-units.total_cols // (CHUNKS_PER_SM * self._sms))
            # a sequence longer than the target is a chunk of its own
            cid = units.uoff[:nz] // max(cols_each, 1)
            starts = np.flatnonzero(np.diff(cid, prepend=-1)).astype(np.int64)
            coff = np.append(units.uoff[starts], units.total_cols).astype(np.int64)
            cols = np.diff(coff)
            order = np.argsort(-cols, kind="stable")
            ranges = np.stack([coff[:-1][order], coff[1:][order]], axis=1).ravel()
            cp = self._cp
            # also called from the cost model, outside scoring: on the scorer's
            # stream all the same, or a kernel could read the ranges before they land
            with cp.cuda.Device(self.device_id), self._stream:
                part.chunks[target] = (cp.asarray(ranges) if ranges.size else cp.zeros(2, dtype=np.int64),
                                       cp.asarray(starts[order].astype(np.int32)) if starts.size else
                                       cp.zeros(0, dtype=np.int32), cols[order])
        return part.chunks[target]

    # ------------------------------------------------------------------- config
    def _single_tile(self, Q: int) -> tuple[int, int]:
        if self.config_override is not None:
            return tuple(self.config_override)
        # pairs: about half the columns of the units
        return choose_tile(Q, (self._units.total_cols + 1) // 2, (self._units.n + 1) // 2)

    def _batch_plan(self, lengths: list) -> tuple[str, tuple[int, int] | None]:
        """("queries", tile) when the query-pair kernel should score the batch,
        else ("pairs", None): each query alone on sequence pairs."""
        if len(lengths) < 2 or self.batch_mode == "pairs":
            return "pairs", None
        units = self._units
        if self.config_override is not None:
            return "queries", tuple(self.config_override)
        qcost, tile = choose_batch_tile(lengths, units.total_cols, units.n, self._chunks(self._db.parts[0])[2])
        if self.batch_mode == "auto":
            cols, npairs = (units.total_cols + 1) // 2, (units.n + 1) // 2
            pcost = sum(min(single_tile_costs(q, cols, npairs))[0] for q in lengths)
            if pcost < qcost:
                return "pairs", None
        return "queries", tile

    def _bnd(self, words: int):
        if self._bnd_buf is None or self._bnd_buf.size < words:
            self._bnd_buf = None
            self._bnd_buf = self._cp.empty(max(words, 4), dtype=np.uint32)
        return self._bnd_buf

    def _check_query(self, query) -> np.ndarray:
        q = np.ascontiguousarray(query, dtype=np.uint8).ravel()
        if q.size and int(q.max()) >= self.K:
            raise InputError(f"query codes must be < {self.K}", param="queries")
        return q
