"""SAM and ``blast6`` lines of a whole batch of alignments, in compiled code.

The formats of :mod:`.sam` and :mod:`.blast6`, byte for byte, for a batch
given as columns (an object with the arrays of
:class:`~swgpu.align.batch.AlignmentBatch`; the writers import nothing above
``io``): integer fields are written by :class:`~.rows.Rows`, the CIGARs by one
compiled pass over the runs, and the decimal fields (``pident``, E-values,
bit scores) by the same Python formatting as one record at a time, once for
each distinct value. Names and letters come as :class:`~.rows.Texts`.

Each function returns the lines as one ``uint8`` array (UTF-8 text), or ``None`` when the batch
needs something that only the record-by-record writers do (a SAM record of
an empty alignment; ``qseq``, ``sseq``, ``btop`` without the letters;
``stitle`` without the targets' titles; ``positive``, ``ppos`` without the
letters and the scoring's matrix); the caller then writes those records one
at a time.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from ..ranges import ranges, run_ranges
from ..alphabet import COMPLEMENT_BYTES
from ..compiled import read_only, worth
from .blast6 import BLAST6_COLUMNS, _percent
from .common import format_bitscores, format_evalues
from . import arrays as A
from .rows import Rows, Texts, small_lines
from ..texts import reversed_segments
from .sam import evalue_tag

__all__ = ["sam_lines", "blast6_lines", "cigar_texts", "reverse_complements", "aligned_texts", "btop_texts",
           "group_lines", "positive_counts", "BATCH_COLUMNS", "LETTER_COLUMNS", "TITLE_COLUMNS", "POSITIVE_COLUMNS"]


def cigar_texts(batch, left=None, right=None, clip: str = "S", index=None) -> Texts:
    """The CIGAR of each alignment (of alignments ``index``, in that order,
    when given), with ``left[k]`` and ``right[k]`` clipped letters (``clip``:
    ``S`` or ``H``) before and after it where they are not 0."""
    index = np.arange(len(batch.score)) if index is None else np.asarray(index, dtype=np.int64)
    first, last = batch.run_offset[index], batch.run_offset[index + 1]
    n = index.size
    zero = np.zeros(n, dtype=np.int64)
    left = zero if left is None else np.asarray(left, dtype=np.int64)
    right = zero if right is None else np.asarray(right, dtype=np.int64)
    if not worth(n):
        return Texts(*small_lines().cigar_column(batch.run_length, batch.run_op, first, last, left, right, ord(clip)))
    from .. import kernels as K

    sizes = np.empty(n, dtype=np.int64)
    parts = ranges(n)
    run_ranges(lambda a, b: K.cigar_sizes(batch.run_length, first, last, left, right, sizes, a, b), parts)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    out = np.empty(int(offsets[-1]), dtype=np.uint8)
    letter = np.uint8(ord(clip))
    run_ranges(lambda a, b: K.cigar_fill(batch.run_length, batch.run_op, first, last, left, right, letter, offsets,
                                        out, a, b), parts)
    return Texts(out, offsets)


def reverse_complements(letters: Texts, index: np.ndarray, complement: bytes) -> Texts:
    """Strings ``index`` of ``letters``, each reversed and translated by the
    256-byte table ``complement``, as a new column (in ``index`` order)."""
    index = np.asarray(index, dtype=np.int64)
    return Texts(*reversed_segments(letters.buffer, letters.offsets[index], letters.offsets[index + 1],
                                    np.frombuffer(complement, dtype=np.uint8)))


def _by_value(values: np.ndarray, fmt: Callable[[object], str]) -> Texts | tuple[Texts, np.ndarray]:
    """``fmt`` of each value, formatted once per distinct value: the texts of the
    distinct values and, for each value, the index of its text."""
    distinct, inverse = np.unique(values, return_inverse=True)
    return Texts.from_strings([fmt(v) for v in distinct.tolist()]), inverse.reshape(-1)


def _stat_texts(values: np.ndarray, many: Callable[[np.ndarray], list], unknown: str) -> tuple[Texts, np.ndarray]:
    """Texts of E-values or bit scores, once per distinct value: ``many`` formats
    the distinct finite values together, ``unknown`` is the text of the others
    (NaN, infinite); and for each value, the index of its text."""
    finite = np.isfinite(values)
    if not finite.any():
        return Texts.from_strings([unknown]), np.zeros(values.size, dtype=np.int64)
    distinct, inverse = np.unique(np.where(finite, values, np.inf), return_inverse=True)  # (unknown ones last)
    known = int(np.isfinite(distinct).sum())
    strings = list(many(distinct[:known])) + [unknown] * (distinct.size - known)
    return Texts.from_strings(strings), inverse.reshape(-1)


def _sam_evalues(values: np.ndarray) -> list[str]:
    return [evalue_tag(x) for x in values.tolist()]


def sam_lines(batch, qnames: Texts, tnames: Texts, qletters: Texts | None, complement: bytes = COMPLEMENT_BYTES,
              secondary: np.ndarray | None = None) -> np.ndarray | None:
    """SAM records (each ending in a line end) as :func:`.sam.sam_record` writes
    them: ``qletters`` the queries as read (SEQ, ends soft-clipped; ``None``:
    SEQ ``*`` and hard clips), reverse-complemented with ``complement`` (a
    256-byte table) on the minus strand; ``secondary``: which records get
    FLAG 256. ``None`` when a record is empty (an unmapped record) or a query
    has no name (``*``)."""
    n = len(batch.score)
    if n and bool(np.any(batch.run_offset[1:] == batch.run_offset[:-1])):
        return None
    qi = batch.query_index
    if n and bool(np.any(qnames.offsets[qi + 1] == qnames.offsets[qi])):
        return None  # a query without a name: "*" (the record writer)
    minus = batch.strand.astype(bool)
    flag = np.where(minus, 16, 0) + (0 if secondary is None else np.where(secondary, 256, 0))
    rows = Rows(n)
    rows.text(qnames, qi)
    rows.const("\t")
    rows.int(flag)
    rows.const("\t")
    rows.text(tnames, batch.target_index)
    rows.const("\t")
    rows.int(batch.target_start + 1)
    rows.const("\t255\t")
    right = batch.query_length - batch.query_end
    rows.text(cigar_texts(batch, batch.query_start, right, "H" if qletters is None else "S"))
    rows.const("\t*\t0\t0\t")
    if qletters is None:
        rows.const("*")
    elif minus.any():
        rows.text(_merge(qletters, qi, reverse_complements(qletters, qi, complement), minus))
    else:
        rows.text(qletters, qi)
    rows.const("\t*\tAS:i:")
    rows.int(batch.score)
    rows.const("\tNM:i:")
    rows.int(batch.mismatches + batch.gaps)
    if not np.isnan(batch.evalue).all():
        tags, which = _stat_texts(batch.evalue, _sam_evalues, "")
        rows.text(tags, which)
    rows.const("\n")
    return rows.render_array()


def _merge(plus: Texts, qi: np.ndarray, reversed_: Texts, minus: np.ndarray) -> Texts:
    """One column, in record order: the letters ``plus`` (string ``qi[k]``) of the
    plus records and ``reversed_`` (string ``k``) of the minus records."""
    first = np.where(minus, reversed_.offsets[:-1], plus.offsets[qi])
    last = np.where(minus, reversed_.offsets[1:], plus.offsets[qi + 1])
    if not worth(qi.size):
        return Texts(*A.merge_column(plus.buffer, reversed_.buffer, minus, first, last))
    from .. import kernels as K

    offsets = np.zeros(qi.size + 1, dtype=np.int64)
    np.cumsum(last - first, out=offsets[1:])
    out = np.empty(int(offsets[-1]), dtype=np.uint8)
    K.copy_two(read_only(plus.buffer), read_only(reversed_.buffer), minus.astype(np.uint8), first, last, offsets, out)
    return Texts(out, offsets)


#: The ``blast6`` columns a batch is written with here from its names alone.
BATCH_COLUMNS = frozenset(BLAST6_COLUMNS) | {"nident", "gaps", "qcovs", "qcovhsp", "strand", "sstrand", "qacc",
                                             "qaccver", "sacc", "saccver", "sallseqid", "sallacc", "frames",
                                             "qframe", "sframe"}
#: Those written here given the letters of the queries and the targets too (the others: one record at a time).
LETTER_COLUMNS = frozenset({"qseq", "sseq", "btop"})
#: Those written here given each target's title (``ttitles``).
TITLE_COLUMNS = frozenset({"stitle", "salltitles"})
#: Those written here given the letters and the scoring's ``matrix`` and letter ``table``.
POSITIVE_COLUMNS = frozenset({"positive", "ppos"})
_QUERY_NAMES = frozenset({"qseqid", "qacc", "qaccver"})
_TARGET_NAMES = frozenset({"sseqid", "sacc", "saccver", "sallseqid", "sallacc"})
_BY_STRAND = {"strand": ["+", "-"], "sstrand": ["plus", "minus"], "frames": ["1/1", "1/-1"], "sframe": ["1", "-1"]}


def positive_counts(batch, index, qletters: Texts, tletters: Texts, matrix, table: bytes,
                    complement: bytes = COMPLEMENT_BYTES) -> np.ndarray:
    """The positive-scoring columns (identities and substitutions scoring above 0,
    the ``|`` and ``:`` of the match line) of alignments ``index`` (in order)."""
    from .pairwise_columns import match_line, positive

    qa, ta = aligned_texts(batch, index, qletters, tletters, complement, blast=False)
    counts = np.concatenate([[0], np.cumsum(positive(match_line(batch, qa, ta, np.asarray(matrix), table)))])
    return counts[qa.offsets[1:]] - counts[qa.offsets[:-1]]


def aligned_texts(batch, index, qletters: Texts, tletters: Texts,
                  complement: bytes = COMPLEMENT_BYTES, blast: bool = True) -> tuple[Texts, Texts]:
    """``qseq`` and ``sseq`` of alignments ``index`` (in that order), as
    :func:`.aligned.blast_aligned` gives them: ``qletters``, ``tletters`` the
    queries and targets as read; on the minus strand both lines reverse-complemented
    with ``complement`` (a 256-byte table). ``blast=False``: the API's lines
    instead (``Alignment.query_aligned``: the query as aligned, the target forward)."""
    from .. import kernels as K

    index = np.asarray(index, dtype=np.int64)
    first, last = batch.run_offset[index], batch.run_offset[index + 1]
    minus = batch.strand[index].astype(np.bool_)
    offsets = np.zeros(index.size + 1, dtype=np.int64)
    np.cumsum(batch.matches[index] + batch.mismatches[index] + batch.gaps[index], out=offsets[1:])
    table = np.frombuffer(complement, dtype=np.uint8)
    qi, qs = batch.query_index[index], batch.query_start[index]
    qbase = qletters.offsets[qi] + np.where(minus, batch.query_length[index] - 1 - qs, qs)
    tbase = tletters.offsets[batch.target_index[index]] + batch.target_start[index]
    parts = ranges(index.size)
    out = []
    for letters, base, query_side, gap in ((qletters, qbase, True, "D"), (tletters, tbase, False, "I")):
        buf = np.empty(int(offsets[-1]), dtype=np.uint8)
        run_ranges(lambda a, b: K.aligned_fill(batch.run_length, batch.run_op, first, last, letters.buffer, base,
                                              minus, query_side, np.uint8(ord(gap)), table, offsets, buf, a, b,
                                              blast),
                   parts)
        out.append(Texts(buf, offsets))
    return out[0], out[1]


def btop_texts(batch, index, qseq: Texts, sseq: Texts) -> Texts:
    """``btop`` of alignments ``index`` (in that order), as :func:`.aligned.btop`
    gives it, from their ``qseq`` and ``sseq`` (:func:`aligned_texts`)."""
    from .. import kernels as K

    index = np.asarray(index, dtype=np.int64)
    first, last = batch.run_offset[index], batch.run_offset[index + 1]
    minus = batch.strand[index].astype(np.bool_)
    sizes = np.empty(index.size, dtype=np.int64)
    parts = ranges(index.size)
    run_ranges(lambda a, b: K.btop_sizes(batch.run_length, batch.run_op, first, last, minus, sizes, a, b), parts)
    offsets = np.zeros(index.size + 1, dtype=np.int64)
    np.cumsum(sizes, out=offsets[1:])
    out = np.empty(int(offsets[-1]), dtype=np.uint8)
    run_ranges(lambda a, b: K.btop_fill(batch.run_length, batch.run_op, first, last, minus, qseq.buffer,
                                       sseq.buffer, qseq.offsets, offsets, out, a, b), parts)
    return Texts(out, offsets)


def group_lines(data: np.ndarray, query_index: np.ndarray):
    """``(query, lines, count)`` of each run of consecutive lines of ``data``
    (one line per entry of ``query_index``) that belong to one query."""
    qi = np.asarray(query_index, dtype=np.int64)
    if not qi.size:
        return
    ends = np.flatnonzero(np.asarray(data) == 10) + 1
    starts = np.concatenate([[0], ends[:-1]])
    cuts = np.concatenate([[0], np.flatnonzero(qi[1:] != qi[:-1]) + 1, [qi.size]]).tolist()
    for a, b in zip(cuts[:-1], cuts[1:]):
        yield int(qi[a]), data[starts[a]:ends[b - 1]].tobytes(), b - a


def blast6_lines(batch, qnames: Texts, tnames: Texts, columns=None, qletters: Texts | None = None,
                 tletters: Texts | None = None, complement: bytes = COMPLEMENT_BYTES,
                 ttitles: Texts | None = None, matrix=None, table: bytes | None = None) -> np.ndarray | None:
    """``blast6`` lines (each ending in a line end) of the non-empty alignments
    of ``batch``, as :func:`.blast6.format_blast6` writes them, with
    ``columns`` (default :data:`~.blast6.BLAST6_COLUMNS`); ``None`` when a
    column is not in :data:`BATCH_COLUMNS`, or is one of :data:`LETTER_COLUMNS`
    and the letters (``qletters``, ``tletters``: the queries and the targets
    as read) are not given, or one of :data:`TITLE_COLUMNS` and the targets'
    titles (``ttitles``, as :func:`.blast6.subject_title` makes them) are not,
    or one of :data:`POSITIVE_COLUMNS` and the letters and the scoring's
    ``matrix`` and ``table`` (letter to code) are not."""
    columns = BLAST6_COLUMNS if columns is None else tuple(columns)
    if not set(columns) <= BATCH_COLUMNS | LETTER_COLUMNS | TITLE_COLUMNS | POSITIVE_COLUMNS:
        return None
    if LETTER_COLUMNS & set(columns) and (qletters is None or tletters is None):
        return None
    if TITLE_COLUMNS & set(columns) and ttitles is None:
        return None
    if POSITIVE_COLUMNS & set(columns) and (qletters is None or tletters is None or matrix is None or table is None):
        return None
    live = np.flatnonzero(batch.run_offset[1:] != batch.run_offset[:-1])
    n = live.size

    def col(name):
        return getattr(batch, name)[live]

    minus = col("strand").astype(bool)
    qlen, qs, qe = col("query_length"), col("query_start"), col("query_end")
    qstart = np.where(minus, qlen - qe + 1, qs + 1)
    qend = np.where(minus, qlen - qs, qe)
    ts, te = col("target_start") + 1, col("target_end")
    sstart, send = np.where(minus, te, ts), np.where(minus, ts, te)
    matches, length = col("matches"), col("matches") + col("mismatches") + col("gaps")
    aligned = aligned_texts(batch, live, qletters, tletters, complement) if LETTER_COLUMNS & set(columns) else None
    positive = (positive_counts(batch, live, qletters, tletters, matrix, table, complement)
                if POSITIVE_COLUMNS & set(columns) else None)
    rows = Rows(n)
    for c, name in enumerate(columns):
        if c:
            rows.const("\t")
        if name in _QUERY_NAMES:
            rows.text(qnames, col("query_index"))
        elif name in _TARGET_NAMES:
            rows.text(tnames, col("target_index"))
        elif name in TITLE_COLUMNS:
            rows.text(ttitles, col("target_index"))
        elif name in ("qseq", "sseq"):
            rows.text(aligned[name == "sseq"])
        elif name == "btop":
            rows.text(btop_texts(batch, live, *aligned))
        elif name == "qframe":
            rows.const("1")
        elif name in ("pident", "ppos"):
            top = int(length.max()) + 1 if n else 1
            part = matches if name == "pident" else positive
            texts, which = _by_value(part * top + length, lambda v: _percent(v // top, v % top))
            rows.text(texts, which)
        elif name == "positive":
            rows.int(positive)
        elif name in ("evalue", "bitscore"):
            many = format_evalues if name == "evalue" else format_bitscores
            texts, which = _stat_texts(col(name), many, "NA")
            rows.text(texts, which)
        elif name in _BY_STRAND:
            rows.text(Texts.from_strings(_BY_STRAND[name]), minus.astype(np.int64))
        elif name == "cigar":
            rows.text(cigar_texts(batch, index=live))
        elif name in ("qcovs", "qcovhsp"):
            rows.int((100.0 * (qend - qstart + 1) / qlen + 0.5).astype(np.int64))
        else:
            rows.int({"length": length, "mismatch": col("mismatches"), "gapopen": col("gap_opens"),
                      "qstart": qstart, "qend": qend, "sstart": sstart, "send": send, "score": col("score"),
                      "qlen": qlen, "slen": col("target_length"), "nident": matches, "gaps": col("gaps")}[name])
    rows.const("\n")
    return rows.render_array()

