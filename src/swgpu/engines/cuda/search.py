"""Database search scoring on the GPU: one query against every database sequence.

Launcher for ``kernels/sw_search.cu`` (exact Smith-Waterman local scores,
affine gaps, substitution matrix; no traceback).

* :meth:`CudaSearchEngine.load_database` sorts the sequences by length, pairs
  neighbours (two sequences share one 32-bit lane as two 16-bit scores) and
  keeps the pair-interleaved codes resident on the GPU; the upload goes through
  pinned host memory and the interleaving runs on the GPU.
* :meth:`CudaSearchEngine.scores` builds the query profile on the GPU, runs
  the 16-bit DPX kernel (a group of ``G`` threads per pair, ``R`` query rows
  per thread, tiles of ``G*R`` rows chained through a global boundary buffer),
  re-scores in 32 bits only the pairs whose 16-bit maximum came close to the
  16-bit limit, and returns the scores in the original database order.

The tile shape ``(G, R)`` is chosen per query length by a cost model: the
measured speed of each shape, the padding of the query to whole tiles of
``G*R`` rows, and the wavefront fill of about ``G`` column steps per pair and
pass. Shapes with ``G*R >= 384`` share one profile tile per thread block.
"""

from __future__ import annotations

import math
import time

import numpy as np

from . import _runtime

__all__ = ["CudaSearchEngine", "VARIANTS"]

KERNEL_FILE = "sw_search.cu"
NWARPS = 2                      # warps per block of the warp-private-profile kernels
NWARPS_SHARED = 8               # warps per block when the block shares one profile tile
PAD_SCORE = -16384              # profile value of the pad letter and of rows past the query
#: (G, R) tile shapes compiled on demand: G threads per pair, R query rows per thread.
VARIANTS = ((8, 16), (16, 16), (16, 24), (16, 32), (32, 16), (32, 24), (32, 32))
WIDE_VARIANT = (32, 16)         # 32-bit re-run of overflowing pairs
#: Speed of each tile shape (GCUPS on an H100 with whole tiles and no wavefront fill):
#: measured on 100,000 sequences (mean pair length 366) and corrected for the fill.
_SPEED = {(2, 24): 532, (4, 24): 1111, (8, 16): 1895, (8, 24): 2163, (8, 32): 2194,
          (16, 16): 3735, (16, 24): 3892, (16, 32): 3988, (32, 16): 4110, (32, 24): 4307, (32, 32): 4373}
_MAX_ABS_SCORE = 8192           # matrix entries must fit the 16-bit profile with the pad margin
_BATCH_QUERIES = 64             # scores_many: queries in flight at once


def _row_stride(G: int, R: int) -> int:
    """Shared-memory row stride of the profile tile in 16-byte units (as Geo<G,R>::RS)."""
    t8 = G * R // 8
    if G >= 8:
        return t8
    return t8 + ((G - (t8 % 8)) % 8)


def block_shared(G: int, R: int) -> bool:
    """Whether a tile shape uses one profile tile per block (else one per warp)."""
    return G * R >= 384


def _smem_bytes(G: int, R: int, wide: bool, nlet: int, nwarps: int) -> int:
    group_units = 8 + (2 * 4 * (4 if wide else 2) * 4) // 16 + 1
    prof = nlet * _row_stride(G, R)
    groups = nwarps * (32 // G) * group_units
    if block_shared(G, R):
        return (prof + groups) * 16
    return (nwarps * prof + groups) * 16


def _kernel_name(G: int, R: int, wide: bool) -> str:
    b = lambda x: "true" if x else "false"  # noqa: E731
    return f"sw_search<{G}, {R}, {b(wide)}, {b(block_shared(G, R))}>"


def pair_layout(offsets: np.ndarray) -> dict:
    """Host side of the database layout (numpy only).

    Sequences sorted by length (descending, stable) are paired neighbour by
    neighbour: pair ``k`` holds sequences ``ia[k]`` (low half) and ``ib[k]``
    (high half, -1 when there is none), lengths ``la >= lb``; its columns are
    ``[poff[k], poff[k] + plen[k])`` with ``plen = la`` rounded up to 4.
    """
    off = np.ascontiguousarray(offsets, dtype=np.int64).ravel()
    n = off.size - 1
    lengths = np.diff(off)
    order = np.argsort(-lengths, kind="stable")
    npairs = (n + 1) // 2
    ia = order[0::2].astype(np.int64)
    ib = np.full(npairs, -1, dtype=np.int64)
    ib[: n // 2] = order[1::2]
    la = lengths[ia]
    lb = np.where(ib >= 0, lengths[np.maximum(ib, 0)], 0) if npairs else np.zeros(0, np.int64)
    plen = ((la + 3) // 4 * 4).astype(np.int64)
    if plen.size and plen.max() >= 2**31 - 64:
        raise ValueError("database sequence too long")
    poff = np.zeros(npairs, dtype=np.int64)
    if npairs > 1:
        np.cumsum(plen[:-1], out=poff[1:])
    sa = off[ia] if npairs else np.zeros(0, np.int64)
    sb = np.where(ib >= 0, off[np.maximum(ib, 0)], 0) if npairs else np.zeros(0, np.int64)
    porig = np.stack([ia, ib], axis=1).astype(np.int32) if npairs else np.zeros((0, 2), np.int32)
    return {"n": n, "npairs": npairs, "ia": ia, "ib": ib, "la": la, "lb": lb, "plen": plen,
            "poff": poff, "sa": sa, "sb": sb, "porig": porig, "total_cols": int(plen.sum())}


def choose_tile(Q: int, total_cols: int, npairs: int) -> tuple[int, int]:
    """(G, R) of least modelled time for a query of length ``Q`` against
    ``npairs`` pairs of ``total_cols`` columns: query rows padded to whole
    tiles x (columns + wavefront fill of G + 3 steps per pair and pass) /
    measured speed of the shape."""
    best, best_cost = VARIANTS[0], math.inf
    for G, R in VARIANTS:
        T = G * R
        rows = max(1, -(-Q // T)) * T
        cost = rows * (max(total_cols, 1) + max(npairs, 1) * (G + 3)) / _SPEED[(G, R)]
        if cost < best_cost * 0.999:
            best, best_cost = (G, R), cost
    return best


class CudaSearchEngine:
    """Exact SW scores of a query against a GPU-resident database.

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
    :meth:`scores_many` call: ``kernel`` (profile + 16-bit kernels, CUDA
    events), ``overflow_rerun`` (32-bit re-run, events; 0 when none),
    ``d2h`` (copy of the scores back, events) and ``total`` (wall clock of
    the whole call). ``last_config`` holds the tile shapes used and the number
    of re-scored pairs.
    """

    def __init__(self, matrix: np.ndarray, gap_open: int, gap_extend: int, device_id: int = 0):
        cp = _runtime.cupy()
        self._cp = cp
        m = np.ascontiguousarray(matrix, dtype=np.int64)
        if m.ndim != 2 or m.shape[0] != m.shape[1] or not 1 <= m.shape[0] <= 32:
            raise ValueError(f"matrix must be square with at most 32 codes, got shape {m.shape}")
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
        #: Largest 16-bit score that proves no 16-bit addition wrapped.
        self.threshold = 32767 - self._max_score
        self.pad_code = self.K
        self.nlet = self.K + 1
        #: Force one (G, R) tile shape for every query (None: cost model).
        self.config_override: tuple[int, int] | None = None
        #: Warps per thread block (None: NWARPS, or NWARPS_SHARED for block-shared tiles).
        self.nwarps: int | None = None
        self.last_timing: dict = {"kernel": 0.0, "overflow_rerun": 0.0, "d2h": 0.0, "total": 0.0}
        self.last_config: dict = {}
        self.n = 0
        self._kernels: dict = {}
        with cp.cuda.Device(self.device_id):
            self._stream = cp.cuda.Stream(non_blocking=True)
            self._d_matrix = cp.asarray(self.matrix.ravel())
        self._db = None
        self._pinned = None
        self._pinned_len = 0

    # ------------------------------------------------------------------ kernels
    def _helper(self, name: str):
        k = self._kernels.get(name)
        if k is None:
            with self._cp.cuda.Device(self.device_id):
                k = _runtime.get_module(KERNEL_FILE).get_function(name)
            self._kernels[name] = k
        return k

    def _warps(self, G: int, R: int) -> int:
        if self.nwarps:
            return int(self.nwarps)
        return NWARPS_SHARED if block_shared(G, R) else NWARPS

    def _kernel(self, G: int, R: int, wide: bool):
        nw = self._warps(G, R)
        key = (G, R, wide, nw)
        k = self._kernels.get(key)
        if k is None:
            name = _kernel_name(G, R, wide)
            with self._cp.cuda.Device(self.device_id):
                mod = _runtime.get_module(KERNEL_FILE, (f"-DSWP_NWARPS={nw}",), (name,))
                k = mod.get_function(name)
                smem = _smem_bytes(G, R, wide, 33, nw)  # enough for any alphabet (K <= 32)
                if smem > 48 * 1024:
                    k.max_dynamic_shared_size_bytes = smem
            self._kernels[key] = k
        return k

    def _launch(self, G: int, R: int, wide: bool, ngroups: int, args: tuple):
        nw = self._warps(G, R)
        grid = -(-ngroups // (nw * (32 // G)))
        if grid:
            self._kernel(G, R, wide)((grid,), (nw * 32,), args,
                                     shared_mem=_smem_bytes(G, R, wide, self.nlet, nw))

    def compile(self, query_lengths=(), variants=None) -> float:
        """Compile (or load from CuPy's cache) the kernels the given query lengths
        would use, plus the helpers and the 32-bit re-run kernel; returns seconds."""
        t0 = time.perf_counter()
        with self._cp.cuda.Device(self.device_id):
            self._helper("swp_build_profile")
            self._helper("swp_build_pairs")
        shapes = set(variants or ())
        for q in query_lengths:
            shapes.update(cfg for cfg, _ in self._plan(int(q)))
        for G, R in sorted(shapes):
            self._kernel(G, R, False)
        self._kernel(*WIDE_VARIANT, True)
        return time.perf_counter() - t0

    # ----------------------------------------------------------------- database
    def load_database(self, residues: np.ndarray, offsets: np.ndarray) -> None:
        """Keep ``residues[offsets[i]:offsets[i+1]]`` (sequence ``i``) resident on the GPU."""
        cp = self._cp
        res = np.ascontiguousarray(residues, dtype=np.uint8).ravel()
        off = np.ascontiguousarray(offsets, dtype=np.int64).ravel()
        if off.size < 1 or off[0] != 0 or off[-1] != res.size or np.any(np.diff(off) < 0):
            raise ValueError("offsets must start at 0, be non-decreasing and end at len(residues)")
        if res.size and int(res.max()) >= self.K:
            raise ValueError(f"database codes must be < {self.K}")
        lay = pair_layout(off)
        n, npairs, total_cols = lay["n"], lay["npairs"], lay["total_cols"]
        la, lb = lay["la"], lay["lb"]
        plen, poff, sa, sb, porig = lay["plen"], lay["poff"], lay["sa"], lay["sb"], lay["porig"]

        db = {}
        with cp.cuda.Device(self.device_id), self._stream:
            # residues through a pinned staging buffer
            d_res = cp.empty(max(res.size, 1), dtype=np.uint8)
            if res.size:
                pinned = cp.cuda.alloc_pinned_memory(res.size)
                staged = np.frombuffer(pinned, dtype=np.uint8, count=res.size)
                staged[...] = res
                d_res[: res.size].set(staged, stream=self._stream)
            codes = cp.empty(max(total_cols, 4), dtype=np.uint16)
            d_poff = cp.asarray(poff)
            d_plen = cp.asarray(plen.astype(np.int32))
            if npairs:
                self._helper("swp_build_pairs")(
                    (npairs,), (128,),
                    (d_res, cp.asarray(sa), cp.asarray(sb), cp.asarray(la.astype(np.int32)),
                     cp.asarray(lb.astype(np.int32)), d_poff, d_plen, np.int32(npairs),
                     np.int32(self.pad_code), codes))
            db["codes"] = codes
            db["poff"] = d_poff
            db["plen"] = d_plen
            db["porig"] = cp.asarray(porig.ravel() if npairs else np.full(2, -1, np.int32))
            db["bnd"] = None  # boundary buffer, allocated when a query needs several passes
            db["dummy_i32"] = cp.zeros(1, dtype=np.int32)
            db["dummy_i64"] = cp.zeros(1, dtype=np.int64)
            self._stream.synchronize()
            del d_res
        db["plen_host"] = plen
        db["total_cols"] = total_cols
        db["npairs"] = npairs
        db["residues"] = int(res.size)
        self._db = db
        self.n = n

    @property
    def db_residues(self) -> int:
        return 0 if self._db is None else self._db["residues"]

    # ------------------------------------------------------------------- config
    def _plan(self, Q: int) -> list:
        """[((G, R), (first_pair, stop_pair)), ...]: the launches of one query.

        One launch over all pairs (longest first): separate launches per length
        class were measured slower, each paying its own tail of idle SMs."""
        db = self._db
        if db is None or not db["npairs"]:
            return []
        if self.config_override is not None:
            return [(tuple(self.config_override), (0, db["npairs"]))]
        return [(choose_tile(Q, db["total_cols"], db["npairs"]), (0, db["npairs"]))]

    def _bnd(self, words: int):
        db = self._db
        if db["bnd"] is None or db["bnd"].size < words:
            db["bnd"] = self._cp.empty(max(words, 4), dtype=np.uint32)
        return db["bnd"]

    # ------------------------------------------------------------------ scoring
    def _check_query(self, query) -> np.ndarray:
        q = np.ascontiguousarray(query, dtype=np.uint8).ravel()
        if q.size and int(q.max()) >= self.K:
            raise ValueError(f"query codes must be < {self.K}")
        return q

    def _launch_query(self, q: np.ndarray, d_scores, d_ovf):
        """Enqueue profile + 16-bit kernels of one query; returns its plan and profile."""
        cp = self._cp
        db = self._db
        Q = int(q.size)
        plan = self._plan(Q)
        Tw = WIDE_VARIANT[0] * WIDE_VARIANT[1]
        qpad = -(-Q // Tw) * Tw
        for (G, R), _ in plan:
            qpad = max(qpad, -(-Q // (G * R)) * G * R)
        d_q = cp.asarray(q)
        prof = cp.empty(self.nlet * qpad, dtype=np.int16)
        n_el = self.nlet * qpad
        self._helper("swp_build_profile")(
            (min(-(-n_el // 256), 4096),), (256,),
            (self._d_matrix, np.int32(self.K), d_q, np.int32(Q), np.int64(qpad), prof))
        d_ovf[:1].fill(0)
        for (G, R), (a, b) in plan:
            npass = -(-Q // (G * R))
            bnd = self._bnd(2 * db["total_cols"]) if npass > 1 else db["dummy_i32"]
            self._launch(G, R, False, b - a, (
                prof, np.int32(self.nlet), np.int64(qpad // 8), np.int32(npass),
                db["codes"], db["poff"], db["plen"], db["porig"],
                np.int32(b - a), np.int32(a), db["dummy_i32"], np.int32(0),
                bnd, db["dummy_i64"],
                np.int32(self.gap_open), np.int32(self.gap_extend), np.int32(self.threshold),
                np.int32(self.pad_code), d_scores, d_ovf))
        return [cfg for cfg, _ in plan], prof, qpad

    def _rerun(self, prof, qpad: int, Q: int, pairs: np.ndarray, d_scores):
        """32-bit re-score of the listed pairs (host list), enqueued on the stream."""
        cp = self._cp
        db = self._db
        G, R = WIDE_VARIANT
        T = G * R
        npass = -(-Q // T)
        plen = db["plen_host"][pairs]
        order = np.argsort(-plen, kind="stable")
        pairs = pairs[order].astype(np.int32)
        plen = plen[order]
        boff = np.zeros(pairs.size, dtype=np.int64)
        if pairs.size > 1:
            np.cumsum(plen[:-1], out=boff[1:])
        words = 4 * int(plen.sum())
        bnd = cp.empty(max(words, 4), dtype=np.uint32) if npass > 1 else db["dummy_i32"]
        self._launch(G, R, True, pairs.size, (
            prof, np.int32(self.nlet), np.int64(qpad // 8), np.int32(npass),
            db["codes"], db["poff"], db["plen"], db["porig"],
            np.int32(pairs.size), np.int32(0), cp.asarray(pairs), np.int32(1),
            bnd, cp.asarray(boff),
            np.int32(self.gap_open), np.int32(self.gap_extend), np.int32(2**31 - 1),
            np.int32(self.pad_code), d_scores, db["dummy_i32"]))

    def _host_buffer(self, count: int) -> np.ndarray:
        if self._pinned_len < count:
            self._pinned = self._cp.cuda.alloc_pinned_memory(4 * max(count, 1))
            self._pinned_len = count
        return np.frombuffer(self._pinned, dtype=np.int32, count=count)

    def scores(self, query: np.ndarray) -> np.ndarray:
        """``int32`` scores of ``query`` against every database sequence, original order."""
        return self.scores_many([query])[0]

    def scores_many(self, queries) -> list:
        """Scores of several queries; kernels of a batch are enqueued back to back
        and the results come back with one synchronisation (two when a pair
        overflowed 16 bits)."""
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
            for b0 in range(0, len(qs), _BATCH_QUERIES):
                batch = [(i, q) for i, q in enumerate(qs[b0:b0 + _BATCH_QUERIES], start=b0) if q.size and n]
                if not batch:
                    continue
                nb = len(batch)
                d_scores = cp.zeros((nb, n), dtype=np.int32)
                d_ovf = cp.zeros((nb, 1 + self._db["npairs"]), dtype=np.int32)
                host = self._host_buffer(nb * (n + 1))
                ev = [cp.cuda.Event() for _ in range(5)]
                ev[0].record()
                launched = []
                for slot, (i, q) in enumerate(batch):
                    cfgs, prof, qpad = self._launch_query(q, d_scores[slot], d_ovf[slot])
                    launched.append((prof, qpad))
                    configs.append(cfgs)
                ev[1].record()
                # scores and overflow counts back together
                host_scores = host[: nb * n].reshape(nb, n)
                host_counts = host[nb * n: nb * n + nb]
                d_scores.get(stream=self._stream, out=host_scores)
                d_counts = cp.ascontiguousarray(d_ovf[:, 0])
                d_counts.get(stream=self._stream, out=host_counts)
                ev[2].record()
                ev[2].synchronize()
                timing["kernel"] += cp.cuda.get_elapsed_time(ev[0], ev[1]) / 1e3
                timing["d2h"] += cp.cuda.get_elapsed_time(ev[1], ev[2]) / 1e3
                counts = host_counts.copy()
                for slot, (i, q) in enumerate(batch):
                    out[i][:] = host_scores[slot]
                if counts.any():
                    ev[3].record()
                    for slot, (i, q) in enumerate(batch):
                        c = int(counts[slot])
                        if not c:
                            continue
                        pairs = d_ovf[slot, 1:1 + c].get(stream=self._stream)
                        self._stream.synchronize()
                        prof, qpad = launched[slot]
                        self._rerun(prof, qpad, int(q.size), pairs, d_scores[slot])
                        reruns += c
                    ev[4].record()
                    fixed = [slot for slot in range(nb) if counts[slot]]
                    d_fixed = d_scores[fixed]
                    h_fixed = d_fixed.get(stream=self._stream)
                    ev[2].record()
                    ev[2].synchronize()
                    timing["overflow_rerun"] += cp.cuda.get_elapsed_time(ev[3], ev[4]) / 1e3
                    timing["d2h"] += cp.cuda.get_elapsed_time(ev[4], ev[2]) / 1e3
                    for row, slot in enumerate(fixed):
                        out[batch[slot][0]][:] = h_fixed[row]
        timing["total"] = time.perf_counter() - t_start
        self.last_timing = timing
        self.last_config = {"tiles": configs, "rerun_pairs": reruns}
        return out
