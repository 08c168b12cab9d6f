"""CPU database search: one query against every database sequence, a
database *window* per SIMD lane (the kernel is :mod:`.search_kernel`).

Each lane scores one window of the database, ``(start, length)`` in its
residues, read in place (the database is never copied or padded). Windows
are laid out in batches of one vector's lanes by increasing length, so a
batch's lanes have similar lengths; the threads take batches from a shared
queue, longest first (:mod:`.threads`).

Passes: every window is scored first in 8-bit lanes (64 per vector); the
windows whose score may have saturated are re-scored in 16-bit lanes (32 per
vector), and those in 32-bit lanes (16). Scores are exact ``int32``.

A sequence is one window, unless it is longer than :data:`LONG`: then, per
query, it is cut into overlapping windows (:func:`split_windows`) so that its
columns fill all lanes and no batch is as wide as the sequence. Any local
alignment scoring above 0 spans at most ``span = m + m * max // gap_extend +
1`` residues of the sequence (``m`` the query length, ``max`` the largest
matrix entry: every gap column costs at least ``gap_extend``), so windows of
``stride + span - 1`` residues every ``stride`` hold every such alignment
whole, and the sequence's score is its best window's. Without gap costs
(``gap_extend == 0``) spans are unbounded and the sequence is one window.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ...align.span import alignment_span, window_geometry
from ...io.compiled import read_only, read_only_codes
from ...io.database import length_order
from .lanes import LANE_TYPES, lanes_of, score_tables

__all__ = ["LANES", "LONG", "STRIDE", "Windows", "split_windows", "CpuSearchEngine"]

#: Lanes of the first (8-bit) pass.
LANES = 64
#: Sequences longer than this are scored on overlapping windows.
LONG = 1 << 17
#: Least stride of those windows (at least 4 spans, so overlaps cost under a quarter).
STRIDE = 1 << 16


@dataclass
class Windows:
    """Windows in batches: ``seq``, ``start``, ``length`` are (batches, lanes)
    int64 arrays (``seq == -1`` and ``length == 0`` in empty lanes)."""

    seq: np.ndarray
    start: np.ndarray
    length: np.ndarray

    @classmethod
    def of(cls, seq: np.ndarray, start: np.ndarray, length: np.ndarray, lanes: int = LANES) -> "Windows":
        """Windows listed in order, ``lanes`` to a batch."""
        nbatch = -(-len(seq) // lanes)
        arrays = []
        for values, fill in ((seq, -1), (start, 0), (length, 0)):
            out = np.full(nbatch * lanes, fill, dtype=np.int64)
            out[: len(values)] = values
            arrays.append(out.reshape(nbatch, lanes))
        return cls(*arrays)

    @property
    def lanes(self) -> int:
        return self.seq.shape[1]

    def flat(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(seq, start, length)`` of the used lanes, in batch order."""
        used = self.seq >= 0
        return self.seq[used], self.start[used], self.length[used]

    def select(self, seqs: np.ndarray) -> "Windows":
        """The windows of the sequences ``seqs``, in the same order, re-batched."""
        keep = np.isin(self.seq, seqs) & (self.seq >= 0)
        return Windows.of(self.seq[keep], self.start[keep], self.length[keep], self.lanes)

    @property
    def columns(self) -> int:
        """Columns of all batches (each as wide as its longest window)."""
        return int(self.length.max(axis=1).sum()) if self.length.size else 0

    def queue(self) -> np.ndarray:
        """Batch indices, widest first (the order the threads take them)."""
        return np.argsort(-self.length.max(axis=1), kind="stable").astype(np.int64) if self.length.size \
            else np.zeros(0, dtype=np.int64)


def split_windows(offsets: np.ndarray, ids: np.ndarray, span: int | None, stride: int = STRIDE,
                  lanes: int = LANES) -> Windows:
    """Windows of the sequences ``ids``: ``stride + span - 1`` residues every
    ``stride`` (``stride`` raised to ``4 * span``); a sequence that fits one
    window, or any sequence when ``span`` is None, is one window."""
    ids = np.asarray(ids, dtype=np.int64)
    lengths = offsets[ids + 1] - offsets[ids]
    if span is None:
        return Windows.of(ids, offsets[ids], lengths, lanes)
    stride, width = window_geometry(span, stride)
    count = np.where(lengths > width, -(-(lengths - width) // stride) + 1, 1)
    seq = np.repeat(ids, count)
    first = np.repeat(np.cumsum(count) - count, count)
    skip = (np.arange(seq.size) - first) * stride  # window k of its sequence starts at k * stride
    length = np.minimum(width, np.repeat(lengths, count) - skip)
    return Windows.of(seq, offsets[seq] + skip, length, lanes)


class CpuSearchEngine:
    """Scores queries against a whole database on all CPU cores (a
    :class:`~swgpu.engines.base.DatabaseScorer`).

    Build with the matrix and gap penalties, :meth:`load_database` once, then
    :meth:`scores_many`. Windows go through 8-, 16- and 32-bit passes (module
    docs); sequences longer than ``long_length`` are scored on windows at
    least ``stride`` apart. Memory beyond the database is a few dozen bytes per
    window and per sequence, and each thread's query-long DP columns.
    """

    def __init__(self, matrix: np.ndarray, gap_open: int, gap_extend: int, long_length: int = LONG,
                 stride: int = STRIDE, threads: int | None = None):
        from .threads import default_threads

        matrix = np.asarray(matrix, dtype=np.int64)
        self.gap_open = int(gap_open)
        self.gap_extend = int(gap_extend)
        self._pad = matrix.shape[0]
        self._max_score = int(matrix.max())
        self.threads = default_threads(threads)
        #: (lane type, score tables, bias) of each pass the scores fit
        self._passes = []
        for dtype in LANE_TYPES:
            made = score_tables(matrix, dtype, self._pad)
            if made is not None:
                self._passes.append((dtype, *made))
        self.long_length = int(long_length)
        self.stride = int(stride)
        self._short: dict[int, Windows] = {}
        self._split: tuple[int | None, dict[int, Windows]] | None = None
        self._offsets = None
        self.last_timing: dict = {}

    def load_database(self, residues: np.ndarray, offsets: np.ndarray) -> None:
        # (read-only whoever holds them, a mapped .swdb or an array read from FASTA: one compiled version)
        self._residues = read_only_codes(residues)
        self._offsets = np.ascontiguousarray(offsets, dtype=np.int64)
        order = length_order(self._offsets)
        lengths = np.diff(self._offsets)[order]
        cut = int(np.searchsorted(lengths, self.long_length, side="right"))
        self._short_ids = order[:cut]
        self._short = {}
        self._long = order[cut:]
        self._split = None

    def compile(self, query_lengths=()) -> float:
        """Load (or, once per machine, compile) the kernels of the passes every
        search runs (all but the last, the widest, which only scores past the
        others' range need: it is compiled when first needed); seconds."""
        from .jit import announce_compile
        from .search_kernel import search_batches

        t0 = time.perf_counter()
        announce_compile(search_batches)
        res = read_only(np.zeros(1, dtype=np.uint8))
        query = read_only(np.zeros(1, np.uint8))
        for dtype, tables, bias in self._passes[:-1] if len(self._passes) > 1 else self._passes:
            lanes = lanes_of(dtype)
            z = np.zeros((1, lanes), dtype=np.int64)
            search_batches(query, tables, res, z, z, self._pad, np.zeros(1, np.int64),
                           np.zeros(1, np.int64), 1, 1, bias, np.zeros((1, lanes), dtype=dtype))
        return time.perf_counter() - t0

    def _short_windows(self, lanes: int) -> Windows:
        if lanes not in self._short:
            ids = self._short_ids
            self._short[lanes] = Windows.of(ids, self._offsets[ids], self._offsets[ids + 1] - self._offsets[ids],
                                            lanes)
        return self._short[lanes]

    def layouts(self, query_length: int, lanes: int = LANES) -> list[Windows]:
        """The windows a query of ``query_length`` is scored on: the whole
        sequences, then the windows of the long ones (kept for the next query
        of the same span)."""
        if self._offsets is None:
            raise RuntimeError("load_database() first")
        short = self._short_windows(lanes)
        if not self._long.size:
            return [short]
        span = alignment_span(query_length, self._max_score, self.gap_extend)
        if self._split is None or self._split[0] != span:
            self._split = (span, {})
        cache = self._split[1]
        if lanes not in cache:
            cache[lanes] = split_windows(self._offsets, self._long, span, self.stride, lanes)
        return [short, cache[lanes]]

    def _run(self, query: np.ndarray, dtype, tables: np.ndarray, bias: int, w: Windows) -> np.ndarray:
        """Best score of every lane of ``w`` (saturated at the lane maximum), as int64."""
        from .jit import announce_compile
        from .search_kernel import search_batches
        from .threads import run_shared

        announce_compile(search_batches)
        top = np.iinfo(dtype).max
        best = np.zeros(w.seq.shape, dtype=dtype)
        if w.seq.size:
            queue = w.queue()
            go, ge = min(self.gap_open, top), min(self.gap_extend, top)
            run_shared(search_batches, lambda counter: (query, tables, self._residues, w.start, w.length, self._pad,
                                                        queue, counter, go, ge, bias, best),
                       self.threads, queue.size)
        return best.astype(np.int64)

    def scores(self, query: np.ndarray) -> np.ndarray:
        """Exact SW score of ``query`` against every database sequence (database order)."""
        t0 = time.perf_counter()
        query = read_only_codes(query)
        out = np.zeros(len(self._offsets) - 1, dtype=np.int32)
        pending: list[tuple] | None = None
        counts = []
        for n, (dtype, tables, bias) in enumerate(self._passes):
            lanes = lanes_of(dtype)
            if pending is None:
                layouts = self.layouts(len(query), lanes)
            else:
                layouts = [Windows.of(*p, lanes=lanes) for p in pending]
            pending = []
            limit = np.iinfo(dtype).max - bias if n < len(self._passes) - 1 else None
            for w in layouts:
                best = self._run(query, dtype, tables, bias, w)
                used = w.seq >= 0
                exact = used if limit is None else used & (best < limit)
                np.maximum.at(out, w.seq[exact], best[exact].astype(np.int32))
                redo = used & ~exact
                if redo.any():
                    pending.append((w.seq[redo], w.start[redo], w.length[redo]))
            counts.append((np.dtype(dtype).name, int(sum((w.seq >= 0).sum() for w in layouts))))
            if not pending:
                break
        self.last_timing = {"total": time.perf_counter() - t0, "windows": dict(counts),
                            "rescored": sum(c for _, c in counts[1:])}
        return out

    def scores_many(self, queries) -> list[np.ndarray]:
        """:meth:`scores` of each query (one after another, each on all cores)."""
        return [self.scores(q) for q in queries]
