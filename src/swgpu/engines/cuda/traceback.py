"""Batched traceback on the GPU: many pairs aligned per launch, any length.

:class:`CudaTracer` is the CUDA engine's :class:`~swgpu.engines.base.Tracer`.
The passes run in :mod:`~swgpu.engines.cuda.traceback_passes`
(``kernels/sw_traceback.cu``, a warp -- or a block, for long pairs -- per
problem): the end of the best local alignment, its start by an anchored
reverse pass, and the path between them by the CPU engine's Myers-Miller
divide and conquer down to pieces of ``base_cells`` cells, each solved with
4-bit directions and walked back on the GPU. Same recurrences, same tie rule
and same split points as the CPU engine, so both report the same alignment,
byte for byte (see :mod:`swgpu.align.reference`); memory is linear in the
pair's length. The alignments are then assembled for all pairs at once
(:func:`~swgpu.align.assembly.alignments_from_paths`).
"""

from __future__ import annotations

import threading

import numpy as np

from ...align.alignment import Alignment
from ...align.assembly import alignments_from_paths
from ...align.traceback import BASE_CELLS, check_pair
from ...io.sequence import Sequence
from ...io.writers.rows import use_device
from ...scoring import Scoring
from . import runtime
from .staging import stager
from .text_rows import DeviceText
from .traceback_kernels import part_jobs
from .traceback_passes import Paths, TracebackPasses
from .traceback_runs import offsets, spread_runs

__all__ = ["CudaTracer"]


class CudaTracer:
    """Optimal local alignments of pairs on GPU ``device_id`` (a
    :class:`~swgpu.engines.base.Tracer` with a batched :meth:`align_many`).

    ``base_cells``: largest piece of the divide and conquer solved with a full
    direction matrix -- the CPU tracer's value, so that both split the same way.
    """

    #: :meth:`trace_packed` may run on several threads at once (each has its own
    #: streams): the GPU's kernels of one batch run while another's host work does.
    concurrent = True

    def __init__(self, scoring: Scoring, device_id: int, base_cells: int = BASE_CELLS):
        self.scoring = scoring
        self.device_id = int(device_id)
        self.base_cells = int(base_cells)
        self._cp = runtime.cupy()
        m = np.ascontiguousarray(scoring.matrix.values, dtype=np.int32)
        self._K = int(m.shape[0])
        self._mmax = int(m.max())  # the best letter score (read here: no CuPy reduction kernel to load)
        with self._cp.cuda.Device(self.device_id):
            self._matrix = self._cp.asarray(m.ravel())
        self._local = threading.local()  # each thread's passes: their own streams
        runtime.prefetch(part_jobs(), self.device_id)  # compiled while the scores are made, side by side
        use_device(DeviceText(self.device_id))  # the alignments' lines of small batches made on this GPU too

    def check(self, query: Sequence, target: Sequence) -> None:
        check_pair(self.scoring, query, target)

    def align(self, query: Sequence, target: Sequence) -> Alignment:
        return self.align_many([(query, target)])[0]

    def score(self, query: Sequence, target: Sequence) -> int:
        return self.align(query, target).score

    def _ready(self) -> TracebackPasses:
        passes = getattr(self._local, "passes", None)
        if passes is None or passes.base_cells != self.base_cells:
            sc = self.scoring
            passes = self._local.passes = TracebackPasses(self._cp, self._matrix, self._K, sc.gap_open,
                                                          sc.gap_extend, self.base_cells, self._mmax)
        return passes

    def trace_packed(self, qcodes: np.ndarray, qstart, qlen, tcodes: np.ndarray, tstart, tlen,
                     expected=None, end_at_last: bool = False) -> Paths:
        """The paths of many pairs whose codes lie end to end in two host arrays:
        query ``k`` is ``qcodes[qstart[k]:qstart[k] + qlen[k]]``, target ``k``
        likewise; ``expected``: each pair's best score where known (an
        ``int64`` array, -1 elsewhere). Both arrays go to the GPU in one copy
        each; the paths come back packed (:class:`Paths`: best 0 and an empty
        path for a pair without an alignment, or with an empty sequence) --
        as their CIGAR runs and counts only (``runs``) where every path is one
        base piece of the traceback (:mod:`.traceback_runs`). ``end_at_last``: as :meth:`align_many`."""
        qstart, qlen = np.asarray(qstart, np.int64), np.asarray(qlen, np.int64)
        tstart, tlen = np.asarray(tstart, np.int64), np.asarray(tlen, np.int64)
        n = qlen.size
        live = np.flatnonzero((qlen > 0) & (tlen > 0))
        out = Paths(best=np.zeros(n, np.int64), i0=np.zeros(n, np.int64), j0=np.zeros(n, np.int64),
                    ops=np.zeros(0, np.uint8), off=np.zeros(n + 1, np.int64))
        if live.size == 0:
            return out
        cp = self._cp
        # only the span of codes these pairs use goes to the GPU
        qlo, qhi = int(qstart[live].min()), int((qstart[live] + qlen[live]).max())
        tlo, thi = int(tstart[live].min()), int((tstart[live] + tlen[live]).max())
        qcodes, tcodes = qcodes[qlo:qhi], tcodes[tlo:thi]
        qstart, tstart = qstart - qlo, tstart - tlo
        with cp.cuda.Device(self.device_id), runtime.thread_stream():  # (runtime.thread_stream: why)
            passes = self._ready()
            A, B = cp.empty(max(qcodes.size, 1), np.uint8), cp.empty(max(tcodes.size, 1), np.uint8)
            stream = cp.cuda.get_current_stream()  # (the passes start after the current stream's work)
            stager(cp).upload([(qcodes, A[:qcodes.size]), (tcodes, B[:tcodes.size])], stream).finish()
            exp = None if expected is None else np.asarray(expected, np.int64)[live]
            got = passes.trace_packed(A, qstart[live], qlen[live], B, tstart[live], tlen[live], exp, end_at_last,
                                      unknown=self.scoring.alphabet.unknown_code)
        if live.size == n:
            return got
        out.best[live], out.i0[live], out.j0[live] = got.best, got.i0, got.j0
        counts = np.zeros(n, np.int64)
        counts[live] = np.diff(got.off)
        out.off, out.ops = offsets(counts), got.ops
        out.runs = None if got.runs is None else spread_runs(got.runs, live, n)
        return out

    def align_many(self, pairs, executor=None, expected=None, end_at_last: bool = False) -> list[Alignment]:
        """Alignments of ``(query, target)`` pairs, in order. ``expected``: the
        best score of each pair where known (None elsewhere); the end pass of
        a pair stops after the rows where it is first reached. ``end_at_last``:
        each alignment ends with a pair at its target's last letter (the best
        such score, at its first row)."""
        pairs = list(pairs)
        alphabet = self.scoring.alphabet
        for q, t in pairs:
            if q.alphabet is not alphabet or t.alphabet is not alphabet:
                self.check(q, t)
        out: list = [None] * len(pairs)
        ids = [k for k, (q, t) in enumerate(pairs) if q.text and t.text]  # (a Sequence's length: its text's)
        if len(ids) < len(pairs):
            for k in set(range(len(pairs))) - set(ids):
                out[k] = Alignment.empty_for(*pairs[k])
        if not ids:
            return out
        cp = self._cp
        with cp.cuda.Device(self.device_id), runtime.thread_stream():  # (runtime.thread_stream: why)
            hint = None if expected is None else [expected[k] for k in ids]
            paths = self._ready().trace([pairs[k][0].codes for k in ids], [pairs[k][1].codes for k in ids], hint,
                                       end_at_last)
        live = np.flatnonzero(paths.best > 0)
        for r in np.flatnonzero(paths.best <= 0).tolist():
            out[ids[r]] = Alignment.empty_for(*pairs[ids[r]])
        if live.size:
            batch = [pairs[ids[r]] for r in live.tolist()]
            # pairs without an alignment have empty paths: the live ones' paths are all of ``ops``
            alns = alignments_from_paths([p[0] for p in batch], [p[1] for p in batch], self.scoring,
                                         paths.i0[live], paths.j0[live], paths.ops,
                                         offsets(np.diff(paths.off)[live]), paths.best[live])
            for r, aln in zip(live.tolist(), alns):
                out[ids[r]] = aln
        return out
