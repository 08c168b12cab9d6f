"""Database search scoring on the GPU: queries against every database sequence.

Launcher for ``kernels/sw_search.cu`` (exact Smith-Waterman local scores,
affine gaps, substitution matrix; no traceback).

* :meth:`CudaSearchEngine.load_database` sorts the sequences by length and
  keeps them resident on the GPU, one byte per residue, each padded to a
  multiple of 4 columns; the upload goes through pinned host memory and the
  padding runs on the GPU.
* Several queries (:meth:`CudaSearchEngine.scores_many`): the two 16-bit
  halves of a register hold two queries, so one group of ``G`` threads scores
  database sequences against both and reads the substitution scores of a
  column straight from a shared profile word. Each half runs its own list of
  queries, longest first, each to the half with fewer rows, in segments of
  ``R`` rows, so the two halves stay balanced and a query is padded to a
  multiple of ``R`` rows only. A group streams a chunk of consecutive
  sequences as one run of columns (the wavefront fills once per chunk).
* One query: the two halves hold two database sequences of nearly equal
  length (neighbours in length order, codes interleaved; built on first use).
* Either way the 16-bit DPX kernel (``R`` query rows per thread, tiles chained
  through a global boundary buffer) lists the pairs whose maximum came close
  to the 16-bit limit; those are re-scored exactly in 32 bits, and the scores
  come back in the original database order.

The tile shape ``(G, R)`` is chosen by a cost model: the measured speed of
each shape, the padding of the queries to whole tiles of ``G*R`` rows, and the
wavefront fill of about ``G`` column steps per sequence and pass.
"""

from __future__ import annotations

import math
import time

import numpy as np

from . import runtime

__all__ = ["CudaSearchEngine", "VARIANTS", "pair_layout", "unit_layout", "query_schedule", "host_unit_codes"]

KERNEL_FILE = "sw_search.cu"
NWARPS = 2                      # warps per block of the warp-private-profile kernels
NWARPS_SHARED = 8               # warps per block when the block shares one profile tile
NWARPS_SHARED_QP = 16           # the same for query pairs: one block (one profile copy) per SM
PAD_SCORE = -32768              # profile value of the pad letter and of rows past the query
#: (G, R) tile shapes compiled on demand: G threads per pair, R query rows per thread.
VARIANTS = ((8, 16), (16, 16), (16, 24), (16, 32), (32, 16), (32, 24), (32, 32))
WIDE_VARIANT = (32, 16)         # 32-bit re-run of overflowing pairs
#: Speed of each tile shape (GCUPS on an H100 with whole tiles and no wavefront fill):
#: measured on 100,000 sequences (mean pair length 366) and corrected for the fill.
_SPEED = {(2, 24): 532, (4, 24): 1111, (8, 16): 1895, (8, 24): 2163, (8, 32): 2194,
          (16, 16): 3735, (16, 24): 3892, (16, 32): 3988, (32, 16): 4110, (32, 24): 4307, (32, 32): 4373}
#: The same for query pairs (no byte permutation per cell, chunks streamed so no
#: fill): kernel time of 20 queries against 1,000,000 random sequences of 256
#: (chunks of equal columns; unequal chunks are charged in choose_batch_tile).
_SPEED_QP = {(8, 16): 4400, (16, 16): 3000, (16, 24): 5050, (16, 32): 5150, (32, 16): 4600,
             (32, 24): 4900, (32, 32): 5100}
_MAX_ABS_SCORE = 8192           # matrix entries must fit the 16-bit profile with the pad margin
_MAX_CODES = 32                 # alphabet size the kernels take (profile letters: + pad + 2 closing)
_BATCH_QUERIES = 64             # scores_many: queries in flight at once
_BYTES_PER_COLUMN = 12          # GPU memory per database column: codes, pair codes, boundary
_BYTES_PER_SEQUENCE = 48        # and per sequence: offsets, lengths, indices, chunks
CHUNKS_PER_SM = 512             # query-pair kernel: chunks of sequences per SM


def _row_stride(G: int, R: int, qp: bool = False) -> int:
    """Shared-memory row stride of the profile tile in 16-byte units (as Geo<G,R,QP>::RS)."""
    u = G * R // (4 if qp else 8)
    if G >= 8:
        return u
    return u + ((G - (u % 8)) % 8)


def block_shared(G: int, R: int) -> bool:
    """Whether a tile shape uses one profile tile per block (else one per warp)."""
    return G * R >= 384


def _smem_bytes(G: int, R: int, wide: bool, nlet: int, nwarps: int, qp: bool = False) -> int:
    group_units = 8 + (2 * 4 * (4 if wide else 2) * 4) // 16 + 1
    prof = nlet * _row_stride(G, R, qp) + 32  # profile tile and gap-cost table
    groups = nwarps * (32 // G) * group_units
    if block_shared(G, R):
        return (prof + groups) * 16
    return (nwarps * prof + groups) * 16


def _kernel_name(G: int, R: int, wide: bool, qp: bool = False) -> str:
    b = lambda x: "true" if x else "false"  # noqa: E731
    return f"sw_search<{G}, {R}, {b(wide)}, {b(block_shared(G, R))}, {b(qp)}>"


def unit_layout(offsets: np.ndarray) -> dict:
    """Host side of the resident database (numpy only).

    Sequences sorted by length (descending, stable): unit ``k`` is sequence
    ``order[k]`` of ``length[k]`` residues, stored at columns
    ``[uoff[k], uoff[k] + ulen[k])`` with ``ulen = length + 2`` (two closing
    pad columns) rounded up to 4, or 0 for an empty sequence.
    """
    off = np.ascontiguousarray(offsets, dtype=np.int64).ravel()
    lengths = np.diff(off)
    order = np.argsort(-lengths, kind="stable").astype(np.int64)
    ln = lengths[order]
    ulen = np.where(ln > 0, (ln + 5) // 4 * 4, 0)
    if ulen.size and ulen.max() >= 2**31 - 64:
        raise ValueError("database sequence too long")
    uoff = np.zeros(ulen.size, dtype=np.int64)
    if ulen.size > 1:
        np.cumsum(ulen[:-1], out=uoff[1:])
    return {"n": int(lengths.size), "order": order, "length": ln, "ulen": ulen, "uoff": uoff,
            "src": off[:-1][order], "total_cols": int(ulen.sum())}


def host_unit_codes(res: np.ndarray, units: dict, pad: int, out: np.ndarray) -> np.ndarray:
    """The GPU code layout of ``units`` (as the ``swp_build_units`` kernel
    writes it) built on the host into ``out``: each sequence's residues, pad
    columns up to ``ulen``, the closing letter ``pad + 1`` on the last two
    columns but ``pad + 2`` on the very last."""
    total = units["total_cols"]
    out[:total] = pad
    L, src, uoff, ulen = units["length"], units["src"], units["uoff"], units["ulen"]
    long_ = np.flatnonzero(L >= 4096)
    for k in long_:  # few: plain slices
        out[uoff[k]: uoff[k] + L[k]] = res[src[k]: src[k] + L[k]]
    short = np.flatnonzero((L > 0) & (L < 4096))
    block = 1 << 22  # residues per vectorised step (bounded temporaries)
    cl = np.concatenate([[0], np.cumsum(L[short])])
    i = 0
    while i < short.size:
        j = max(i + 1, int(np.searchsorted(cl, cl[i] + block, side="right")) - 1)
        ks = short[i:j]
        unit_of = np.repeat(np.arange(ks.size), L[ks])
        pos = np.arange(unit_of.size, dtype=np.int64) - (cl[i:j] - cl[i])[unit_of]
        out[uoff[ks][unit_of] + pos] = res[src[ks][unit_of] + pos]
        i = j
    nz = ulen > 0
    ends = uoff[nz] + ulen[nz]
    out[ends - 2] = pad + 1
    out[ends - 1] = pad + 2
    return out


def _pairs_of_units(units: dict, ids: np.ndarray) -> dict:
    """Pairs of units ``ids`` (ascending, so longest first) in turn: pair ``k``
    holds units ``ids[2k]`` (low half) and ``ids[2k+1]`` (high half, -1 when
    none); its columns are ``[poff[k], poff[k] + plen[k])``."""
    ids = np.asarray(ids, dtype=np.int64)
    npairs = (ids.size + 1) // 2
    ua = ids[0::2]
    ub = np.full(npairs, -1, dtype=np.int64)
    ub[: ids.size // 2] = ids[1::2]
    hasb = ub >= 0
    ubc = np.where(hasb, ub, 0)
    la = units["length"][ua] if npairs else np.zeros(0, np.int64)
    lb = np.where(hasb, units["length"][ubc], 0) if npairs else np.zeros(0, np.int64)
    plen = (la + 3) // 4 * 4 if npairs else np.zeros(0, np.int64)
    poff = np.zeros(npairs, dtype=np.int64)
    if npairs > 1:
        np.cumsum(plen[:-1], out=poff[1:])
    porig = np.stack([units["order"][ua], np.where(hasb, units["order"][ubc], -1)], axis=1).astype(np.int32) \
        if npairs else np.zeros((0, 2), np.int32)
    return {"npairs": npairs, "ua": ua, "ub": ub, "la": la, "lb": lb, "plen": plen, "poff": poff,
            "porig": porig, "total_cols": int(plen.sum())}


def pair_layout(offsets: np.ndarray) -> dict:
    """Sequence pairs of a database (the single-query layout), host side:
    neighbours in length order, ``porig[k]`` = original indices (b = -1 when
    none), lengths ``la >= lb``, columns ``plen`` (a multiple of 4)."""
    units = unit_layout(offsets)
    return _pairs_of_units(units, np.arange(units["n"]))


def query_schedule(lengths, G: int, R: int) -> tuple[int, list]:
    """Rows of a batch of queries on the two halves of the query-pair kernel.

    Each half is a stream of segments of ``R`` rows (segment ``p * G + t`` is
    thread ``t``'s share of pass ``p``); a query of length ``Q`` takes
    ``ceil(Q / R)`` consecutive segments. Longest first, each query goes to the
    half with fewer segments. Returns ``(P, halves)``: ``P`` passes, and
    ``halves[h]`` a list of ``(query index, first segment, segments)``."""
    halves: list[list] = [[], []]
    used = [0, 0]
    for i in sorted(range(len(lengths)), key=lambda i: (-int(lengths[i]), i)):
        n = max(1, -(-int(lengths[i]) // R))
        h = 0 if used[0] <= used[1] else 1
        halves[h].append((i, used[h], n))
        used[h] += n
    return max(1, -(-max(used) // G)), halves


def choose_tile(Q: int, total_cols: int, npairs: int) -> tuple[int, int]:
    """(G, R) of least modelled time for a query of length ``Q`` against
    ``npairs`` pairs of ``total_cols`` columns: query rows padded to whole
    tiles x (columns + wavefront fill of G + 3 steps per pair and pass) /
    measured speed of the shape."""
    return min(_tile_costs_single(Q, total_cols, npairs), key=lambda x: x[0])[1]


def _tile_costs_single(Q, total_cols, npairs):
    out = []
    for G, R in VARIANTS:
        T = G * R
        rows = max(1, -(-Q // T)) * T
        out.append((rows * (max(total_cols, 1) + max(npairs, 1) * (G + 3)) / _SPEED[(G, R)], (G, R)))
    return out


def _lockstep_columns(chunk_cols, n: int) -> int:
    """Columns that chunks run in lockstep ``n`` at a time take: each set of
    ``n`` consecutive chunks lasts as long as its longest."""
    c = np.asarray(chunk_cols, dtype=np.int64).ravel()
    if c.size == 0:
        return 0
    pad = (-c.size) % n
    c = np.concatenate([c, np.zeros(pad, dtype=np.int64)]).reshape(-1, n)
    return int(c.max(axis=1).sum()) * n


def choose_batch_tile(lengths, total_cols: int, nunits: int, chunk_cols=None) -> tuple[float, tuple[int, int]]:
    """(modelled cost, (G, R)) of the query-pair kernel for a batch of queries:
    rows of the busier half (whole segments) x columns / measured speed. With
    ``chunk_cols`` (columns of each chunk, in order) the columns are those of
    chunks run in lockstep: the groups of a warp (32 / G), and the warps of a
    block, which meet at a barrier every pass, for block-shared tiles."""
    best = (math.inf, VARIANTS[0])
    for G, R in VARIANTS:
        P, _ = query_schedule(lengths, G, R)
        cols = max(total_cols, 1)
        if chunk_cols is not None:
            n = (32 // G) * (NWARPS_SHARED_QP if block_shared(G, R) else 1)
            cols = max(_lockstep_columns(chunk_cols, n), 1)
        cost = P * G * R * cols / _SPEED_QP[(G, R)]
        if cost < best[0] * 0.999:
            best = (cost, (G, R))
    return best


class CudaSearchEngine:
    """Exact SW scores of queries against a GPU-resident database.

    Parameters
    ----------
    matrix:
        ``int32`` array ``(K, K)``, ``K <= 32``; ``matrix[q, t]`` scores query
        code ``q`` against database code ``t``.
    gap_open, gap_extend:
        Positive costs; a gap of length ``k`` costs ``open + (k - 1) * extend``.
    device_id:
        CUDA device to use.

    ``last_timing`` holds the seconds of the last :meth:`scores` /
    :meth:`scores_many` call: ``kernel`` (profiles + 16-bit kernels, CUDA
    events), ``overflow_rerun`` (32-bit re-run, events; 0 when none),
    ``d2h`` (copy of the scores back, events) and ``total`` (wall clock of
    the whole call). ``last_config`` holds the kernels and tile shapes used
    and the number of re-scored (query, sequence) pairs.
    """

    def __init__(self, matrix: np.ndarray, gap_open: int, gap_extend: int, device_id: int = 0):
        cp = runtime.cupy()
        self._cp = cp
        m = np.ascontiguousarray(matrix, dtype=np.int64)
        if m.ndim != 2 or m.shape[0] != m.shape[1] or not 1 <= m.shape[0] <= _MAX_CODES:
            raise ValueError(f"matrix must be square with at most {_MAX_CODES} codes, got shape {m.shape}")
        if np.abs(m).max() > _MAX_ABS_SCORE:
            raise ValueError(f"matrix entries must lie within +-{_MAX_ABS_SCORE}")
        gap_open, gap_extend = int(gap_open), int(gap_extend)
        if not (0 <= gap_extend <= 30000 and 0 <= gap_open <= 30000):
            raise ValueError(f"gap penalties must lie in 0..30000, got open {gap_open}, extend {gap_extend}")
        self.K = int(m.shape[0])
        self.matrix = m.astype(np.int32)
        self.gap_open = gap_open
        self.gap_extend = gap_extend
        self.device_id = int(device_id)
        self._max_score = max(int(m.max()), 0)
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
        #: Warps per thread block (None: NWARPS, or NWARPS_SHARED(_QP) for block-shared tiles).
        self.nwarps: int | None = None
        self.last_timing: dict = {"kernel": 0.0, "overflow_rerun": 0.0, "d2h": 0.0, "total": 0.0}
        self.last_config: dict = {}
        self.n = 0
        self._kernels: dict = {}
        # profile values: matrix with the pad letter (column K) and pad rows (row K)
        mx = np.full((self.K + 1, self.K + 1), PAD_SCORE, dtype=np.int32)
        mx[: self.K, : self.K] = self.matrix
        self._mx = mx
        with cp.cuda.Device(self.device_id):
            self._sms = int(cp.cuda.Device(self.device_id).attributes["MultiProcessorCount"])
            self._stream = cp.cuda.Stream(non_blocking=True)
            self._d_matrix = cp.asarray(self.matrix.ravel())
        self._db = None
        self._parts: list = []
        self._limit_at_load = 0
        self._pinned = None
        self._pinned_len = 0

    @property
    def threshold(self) -> int:
        """Largest 16-bit score that proves no 16-bit addition wrapped (the
        kernel stores every value shifted up by ``gap_open + 1``)."""
        return 32767 - self._max_score - (self.gap_open + 1)

    # ------------------------------------------------------------------ kernels
    def _helper(self, name: str):
        k = self._kernels.get(name)
        if k is None:
            with self._cp.cuda.Device(self.device_id):
                k = runtime.get_module(KERNEL_FILE).get_function(name)
            self._kernels[name] = k
        return k

    def _warps(self, G: int, R: int, qp: bool = False) -> int:
        if self.nwarps:
            return int(self.nwarps)
        if block_shared(G, R):
            return NWARPS_SHARED_QP if qp else NWARPS_SHARED
        return NWARPS

    def _kernel(self, G: int, R: int, wide: bool, qp: bool):
        nw = self._warps(G, R, qp)
        key = (G, R, wide, qp, nw)
        k = self._kernels.get(key)
        if k is None:
            name = _kernel_name(G, R, wide, qp)
            opts = (f"-DSWP_NWARPS={nw}",)
            with self._cp.cuda.Device(self.device_id):
                mod = runtime.get_module(KERNEL_FILE, opts, (name,))
                k = mod.get_function(name)
                smem = _smem_bytes(G, R, wide, _MAX_CODES + 3, nw, qp)  # enough for any alphabet
                if smem > 48 * 1024:
                    k.max_dynamic_shared_size_bytes = smem
                # all of the unified L1/shared memory as shared memory (the kernel
                # caches little in L1), so that as many blocks fit as registers allow
                k.preferred_shared_memory_carveout = 100
            self._kernels[key] = k
        return k

    def _launch(self, G: int, R: int, wide: bool, qp: bool, ngroups: int, args: tuple):
        nw = self._warps(G, R, qp)
        grid = -(-ngroups // (nw * (32 // G)))
        if grid:
            self._kernel(G, R, wide, qp)((grid,), (nw * 32,), args,
                                         shared_mem=_smem_bytes(G, R, wide, self._letters(qp), nw, qp))

    def _letters(self, qp: bool) -> int:
        """Profile rows: the alphabet and the pad letter, and for query pairs
        the two closing letters of a sequence (profile rows of the pad)."""
        return self.nlet + 2 if qp else self.nlet

    def compile(self, query_lengths=(), variants=None) -> float:
        """Compile (or load from CuPy's cache) the kernels that scoring the given
        query lengths one by one and together would use, plus the helpers and
        the 32-bit re-run kernel; returns seconds."""
        t0 = time.perf_counter()
        for name in ("swp_build_profile", "swp_build_pairs", "swp_build_units"):
            self._helper(name)
        shapes = {(tuple(v), False) for v in (variants or ())}
        lengths = [int(q) for q in query_lengths if int(q) > 0]
        if self._db is not None:
            for q in lengths:
                shapes.add((self._single_tile(q), False))
            if len(lengths) > 1:
                mode, tile = self._batch_plan(lengths)
                if mode == "queries":
                    shapes.add((tile, True))
        for (G, R), qp in sorted(shapes):
            self._kernel(G, R, False, qp)
        self._kernel(*WIDE_VARIANT, True, False)
        return time.perf_counter() - t0

    # ----------------------------------------------------------------- database
    def load_database(self, residues: np.ndarray, offsets: np.ndarray) -> None:
        """Database of sequences ``residues[offsets[i]:offsets[i+1]]``.

        Kept resident on the GPU when it fits in ``memory_limit`` bytes (default:
        70% of the free GPU memory); otherwise split into parts of consecutive
        sequences (length order) that are streamed to the GPU for every batch of
        queries, the next part's upload overlapping the current part's kernels."""
        cp = self._cp
        res = np.ascontiguousarray(residues, dtype=np.uint8).ravel()
        off = np.ascontiguousarray(offsets, dtype=np.int64).ravel()
        if off.size < 1 or off[0] != 0 or off[-1] != res.size or np.any(np.diff(off) < 0):
            raise ValueError("offsets must start at 0, be non-decreasing and end at len(residues)")
        if res.size and int(res.max()) >= self.K:
            raise ValueError(f"database codes must be < {self.K}")
        self._parts = []
        self._db = None
        self._bnd_buf = None
        self._code_bufs = [None, None]
        units = unit_layout(off)
        n, total_cols = units["n"], units["total_cols"]
        with cp.cuda.Device(self.device_id):
            limit = self.memory_limit
            if limit is None:
                limit = int(0.7 * cp.cuda.runtime.memGetInfo()[0])
            self._limit_at_load = limit
            max_ulen = int(units["ulen"][0]) if n else 0
            fixed = n * _BYTES_PER_SEQUENCE
            if total_cols * _BYTES_PER_COLUMN + fixed <= limit:
                bounds = [0, n]
            else:
                # two parts in memory at once (one computing, one uploading)
                part_cols = (limit - fixed) // (2 * _BYTES_PER_COLUMN)
                if part_cols < max_ulen:
                    raise ValueError(f"GPU memory limit {limit:,} bytes is too small for the longest sequence "
                                     f"({max_ulen:,} residues) and {n:,} sequences")
                cid = units["uoff"] // part_cols
                bounds = list(np.flatnonzero(np.diff(cid, prepend=-1))) + [n]
            self._dummy = cp.zeros(2, dtype=np.int32)
            for a, b in zip(bounds[:-1], bounds[1:]):
                self._parts.append(self._make_part(units, int(a), int(b)))
            if not self._parts:
                self._parts.append(self._make_part(units, 0, 0))
            self._part_starts = np.array([p["a"] for p in self._parts], dtype=np.int64)
            if len(self._parts) == 1:  # resident: codes built on the GPU
                self._upload(0, res, resident=True)
            else:
                self._res = res  # host residues, uploaded part by part
                biggest = max(p["units"]["total_cols"] for p in self._parts)
                self._code_bufs = [cp.empty(max(biggest, 4), dtype=np.uint8) for _ in range(2)]
                self._staging = [cp.cuda.alloc_pinned_memory(max(biggest, 4)) for _ in range(2)]
                self._copy_stream = cp.cuda.Stream(non_blocking=True)
                self._uploaded = [None, None]   # part index held by each code buffer
                self._upload_done = [None, None]  # event: that upload finished
                self._buf_free = [None, None]     # event: the kernels reading that buffer finished
        self._units = units
        self._db = self._parts[0]
        self.n = n

    def _make_part(self, units: dict, a: int, b: int) -> dict:
        """Sequences a..b-1 (length order) as one part: host layout and device metadata."""
        cp = self._cp
        sub = {"n": b - a, "order": units["order"][a:b], "length": units["length"][a:b],
               "ulen": units["ulen"][a:b], "uoff": units["uoff"][a:b] - (units["uoff"][a] if b > a else 0),
               "src": units["src"][a:b]}
        sub["total_cols"] = int(sub["ulen"].sum())
        return {"a": a, "units": sub, "uoff": cp.asarray(sub["uoff"]) if b > a else cp.zeros(1, np.int64),
                "ulen": cp.asarray(sub["ulen"].astype(np.int32)) if b > a else cp.zeros(1, np.int32),
                "uorig": cp.asarray(sub["order"].astype(np.int32)) if b > a else cp.full(1, -1, np.int32),
                "codes": None, "pairs": None}

    def _upload(self, index: int, res: np.ndarray, resident: bool = False) -> None:
        """Codes of part ``index`` onto the GPU. Resident: built there from the
        residues (through pinned memory). Streamed: built on the host into a
        pinned staging buffer and copied on the copy stream into one of two
        code buffers, after the kernels that last read that buffer."""
        cp = self._cp
        part = self._parts[index]
        sub = part["units"]
        part["pairs"] = None
        if resident:
            with self._stream:
                d_res = cp.empty(max(res.size, 1), dtype=np.uint8)
                if res.size:
                    pinned = cp.cuda.alloc_pinned_memory(res.size)
                    staged = np.frombuffer(pinned, dtype=np.uint8, count=res.size)
                    staged[...] = res
                    d_res[: res.size].set(staged, stream=self._stream)
                codes = cp.empty(max(sub["total_cols"], 4), dtype=np.uint8)
                if sub["n"]:
                    self._helper("swp_build_units")(
                        (sub["n"],), (128,),
                        (d_res, cp.asarray(sub["src"]), cp.asarray(sub["length"].astype(np.int32)), part["uoff"],
                         part["ulen"], np.int32(sub["n"]), np.int32(self.pad_code), codes))
                part["codes"] = codes
                self._stream.synchronize()
            return
        slot = index % 2
        if self._uploaded[slot] == index:
            return
        if self._upload_done[slot] is not None:
            self._upload_done[slot].synchronize()  # the staging buffer is free again
        staged = np.frombuffer(self._staging[slot], dtype=np.uint8, count=max(sub["total_cols"], 4))
        host_unit_codes(res, sub, self.pad_code, staged)
        buf = self._code_bufs[slot]
        with self._copy_stream:
            if self._buf_free[slot] is not None:
                self._copy_stream.wait_event(self._buf_free[slot])
            buf[: staged.size].set(staged, stream=self._copy_stream)
            done = cp.cuda.Event()
            done.record(self._copy_stream)
        self._upload_done[slot] = done
        self._uploaded[slot] = index

    def _activate(self, index: int) -> None:
        """Make part ``index`` the current one; streamed parts: wait (on the GPU)
        for its upload."""
        part = self._parts[index]
        self._db = part
        if len(self._parts) == 1:
            return
        self._upload(index, self._res)
        slot = index % 2
        self._stream.wait_event(self._upload_done[slot])
        part["codes"] = self._code_bufs[slot]

    def _release(self, index: int) -> None:
        """The kernels of part ``index`` are enqueued: its buffer may be refilled
        once they finish; start the upload of the next part."""
        if len(self._parts) == 1:
            return
        ev = self._cp.cuda.Event()
        ev.record(self._stream)
        self._buf_free[index % 2] = ev
        if index + 1 < len(self._parts):
            self._upload(index + 1, self._res)

    @property
    def db_residues(self) -> int:
        return 0 if self._db is None else int(self._units["length"].sum())

    @property
    def parts(self) -> int:
        """Parts the database is streamed in (1: resident on the GPU)."""
        return len(self._parts) if self._db is not None else 0

    def _pair_db(self, ids: np.ndarray | None = None) -> dict:
        """Sequence-pair layout of units ``ids`` of the current part (all when
        None; cached), codes interleaved on the GPU from the part's codes."""
        cp = self._cp
        db = self._db
        if ids is None and db["pairs"] is not None:
            return db["pairs"]
        units = db["units"]
        lay = _pairs_of_units(units, np.arange(units["n"]) if ids is None else np.sort(ids))
        npairs = lay["npairs"]
        codes = cp.empty(2 * max(lay["total_cols"], 4), dtype=np.uint8)
        d_poff = cp.asarray(lay["poff"]) if npairs else cp.zeros(1, dtype=np.int64)
        d_plen = cp.asarray(lay["plen"].astype(np.int32)) if npairs else cp.zeros(1, dtype=np.int32)
        if npairs:
            sa = units["uoff"][lay["ua"]]
            sb = np.where(lay["ub"] >= 0, units["uoff"][np.maximum(lay["ub"], 0)], 0)
            self._helper("swp_build_pairs")(
                (npairs,), (128,),
                (db["codes"], cp.asarray(sa), cp.asarray(sb), cp.asarray(lay["la"].astype(np.int32)),
                 cp.asarray(lay["lb"].astype(np.int32)), d_poff, d_plen, np.int32(npairs),
                 np.int32(self.pad_code), codes))
        out = {"codes": codes, "poff": d_poff, "plen": d_plen, "npairs": npairs, "total_cols": lay["total_cols"],
               "porig": cp.asarray(lay["porig"].ravel()) if npairs else cp.full(2, -1, dtype=np.int32)}
        if ids is None:
            db["pairs"] = out
        return out

    def _chunks(self):
        """(column ranges, first sequences, and the columns on the host) of the
        chunks the query-pair kernel streams in the current part: consecutive
        non-empty sequences, about ``chunk_columns`` columns each (default:
        CHUNKS_PER_SM chunks per SM over the whole database, for load balance).
        Chunks go to groups longest first, so the chunks that run in lockstep
        (the groups of a warp, the warps of a block) have about equal columns,
        and the longest start first."""
        db = self._db
        target = int(self.chunk_columns or 0)
        key = ("chunks", target)
        if key not in db:
            units = db["units"]
            nz = int(np.count_nonzero(units["length"]))
            if not target:
                target = -(-self._units["total_cols"] // (CHUNKS_PER_SM * self._sms))
            # a sequence longer than the target is a chunk of its own
            cid = units["uoff"][:nz] // max(target, 1)
            starts = np.flatnonzero(np.diff(cid, prepend=-1)).astype(np.int64)
            coff = np.append(units["uoff"][starts], units["total_cols"]).astype(np.int64)
            cols = np.diff(coff)
            order = np.argsort(-cols, kind="stable")
            ranges = np.stack([coff[:-1][order], coff[1:][order]], axis=1).ravel()
            cp = self._cp
            with cp.cuda.Device(self.device_id):  # also called from the cost model, outside scoring
                db[key] = (cp.asarray(ranges) if ranges.size else cp.zeros(2, dtype=np.int64),
                           cp.asarray(starts[order].astype(np.int32)) if starts.size else
                           cp.zeros(0, dtype=np.int32), cols[order])
        return db[key]

    # ------------------------------------------------------------------- config
    def _single_tile(self, Q: int) -> tuple[int, int]:
        if self.config_override is not None:
            return tuple(self.config_override)
        units = self._units
        # pairs: about half the columns of the units
        return choose_tile(Q, (units["total_cols"] + 1) // 2, (units["n"] + 1) // 2)

    def _batch_plan(self, lengths: list) -> tuple[str, tuple[int, int] | None]:
        """("queries", tile) when the query-pair kernel should score the batch,
        else ("pairs", None): each query alone on sequence pairs."""
        if len(lengths) < 2 or self.batch_mode == "pairs":
            return "pairs", None
        units = self._units
        if self.config_override is not None:
            tile = tuple(self.config_override)
        else:
            qcost, tile = choose_batch_tile(lengths, units["total_cols"], units["n"], self._chunks()[2])
            if self.batch_mode == "auto":
                cols, npairs = (units["total_cols"] + 1) // 2, (units["n"] + 1) // 2
                pcost = sum(min(_tile_costs_single(q, cols, npairs))[0] for q in lengths)
                if pcost < qcost:
                    return "pairs", None
        return "queries", tile

    def _bnd(self, words: int):
        if self._bnd_buf is None or self._bnd_buf.size < words:
            self._bnd_buf = None
            self._bnd_buf = self._cp.empty(max(words, 4), dtype=np.uint32)
        return self._bnd_buf

    # ------------------------------------------------------------------ scoring
    def _check_query(self, query) -> np.ndarray:
        q = np.ascontiguousarray(query, dtype=np.uint8).ravel()
        if q.size and int(q.max()) >= self.K:
            raise ValueError(f"query codes must be < {self.K}")
        return q

    def _profile16(self, q: np.ndarray, T: int):
        """int16 profile of one query (letters x rows padded to ``T``), built on the GPU."""
        cp = self._cp
        Q = int(q.size)
        qpad = max(1, -(-Q // T)) * T
        prof = cp.empty(self.nlet * qpad, dtype=np.int16)
        n_el = self.nlet * qpad
        self._helper("swp_build_profile")(
            (min(-(-n_el // 256), 4096),), (256,),
            (self._d_matrix, np.int32(self.K), cp.asarray(q), np.int32(Q), np.int64(qpad), prof))
        return prof, qpad

    def _tail(self, d_scores):
        return (np.int32(self.gap_open), np.int32(self.gap_extend), np.int32(self.pad_code), d_scores)

    def _launch_single(self, prof, qpad: int, tile: tuple[int, int], d_scores, lay: dict | None = None,
                       wide: bool = False):
        """Enqueue one query (its int16 profile) on the sequence-pair layout
        ``lay`` of the current part (default: all its sequences)."""
        lay = self._pair_db() if lay is None else lay
        G, R = tile
        npass = qpad // (G * R)
        words = (4 if wide else 2) * lay["total_cols"]
        bnd = (self._cp.empty(max(words, 4), dtype=np.uint32) if wide else self._bnd(words)) \
            if npass > 1 else self._dummy
        d = self._dummy
        self._launch(G, R, wide, False, lay["npairs"], (
            prof, np.int32(self.nlet), np.int64(qpad // 8), np.int32(npass),
            lay["codes"], lay["poff"], lay["plen"], lay["porig"],
            np.int32(lay["npairs"]), np.int32(0), bnd, d, d, np.int32(0), *self._tail(d_scores)))

    def _query_pair_profile(self, qs: list, G: int, R: int):
        """Profile, segment flags and query slots of a batch on the query-pair kernel."""
        P, halves = query_schedule([q.size for q in qs], G, R)
        T = G * R
        nseg = P * G
        info = np.zeros(nseg, dtype=np.int32)
        sq = np.zeros(2 * nseg, dtype=np.int32)
        lane_codes = np.full((2, P * T), self.K, dtype=np.uint8)
        for h in (0, 1):
            busy = np.zeros(nseg, dtype=bool)
            for i, s0, n in halves[h]:
                q = qs[i]
                lane_codes[h, s0 * R: s0 * R + q.size] = q
                segs = np.arange(s0, s0 + n)
                busy[segs] = True
                sq[2 * segs + h] = i
                info[s0] |= 1 << h                  # starts a query: nothing from above
                info[segs] |= 4 << h                # holds a query: scores folded in
            info[~busy] |= 1 << h                   # idle: zero input, never folded
        mxT = np.ascontiguousarray(self._mx.T, dtype=np.int64) & 0xFFFF  # (letter, query code)
        mxT = np.vstack([mxT, mxT[self.K], mxT[self.K]])  # the closing letters score as the pad
        prof = np.ascontiguousarray((mxT[:, lane_codes[0]] | (mxT[:, lane_codes[1]] << 16)).astype(np.uint32))
        return P, prof, info, sq

    def _launch_batch(self, plan: tuple, d_scores):
        """Enqueue a batch on the query-pair kernel for the current part;
        ``plan`` = (tile, passes, device profile, segment flags, slots)."""
        (G, R), P, d_prof, d_info, d_sq = plan
        db = self._db
        bnd = self._bnd(2 * db["units"]["total_cols"]) if P > 1 else self._dummy
        cranges, cfirst, _ = self._chunks()
        nchunks = int(cfirst.size)
        self._launch(G, R, False, True, nchunks, (
            d_prof, np.int32(self._letters(True)), np.int64(P * G * R // 4), np.int32(P),
            db["codes"], cranges, cfirst, db["uorig"],
            np.int32(nchunks), np.int32(0), bnd, d_info, d_sq, np.int32(self.n), *self._tail(d_scores)))

    def _batch_size(self) -> int:
        """Queries scored together: up to 64, fewer when their score arrays
        (4 bytes per query and sequence, on the GPU and in pinned host memory)
        would take more than a quarter of the memory limit."""
        limit = self.memory_limit if self.memory_limit is not None else self._limit_at_load
        return max(1, min(_BATCH_QUERIES, (limit // 4) // max(1, 4 * self.n)))

    def _host_buffer(self, count: int) -> np.ndarray:
        if self._pinned_len < count:
            self._pinned = self._cp.cuda.alloc_pinned_memory(4 * max(count, 1))
            self._pinned_len = count
        return np.frombuffer(self._pinned, dtype=np.int32, count=count)

    def scores(self, query: np.ndarray) -> np.ndarray:
        """``int32`` scores of ``query`` against every database sequence, original order."""
        return self.scores_many([query])[0]

    def scores_many(self, queries) -> list:
        """Scores of several queries (a list of arrays, one per query).

        Batches of up to 64 queries (fewer for databases of very many
        sequences) run on the query-pair kernel (or one by one
        on sequence pairs where the cost model says so), enqueued back to back
        over every part of the database; the results come back with one
        synchronisation per batch (more when a score overflowed 16 bits)."""
        if self._db is None:
            raise RuntimeError("load_database() first")
        cp = self._cp
        t_start = time.perf_counter()
        qs = [self._check_query(q) for q in queries]
        n = self.n
        out = [np.zeros(n, dtype=np.int32) for _ in qs]
        timing = {"kernel": 0.0, "overflow_rerun": 0.0, "d2h": 0.0, "total": 0.0}
        configs, reruns = [], 0
        with cp.cuda.Device(self.device_id), self._stream:
            per_batch = self._batch_size()
            for b0 in range(0, len(qs), per_batch):
                batch = [(i, q) for i, q in enumerate(qs[b0:b0 + per_batch], start=b0) if q.size and n]
                if not batch:
                    continue
                nb = len(batch)
                if nb * (n + 1) >= 2**31:
                    raise ValueError("too many queries x sequences for one batch")
                mode, tile = self._batch_plan([q.size for _, q in batch])
                d_scores = cp.zeros((nb, n), dtype=np.int32)
                host = self._host_buffer(nb * n + nb)
                ev = [cp.cuda.Event() for _ in range(5)]
                ev[0].record()
                if mode == "queries":
                    P, prof, info, sq = self._query_pair_profile([q for _, q in batch], *tile)
                    plan = (tile, P, cp.asarray(prof), cp.asarray(info), cp.asarray(sq))
                    configs.append(("queries", tile))
                else:
                    plan = []
                    for i, q in batch:
                        T = self._single_tile(int(q.size))
                        plan.append((T,) + self._profile16(q, T[0] * T[1]))
                        configs.append(("pairs", T))
                for pi in range(len(self._parts)):
                    self._activate(pi)
                    if mode == "queries":
                        self._launch_batch(plan, d_scores)
                    else:
                        for slot, (T, prof, qpad) in enumerate(plan):
                            self._launch_single(prof, qpad, T, d_scores[slot])
                    self._release(pi)
                ev[1].record()
                # scores and the best score of each query back together
                host_scores = host[: nb * n].reshape(nb, n)
                d_scores.get(stream=self._stream, out=host_scores)
                host_best = host[nb * n: nb * n + nb]
                d_scores.max(axis=1).astype(np.int32).get(stream=self._stream, out=host_best)
                ev[2].record()
                ev[2].synchronize()
                del plan
                timing["kernel"] += cp.cuda.get_elapsed_time(ev[0], ev[1]) / 1e3
                timing["d2h"] += cp.cuda.get_elapsed_time(ev[1], ev[2]) / 1e3
                for slot, (i, q) in enumerate(batch):
                    out[i][:] = host_scores[slot]
                # scores that may have wrapped in 16 bits: exact 32-bit re-run
                over = {int(slot): np.nonzero(out[batch[slot][0]] > self.threshold)[0]
                        for slot in np.nonzero(host_best > self.threshold)[0]}
                if not over:
                    continue
                ev[3].record()
                reruns += self._rerun_all(batch, over, d_scores)
                ev[4].record()
                fixed = sorted(over)
                h_fixed = d_scores[fixed].get(stream=self._stream)
                ev[2].record()
                ev[2].synchronize()
                timing["overflow_rerun"] += cp.cuda.get_elapsed_time(ev[3], ev[4]) / 1e3
                timing["d2h"] += cp.cuda.get_elapsed_time(ev[4], ev[2]) / 1e3
                for row, slot in enumerate(fixed):
                    out[batch[slot][0]][:] = h_fixed[row]
        timing["total"] = time.perf_counter() - t_start
        self.last_timing = timing
        self.last_config = {"tiles": configs, "rerun_pairs": reruns, "parts": len(self._parts)}
        return out

    def _rerun_all(self, batch: list, over: dict, d_scores) -> int:
        """32-bit re-score of the listed (slot: original sequence indices),
        part by part; returns the number of (query, sequence) pairs."""
        order = self._units["order"]
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        G, R = WIDE_VARIANT
        count = 0
        per_part: dict[int, list] = {}
        for slot, seqs in over.items():
            r = rank[seqs]
            part = np.searchsorted(self._part_starts, r, side="right") - 1
            for pi in np.unique(part):
                per_part.setdefault(int(pi), []).append((slot, r[part == pi] - self._part_starts[pi]))
            count += int(seqs.size)
        for pi, items in sorted(per_part.items()):
            self._activate(pi)
            for slot, local in items:
                prof, qpad = self._profile16(batch[slot][1], G * R)
                self._launch_single(prof, qpad, (G, R), d_scores[slot], lay=self._pair_db(local), wide=True)
            self._release(pi)
        return count
