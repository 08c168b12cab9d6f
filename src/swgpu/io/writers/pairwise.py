"""The ``pairwise`` format: a human-readable view in the style of EMBOSS ``water``.

For ``strand == "-"`` the query is shown reverse-complemented against the
target, with query positions on the forward strand, so they count down.
"""

from __future__ import annotations

import math

from ..._version import __version__
from ...exceptions import InputError
from .common import finite_or_none, format_bitscore, format_evalue
from .record import AlignmentRecord, ScoringLike

__all__ = ["PAIRWISE_WIDTH", "format_pairwise", "pairwise_file_header"]

#: Alignment columns per block of ``pairwise`` output.
PAIRWISE_WIDTH = 60
_NAME_WIDTH = 13
_RULE = "#" + "=" * 39


def _percent(n: int, total: int) -> str:
    return f"{n}/{total} ({100.0 * n / total if total else 0.0:.1f}%)"


def pairwise_file_header(program_line: str | None = None, scoring: ScoringLike | None = None) -> str:
    """The program header at the top of a ``pairwise`` file (``header=True``), with a final blank line.

    >>> print(pairwise_file_header("swgpu align q.fa t.fa"), end="")  # doctest: +ELLIPSIS
    # Program: swgpu ...
    # Commandline: swgpu align q.fa t.fa
    <BLANKLINE>
    """
    text = f"# Program: swgpu {__version__}\n"
    if program_line:
        text += f"# Commandline: {program_line}\n"
    if scoring is not None:
        text += f"# Scoring: {scoring.describe()}\n"
    return text + "\n"


def _header_lines(a: AlignmentRecord, scoring: ScoringLike | None) -> list[str]:
    """The ``#`` block above one alignment, ending with the rule and a blank line."""
    similar = a.match_line.count("|") + a.match_line.count(":")
    lines = [
        _RULE,
        f"# Query: {a.query} ({a.query_length})",
        f"# Target: {a.target} ({a.target_length})",
        f"# Score: {a.score}",
        f"# Length: {a.length}",
        f"# Identity: {_percent(a.matches, a.length)}",
        f"# Similarity: {_percent(similar, a.length)}",
        f"# Gaps: {_percent(a.gaps, a.length)}",
    ]
    if a.evalue is not None and not math.isnan(float(a.evalue)):
        lines.append(f"# E-value: {format_evalue(a.evalue)}")
    if finite_or_none(a.bitscore) is not None:
        lines.append(f"# Bit score: {format_bitscore(a.bitscore)}")
    if a.strand == "-":
        lines.append("# Strand: - (query reverse-complemented)")
    if scoring is not None:
        lines.append(f"# Scoring: {scoring.describe()}")
    if a.empty:
        lines.append("# No local alignment with a positive score.")
    return lines + [_RULE, ""]


def _block_lines(a: AlignmentRecord, width: int) -> list[str]:
    """The alignment in blocks of ``width`` columns: query, match and target lines, then a blank line."""
    minus = a.strand == "-"
    qlen = a.query_length
    digits = max(6, len(str(max(a.query_end, a.target_end, qlen if minus else 0))))
    name_width = max(_NAME_WIDTH, len(a.query), len(a.target))
    indent = " " * (name_width + 1 + digits + 1)
    qname = f"{a.query:<{name_width}}"
    tname = f"{a.target:<{name_width}}"
    qpos, tpos = a.query_start, a.target_start  # residues consumed, 0-based next index
    lines: list[str] = []
    for off in range(0, a.length, width):
        qseg = a.query_aligned[off:off + width]
        tseg = a.target_aligned[off:off + width]
        nq = len(qseg) - qseg.count("-")
        nt = len(tseg) - tseg.count("-")
        if nq:
            qfirst, qlast = qpos + 1, qpos + nq
        else:
            qfirst = qlast = qpos
        if minus:  # rc index k (0-based) is forward position qlen - k (1-based)
            qfirst, qlast = (qlen - qpos, qlen - qpos - nq + 1) if nq else (qlen - qpos + 1,) * 2
        tfirst, tlast = (tpos + 1, tpos + nt) if nt else (tpos, tpos)
        qpos += nq
        tpos += nt
        lines.append(f"{qname} {qfirst:>{digits}} {qseg} {qlast:>{digits}}")
        lines.append(indent + a.match_line[off:off + width])
        lines.append(f"{tname} {tfirst:>{digits}} {tseg} {tlast:>{digits}}")
        lines.append("")
    return lines


def format_pairwise(a: AlignmentRecord, scoring: ScoringLike | None = None, width: int = PAIRWISE_WIDTH) -> str:
    """A header block and the alignment in blocks of ``width`` columns (ends with a blank line).

    Each block has a query line (``name start ALIGNED end``), the match line
    (``|`` identical, ``:`` positive-scoring substitution, ``.`` other
    substitution, space for gaps) and a target line; ``start`` and ``end`` are the
    1-based positions of the first and last residue on the line (a line of gaps
    only shows the last residue before it). Names are padded to 13 characters
    as in EMBOSS ``water``; a longer name is written whole, and the columns of
    that alignment move right to fit it. For ``strand == "-"`` the query is shown
    reverse-complemented with forward-strand positions, which count down.
    ``scoring`` (anything with a ``describe()``) adds a ``# Scoring:`` line.

    >>> from swgpu.align.alignment import Alignment
    >>> from swgpu.scoring import Scoring
    >>> from swgpu.io.sequence import Sequence
    >>> q, t = Sequence.from_text("q", "ACGTACGT"), Sequence.from_text("t", "ACGACGT")
    >>> a = Alignment.from_ops(q, t, Scoring.default("dna"), 0, 0, "===I====")
    >>> print(format_pairwise(a, Scoring.default("dna")), end="")
    #=======================================
    # Query: q (8)
    # Target: t (7)
    # Score: 9
    # Length: 8
    # Identity: 7/8 (87.5%)
    # Similarity: 7/8 (87.5%)
    # Gaps: 1/8 (12.5%)
    # Scoring: match2/mismatch-3, gap open 5, gap extend 2
    #=======================================
    <BLANKLINE>
    q                  1 ACGTACGT      8
                         ||| ||||
    t                  1 ACG-ACGT      7
    <BLANKLINE>
    """
    if width < 1:
        raise InputError(f"line width must be positive, got {width}", param="width")
    lines = _header_lines(a, scoring)
    if not a.empty:
        lines += _block_lines(a, width)
    return "\n".join(lines) + "\n"
