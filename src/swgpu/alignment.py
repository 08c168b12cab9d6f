"""The :class:`Alignment` result, the same for every workload and engine.

Coordinates in the Python API are **0-based, half-open** (Python slices):
``query.text[query_start:query_end]`` is the aligned part of the query. Text
outputs (BLAST tabular, SAM, pairwise) print **1-based, inclusive** positions,
as BLAST, SAM and EMBOSS do.

The CIGAR uses ``=`` (identical residues), ``X`` (substitution), ``I``
(residue of the query against a gap in the target) and ``D`` (residue of the
target against a gap in the query), as SAM does for a read (query) on a
reference (target).

>>> from swgpu.scoring import Scoring
>>> from swgpu.sequence import Sequence
>>> q = Sequence.from_text("q", "ACGTACGT")
>>> t = Sequence.from_text("t", "ACGACGT")
>>> a = Alignment.from_ops(q, t, Scoring.default("dna"), 0, 0, "===I====")
>>> a.score, a.cigar, a.query_end, a.target_end
(9, '3=1I4=', 8, 7)
>>> print(a.query_aligned); print(a.match_line); print(a.target_aligned)
ACGTACGT
||| ||||
ACG-ACGT
>>> a.identity, a.mismatches, a.gap_opens, a.length
(0.875, 0, 1, 8)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from .scoring import Scoring
from .sequence import Sequence

__all__ = ["Alignment", "cigar_to_ops", "ops_to_cigar", "score_ops"]

_CIGAR_RE = re.compile(r"(\d+)([=XIDM])")


def ops_to_cigar(ops: str) -> str:
    """Run-length encode an op string (``"==X"`` -> ``"2=1X"``)."""
    out = []
    i = 0
    n = len(ops)
    while i < n:
        j = i
        while j < n and ops[j] == ops[i]:
            j += 1
        out.append(f"{j - i}{ops[i]}")
        i = j
    return "".join(out)


def cigar_to_ops(cigar: str) -> str:
    """Expand a CIGAR into one letter per column."""
    return "".join(op * int(n) for n, op in _CIGAR_RE.findall(cigar))


def score_ops(q: np.ndarray, t: np.ndarray, qs: int, ts: int, ops: str, scoring: Scoring) -> int:
    """Score of an alignment path from its columns (the CIGAR-implied score)."""
    m = scoring.matrix.values
    score = 0
    i, j = qs, ts
    prev = ""
    for op in ops:
        if op in "=XM":
            score += int(m[q[i], t[j]])
            i += 1
            j += 1
        else:
            score -= scoring.gap_extend if op == prev else scoring.gap_open
            if op == "I":
                i += 1
            else:
                j += 1
        prev = op
    return score


@dataclass(eq=False)
class Alignment:
    """A local alignment of a query against a target.

    ``evalue`` and ``bitscore`` are ``None`` where no statistics apply.
    ``strand`` is ``"-"`` when the query was aligned reverse-complemented (then
    query coordinates refer to the reverse complement).
    """

    query: str
    target: str
    score: int
    query_length: int
    target_length: int
    query_start: int
    query_end: int
    target_start: int
    target_end: int
    cigar: str
    query_aligned: str = field(repr=False)
    target_aligned: str = field(repr=False)
    match_line: str = field(repr=False)
    matches: int = 0
    mismatches: int = 0
    gap_opens: int = 0
    gaps: int = 0
    evalue: float | None = None
    bitscore: float | None = None
    strand: str = "+"

    @property
    def length(self) -> int:
        """Alignment columns (matches + mismatches + gap positions)."""
        return len(self.match_line)

    @property
    def identity(self) -> float:
        """Identical columns over alignment length (0.0 for an empty alignment)."""
        return self.matches / self.length if self.length else 0.0

    @property
    def empty(self) -> bool:
        return self.length == 0

    @classmethod
    def empty_for(cls, query: Sequence, target: Sequence) -> "Alignment":
        return cls(query.name, target.name, 0, len(query), len(target), 0, 0, 0, 0, "", "", "", "")

    @classmethod
    def from_ops(
        cls, query: Sequence, target: Sequence, scoring: Scoring, query_start: int, target_start: int, ops: str,
        score: int | None = None,
    ) -> "Alignment":
        """Build from the start coordinates and one op letter per column.

        ``ops`` uses ``M`` or ``=``/``X`` for aligned pairs (``M`` is resolved here),
        ``I`` and ``D`` for gaps. The score is recomputed from the path when not given.
        """
        q, t = query.codes, target.codes
        unknown = query.alphabet.unknown_code
        i, j = query_start, target_start
        qa, ta, ml, resolved = [], [], [], []
        matches = mismatches = gap_opens = gaps = 0
        prev = ""
        qtext, ttext = query.text, target.text
        for op in ops:
            if op in "=XM":
                same = q[i] == t[j] and q[i] != unknown
                qa.append(qtext[i])
                ta.append(ttext[j])
                if same:
                    matches += 1
                    ml.append("|")
                    resolved.append("=")
                else:
                    mismatches += 1
                    ml.append(":" if scoring.matrix.values[q[i], t[j]] > 0 else ".")
                    resolved.append("X")
                i += 1
                j += 1
            elif op == "I":
                qa.append(qtext[i])
                ta.append("-")
                ml.append(" ")
                resolved.append("I")
                i += 1
            elif op == "D":
                qa.append("-")
                ta.append(ttext[j])
                ml.append(" ")
                resolved.append("D")
                j += 1
            else:
                raise ValueError(f"unknown alignment op {op!r}")
            if op in "ID":
                gaps += 1
                if op != prev:
                    gap_opens += 1
            prev = op
        ops_resolved = "".join(resolved)
        if score is None:
            score = score_ops(q, t, query_start, target_start, ops, scoring)
        return cls(
            query=query.name,
            target=target.name,
            score=int(score),
            query_length=len(query),
            target_length=len(target),
            query_start=query_start,
            query_end=i,
            target_start=target_start,
            target_end=j,
            cigar=ops_to_cigar(ops_resolved),
            query_aligned="".join(qa),
            target_aligned="".join(ta),
            match_line="".join(ml),
            matches=matches,
            mismatches=mismatches,
            gap_opens=gap_opens,
            gaps=gaps,
        )

    def to_dict(self) -> dict:
        """Plain types for JSON: coordinates as in the API (0-based, half-open)."""
        return {
            "query": self.query,
            "target": self.target,
            "score": self.score,
            "evalue": self.evalue,
            "bitscore": self.bitscore,
            "query_start": self.query_start,
            "query_end": self.query_end,
            "target_start": self.target_start,
            "target_end": self.target_end,
            "query_length": self.query_length,
            "target_length": self.target_length,
            "strand": self.strand,
            "cigar": self.cigar,
            "identity": round(self.identity, 6),
            "matches": self.matches,
            "mismatches": self.mismatches,
            "gap_opens": self.gap_opens,
            "gaps": self.gaps,
            "length": self.length,
            "query_aligned": self.query_aligned,
            "target_aligned": self.target_aligned,
        }
