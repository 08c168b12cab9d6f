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
>>> from swgpu.io.sequence import Sequence
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

from ..scoring import Scoring
from ..io.sequence import Sequence

__all__ = ["Alignment", "cigar_runs", "cigar_to_ops", "ops_to_cigar", "score_ops"]

_CIGAR_RE = re.compile(r"(\d+)([=XIDM])")
_VALID_OP = np.zeros(256, dtype=bool)
_VALID_OP[np.frombuffer(b"=XMID", dtype=np.uint8)] = True


def ops_to_cigar(ops: str) -> str:
    """Run-length encode an op string (``"==X"`` -> ``"2=1X"``)."""
    if not ops:
        return ""
    b = np.frombuffer(ops.encode("ascii"), dtype=np.uint8)
    change = np.ones(b.size, dtype=bool)
    change[1:] = b[1:] != b[:-1]
    starts = np.flatnonzero(change)
    lengths = np.diff(np.append(starts, b.size))
    return "".join(f"{n}{ops[k]}" for k, n in zip(starts.tolist(), lengths.tolist()))


def cigar_runs(cigar: str) -> tuple[np.ndarray, np.ndarray]:
    """A CIGAR's runs: their operation letters (``uint8``) and lengths.

    >>> [x.tolist() for x in cigar_runs("3=1X2D")]
    [[61, 88, 68], [3, 1, 2]]
    """
    b = np.frombuffer(cigar.encode("ascii"), dtype=np.uint8)
    ends = np.flatnonzero(b > ord("9"))  # each run's letter, after its digits
    digits = np.flatnonzero(b <= ord("9"))
    run = np.searchsorted(ends, digits)
    place = np.power(10, ends[run] - 1 - digits, dtype=np.int64)
    lengths = np.bincount(run, weights=(b[digits] - ord("0")) * place, minlength=ends.size)
    return b[ends], lengths.astype(np.int64)


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
    #: False for a further alignment of a query-target pair (``max_hsps``), after its best.
    primary: bool = True
    #: Query residues in any alignment of this query and target, where there are
    #: several (``max_hsps``; BLAST's ``qcovs``); ``None``: this alignment's own.
    query_covered: int | None = None

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
        """Whether the alignment has no columns."""
        return not self.match_line

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
        opb = np.frombuffer(ops.encode("ascii"), dtype=np.uint8)
        bad = ~_VALID_OP[opb]
        if bad.any():
            raise ValueError(f"unknown alignment op {chr(opb[np.argmax(bad)])!r}")
        is_pair = (opb == ord("=")) | (opb == ord("X")) | (opb == ord("M"))
        uses_q = is_pair | (opb == ord("I"))
        uses_t = is_pair | (opb == ord("D"))
        qi = query_start + np.cumsum(uses_q) - uses_q  # query index of each column (where it uses one)
        tj = target_start + np.cumsum(uses_t) - uses_t
        query_end = query_start + int(uses_q.sum())
        target_end = target_start + int(uses_t.sum())
        if query_end > len(query) or target_end > len(target):
            raise ValueError("alignment ops run past the end of a sequence")
        qtext = np.frombuffer(query.text.encode("latin-1"), dtype=np.uint8)
        ttext = np.frombuffer(target.text.encode("latin-1"), dtype=np.uint8)
        gap = np.uint8(ord("-"))
        qa = np.where(uses_q, qtext[np.minimum(qi, max(len(query) - 1, 0))] if len(query) else gap, gap)
        ta = np.where(uses_t, ttext[np.minimum(tj, max(len(target) - 1, 0))] if len(target) else gap, gap)
        qc, tc = q[qi[is_pair]], t[tj[is_pair]]
        same = (qc == tc) & (qc != query.alphabet.unknown_code)
        ml = np.full(opb.shape, ord(" "), dtype=np.uint8)
        ml[is_pair] = np.where(same, ord("|"), np.where(scoring.matrix.values[qc, tc] > 0, ord(":"), ord(".")))
        resolved = opb.copy()
        resolved[is_pair] = np.where(same, ord("="), ord("X"))
        is_gap = ~is_pair
        starts_run = np.ones(opb.shape, dtype=bool)
        starts_run[1:] = opb[1:] != opb[:-1]
        matches = int(same.sum())
        if score is None:
            score = score_ops(q, t, query_start, target_start, ops, scoring)
        return cls(
            query=query.name,
            target=target.name,
            score=int(score),
            query_length=len(query),
            target_length=len(target),
            query_start=query_start,
            query_end=query_end,
            target_start=target_start,
            target_end=target_end,
            cigar=ops_to_cigar(resolved.tobytes().decode("ascii")),
            query_aligned=qa.tobytes().decode("latin-1"),
            target_aligned=ta.tobytes().decode("latin-1"),
            match_line=ml.tobytes().decode("ascii"),
            matches=matches,
            mismatches=int(is_pair.sum()) - matches,
            gap_opens=int((is_gap & starts_run).sum()),
            gaps=int(is_gap.sum()),
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
