"""How far a local alignment can reach along the target, and the overlapping
windows that hold every such alignment whole -- the rule both the CPU search
kernel (long database sequences) and the traceback of long targets use.

Any local alignment of a query of ``m`` residues that scores above 0 spans at
most ``span = m + m * max // gap_extend + 1`` target residues (``max`` the
largest matrix entry: every gap column costs at least ``gap_extend``).
Windows of ``width = stride + span - 1`` residues every ``stride`` residues
then hold every alignment that starts in their first ``stride`` residues.

>>> alignment_span(100, 5, 1), alignment_span(100, 5, 0)
(601, None)
>>> window_geometry(601, 1000)
(2404, 3004)
"""

from __future__ import annotations

__all__ = ["alignment_span", "window_geometry"]


def alignment_span(query_length: int, max_score: int, gap_extend: int) -> int | None:
    """Most target residues a positive-scoring local alignment of a query of
    ``query_length`` can span (None when gaps extend for free)."""
    if gap_extend <= 0:
        return None
    m = int(query_length)
    return m + m * int(max_score) // int(gap_extend) + 1


def window_geometry(span: int, stride: int) -> tuple[int, int]:
    """``(stride, width)`` of the windows for ``span``: the stride raised to at
    least ``4 * span`` (overlaps cost under a quarter), ``width = stride + span - 1``."""
    stride = max(int(stride), 4 * int(span))
    return stride, stride + int(span) - 1
