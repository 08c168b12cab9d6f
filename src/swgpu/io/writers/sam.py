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
from .record import AlignmentRecord

__all__ = ["sam_targets", "sam_header", "format_sam"]


def sam_targets(targets: Iterable) -> list[tuple[str, int]]:
    """``(name, length)`` pairs from pairs or sequence-like objects, duplicates merged.

    >>> sam_targets([("a", 5), ("b", 7), ("a", 5)])
    [('a', 5), ('b', 7)]
    """
    out: list[tuple[str, int]] = []
    seen: dict[str, int] = {}
    for item in targets:
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
        out.append((name, length))
    return out


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
    lines = ["@HD\tVN:1.6\tSO:unsorted"]
    lines += [f"@SQ\tSN:{name}\tLN:{length}" for name, length in sam_targets(targets)]
    pg = f"@PG\tID:swgpu\tPN:swgpu\tVN:{__version__}"
    if program_line:
        pg += "\tCL:" + " ".join(str(program_line).split())
    lines.append(pg)
    return "\n".join(lines) + "\n"


def _query_letters(a: AlignmentRecord, query_text) -> str | None:
    """The query as SAM's SEQ wants it (reverse-complemented for strand ``-``)."""
    if query_text is None:
        return None
    text = query_text if isinstance(query_text, str) else query_text.text
    if len(text) != a.query_length:
        raise InputError(
            f"query text of {a.query} has {len(text)} letters but the alignment says {a.query_length}",
            param="query_text",
        )
    if a.strand == "-" and not a.empty:
        from ..alphabet import reverse_complement  # NumPy only when SAM is written

        text = reverse_complement(text)
    if not a.empty:
        aligned = a.query_aligned.replace("-", "")
        if text[a.query_start:a.query_end].upper() != aligned.upper():
            raise InputError(
                f"query text of {a.query} does not match the aligned query "
                "(give the query as read; it is reverse-complemented here for strand '-')",
                param="query_text",
            )
    return text


def format_sam(a: AlignmentRecord, query_text=None, secondary: bool = False) -> str:
    """One SAM record (no newline).

    ``query_text`` is the whole query as read (a ``str`` or a
    :class:`~swgpu.io.sequence.Sequence`; for ``strand == "-"`` give the forward
    query, it is reverse-complemented here). With it, SEQ is the whole query
    and the unaligned ends are soft-clipped (``S``); without it SEQ is ``*``
    and the ends are hard-clipped (``H``). ``secondary`` adds FLAG 256 (a
    query's further hits). POS is ``target_start + 1``, MAPQ
    255, QUAL ``*``; tags ``AS:i`` (score), ``NM:i`` (mismatches + gap
    columns) and ``ZE:f`` (E-value, when known). An empty alignment gives an
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
    seq = _query_letters(a, query_text)
    if a.empty:
        fields = [a.query or "*", "4", "*", "0", "0", "*", "*", "0", "0", seq or "*", "*"]
        return "\t".join(fields)
    clip = "S" if seq is not None else "H"
    left, right = a.query_start, a.query_length - a.query_end
    cigar = (f"{left}{clip}" if left else "") + a.cigar + (f"{right}{clip}" if right else "")
    flag = (16 if a.strand == "-" else 0) | (256 if secondary else 0)
    fields = [
        a.query or "*", str(flag), a.target, str(a.target_start + 1), "255", cigar, "*", "0", "0",
        seq if seq else "*", "*", f"AS:i:{a.score}", f"NM:i:{a.mismatches + a.gaps}",
    ]
    evalue = finite_or_none(a.evalue)
    if evalue is not None:
        fields.append(f"ZE:f:{evalue:.6g}")
    return "\t".join(fields)
