"""The ``blast6`` format: BLAST ``-outfmt 6`` lines, columns chosen by name.

By default the 12 standard tab-separated columns ``qseqid sseqid pident length
mismatch gapopen qstart qend sstart send evalue bitscore``, then ``score`` (raw
score), ``qlen``, ``slen`` and ``cigar`` (:data:`BLAST6_COLUMNS`). Any list of
the names in :data:`COLUMNS` can be asked for instead, in BLAST's spelling
(:func:`parse_columns` reads ``"6 qseqid sseqid score"``, ``std`` standing for
the 12 standard columns; a leading ``7`` too, for the commented ``blast7``
format of :mod:`.blast7`). For ``strand == "-"`` ``qstart < qend`` are positions
on the query as given and ``sstart > send``, as in BLAST; ``qseq``, ``sseq``
and ``btop`` show the alignment as BLAST does, the query as given against the
reverse complement of the subject (:mod:`.aligned`); ``cigar`` stays in
target order (as in SAM).
"""

from __future__ import annotations

import functools
import re
from typing import Callable, Iterable, Mapping, NamedTuple

from ...exceptions import InputError
from .aligned import blast_aligned, btop
from .common import finite_or_none, format_bitscore, format_evalue
from .record import AlignmentRecord

__all__ = ["BLAST6_COLUMNS", "COLUMNS", "STD_COLUMNS", "NOT_WRITTEN", "blast6_header", "format_blast6",
           "outfmt_number", "parse_columns", "subject_title"]

#: BLAST's 12 standard columns (``std``).
STD_COLUMNS = (
    "qseqid", "sseqid", "pident", "length", "mismatch", "gapopen",
    "qstart", "qend", "sstart", "send", "evalue", "bitscore",
)

#: Column names of the default ``blast6`` format: BLAST's 12, then swgpu's 4 extras.
BLAST6_COLUMNS = STD_COLUMNS + ("score", "qlen", "slen", "cigar")


class _Line(NamedTuple):
    """What several columns of one line share: 1-based coordinates and the subject title."""

    qstart: int
    qend: int
    sstart: int
    send: int
    title: str


def _percent(n: int, total: int) -> str:
    return "%.3f" % (100.0 * n / total)


def _positives(a: AlignmentRecord) -> int:
    return a.match_line.count("|") + a.match_line.count(":")


def _coverage(a: AlignmentRecord, c: _Line) -> str:
    return "%d" % int(100.0 * (c.qend - c.qstart + 1) / a.query_length + 0.5)


def _subject_coverage(a: AlignmentRecord, c: _Line) -> str:
    covered = getattr(a, "query_covered", None)  # optional: several alignments of the pair
    return _coverage(a, c) if covered is None else "%d" % int(100.0 * covered / a.query_length + 0.5)


#: Every column :func:`format_blast6` knows: name -> (value of a record, what it is).
COLUMNS: dict[str, tuple[Callable[[AlignmentRecord, _Line], object], str]] = {
    "qseqid": (lambda a, c: a.query, "query name"),
    "sseqid": (lambda a, c: a.target, "target name"),
    "pident": (lambda a, c: _percent(a.matches, a.length), "percent identical columns"),
    "length": (lambda a, c: a.length, "alignment columns"),
    "mismatch": (lambda a, c: a.mismatches, "substitution columns"),
    "gapopen": (lambda a, c: a.gap_opens, "gap openings"),
    "qstart": (lambda a, c: c.qstart, "query start"),
    "qend": (lambda a, c: c.qend, "query end"),
    "sstart": (lambda a, c: c.sstart, "target start"),
    "send": (lambda a, c: c.send, "target end"),
    "evalue": (lambda a, c: format_evalue(finite_or_none(a.evalue)), "E-value"),
    "bitscore": (lambda a, c: format_bitscore(a.bitscore), "bit score"),
    "score": (lambda a, c: a.score, "raw score"),
    "qlen": (lambda a, c: a.query_length, "query length"),
    "slen": (lambda a, c: a.target_length, "target length"),
    "cigar": (lambda a, c: a.cigar, "CIGAR in target order"),
    "nident": (lambda a, c: a.matches, "identical columns"),
    "positive": (lambda a, c: _positives(a), "positive-scoring columns"),
    "ppos": (lambda a, c: _percent(_positives(a), a.length), "percent positive-scoring columns"),
    "gaps": (lambda a, c: a.gaps, "gap columns"),
    "qcovs": (_subject_coverage, "percent of the query in any alignment of this query and target"),
    "qcovhsp": (_coverage, "percent of the query in this alignment"),
    "stitle": (lambda a, c: c.title, "target name and description"),
    "strand": (lambda a, c: a.strand, "+ or - (query reverse-complemented)"),
    "sstrand": (lambda a, c: "minus" if a.strand == "-" else "plus", "plus or minus, as BLAST writes it"),
    "qacc": (lambda a, c: a.query, "query name (BLAST without -parse_deflines: the ID as given)"),
    "qaccver": (lambda a, c: a.query, "the same"),
    "sacc": (lambda a, c: a.target, "target name (the ID as given)"),
    "saccver": (lambda a, c: a.target, "the same"),
    "sallseqid": (lambda a, c: a.target, "the same (one ID per target)"),
    "sallacc": (lambda a, c: a.target, "the same"),
    "salltitles": (lambda a, c: c.title, "the same as stitle (one title per target)"),
    "qseq": (lambda a, c: blast_aligned(a)[0], "aligned query, - for gaps (query as given)"),
    "sseq": (lambda a, c: blast_aligned(a)[1], "aligned target, - for gaps (reverse-complemented for strand -)"),
    "btop": (lambda a, c: btop(a), "BLAST traceback operations"),
    "frames": (lambda a, c: "1/-1" if a.strand == "-" else "1/1", "query/subject frames, as blastn writes them"),
    "qframe": (lambda a, c: 1, "query frame: 1"),
    "sframe": (lambda a, c: -1 if a.strand == "-" else 1, "subject frame: 1, or -1 on the minus strand"),
}

#: Columns BLAST+ writes that swgpu has nothing for (GIs, taxonomy, coverage of unique subjects): refused by name.
NOT_WRITTEN = ("qgi", "sgi", "sallgi", "staxid", "ssciname", "scomname", "sblastname", "sskingdom", "staxids",
               "sscinames", "scomnames", "sblastnames", "sskingdoms", "qcovus")


def outfmt_number(spec: str | Iterable[str] | None) -> int | None:
    """The BLAST format number that ``spec`` starts with (``"7 qseqid"`` -> 7), or ``None``.

    >>> outfmt_number("7 qseqid sseqid"), outfmt_number("6"), outfmt_number("qseqid"), outfmt_number(None)
    (7, 6, None, None)
    """
    if spec is None:
        return None
    words = re.split(r"[\s,]+", spec.strip()) if isinstance(spec, str) else [str(w).strip() for w in spec]
    words = [w for w in words if w]
    return int(words[0]) if words and words[0].isdigit() else None


def parse_columns(spec: str | Iterable[str] | None) -> tuple[str, ...]:
    """The column names of ``spec``: names separated by spaces or commas, or a
    sequence of names; ``None`` gives :data:`BLAST6_COLUMNS`.

    A leading ``6`` or ``7`` (BLAST's ``-outfmt "6 qseqid ..."``; which format
    it asks for is :func:`outfmt_number`'s) is dropped, and the number alone
    means BLAST's 12 standard columns, as ``std`` does anywhere in the list.
    Another format number, an unknown name or one of BLAST's columns that
    swgpu does not write (:data:`NOT_WRITTEN`) is an
    :class:`~swgpu.exceptions.InputError` (``param="columns"``) that lists the
    names.

    >>> parse_columns("6 qseqid,sseqid  score")
    ('qseqid', 'sseqid', 'score')
    >>> parse_columns("std cigar")[-2:]
    ('bitscore', 'cigar')
    >>> parse_columns("qseqid bits")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    swgpu.exceptions.InputError: columns: unknown column 'bits': choose from qseqid, sseqid, ..., sframe, std
    >>> parse_columns("7")[:2]
    ('qseqid', 'sseqid')
    >>> parse_columns("qseqid staxid")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    swgpu.exceptions.InputError: columns: column 'staxid' is BLAST's, but swgpu has no GIs or taxonomy to ...
    """
    if spec is None:
        return BLAST6_COLUMNS
    words = re.split(r"[\s,]+", spec.strip()) if isinstance(spec, str) else [str(w).strip() for w in spec]
    words = [w.lower() for w in words if w]
    if words and words[0].isdigit():
        if words[0] not in ("6", "7"):
            raise InputError(f"only BLAST's tabular formats 6 and 7 are written, not {words[0]}: give column "
                             "names, optionally after 6 or 7", param="columns")
        words = words[1:] or ["std"]
    if not words:
        raise InputError("no column names given", param="columns")
    names: list[str] = []
    for w in words:
        if w == "std":
            names.extend(STD_COLUMNS)
        elif w in COLUMNS:
            names.append(w)
        elif w in NOT_WRITTEN:
            raise InputError(f"column {w!r} is BLAST's, but swgpu has no GIs or taxonomy to write: choose from "
                             f"{', '.join(COLUMNS)}, std", param="columns")
        else:
            raise InputError(f"unknown column {w!r}: choose from {', '.join(COLUMNS)}, std", param="columns")
    return tuple(names)


def subject_title(name: str, description: str | None) -> str:
    """BLAST's ``stitle``: the target's name and description, one space apart
    (the name alone without a description).

    >>> subject_title("P02232", "Leghemoglobin"), subject_title("P02232", "")
    ('P02232 Leghemoglobin', 'P02232')
    """
    return f"{name} {description}" if description else name


def blast6_header(columns: Iterable[str] | None = None) -> str:
    """The comment line naming the ``blast6`` columns (``header=True``).

    >>> blast6_header()[:40]
    '# Fields: qseqid, sseqid, pident, length'
    >>> blast6_header(["qseqid", "score"])
    '# Fields: qseqid, score'
    """
    return "# Fields: " + ", ".join(BLAST6_COLUMNS if columns is None else parse_columns(columns))


def _line(a: AlignmentRecord, descriptions: Mapping[str, str] | None) -> _Line:
    if a.strand == "-":  # positions on the query as given
        qstart, qend = a.query_length - a.query_end + 1, a.query_length - a.query_start
    else:
        qstart, qend = a.query_start + 1, a.query_end
    sstart, send = a.target_start + 1, a.target_end
    if a.strand == "-":
        sstart, send = send, sstart
    return _Line(qstart, qend, sstart, send, subject_title(a.target, (descriptions or {}).get(a.target)))


def format_blast6(a: AlignmentRecord, columns: Iterable[str] | None = None,
                  descriptions: Mapping[str, str] | None = None) -> str:
    """One ``blast6`` line (no newline) for a non-empty alignment.

    ``columns``: names from :data:`COLUMNS` (see :func:`parse_columns`; default
    :data:`BLAST6_COLUMNS`). ``descriptions``: target name -> description, for
    ``stitle``. ``pident`` is the percentage of identical columns over the
    alignment length (gaps included), with three decimals; positions are
    1-based inclusive; ``evalue`` follows
    :func:`~swgpu.io.writers.common.format_evalue`; ``bitscore`` has one decimal
    (BLAST itself drops the decimal above 99.9); unknown statistics are ``NA``.
    For ``strand == "-"`` ``sstart > send``, as in BLAST.

    >>> from swgpu.align.alignment import Alignment
    >>> from swgpu.scoring import Scoring
    >>> from swgpu.io.sequence import Sequence
    >>> q, t = Sequence.from_text("q", "ACGTACGT"), Sequence.from_text("t", "ACGACGT")
    >>> a = Alignment.from_ops(q, t, Scoring.default("dna"), 0, 0, "===I====")
    >>> a.evalue, a.bitscore = 2.3e-5, 15.04
    >>> format_blast6(a).split("\\t")
    ['q', 't', '87.500', '8', '0', '1', '1', '8', '1', '7', '2e-05', '15.0', '9', '8', '7', '3=1I4=']
    >>> format_blast6(a, "qseqid stitle qcovs strand", {"t": "a target"}).split("\\t")
    ['q', 't a target', '100', '+']
    """
    if a.empty:
        raise ValueError(f"empty alignment of {a.query} and {a.target} has no blast6 line")
    getters = _getters(columns if columns is None or isinstance(columns, str) else tuple(columns))
    line = _line(a, descriptions)
    return "\t".join([str(get(a, line)) for get in getters])


@functools.lru_cache(maxsize=64)
def _getters(columns) -> tuple:
    """The value functions of ``columns`` (parsed once per spec)."""
    return tuple(COLUMNS[name][0] for name in parse_columns(columns))
