"""Batched traceback on the GPU: many pairs aligned per launch.

Launcher for ``kernels/sw_traceback.cu``, one thread per pair, three passes
ported line by line from the CPU engine's kernels (so both report the same
alignment, byte for byte):

1. ``tb_sw_end`` -- best score and end cell of every pair (linear memory);
2. ``tb_sw_start`` -- the anchored reverse pass: the start (linear memory);
3. ``tb_nw_path`` -- the path between start and end from a full matrix of
   direction bytes, walked back on the GPU.

A pair runs on the GPU when its matrix holds at most :data:`GPU_CELLS` cells
(at most :data:`~swgpu.align.traceback.BASE_CELLS`, so its aligned box is one
of the pairs whose CPU traceback is one full-matrix pass); a larger pair
is traced by the CPU engine's linear-memory divide and conquer
(``fallback``), which reports the same alignment as the CPU engine by
construction (one GPU thread per pair would take far longer on it).
"""

from __future__ import annotations

import numpy as np

from ...align.alignment import Alignment
from ...align.assembly import alignments_from_paths
from ...align.traceback import BASE_CELLS
from ...io.sequence import Sequence
from ...scoring import Scoring
from . import runtime

__all__ = ["CudaTracer"]

KERNEL_FILE = "sw_traceback.cu"
#: Largest pair (cells) traced on the GPU. One thread runs a pair, so a large
#: pair takes one thread that long: measured on an H100, search hits of up to
#: 4 M cells made the GPU passes slower than 16 CPU threads, while read pairs
#: (~40 k cells) and proteins of a few hundred residues (~100 k) run 4-10x
#: faster on the GPU.
GPU_CELLS = 1 << 18
BLOCK = 128


def _offsets(lengths) -> np.ndarray:
    off = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(np.asarray(lengths, dtype=np.int64), out=off[1:])
    return off


class CudaTracer:
    """Optimal local alignments of pairs on GPU ``device_id`` (a
    :class:`~swgpu.engines.base.Tracer` with a batched :meth:`align_many`).

    ``fallback``: the CPU tracer for the same scoring (boxes over
    ``base_cells``); ``batch_cells``: DP cells of one launch batch (bounds the
    direction bytes on the GPU).
    """

    def __init__(self, scoring: Scoring, device_id: int, fallback, base_cells: int = BASE_CELLS,
                 batch_cells: int = 1 << 30, gpu_cells: int = GPU_CELLS):
        self.scoring = scoring
        self.device_id = int(device_id)
        self.fallback = fallback
        self.base_cells = int(base_cells)
        self.batch_cells = int(batch_cells)
        self.gpu_cells = min(int(gpu_cells), self.base_cells)
        self._cp = runtime.cupy()
        m = np.ascontiguousarray(scoring.matrix.values, dtype=np.int32)
        self._K = int(m.shape[0])
        with self._cp.cuda.Device(self.device_id):
            self._matrix = self._cp.asarray(m.ravel())
            mod = runtime.get_module(KERNEL_FILE)
            self._k = {name: mod.get_function(name) for name in ("tb_sw_end", "tb_sw_start", "tb_nw_path")}

    def check(self, query: Sequence, target: Sequence) -> None:
        self.fallback.check(query, target)

    def align(self, query: Sequence, target: Sequence) -> Alignment:
        return self.align_many([(query, target)])[0]

    def score(self, query: Sequence, target: Sequence) -> int:
        return self.align(query, target).score

    def align_many(self, pairs, executor=None) -> list[Alignment]:
        """Alignments of ``(query, target)`` pairs, in order."""
        pairs = list(pairs)
        for q, t in pairs:
            self.check(q, t)
        out: list = [None] * len(pairs)
        # one thread runs a pair: larger pairs (long proteins, genome pieces) go
        # straight to the CPU engine's linear-memory traceback, on all cores
        todo = [k for k, (q, t) in enumerate(pairs) if len(q) and len(t) and len(q) * len(t) <= self.gpu_cells]
        for k, (q, t) in enumerate(pairs):
            if not (len(q) and len(t)):
                out[k] = Alignment.empty_for(q, t)
        batch, cells = [], 0
        for k in todo:
            c = len(pairs[k][0]) * len(pairs[k][1])
            if batch and cells + c > self.batch_cells:
                self._run(pairs, batch, out)
                batch, cells = [], 0
            batch.append(k)
            cells += c
        if batch:
            self._run(pairs, batch, out)
        big = [k for k, a in enumerate(out) if a is None]
        for k, aln in zip(big, self.fallback.align_many([pairs[k] for k in big], executor)):
            out[k] = aln
        return out

    # ------------------------------------------------------------------ batches
    def _launch(self, name: str, n: int, args: tuple) -> None:
        self._k[name]((max(1, -(-n // BLOCK)),), (BLOCK,), args)

    def _run(self, pairs, ids: list, out: list) -> None:
        """The three passes for pairs ``ids`` (each within ``gpu_cells``)."""
        cp = self._cp
        sc = self.scoring
        go, ge = np.int32(sc.gap_open), np.int32(sc.gap_extend)
        qs = [pairs[k][0].codes for k in ids]
        ts = [pairs[k][1].codes for k in ids]
        qlen = np.array([x.size for x in qs], dtype=np.int32)
        tlen = np.array([x.size for x in ts], dtype=np.int32)
        qoff, toff = _offsets(qlen), _offsets(tlen)
        srow = _offsets(2 * (tlen.astype(np.int64) + 1))
        n = len(ids)
        i32 = np.int32
        with cp.cuda.Device(self.device_id):
            d_q = cp.asarray(np.concatenate(qs))
            d_t = cp.asarray(np.concatenate(ts))
            d_qoff, d_toff = cp.asarray(qoff[:-1]), cp.asarray(toff[:-1])
            scratch = cp.empty(int(srow[-1]), dtype=np.int32)
            d_srow = cp.asarray(srow[:-1])
            ends = cp.empty(3 * n, dtype=np.int32)
            self._launch("tb_sw_end", n, (d_q, d_qoff, cp.asarray(qlen), d_t, d_toff, cp.asarray(tlen),
                                          self._matrix, i32(self._K), go, ge, scratch, d_srow, i32(n), ends))
            h_ends = ends.get().reshape(n, 3)
            live = np.flatnonzero(h_ends[:, 0] > 0)
            for r in np.flatnonzero(h_ends[:, 0] <= 0):
                out[ids[r]] = Alignment.empty_for(*pairs[ids[r]])
            if live.size == 0:
                return
            sel = cp.asarray(live)
            starts = cp.empty(2 * live.size, dtype=np.int32)
            srow2 = _offsets(2 * (h_ends[live, 2].astype(np.int64) + 1))
            self._launch("tb_sw_start", live.size,
                         (d_q, d_qoff[sel], d_t, d_toff[sel], cp.asarray(np.ascontiguousarray(h_ends[live])),
                          self._matrix, i32(self._K), go, ge, scratch, cp.asarray(srow2[:-1]), i32(live.size),
                          starts))
            h_starts = starts.get().reshape(live.size, 2)
            if np.any(h_starts[:, 0] == 0):
                raise RuntimeError("start pass did not reach the best score; this is a bug")
            box = np.stack([h_ends[live, 1] - h_starts[:, 0], h_ends[live, 1],
                            h_ends[live, 2] - h_starts[:, 1], h_ends[live, 2]], axis=1).astype(np.int32)
            # every box lies inside its pair, so within the direction budget
            self._paths(pairs, ids, live, box, h_ends[live, 0], d_q, d_qoff, d_t, d_toff, scratch, out)

    def _paths(self, pairs, ids, rows, box, best, d_q, d_qoff, d_t, d_toff, scratch, out) -> None:
        """``tb_nw_path`` for the pairs ``rows`` (batch positions) and their boxes."""
        cp = self._cp
        m = (box[:, 1] - box[:, 0]).astype(np.int64)
        n = (box[:, 3] - box[:, 2]).astype(np.int64)
        doff, ooff, srow = _offsets(m * n), _offsets(m + n), _offsets(2 * (n + 1))
        k = rows.size
        sel = cp.asarray(rows)
        dirs = cp.empty(max(int(doff[-1]), 1), dtype=np.uint8)
        ops = cp.empty(max(int(ooff[-1]), 1), dtype=np.uint8)
        res = cp.empty(2 * k, dtype=np.int32)
        sc = self.scoring
        self._launch("tb_nw_path", k,
                     (d_q, d_qoff[sel], d_t, d_toff[sel], cp.asarray(np.ascontiguousarray(box)), self._matrix,
                      np.int32(self._K), np.int32(sc.gap_open), np.int32(sc.gap_extend), scratch,
                      cp.asarray(srow[:-1]), dirs, cp.asarray(doff[:-1]), ops, cp.asarray(ooff[:-1]), np.int32(k),
                      res))
        h_res = res.get().reshape(k, 2)
        h_ops = ops.get()
        # the paths were written backwards: read each forwards
        c = h_res[:, 0].astype(np.int64)
        noff = _offsets(c)
        seg = np.repeat(np.arange(k, dtype=np.int64), c)
        src = ooff[:-1][seg] + c[seg] - 1 - (np.arange(int(noff[-1]), dtype=np.int64) - noff[:-1][seg])
        batch = [pairs[ids[r]] for r in rows]
        alns = alignments_from_paths([p[0] for p in batch], [p[1] for p in batch], sc, box[:, 0], box[:, 2],
                                     h_ops[src], noff, best)
        for r, aln in zip(rows, alns):
            out[ids[r]] = aln
