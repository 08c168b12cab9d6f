"""The ``blast6`` format: BLAST ``-outfmt 6`` lines plus four swgpu columns.

The 12 standard tab-separated columns ``qseqid sseqid pident length mismatch
gapopen qstart qend sstart send evalue bitscore``, then ``score`` (raw score),
``qlen``, ``slen`` and ``cigar``. For ``strand == "-"`` ``qstart < qend`` are
positions on the query as given and ``sstart > send``, as in BLAST; ``cigar``
stays in target order (as in SAM).
"""

from __future__ import annotations

from .common import finite_or_none, format_bitscore, format_evalue
from .record import AlignmentRecord

__all__ = ["BLAST6_COLUMNS", "blast6_header", "format_blast6"]

#: Column names of the ``blast6`` format: BLAST's 12, then swgpu's 4 extras.
BLAST6_COLUMNS = (
    "qseqid", "sseqid", "pident", "length", "mismatch", "gapopen",
    "qstart", "qend", "sstart", "send", "evalue", "bitscore",
    "score", "qlen", "slen", "cigar",
)


def _forward_query_range(a: AlignmentRecord) -> tuple[int, int]:
    """1-based inclusive query start and end on the query as given."""
    if a.strand == "-":
        return a.query_length - a.query_end + 1, a.query_length - a.query_start
    return a.query_start + 1, a.query_end


def blast6_header() -> str:
    """The comment line naming the ``blast6`` columns (``header=True``).

    >>> blast6_header()[:40]
    '# Fields: qseqid, sseqid, pident, length'
    """
    return "# Fields: " + ", ".join(BLAST6_COLUMNS)


def format_blast6(a: AlignmentRecord) -> str:
    """One ``blast6`` line (no newline) for a non-empty alignment.

    Columns: ``qseqid sseqid pident length mismatch gapopen qstart qend sstart
    send evalue bitscore score qlen slen cigar``. ``pident`` is the percentage
    of identical columns over the alignment length (gaps included), with three
    decimals; positions are 1-based inclusive; ``evalue`` follows
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
    """
    if a.empty:
        raise ValueError(f"empty alignment of {a.query} and {a.target} has no blast6 line")
    qstart, qend = _forward_query_range(a)
    sstart, send = a.target_start + 1, a.target_end
    if a.strand == "-":
        sstart, send = send, sstart
    fields = (
        a.query, a.target, "%.3f" % (100.0 * a.matches / a.length), a.length, a.mismatches, a.gap_opens,
        qstart, qend, sstart, send, format_evalue(finite_or_none(a.evalue)), format_bitscore(a.bitscore),
        a.score, a.query_length, a.target_length, a.cigar,
    )
    return "\t".join(str(f) for f in fields)
