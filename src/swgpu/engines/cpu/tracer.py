"""The CPU engine's traceback passes: SIMD striped kernels for the
score-and-end passes and the global rows, the Numba row kernels for small
pieces and the direction matrix.

``sw_end`` runs :func:`~.striped.sw_end_striped` (exact, with swgpu's end
rule) unless the pair is tiny or its profile too large. ``sw_start`` is the
same pass on the reversed prefixes that end the alignment: every alignment
in that region scoring ``best`` ends at the end cell (an earlier end would
contradict the end rule), so the first cell of the reversed local pass that
holds ``best`` is the latest start, as the anchored pass
(:func:`.pairwise.sw_start`) finds it. ``nw_last_row`` (the forward and
backward passes of the linear-memory Myers-Miller recursion) is the striped
global kernel of :mod:`.global_kernel`; ``nw_path`` (small pieces, with a
direction matrix) the row kernel of :mod:`.pairwise`. ``end_at_last``
(scan, genome-scale align): the end and start passes are striped local
passes with a bonus pair (:mod:`.anchored`). A pair traced alone gets the
threads: its end and start passes as a pipeline over column tiles
(:mod:`.striped_threads`), each Myers-Miller level's pieces side by side
(:mod:`.levels`); the alignments are the same, op for op.
"""

from __future__ import annotations

from ...align.traceback import BASE_CELLS as _SHARED_BASE_CELLS
from ...align.traceback import PairTracer

__all__ = ["SimdKernels", "LastColumnKernels", "CpuTracer", "SMALL_CELLS", "BASE_CELLS"]

#: Pairs of fewer cells than this run on the row kernel (less set-up).
SMALL_CELLS = 4096
#: Largest piece of the Myers-Miller recursion solved with a direction matrix.
#: The split points, and so which of several optimal paths is reported,
#: depend on it: every engine uses the one value of
#: :data:`swgpu.align.traceback.BASE_CELLS` (a smaller one here, where the
#: row kernel ``nw_path`` is slower per cell than the striped passes, gave
#: other optimal paths than the GPU on pairs above ``2**18`` cells).
BASE_CELLS = _SHARED_BASE_CELLS


class SimdKernels:
    """The four traceback passes (a :class:`~swgpu.align.traceback.TracebackKernels`).

    ``least``: a score the pair is known to reach (the search or screen
    pass's), so that the end pass starts in lanes wide enough for it instead
    of finding out in narrower ones; any value gives the same results.
    ``threads``: of the end and start passes of one pair (the Myers-Miller
    levels get theirs from the tracer, :mod:`.levels`).
    """

    def __init__(self, least: int | None = None, threads: int = 1):
        self.least = least
        #: threads of each end or start pass (:mod:`.striped_threads`)
        self.threads = max(1, int(threads))

    # kernels are imported on first use: building a tracer does not load Numba

    @staticmethod
    def nw_path(a, b, matrix, gap_open, gap_extend, lead_open, tail_open):
        import numpy as np

        from .pairwise import nw_path

        # (writable copies and int32 costs, as the batch traceback passes them: one compiled version)
        i32 = np.int32
        return nw_path(np.array(a, np.uint8), np.array(b, np.uint8), matrix, i32(gap_open), i32(gap_extend),
                       i32(lead_open), i32(tail_open))

    @staticmethod
    def nw_last_row(a, b, matrix, gap_open, gap_extend, lead_open):
        if a.shape[0] * b.shape[0] >= SMALL_CELLS and a.shape[0] > 0 and b.shape[0] > 0:
            from .global_kernel import nw_last_row, nw_last_row_striped
            from .jit import announce_compile

            announce_compile(nw_last_row_striped)
            got = nw_last_row(a, b, matrix, gap_open, gap_extend, lead_open)
            if got is not None:
                return got
        from .pairwise import nw_last_row

        return nw_last_row(a, b, matrix, gap_open, gap_extend, lead_open)

    @classmethod
    def nw_last_row_threads(cls, a, b, matrix, gap_open, gap_extend, lead_open, threads: int):
        """:meth:`nw_last_row` with its pass on ``threads`` threads (:mod:`.global_threads`)."""
        if threads > 1 and a.shape[0] * b.shape[0] >= SMALL_CELLS and a.shape[0] > 0 and b.shape[0] > 0:
            from .global_kernel import nw_last_row_part
            from .global_threads import nw_last_row_threads
            from .jit import announce_compile

            announce_compile(nw_last_row_part)
            got = nw_last_row_threads(a, b, matrix, gap_open, gap_extend, lead_open, threads)
            if got is not None:
                return got
        return cls.nw_last_row(a, b, matrix, gap_open, gap_extend, lead_open)

    def sw_end(self, q, t, matrix, gap_open, gap_extend) -> tuple[int, int, int]:
        if q.shape[0] * t.shape[0] >= SMALL_CELLS:
            from .jit import announce_compile
            from .striped import striped_pass
            from .striped_threads import striped_end_part, sw_end_threads

            announce_compile(striped_end_part if self.threads > 1 else striped_pass)
            got = sw_end_threads(q, t, matrix, gap_open, gap_extend, self.least, self.threads)
            if got is not None:
                return got
        from .pairwise import sw_end

        best, i, j = sw_end(q, t, matrix, gap_open, gap_extend)
        return int(best), int(i), int(j)

    @staticmethod
    def sw_end_last(q, t, matrix, gap_open, gap_extend) -> tuple[int, int, int]:
        from .pairwise import sw_end_last

        best, i, j = sw_end_last(q, t, matrix, gap_open, gap_extend)
        return int(best), int(i), int(j)

    def sw_start(self, rq, rt, matrix, gap_open, gap_extend, best) -> tuple[int, int]:
        score, i, j = SimdKernels(best, self.threads).sw_end(rq, rt, matrix, gap_open, gap_extend)
        if score == best:
            return i, j
        from .pairwise import sw_start  # not reached for a true end cell

        return sw_start(rq, rt, matrix, gap_open, gap_extend, best)


class LastColumnKernels(SimdKernels):
    """:class:`SimdKernels` for alignments that end at the target's last
    letter (``end_at_last``): the end there is the best of the last column,
    not the first best cell, so the shortcut of :meth:`SimdKernels.sw_start`
    (a plain local pass over the reversed prefixes) does not hold; the start
    comes from the anchored pass. Both passes run on the striped local kernel
    with a bonus pair (:mod:`.anchored`), tiny pairs on the row kernels."""

    def sw_end_last(self, q, t, matrix, gap_open, gap_extend) -> tuple[int, int, int]:
        if q.shape[0] * t.shape[0] >= SMALL_CELLS:
            from .anchored import sw_end_last

            got = sw_end_last(q, t, matrix, gap_open, gap_extend, self.least, self.threads)
            if got is not None:
                return int(got[0]), int(got[1]), int(got[2])
        return SimdKernels.sw_end_last(q, t, matrix, gap_open, gap_extend)

    def sw_start(self, rq, rt, matrix, gap_open, gap_extend, best) -> tuple[int, int]:
        if rq.shape[0] * rt.shape[0] >= SMALL_CELLS:
            from .anchored import sw_start as striped_start

            got = striped_start(rq, rt, matrix, gap_open, gap_extend, best, self.threads)
            if got is not None:
                return int(got[0]), int(got[1])
        from .pairwise import sw_start

        i, j = sw_start(rq, rt, matrix, gap_open, gap_extend, best)
        return int(i), int(j)


class CpuTracer(PairTracer):
    """:class:`~swgpu.align.traceback.PairTracer` on :class:`SimdKernels`:
    many pairs go to the executor largest first (its threads take them as
    they finish), each starting in the lanes its known score needs."""

    #: Pairs of at most this many cells are traced packed (:meth:`trace_packed`): per pair
    #: faster than one by one and on all threads; larger ones with the striped kernels, one by one.
    PACKED_CELLS = 1 << 22

    def align(self, query, target):
        """The optimal local alignment, its Myers-Miller levels on :attr:`threads` threads."""
        from .levels import local_align_threads

        self.check(query, target)
        kernels = self.kernels
        if self.threads > 1 and type(kernels) is SimdKernels:
            kernels = SimdKernels(kernels.least, self.threads)
        return local_align_threads(kernels, query, target, self.scoring, self.base_cells, False, self.threads)

    def align_many(self, pairs, executor=None, expected=None, end_at_last: bool = False) -> list:
        pairs = list(pairs)
        if len(pairs) > 1:
            return self._align_packed(pairs, executor, expected, end_at_last)
        return self._align_each(pairs, executor, expected, end_at_last)

    def _align_packed(self, pairs, executor, expected, end_at_last: bool = False) -> list:
        """The small pairs traced packed, the others one by one; in order."""
        import numpy as np

        from ...align.batch import AlignmentBatch

        for q, t in pairs:
            self.check(q, t)
        small = [k for k, (q, t) in enumerate(pairs) if len(q.text) * len(t.text) <= self.PACKED_CELLS]
        out: list = [None] * len(pairs)
        if small:
            qs, ts = [pairs[k][0] for k in small], [pairs[k][1] for k in small]
            ql = np.array([len(q.text) for q in qs], dtype=np.int64)  # (a Sequence's length: its text's)
            tl = np.array([len(t.text) for t in ts], dtype=np.int64)
            qo, to = np.zeros(ql.size + 1, np.int64), np.zeros(tl.size + 1, np.int64)
            np.cumsum(ql, out=qo[1:])
            np.cumsum(tl, out=to[1:])
            qc = np.concatenate([q.codes for q in qs]).astype(np.uint8, copy=False)
            tc = np.concatenate([t.codes for t in ts]).astype(np.uint8, copy=False)
            paths = self.trace_packed(qc, qo[:-1], ql, tc, to[:-1], tl, threads=getattr(executor, "threads", None),
                                      end_at_last=end_at_last)
            idx = np.arange(len(small))
            batch = AlignmentBatch.from_paths(qc, qo, tc, to, idx, idx, paths.i0, paths.j0, paths.ops, paths.off,
                                              paths.best, self.scoring.alphabet.unknown_code)
            for k, aln in zip(small, batch.alignments(qs, ts, self.scoring)):
                out[k] = aln
        rest = [k for k in range(len(pairs)) if out[k] is None]
        if rest:
            hints = None if expected is None else [list(expected)[k] for k in rest]
            for k, aln in zip(rest, self._align_each([pairs[k] for k in rest], executor, hints, end_at_last)):
                out[k] = aln
        return out

    def _align_each(self, pairs, executor, expected, end_at_last: bool) -> list:
        """One pair at a time on the executor's threads, largest first. A pair
        of more than a thread's share of all cells is traced first, on its
        share of the threads (the levels of its recursion side by side),
        beside the other such pairs; the rest one thread each."""
        from .levels import local_align_threads

        hints = list(expected) if expected is not None else [None] * len(pairs)
        plain = self.kernels

        def one(k, inner):
            q, t = pairs[k]
            self.check(q, t)
            if end_at_last:
                kernels = LastColumnKernels(hints[k], inner)
            else:
                kernels = SimdKernels(hints[k], inner) if hints[k] or inner > 1 else plain
            return local_align_threads(kernels, q, t, self.scoring, self.base_cells, end_at_last, inner)

        threads = max(1, getattr(executor, "threads", None) or self.threads)
        cells = [len(q) * len(t) for q, t in pairs]
        order = sorted(range(len(pairs)), key=lambda k: -cells[k])
        total = sum(cells) or 1
        big = [k for k in order if cells[k] * threads > total] if threads > 1 else []
        share = sum(cells[k] for k in big) or 1
        inner = {k: max(1, threads * cells[k] // share) for k in big}
        small = order[len(big):]

        def run(ks, widths):
            if executor is None or len(ks) <= 1:
                return [one(k, w) for k, w in zip(ks, widths)]
            return executor.map(lambda kw: one(*kw), list(zip(ks, widths)))

        out: list = [None] * len(pairs)
        for k, aln in zip(big + small, run(big, [inner[k] for k in big]) + run(small, [1] * len(small))):
            out[k] = aln
        return out

    #: Threads of :meth:`trace_packed` (the engine's).
    threads = 1

    def trace_packed(self, qcodes, qstart, qlen, tcodes, tstart, tlen, expected=None, threads: int | None = None,
                     end_at_last: bool = False, ends=None):
        """The paths of many pairs whose codes lie end to end (see
        :meth:`swgpu.engines.cuda.traceback.CudaTracer.trace_packed`): short
        ones traced in compiled ranges on :attr:`threads` threads
        (:mod:`.batch_trace`), the few whose box between start and end is
        larger than ``base_cells`` by the Myers-Miller passes of
        :func:`~swgpu.align.traceback.global_ops`; the alignments of
        :meth:`align`, path for path. ``expected`` is not needed; ``threads``:
        default :attr:`threads`; ``end_at_last``: as :meth:`align_many`; ``ends``:
        each pair's ``(score, end row, end column)`` where a scorer found them
        (:meth:`~.engine.CpuPairScorer.scores_and_ends`; -1 elsewhere), not looked for again."""
        import numpy as np

        from ...align.batch import Paths
        from .batch_trace import trace_packed
        from .levels import global_ops_threads

        sc = self.scoring
        matrix = np.ascontiguousarray(sc.matrix.values, dtype=np.int32)
        best, i0, j0, i1, j1, ops, off, big = trace_packed(qcodes, qstart, qlen, tcodes, tstart, tlen, matrix,
                                                            sc.gap_open, sc.gap_extend, self.base_cells,
                                                            threads or self.threads, end_at_last, ends)
        if big.size:  # their paths between the found start and end, divided first
            pieces = {}
            for k in big.tolist():
                q = qcodes[qstart[k] + i0[k]:qstart[k] + i1[k]]
                t = tcodes[tstart[k] + j0[k]:tstart[k] + j1[k]]
                pieces[k] = global_ops_threads(self.kernels, q, t, matrix, sc.gap_open, sc.gap_extend,
                                               self.base_cells, threads or self.threads)
            sizes = np.diff(off)
            parts, at = [], 0
            for k in sorted(pieces):  # each one's path where its (empty) path lies
                parts += [ops[at:off[k]], pieces[k]]
                at = off[k]
                sizes[k] = pieces[k].size
            ops = np.concatenate(parts + [ops[at:]])
            off = np.zeros(sizes.size + 1, dtype=np.int64)
            np.cumsum(sizes, out=off[1:])
        return Paths(best, i0, j0, ops, off)

