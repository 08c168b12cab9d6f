"""The layout of the GPU scan's work: problems (a query against a window
of a record), their batches, and the descriptors the kernels of
``kernels/scan.cu`` read -- host logic of
:class:`~swgpu.engines.cuda.scan.CudaGenomeScanner`, which inherits
:class:`ScanLayout`.

A call's layout depends only on the queries' lengths, thresholds, the
records and the options, not on the letters: :meth:`ScanLayout._plan` keeps
the last one, and a later call of the same shape (another batch of queries
of the same lengths) reuses it, with the device copies of its descriptors.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...align.scan_rule import cap_span, span_bound

__all__ = ["ScanLayout", "Plan", "Batch", "rows_per_lane", "FIELDS", "WINDOW", "ROW_BUDGET", "PAIR_LIMIT",
           "ONE_STRIP", "LONG_STRIP", "WARPS"]

FIELDS = 12
WARPS = 8
#: Own columns per problem.
WINDOW = 4096
#: The fewest own columns per problem when :attr:`ScanLayout.fill`
#: sizes the windows, the warps per multiprocessor of one wave of problems,
#: and how many times :data:`WINDOW` the windows grow to at most.
MIN_WINDOW = 1024
FILL_WARPS = 16
WIDEST = 16
#: The warps per multiprocessor of a wave where one wave holds every problem
#: and its windows stay at least ``FULL_WINDOW`` columns wide (every block the
#: pair kernels can keep resident: 3 of 8 warps).
FULL_WARPS = 24
FULL_WINDOW = 8192
#: Row-buffer ints of one launch (3 per window column; 4 GiB).
ROW_BUDGET = 1 << 30
#: Scores of the 16-bit pair kernels stay under this (m * max + open), as do
#: twice the gap costs.
PAIR_LIMIT = 1 << 14
#: Query rows per lane of the kernel shapes (a warp covers 32 x R rows a strip).
ROWS_PER_LANE = (1, 2, 4, 8, 16)
#: Rows of the tallest strip of the short kernels: queries up to this long
#: run in one strip.
ONE_STRIP = 32 * ROWS_PER_LANE[-1]
#: Rows of one strip of the long kernel (32 lanes x 16 rows).
LONG_STRIP = 512


def rows_per_lane(m):
    """The kernel shape for a query of ``m`` letters (an int, or an array of
    them): the fewest rows per lane that cover it in one strip, at most 16."""
    r = _SHAPE_OF[np.minimum(np.maximum(m, 0), ONE_STRIP)]
    return int(r) if np.ndim(m) == 0 else r


_SHAPES = np.asarray(ROWS_PER_LANE)
_SHAPE_OF = _SHAPES[np.minimum(np.searchsorted(32 * _SHAPES, np.arange(ONE_STRIP + 1)), _SHAPES.size - 1)]


def _groups(keys: np.ndarray, where: np.ndarray) -> list:
    """``(key, rows)`` for each key (small non-negative ints) among the rows
    ``where`` selects; ``rows`` is None when it is every row."""
    chosen = keys[where]
    if chosen.size == 0:
        return []
    if chosen.size == keys.size and chosen[0] == chosen.min() == chosen.max():
        return [(int(chosen[0]), None)]
    return [(int(k), where & (keys == k)) for k in np.flatnonzero(np.bincount(chosen))]


def _pairs(d: np.ndarray, index: np.ndarray) -> np.ndarray:
    """Problems of ``d`` (rows ``index`` of the launch's descriptors) two by
    two, each pair of one query (a problem left alone is paired with
    itself): an ``(n, 2)`` int32 array of descriptor rows."""
    first = np.ones(d.shape[0], dtype=bool)
    first[1:] = d[1:, 0] != d[:-1, 0]  # a query's problems are consecutive
    run = np.cumsum(first) - 1
    start = np.flatnonzero(first)
    pos = np.arange(d.shape[0]) - start[run]  # position within the query's run
    lows = np.flatnonzero(pos % 2 == 0)
    nxt = np.minimum(lows + 1, d.shape[0] - 1)
    highs = np.where((lows + 1 < d.shape[0]) & ~first[nxt], lows + 1, lows)
    return np.stack([index[lows], index[highs]], axis=1).astype(np.int32)


@dataclass(eq=False)
class Batch:
    """``take`` consecutive problems launched together: their descriptors
    ``d`` (row-buffer offsets set; window starts in genome columns), which
    run on the long kernel, the ints of their row buffers, the room for
    their end points, and ``memo``: what the launcher derived from them
    (device copies), kept with the plan."""

    take: int
    d: np.ndarray
    long: np.ndarray
    ints: int
    cap: int
    own_cols: np.ndarray
    memo: dict = field(default_factory=dict)


@dataclass(eq=False)
class Plan:
    """How many problems a call has, its batches, the genome columns
    they read (``g0`` to ``g1``) and whether they may alternate between two
    streams."""

    key: tuple
    problems: int
    batches: list
    g0: int
    g1: int
    two_streams: bool


class ScanLayout:
    """The layout methods of the GPU scanner. The instance has ``scoring``,
    ``method``, ``window``, ``fill`` (windows sized to fill whole waves of
    the GPU), ``long_query``, ``_pair`` (the pair kernels, or None),
    ``_sms``, ``_long_blocks``, ``_two_streams`` and the caches
    ``_layouts`` and ``_last_plan``."""

    def _window(self, m: int, span: int | None, r: int, length, short: int):
        """Own columns per problem of each record (``length``: the records'
        own letters, an array): ``short``, or for long queries as many
        columns as leave every warp of the long kernel a strip (parts at
        least four times their lead-in)."""
        length = np.asarray(length, dtype=np.int64)
        if m < self.long_query:
            return np.full(length.shape, short, dtype=np.int64)
        if self.method == "rowscan":  # one problem per record: a row's scan spans the record
            return np.maximum(self.window, length)
        lead = (np.maximum(length, 1) if span is None else span) + 2 * r
        strips = -(-m // LONG_STRIP)
        parts = np.maximum(1, np.minimum(-(-self._long_blocks * WARPS // strips), length // (4 * lead)))
        return np.maximum(self.window, -(-length // parts))

    def _short_window(self, queries, lengths) -> int:
        """Own columns per problem of the short kernels: :attr:`window`, or
        with :attr:`fill` the narrowest width (a multiple of 32, at least
        ``MIN_WINDOW``, at most ``WIDEST`` times :attr:`window`) whose
        problems fill the fewest whole waves: ``FILL_WARPS`` warps (two
        problems a warp on the pair kernels) on every multiprocessor a
        wave -- or ``FULL_WARPS`` when one such wave holds every problem
        and still gets windows of ``FULL_WINDOW`` columns. ``lengths``: the
        own letters of each record.

        A wave's time follows its problems' width: with ``k`` waves of
        ``w`` columns and ``lead`` lead-in columns the time goes as
        ``k * (w + lead)``, where ``k * w`` is fixed by the letters -- fewer
        waves are faster, and within them narrower problems; a wave and a
        bit (a few multiprocessors running twice while the rest wait) costs
        as much as two. More warps a multiprocessor hide more of each one's
        latency, but narrow the windows (more lead-in per own column). The
        choice between 8, 16 and 24 warps was measured on an H100 with 256-bp
        queries against E. coli (BENCHMARKS.md)."""
        if not self.fill:
            return self.window
        short = sum(1 for q in queries if 0 < q.size < self.long_query)
        lengths = np.asarray(lengths, dtype=np.int64)
        lengths = lengths[lengths > 0]
        if short == 0 or lengths.size == 0:
            return self.window
        return self._fill_window(short, lengths)

    def _fill_window(self, short: int, lengths: np.ndarray) -> int:
        width, waves = self._waves_window(short, lengths, FILL_WARPS)
        if waves == 1:
            full, waves = self._waves_window(short, lengths, FULL_WARPS)
            if waves == 1 and full >= FULL_WINDOW:
                return full
        return width

    def _waves_window(self, short: int, lengths: np.ndarray, warps: float) -> tuple[int, int]:
        """The narrowest window whose problems fill the fewest whole waves of
        ``warps`` warps a multiprocessor, and how many waves."""
        want = max(1, int((2 if self._pair is not None else 1) * warps * self._sms))
        least, widest = min(MIN_WINDOW, self.window), max(self.window, WIDEST * self.window)

        def problems(width: int) -> int:
            return short * int((-(-lengths // width)).sum())

        waves = -(-problems(widest) // want)
        cap = waves * want  # the fewest whole waves
        lo, hi = -(-least // 32), -(-widest // 32)  # in units of 32 columns; problems(32 * hi) <= cap
        while lo < hi:
            mid = (lo + hi) // 2
            if problems(32 * mid) <= cap:
                hi = mid
            else:
                lo = mid + 1
        return min(widest, max(least, 32 * lo)), waves

    def _layout(self, m: int, span: int | None, r: int, short_window: int, bounds: np.ndarray, first: int,
                end: int, linked: bool = True) -> np.ndarray:
        """The problems of one query of ``m`` letters along every record
        (descriptor fields 1-3, 5-7, 9 and 11), kept for later calls with the
        same shapes. ``linked``: a problem reads the rule's neighbourhood
        from the problems beside it in its record (field 11: bit 0 the one
        before, bit 1 the one after); else each reaches ``r`` letters
        further itself."""
        key = (m, span, r, short_window, first, end, bounds.tobytes(), self.window, self.long_query, self.method,
               linked)
        got = self._layouts.get(key)
        if got is not None:
            return got
        lo, hi = bounds[:-1], bounds[1:]
        a0, a1 = np.maximum(lo, first), np.minimum(hi, end)
        length = np.maximum(a1 - a0, 0)
        window = self._window(m, span, r, length, short_window)
        count = -(-length // window)
        rec = np.repeat(np.arange(lo.size), count)
        starts = np.zeros(lo.size, dtype=np.int64)
        np.cumsum(count[:-1], out=starts[1:])
        k = np.arange(rec.size) - starts[rec]
        a = a0[rec] + k * window[rec]
        b = np.minimum(a + window[rec], a1[rec])
        before = (k > 0) & linked
        after = (k < count[rec] - 1) & linked
        w0 = np.maximum(lo[rec], a - np.where(before, 0, r) - (span - 1)) if span is not None else lo[rec]
        w1 = np.minimum(hi[rec], b + np.where(after, 0, r))
        part = np.zeros((a.size, FIELDS), dtype=np.int64)
        part[:, 1], part[:, 2], part[:, 3] = m, w0, w1 - w0
        part[:, 5], part[:, 6], part[:, 7], part[:, 9] = a - w0, b - w0, r, w0
        part[:, 11] = before + 2 * after
        part.flags.writeable = False
        if len(self._layouts) >= 64:
            self._layouts.clear()
        self._layouts[key] = part
        return part

    def _problems(self, queries, bounds, floors, own=None, radius=None, max_span=None,
                  linked: bool = True) -> np.ndarray:
        """Descriptors of every problem, query by query (the windows of
        queries of one length are laid out once; ``linked``: see :meth:`_layout`)."""
        sc = self.scoring
        first, end = (0, int(bounds[-1])) if own is None else (int(own[0]), int(own[1]))
        short_window = self._short_window(queries, np.minimum(bounds[1:], end) - np.maximum(bounds[:-1], first))
        sizes = np.array([q.size for q in queries], dtype=np.int64)
        qoff = np.zeros(len(queries) + 1, dtype=np.int64)
        np.cumsum(sizes, out=qoff[1:])
        floors = np.asarray(floors, dtype=np.int64)
        blocks = []
        for m in np.unique(sizes[sizes > 0]).tolist():
            span = cap_span(span_bound(m, sc.matrix.max_score, sc.gap_open, sc.gap_extend), max_span)
            r = max(m if radius is None else int(radius), 1)
            layout = self._layout(m, span, r, short_window, bounds, first, end, linked)
            if not layout.shape[0]:
                continue
            ks = np.flatnonzero(sizes == m)
            block = np.tile(layout, (ks.size, 1))
            each = np.repeat(ks, layout.shape[0])
            block[:, 0], block[:, 8], block[:, 10] = qoff[each], floors[each], each
            blocks.append(block)
        if not blocks:
            return np.zeros((0, FIELDS), dtype=np.int64)
        if len(blocks) == 1:  # one query length: already in query order
            return blocks[0]
        desc = np.concatenate(blocks)
        return desc[np.argsort(desc[:, 10], kind="stable")]

    def _needs(self, desc: np.ndarray):
        """Which problems run on the long kernel, the rows of ints each
        keeps (1: the column maxima only), and the ints of its buffers."""
        is_long = desc[:, 1] >= self.long_query
        if self.method == "rowscan":
            is_long[:] = False
            ints = np.full(desc.shape[0], 5)
        else:  # problems of one strip keep only their column maxima
            ints = np.where(is_long, 6, np.where(desc[:, 1] <= ONE_STRIP, 1, 3))
        need = ints * (desc[:, 3] + 1)
        if self.method == "rowscan":  # and four rows of bytes (kernels/scan.cu, sc_rowscan)
            need += 4 * (desc[:, 3] // 4 + 3)
        return is_long, ints, need

    def _paired(self, d: np.ndarray) -> np.ndarray:
        """Which problems run two to a warp in 16-bit halves: queries of one
        strip whose scores (and gap costs) fit well inside 16 bits."""
        if self._pair is None or d.shape[0] == 0:
            return np.zeros(d.shape[0], dtype=bool)
        m = d[:, 1]
        return (m <= ONE_STRIP) & (m * self.scoring.matrix.max_score + self.scoring.gap_open < PAIR_LIMIT)

    def _plan(self, queries, bounds, floors, own=None, radius=None, max_span=None) -> Plan:
        """The problems of a call and their batches (the last plan again
        when the call has its shape). A batch holds whole queries, whose
        problems read each other's column maxima, unless one query's
        problems need more than ``ROW_BUDGET`` ints: then none is linked
        and batches cut anywhere."""
        sizes = np.array([q.size for q in queries], dtype=np.int64)
        key = (sizes.tobytes(), np.asarray(floors, dtype=np.int64).tobytes(), bounds.tobytes(),
               None if own is None else (int(own[0]), int(own[1])), radius, max_span, self.window, self.fill,
               self.long_query, self.method, FILL_WARPS, MIN_WINDOW, WIDEST, ROW_BUDGET, self._two_streams)
        last = self._last_plan
        if last is not None and last.key == key:
            return last
        desc = self._problems(queries, bounds, floors, own, radius, max_span)
        is_long, ints, need = self._needs(desc)
        # where each query's problems end
        ends = np.append(np.flatnonzero(desc[1:, 10] != desc[:-1, 10]) + 1, desc.shape[0]) if desc.shape[0] else need
        cum = np.cumsum(need)
        if ends.size and np.diff(cum[ends - 1], prepend=0).max() > ROW_BUDGET:
            # a query's problems need more than a batch: each reaches its neighbourhood itself
            desc = self._problems(queries, bounds, floors, own, radius, max_span, linked=False)
            is_long, ints, need = self._needs(desc)
            ends = np.arange(1, desc.shape[0] + 1)
            cum = np.cumsum(need)
        only_c = ints == 1
        lead = 2 * (int(desc[only_c, 3].max()) + 1) if only_c.any() else 0  # room before a C-only slot
        batches, start = [], 0
        while start < desc.shape[0]:
            base = int(cum[start - 1]) if start else 0
            stop = int(np.searchsorted(cum[ends - 1] - base, ROW_BUDGET, side="right"))
            first_end = int(np.searchsorted(ends, start, side="right"))
            take = int(ends[max(stop, first_end + 1) - 1]) - start
            d = desc[start:start + take].copy()
            off = np.zeros(take + 1, dtype=np.int64)
            np.cumsum(need[start:start + take], out=off[1:])
            # H, F, C of a problem at d[4] (C only: H and F would lie in the slots before)
            d[:, 4] = lead + off[:-1] - np.where(only_c[start:start + take], 2 * (d[:, 3] + 1), 0)
            own_cols = d[:, 6] - d[:, 5]
            cap = int((own_cols // (d[:, 7] + 1) + 1).sum())
            batches.append(Batch(take, d, is_long[start:start + take], lead + int(off[-1]), cap, own_cols))
            start += take
        g0 = int(desc[:, 2].min()) if desc.shape[0] else 0
        g1 = int((desc[:, 2] + desc[:, 3]).max()) if desc.shape[0] else 0
        # batches alternate between two streams, so that one batch's kernels
        # fill the GPU while the last blocks of the one before drain (the
        # long kernel, whose warps wait on each other, keeps one)
        plan = Plan(key, int(desc.shape[0]), batches, g0, g1, self._two_streams and len(batches) > 1 and not is_long.any())
        self._last_plan = plan
        return plan
