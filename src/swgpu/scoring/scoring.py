"""Scoring: a substitution matrix plus affine gap penalties.

Gap convention (parasail, Biopython, CUDASW++, SSEARCH): a gap of length *k*
costs ``gap_open + (k - 1) * gap_extend``. Linear gaps are ``gap_open ==
gap_extend``. BLAST instead writes a gap's cost as ``existence + k *
extension``; the two map as ``existence = gap_open - gap_extend`` and
``extension = gap_extend`` (so swgpu's BLOSUM62 11/1 is BLAST's ``-gapopen 10
-gapextend 1``, and BLAST's default 11/1 is swgpu's 12/1).

>>> s = Scoring.default("protein")
>>> s.matrix.name, s.gap_open, s.gap_extend
('BLOSUM62', 11, 1)
>>> s.score_pair("W", "W")
11
>>> s.gap_cost(3)
13
>>> s.blast_gap_costs()
(10, 1)
>>> d = Scoring.default("dna")
>>> d.score_pair("A", "A"), d.score_pair("A", "C"), d.score_pair("N", "N")
(2, -3, -3)
>>> d.match_mismatch()
(2, -3)
"""

from __future__ import annotations

from dataclasses import dataclass

from ..exceptions import InputError, ScoringError
from ..io.alphabet import DNA, PROTEIN, Alphabet, get_alphabet
from .checks import check_gap
from .matrices import MATRIX_NAMES, ScoreMatrix

__all__ = ["ScoreMatrix", "Scoring", "MATRIX_NAMES"]

#: Largest gap penalty a :class:`Scoring` accepts.
MAX_GAP_PENALTY = 10000


@dataclass(frozen=True, eq=False)
class Scoring:
    """A substitution matrix plus affine gap penalties (positive numbers).

    A gap of length ``k`` costs ``gap_open + (k - 1) * gap_extend``.
    """

    matrix: ScoreMatrix
    gap_open: int
    gap_extend: int

    def __post_init__(self):
        gap_open, gap_extend = check_gap(self.gap_open, "gap_open"), check_gap(self.gap_extend, "gap_extend")
        object.__setattr__(self, "gap_open", gap_open)
        object.__setattr__(self, "gap_extend", gap_extend)
        if gap_open == 0:
            raise ScoringError("must be at least 1, got 0: a gap open penalty of 0 makes every gap free",
                               param="gap_open")
        if gap_extend > gap_open:
            raise ScoringError(
                f"gap extend ({gap_extend}) must not exceed gap open ({gap_open}); "
                "a gap of length k costs open + (k-1)*extend",
                param="gap_extend",
            )
        if gap_open > MAX_GAP_PENALTY:
            raise ScoringError(f"gap penalties above {MAX_GAP_PENALTY} are not supported, got {gap_open}",
                               param="gap_open")
        if self.matrix.max_score <= 0:
            raise ScoringError(f"{self.matrix.name} has no positive score: every local alignment would be empty",
                               param="matrix")

    @property
    def alphabet(self) -> Alphabet:
        return self.matrix.alphabet

    @property
    def linear(self) -> bool:
        return self.gap_open == self.gap_extend

    def gap_cost(self, length: int) -> int:
        """Cost of a gap of ``length`` residues (0 for length 0)."""
        return 0 if length <= 0 else self.gap_open + (length - 1) * self.gap_extend

    def blast_gap_costs(self) -> tuple[int, int]:
        """The same penalties as BLAST's (existence, extension)."""
        return self.gap_open - self.gap_extend, self.gap_extend

    def score_pair(self, a: str, b: str) -> int:
        return self.matrix[a, b]

    def check_sequences(self, sequences, hint: str = "") -> None:
        """:class:`~swgpu.exceptions.InputError` (``param="alphabet"``) naming the
        first of ``sequences`` that is not of this scoring's alphabet (``hint``
        is added to the message)."""
        for s in sequences:
            if s.alphabet is not self.alphabet:
                raise InputError(f"{s.name!r} is {s.alphabet.name} but the scoring is for {self.alphabet.name}{hint}",
                                 param="alphabet")

    def match_mismatch(self) -> tuple[int, int]:
        """``(match, mismatch)`` of DNA match/mismatch scoring (judged by the
        matrix's values, see :attr:`ScoreMatrix.match_mismatch_scores`); a
        :class:`~swgpu.exceptions.ScoringError` for protein scoring
        (``param="alphabet"``) or a DNA substitution matrix such as NUC.4.4
        (``param="matrix"``).
        """
        if self.alphabet is not DNA:
            raise ScoringError(f"needs dna, not {self.alphabet.name}", param="alphabet")
        pair = self.matrix.match_mismatch_scores
        if pair is None:
            raise ScoringError(f"needs match/mismatch scoring, not a substitution matrix ({self.matrix.name})",
                               param="matrix")
        return pair

    def describe(self) -> str:
        return f"{self.matrix.name}, gap open {self.gap_open}, gap extend {self.gap_extend}"

    @classmethod
    def default(cls, alphabet: str | Alphabet) -> "Scoring":
        """BLOSUM62 11/1 for protein; match 2, mismatch -3, open 5, extend 2 for DNA."""
        alphabet = get_alphabet(alphabet)
        if alphabet is PROTEIN:
            return cls(ScoreMatrix.load("BLOSUM62", PROTEIN), 11, 1)
        return cls(ScoreMatrix.match_mismatch(2, -3, DNA), 5, 2)

    @classmethod
    def build(
        cls,
        alphabet: str | Alphabet,
        matrix: str | None = None,
        match: int | None = None,
        mismatch: int | None = None,
        gap_open: int | None = None,
        gap_extend: int | None = None,
    ) -> "Scoring":
        """Scoring from command-line style options; unset options take the defaults."""
        alphabet = get_alphabet(alphabet)
        default = cls.default(alphabet)
        if matrix is not None and (match is not None or mismatch is not None):
            raise ScoringError("give either a matrix or match/mismatch scores, not both", param="matrix")
        if matrix is not None:
            m = ScoreMatrix.load(matrix, alphabet)
        elif match is not None or mismatch is not None:
            if alphabet is PROTEIN:
                m = ScoreMatrix.match_mismatch(match if match is not None else 1,
                                               mismatch if mismatch is not None else -1, PROTEIN)
            else:
                m = ScoreMatrix.match_mismatch(match if match is not None else 2,
                                               mismatch if mismatch is not None else -3, DNA)
        else:
            m = default.matrix
        go = default.gap_open if gap_open is None else gap_open
        ge = default.gap_extend if gap_extend is None else gap_extend
        if gap_open is not None and gap_extend is None and 0 <= go < ge:
            ge = go
        return cls(m, go, ge)
