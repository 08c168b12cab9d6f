"""Host-side alignment assembly shared by every engine.

A pairwise alignment is found in four passes, each a kernel of the engine in
use (see :mod:`swgpu.align.reference` for the rule that picks one optimal alignment):

1. ``sw_end``: local score and end cell, score-only, O(n) memory;
2. ``sw_start``: an anchored pass over the reversed prefixes finds the start;
3. the path between start and end is an optimal *global* alignment of the two
   substrings, found by Myers-Miller divide and conquer (Hirschberg's idea for
   affine gaps): ``nw_last_row`` forward and backward meet on the middle row,
   the best crossing splits the problem in two, and pieces whose matrix is small
   (``base_cells``) are solved by ``nw_path`` with a full direction matrix.

Memory is O(m + n) plus ``base_cells`` bytes, whatever the lengths.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from ..io.sequence import Sequence
from ..scoring import Scoring
from .alignment import Alignment

__all__ = ["TracebackKernels", "PairTracer", "local_align", "global_ops", "check_pair", "split_column", "BASE_CELLS"]


class TracebackKernels(Protocol):
    """The passes of a pairwise alignment on one engine (code arrays in,
    ``matrix`` the ``int32`` substitution scores, positive gap costs)."""

    def sw_end(self, q, t, matrix, gap_open, gap_extend) -> tuple[int, int, int]:
        """``(best, i_end, j_end)``: local score and its end cell (see :mod:`swgpu.align.reference`)."""

    def sw_end_last(self, q, t, matrix, gap_open, gap_extend) -> tuple[int, int, int]:
        """The best score of an alignment ending with a pair at ``t``'s last letter and its first row: ``(score, i, len(t))``."""

    def sw_start(self, rq, rt, matrix, gap_open, gap_extend, best) -> tuple[int, int]:
        """On the reversed prefixes: ``(ri, rj)``, the start as distances from the end."""

    def nw_last_row(self, a, b, matrix, gap_open, gap_extend, lead_open) -> tuple[np.ndarray, np.ndarray]:
        """Last row of a global pass: ``(H, F)``; ``lead_open`` is the cost of a leading vertical gap."""

    def nw_path(self, a, b, matrix, gap_open, gap_extend, lead_open, tail_open) -> tuple[np.ndarray, int]:
        """``(ops, score)`` of an optimal global alignment with a full direction matrix."""

#: Largest sub-problem (cells) solved with a full direction matrix (1 byte/cell).
BASE_CELLS = 1 << 22

_OPS = np.frombuffer(b"MID", dtype=np.uint8)


def _rev(x: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(x[::-1])


def global_ops(kernels: TracebackKernels, a: np.ndarray, b: np.ndarray, matrix: np.ndarray, go: int, ge: int,
               base_cells: int = BASE_CELLS) -> np.ndarray:
    """Op codes (0 pair, 1 ``a`` vs gap, 2 ``b`` vs gap) of an optimal global alignment."""
    pieces: list[np.ndarray] = []
    _diff(kernels, np.ascontiguousarray(a), np.ascontiguousarray(b), matrix, go, ge, go, go, base_cells, pieces)
    return np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.uint8)


def _diff(kernels, a, b, matrix, go, ge, lead, tail, base_cells, out):
    m, n = a.shape[0], b.shape[0]
    if m == 0 or n == 0:
        if m or n:
            out.append(np.full(m + n, 1 if m else 2, dtype=np.uint8))
        return
    if m <= 1 or n <= 1 or m * n <= base_cells:
        ops, _ = kernels.nw_path(a, b, matrix, go, ge, lead, tail)
        out.append(ops)
        return
    mid = m // 2
    forward = kernels.nw_last_row(a[:mid], b, matrix, go, ge, lead)
    backward = kernels.nw_last_row(_rev(a[mid:]), _rev(b), matrix, go, ge, tail)
    gap, j = split_column(forward, backward, go, ge)
    if not gap:
        _diff(kernels, a[:mid], b[:j], matrix, go, ge, lead, go, base_cells, out)
        _diff(kernels, a[mid:], b[j:], matrix, go, ge, go, tail, base_cells, out)
    else:
        # a vertical gap covers a[mid-1] and a[mid] in column j
        _diff(kernels, a[: mid - 1], b[:j], matrix, go, ge, lead, ge, base_cells, out)
        out.append(np.ones(2, dtype=np.uint8))
        _diff(kernels, a[mid + 1 :], b[j:], matrix, go, ge, ge, tail, base_cells, out)


def split_column(forward, backward, go: int, ge: int) -> tuple[bool, int]:
    """Where the optimal path crosses the middle row, from the two half passes
    (``nw_last_row`` of the upper half forward, of the lower half reversed):
    ``(False, j)`` -- it passes between the halves at column ``j``; or
    ``(True, j)`` -- a vertical gap covers both rows beside the middle in column
    ``j``. The first such column, joins before gaps (the tie rule of every
    engine's traceback)."""
    cc, dd = forward
    rr, ss = backward
    join = cc.astype(np.int64) + rr[::-1].astype(np.int64)
    through_gap = dd.astype(np.int64) + ss[::-1].astype(np.int64) + (go - ge)
    j1 = int(np.argmax(join))
    j2 = int(np.argmax(through_gap))
    return (False, j1) if join[j1] >= through_gap[j2] else (True, j2)


def check_pair(scoring: Scoring, query: Sequence, target: Sequence) -> None:
    """InputError unless both sequences are of the scoring's alphabet."""
    scoring.check_sequences((query, target))


def local_align(kernels: TracebackKernels, query: Sequence, target: Sequence, scoring: Scoring,
                base_cells: int = BASE_CELLS, end_at_last: bool = False, path=None) -> Alignment:
    """Optimal local alignment of ``query`` against ``target`` with ``kernels``
    (``end_at_last``: the best one that ends at the target's last letter).
    ``path``: what finds the global path between start and end, called as
    :func:`global_ops` is (by default :func:`global_ops`)."""
    q, t = query.codes, target.codes
    matrix = scoring.matrix.values
    go, ge = scoring.gap_open, scoring.gap_extend
    end = kernels.sw_end_last if end_at_last else kernels.sw_end
    best, ie, je = end(q, t, matrix, go, ge)
    best = int(best)
    if best <= 0:
        return Alignment.empty_for(query, target)
    ri, rj = kernels.sw_start(_rev(q[:ie]), _rev(t[:je]), matrix, go, ge, best)
    if ri == 0:
        raise RuntimeError("start pass did not reach the best score; this is a bug")
    i0, j0 = ie - ri, je - rj
    ops = (path or global_ops)(kernels, q[i0:ie], t[j0:je], matrix, go, ge, base_cells)
    return Alignment.from_ops(query, target, scoring, i0, j0, _OPS[ops].tobytes().decode("ascii"), score=best)


class PairTracer:
    """Optimal local alignments with one scoring scheme on one engine's kernels.

    >>> from swgpu.engines import get_engine
    >>> tracer = get_engine("cpu").tracer(Scoring.default("protein"))
    >>> tracer.align(Sequence.from_text("q", "HEAGAWGHEE"), Sequence.from_text("t", "PAWHEAE")).cigar
    '3='
    """

    def __init__(self, kernels: TracebackKernels, scoring: Scoring, base_cells: int = BASE_CELLS):
        self.kernels = kernels
        self.scoring = scoring
        self.base_cells = base_cells

    def check(self, query: Sequence, target: Sequence) -> None:
        """InputError unless both sequences are of the scoring's alphabet."""
        check_pair(self.scoring, query, target)

    def align(self, query: Sequence, target: Sequence) -> Alignment:
        """The optimal local alignment (score 0 and an empty alignment if none scores > 0)."""
        self.check(query, target)
        return local_align(self.kernels, query, target, self.scoring, self.base_cells)

    def align_many(self, pairs, executor=None, expected=None, end_at_last: bool = False) -> list[Alignment]:
        """Alignments of ``(query, target)`` pairs, in order, on ``executor``
        (any object with ``map``; None: one after another). ``expected``
        (optional best scores, None where unknown) is a hint that engines may
        use to stop early; it never changes a result. ``end_at_last``: each
        alignment ends with a pair at its target's last letter (the best such
        score, at its first row)."""
        pairs = list(pairs)

        def one(p):
            self.check(*p)
            return local_align(self.kernels, p[0], p[1], self.scoring, self.base_cells, end_at_last)

        if executor is None:
            return [one(p) for p in pairs]
        return executor.map(one, pairs)

    def score(self, query: Sequence, target: Sequence) -> int:
        """The optimal local score only (one O(n)-memory pass)."""
        self.check(query, target)
        m = self.scoring.matrix.values
        return int(self.kernels.sw_end(query.codes, target.codes, m, self.scoring.gap_open, self.scoring.gap_extend)[0])
