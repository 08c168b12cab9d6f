"""The ``sam`` format: SAM 1.6, the query as the read and the target as the reference.

One record per alignment; the header lists every target, so the targets must be
known up front. For ``strand == "-"`` FLAG is 16 and SEQ is the reverse
complement of the query, as SAM requires.
"""

from __future__ import annotations

from typing import Iterable

from ..._version import __version__
from ...exceptions import InputError
from .common import finite_or_none
from .record import AlignmentRecord, is_primary

__all__ = ["sam_targets", "sam_header", "format_sam", "sam_record", "evalue_tag"]


def _target_lengths(targets: Iterable) -> dict[str, int]:
    """``name -> length`` of every target, in order of first appearance (see :func:`sam_targets`)."""
    items = targets if isinstance(targets, list) else list(targets)
    if set(map(type, items)) <= {tuple} and set(map(len, items)) <= {2}:  # (name, length) pairs, as str and int
        lengths = dict(items)
        if (len(lengths) == len(items) and set(map(type, lengths)) <= {str}
                and set(map(type, lengths.values())) <= {int}):
            return lengths  # no name twice
    seen: dict[str, int] = {}
    for item in items:
        if isinstance(item, (tuple, list)):
            name, length = item
        else:
            name, length = item.name, len(item)
        name, length = str(name), int(length)
        if name in seen:
            if seen[name] != length:
                raise InputError(f"target ID {name!r} names two sequences (lengths {seen[name]} and {length}); "
                                 "SAM needs unique reference names: rename them or write another format",
                                 param="targets")
            continue
        seen[name] = length
    return seen


def sam_targets(targets: Iterable) -> list[tuple[str, int]]:
    """``(name, length)`` pairs from pairs or sequence-like objects, duplicates merged.

    >>> sam_targets([("a", 5), ("b", 7), ("a", 5)])
    [('a', 5), ('b', 7)]
    """
    return list(_target_lengths(targets).items())


def sam_header(targets: Iterable, program_line: str | None = None) -> str:
    """The SAM header (with a final newline): ``@HD``, one ``@SQ`` per target, ``@PG``.

    ``targets`` holds ``(name, length)`` pairs or objects with a ``name`` and a
    length (such as :class:`~swgpu.io.sequence.Sequence`).

    >>> print(sam_header([("chr1", 100), ("chr2", 50)], "swgpu align q.fa t.fa"), end="")  # doctest: +ELLIPSIS +NORMALIZE_WHITESPACE
    @HD	VN:1.6	SO:unsorted
    @SQ	SN:chr1	LN:100
    @SQ	SN:chr2	LN:50
    @PG	ID:swgpu	PN:swgpu	VN:...	CL:swgpu align q.fa t.fa
    """
    return _header(_target_lengths(targets), program_line)


def _header(lengths: dict[str, int], program_line: str | None) -> str:
    lines = ["@HD\tVN:1.6\tSO:unsorted"]
    lines += [f"@SQ\tSN:{name}\tLN:{length}" for name, length in lengths.items()]
    pg = f"@PG\tID:swgpu\tPN:swgpu\tVN:{__version__}"
    if program_line:
        pg += "\tCL:" + " ".join(str(program_line).split())
    lines.append(pg)
    return "\n".join(lines) + "\n"


def format_sam(a: AlignmentRecord, query_text=None, secondary: bool = False) -> str:
    """One SAM record (no newline).

    ``query_text`` is the whole query as read (a ``str`` or a
    :class:`~swgpu.io.sequence.Sequence`; for ``strand == "-"`` give the forward
    query, it is reverse-complemented here). With it, SEQ is the whole query
    and the unaligned ends are soft-clipped (``S``); without it SEQ is ``*``
    and the ends are hard-clipped (``H``). ``secondary`` adds FLAG 256 (a
    query's further hits), as does an alignment whose optional ``primary``
    attribute is false (:func:`~.record.is_primary`). POS is ``target_start + 1``, MAPQ
    255, QUAL ``*``; tags ``AS:i`` (score), ``NM:i`` (mismatches + gap
    columns) and ``ZE:Z`` (E-value, when known and finite: text, ``%.6g`` as
    in C, e.g. ``ZE:Z:3.4e-149``; a string, because ``f`` is single precision
    in BAM, where E-values below 1e-38 become 0). An empty alignment gives an
    unmapped record (FLAG 4, RNAME ``*``, POS 0, MAPQ 0, CIGAR ``*``).

    >>> from swgpu.align.alignment import Alignment
    >>> from swgpu.scoring import Scoring
    >>> from swgpu.io.sequence import Sequence
    >>> q, t = Sequence.from_text("q", "TTACGTACGTG"), Sequence.from_text("t", "ACGACGT")
    >>> a = Alignment.from_ops(q, t, Scoring.default("dna"), 2, 0, "===I====")
    >>> format_sam(a, q.text).split("\\t")
    ['q', '0', 't', '1', '255', '2S3=1I4=1S', '*', '0', '0', 'TTACGTACGTG', '*', 'AS:i:9', 'NM:i:1']
    >>> format_sam(a).split("\\t")[5]
    '2H3=1I4=1H'
    """
    return sam_record(a, query_text, secondary or not is_primary(a), a.empty)


def evalue_tag(evalue: float | None) -> str:
    """The E-value's tag with the tab before it (``""`` when unknown): a text
    tag, ``ZE:Z:`` and the value as ``%.6g`` prints it, so that it survives a
    round trip through BAM (whose ``f`` tags are single precision)."""
    return "" if evalue is None else f"\tZE:Z:{evalue:.6g}"


_FLAGS = ("0", "16", "256", "272")  # FLAG by (strand "-") + 2 * secondary


def sam_record(a: AlignmentRecord, query_text, secondary: bool, empty: bool, end: str = "") -> str:
    """:func:`format_sam` of an alignment whose ``empty`` is known, followed by ``end``."""
    seq = None
    if query_text is not None:  # SEQ: the query as read, reverse-complemented for strand "-"
        seq = query_text if isinstance(query_text, str) else query_text.text
        if len(seq) != a.query_length:
            raise InputError(f"query text of {a.query} has {len(seq)} letters but the alignment says "
                             f"{a.query_length}", param="query_text")
    if empty:
        return "\t".join((a.query or "*", "4", "*", "0", "0", "*", "*", "0", "0", seq or "*", "*")) + end
    start, stop = a.query_start, a.query_end
    minus = a.strand == "-"
    if seq is not None:
        if minus:
            from ..alphabet import reverse_complement  # NumPy only when SAM is written

            seq = reverse_complement(seq)
        aligned = a.query_aligned.replace("-", "")
        part = seq[start:stop]
        if part != aligned and part.upper() != aligned.upper():  # (equal strings need no upper case)
            raise InputError(f"query text of {a.query} does not match the aligned query (give the query as "
                             "read; it is reverse-complemented here for strand '-')", param="query_text")
    cigar = a.cigar
    right = a.query_length - stop
    if start or right:
        clip = "H" if seq is None else "S"
        cigar = (f"{start}{clip}" if start else "") + cigar + (f"{right}{clip}" if right else "")
    evalue = a.evalue
    if evalue is not None:
        evalue = finite_or_none(evalue)
    tags = f"AS:i:{a.score}\tNM:i:{a.mismatches + a.gaps}" + evalue_tag(evalue)
    return (f"{a.query or '*'}\t{_FLAGS[minus + 2 * bool(secondary)]}\t{a.target}\t"
            f"{a.target_start + 1}\t255\t{cigar}\t*\t0\t0\t{seq or '*'}\t*\t{tags}{end}")
