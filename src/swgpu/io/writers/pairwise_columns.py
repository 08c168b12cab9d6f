"""The ``pairwise`` view of a whole batch of alignments, in compiled code.

What :func:`.pairwise.format_pairwise` writes, byte for byte, for a batch given
as columns (the arrays of :class:`~swgpu.align.batch.AlignmentBatch`): the
header block of each alignment through :class:`~.rows.Rows` (percentages,
E-values and bit scores formatted once per distinct value, as the record
writer does), the match lines with array operations, and the blocks of
``width`` columns by one compiled pass (:mod:`swgpu.io.pairwise_kernel`).
``None`` where a batch needs the record-by-record writer: an empty alignment,
a name that is not plain ASCII (names are padded by characters), a scoring
without its matrix and alphabet (the match line's ``:``), an infinite
E-value.
"""

from __future__ import annotations

import math

import numpy as np

from ..alphabet import COMPLEMENT_BYTES
from ..ranges import ranges, run_ranges
from .columns import _by_value, aligned_texts
from .common import finite_or_none, format_bitscore, format_evalue
from .pairwise import _NAME_WIDTH, _RULE, PAIRWISE_WIDTH
from .rows import Rows, Texts

__all__ = ["pairwise_lines", "match_line", "positive"]

_BAR, _COLON, _DOT, _SPACE = (ord(c) for c in "|:. ")
_POWERS = 10 ** np.arange(1, 19, dtype=np.int64)  # (a number's digits: 1 + the powers of ten at or below it)


def _ascii(names: Texts) -> bool:
    return not (names.buffer >= 0x80).any()


def _percents(n: np.ndarray, total: np.ndarray):
    top = int(total.max()) + 1
    return _by_value(n * top + total, lambda v: f"{v // top}/{v % top} ({100.0 * (v // top) / (v % top):.1f}%)")


def _optional(values: np.ndarray, line) -> tuple[Texts, np.ndarray]:
    """``line(v)`` of each value, ``""`` where it is NaN, once per distinct value."""
    nan = np.isnan(values)
    distinct, inverse = np.unique(np.where(nan, np.inf, values), return_inverse=True)
    return Texts.from_strings(["" if v == math.inf else line(v) for v in distinct.tolist()]), inverse.reshape(-1)


def match_line(batch, qa: Texts, ta: Texts, matrix: np.ndarray, table: bytes) -> np.ndarray:
    """The match line of every alignment, end to end (``qa``, ``ta``: the API's aligned lines)."""
    runs = slice(int(batch.run_offset[0]), int(batch.run_offset[-1]))
    ops = np.repeat(batch.run_op[runs], batch.run_length[runs])
    out = np.full(ops.size, _SPACE, dtype=np.uint8)
    out[ops == ord("=")] = _BAR
    x = np.flatnonzero(ops == ord("X"))
    lut = np.frombuffer(table, dtype=np.uint8)
    qc, tc = lut[qa.buffer[x]], lut[ta.buffer[x]]
    out[x] = np.where(matrix[qc, tc] > 0, _COLON, _DOT)
    return out


def positive(ml: np.ndarray) -> np.ndarray:
    """Where a match line (:func:`match_line`) has a positive-scoring column."""
    return (ml == _BAR) | (ml == _COLON)


def pairwise_lines(batch, qnames: Texts, tnames: Texts, qletters: Texts, tletters: Texts, scoring,
                   width: int = PAIRWISE_WIDTH, complement: bytes = COMPLEMENT_BYTES) -> np.ndarray | None:
    """The ``pairwise`` records of the alignments of ``batch``, as
    :func:`.pairwise.format_pairwise` writes them with ``scoring``;
    ``qletters``, ``tletters``: the queries and targets as read. ``None``: see the module notes."""
    from .. import pairwise_kernel as K

    n = len(batch)
    matrix = getattr(getattr(scoring, "matrix", None), "values", None)
    table = getattr(getattr(scoring, "alphabet", None), "table", None)
    if (not n or matrix is None or table is None or width < 1 or batch.empty.any() or np.isinf(batch.evalue).any()
            or not (_ascii(qnames) and _ascii(tnames))):
        return None
    qa, ta = aligned_texts(batch, np.arange(n, dtype=np.int64), qletters, tletters, complement, blast=False)
    ml = match_line(batch, qa, ta, np.asarray(matrix), table)
    length = batch.length
    similar = np.add.reduceat(positive(ml), qa.offsets[:-1]).astype(np.int64)
    qi, ti = batch.query_index, batch.target_index
    qlen_names, tlen_names = np.diff(qnames.offsets)[qi], np.diff(tnames.offsets)[ti]
    name_width = np.maximum(np.maximum(qlen_names, tlen_names), _NAME_WIDTH)
    minus = batch.strand.astype(np.bool_)
    widest = np.maximum(np.maximum(batch.query_end, batch.target_end), np.where(minus, batch.query_length, 0))
    digits = np.maximum(6, np.searchsorted(_POWERS, widest, side="right") + 1).astype(np.int64)
    args = (qa.buffer, ta.buffer, ml, qa.offsets, qnames.buffer, qnames.offsets, qi, tnames.buffer, tnames.offsets,
            ti, name_width, digits, batch.query_start, batch.target_start, batch.query_length, minus, int(width))
    sizes = np.empty(n, dtype=np.int64)
    parts = ranges(n)
    run_ranges(lambda a, b: K.block_sizes(*args, sizes, a, b), parts)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    out = np.empty(int(offsets[-1]), dtype=np.uint8)
    run_ranges(lambda a, b: K.block_fill(*args, offsets, out, a, b), parts)

    rows = Rows(n)
    rows.const(_RULE + "\n# Query: ")
    rows.text(qnames, qi)
    rows.const(" (")
    rows.int(batch.query_length)
    rows.const(")\n# Target: ")
    rows.text(tnames, ti)
    rows.const(" (")
    rows.int(batch.target_length)
    rows.const(")\n# Score: ")
    rows.int(batch.score)
    rows.const("\n# Length: ")
    rows.int(length)
    for label, count in (("Identity", batch.matches), ("Similarity", similar), ("Gaps", batch.gaps)):
        rows.const(f"\n# {label}: ")
        rows.text(*_percents(count, length))
    rows.const("\n")
    rows.text(*_optional(batch.evalue, lambda v: f"# E-value: {format_evalue(v)}\n"))
    rows.text(*_optional(np.where(np.isfinite(batch.bitscore), batch.bitscore, np.nan),
                         lambda v: f"# Bit score: {format_bitscore(finite_or_none(v))}\n"))
    rows.text(Texts.from_strings(["", "# Strand: - (query reverse-complemented)\n"]), minus.astype(np.int64))
    if scoring is not None:
        rows.const(f"# Scoring: {scoring.describe()}\n")
    rows.const(_RULE + "\n\n")
    rows.text(Texts(out, offsets))
    return rows.render_array()
