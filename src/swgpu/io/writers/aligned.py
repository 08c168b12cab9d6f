"""The alignment as BLAST shows it: the ``qseq``, ``sseq`` and ``btop`` columns.

BLAST shows an alignment with the query as given. On the minus strand swgpu
aligns the reverse complement of the query to the target; BLAST (``blastn``)
shows the same alignment reverse-complemented: the query reads forward, the
subject is the reverse complement of the target (``sstart > send``), and
its traceback operations (BTOP) go in that order.

BTOP: the length of each run of identical columns (the ``=`` of the CIGAR),
and each other column as its two letters, query then subject, ``-`` for a
gap: ``7AG39-T`` is 7 identical columns, query ``A`` against subject ``G``,
39 identical columns, a gap in the query against subject ``T``.

>>> from swgpu.align.alignment import Alignment
>>> from swgpu.scoring import Scoring
>>> from swgpu.io.sequence import Sequence
>>> q, t = Sequence.from_text("q", "ACGTTACGT"), Sequence.from_text("t", "ACCTACGGT")
>>> a = Alignment.from_ops(q, t, Scoring.default("dna"), 0, 0, "==X=I====")
>>> blast_aligned(a), btop(a)
(('ACGTTACGT', 'ACCT-ACGG'), '2GC1T-3TG')
>>> a.strand = "-"   # (as if q were the reverse complement of the query)
>>> blast_aligned(a), btop(a)
(('ACGTAACGT', 'CCGT-AGGT'), 'AC3A-1CG2')
"""

from __future__ import annotations

import re

from .record import AlignmentRecord

__all__ = ["blast_aligned", "btop"]

_RUN = re.compile(r"(\d+)([=XIDM])")


def blast_aligned(a: AlignmentRecord) -> tuple[str, str]:
    """``(qseq, sseq)``: the aligned query and target, ``-`` for gaps, in BLAST's
    orientation (both reverse-complemented on the minus strand; letters as read)."""
    qa, ta = a.query_aligned, a.target_aligned
    if a.strand == "-":
        from ..alphabet import reverse_complement  # NumPy only when these columns are written

        return reverse_complement(qa), reverse_complement(ta)
    return qa, ta


def btop(a: AlignmentRecord) -> str:
    """BLAST's traceback operations of an alignment (see the module notes); an
    ``M`` run of a CIGAR counts the columns whose letters are equal (case aside)."""
    qseq, sseq = blast_aligned(a)
    runs = [(int(n), op) for n, op in _RUN.findall(a.cigar)]
    if a.strand == "-":
        runs.reverse()
    parts: list[str] = []
    count = c = 0
    for n, op in runs:
        for i in range(c, c + n):
            if op == "=" or (op == "M" and qseq[i].upper() == sseq[i].upper()):
                count += 1
                continue
            if count:
                parts.append(str(count))
                count = 0
            parts.append(qseq[i] + sseq[i])
        c += n
    if count:
        parts.append(str(count))
    return "".join(parts)
