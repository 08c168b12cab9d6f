"""Scoring: substitution matrices and affine gap penalties.

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
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, field
from importlib import resources

import numpy as np

from ..io.alphabet import DNA, PROTEIN, Alphabet, get_alphabet
from ..exceptions import ScoringError

__all__ = ["ScoreMatrix", "Scoring", "MATRIX_NAMES"]

#: Matrices available by name (any NCBI-format file path works too).
MATRIX_NAMES = ("BLOSUM45", "BLOSUM50", "BLOSUM62", "BLOSUM80", "BLOSUM90", "PAM30", "PAM70", "PAM250", "NUC.4.4")

_STANDARD_AA = "ARNDCQEGHILKMFPSTWYV"
_NUCLEOTIDE_MATRIX_LETTERS = frozenset("ACGTUNRYSWKMBDHVX*")


@dataclass(frozen=True, eq=False)
class ScoreMatrix:
    """A substitution matrix over an alphabet's codes.

    ``values[a, b]`` is the score of aligning code ``a`` with code ``b``; it is
    a C-contiguous ``int32`` array of shape ``(alphabet.size, alphabet.size)``.
    """

    name: str
    alphabet: Alphabet
    values: np.ndarray = field(repr=False)

    def __post_init__(self):
        v = np.ascontiguousarray(self.values, dtype=np.int32)
        if v.shape != (self.alphabet.size, self.alphabet.size):
            raise ScoringError(f"matrix {self.name}: shape {v.shape} does not fit the {self.alphabet.name} alphabet")
        v.setflags(write=False)
        object.__setattr__(self, "values", v)

    @classmethod
    def match_mismatch(cls, match: int = 2, mismatch: int = -3, alphabet: str | Alphabet = DNA) -> "ScoreMatrix":
        """``match`` on the diagonal, ``mismatch`` elsewhere; the unknown code
        (``N`` / ``X``) scores ``mismatch`` against everything, itself included."""
        alphabet = get_alphabet(alphabet)
        if match <= 0:
            raise ScoringError(f"match score must be positive, got {match}")
        if mismatch > 0:
            raise ScoringError(f"mismatch score must be zero or negative (e.g. --mismatch -3), got {mismatch}")
        v = np.full((alphabet.size, alphabet.size), mismatch, dtype=np.int32)
        np.fill_diagonal(v, match)
        u = alphabet.unknown_code
        v[u, :] = mismatch
        v[:, u] = mismatch
        return cls(f"match{match}/mismatch{mismatch}", alphabet, v)

    @classmethod
    def load(cls, name_or_path: str | os.PathLike, alphabet: str | Alphabet | None = None) -> "ScoreMatrix":
        """A matrix by name or from an NCBI-format file.

        Names (:data:`MATRIX_NAMES`, any case) load the NCBI files shipped with
        swgpu, the same values BLAST uses. The matrix's letters decide whether it
        scores DNA (``NUC.4.4``, files of nucleotide letters) or protein; asking
        for the other alphabet is an error.

        Letters of the alphabet missing from the file: ``U``, ``O``, ``B``, ``Z``
        and ``*`` take the row of ``X`` (BLAST reads ``U`` and ``O`` as ``X``);
        a matrix without all standard letters is an error.
        """
        from Bio.Align import substitution_matrices

        text = os.fspath(name_or_path)
        bundled = {n.upper(): n for n in MATRIX_NAMES}
        if text.upper() in bundled and not os.path.exists(text):
            name = bundled[text.upper()]
            source = resources.files("swgpu").joinpath("data", "matrices", name)
        elif os.path.isfile(text):
            name, source = os.path.basename(text), text
        else:
            raise ScoringError(f"unknown matrix {text!r}: give a file path or one of {', '.join(MATRIX_NAMES)}")
        try:
            with resources.as_file(source) if not isinstance(source, str) else contextlib.nullcontext(source) as path:
                bio = substitution_matrices.read(str(path))
            letters = "".join(bio.alphabet)
            arr = np.asarray(bio, dtype=float)
            if arr.ndim != 2 or arr.shape[0] != len(letters) or arr.shape[0] != arr.shape[1] or not letters:
                raise ValueError
        except Exception:  # Biopython raises assorted errors on bad files
            raise ScoringError(f"cannot read matrix file {text!r}: not an NCBI-format substitution matrix") from None
        upper = set(letters.upper())
        kind = DNA if upper <= _NUCLEOTIDE_MATRIX_LETTERS and upper >= set("ACGT") else PROTEIN
        alphabet = kind if alphabet is None else get_alphabet(alphabet)
        if alphabet is not kind:
            raise ScoringError(
                f"matrix {name} scores {kind.name} but the sequences are {alphabet.name}; "
                + ("use --match/--mismatch or NUC.4.4" if alphabet is DNA else "use a protein matrix such as BLOSUM62")
            )
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            raise ScoringError(f"matrix {name}: scores must be integers")
        index = {c.upper(): i for i, c in enumerate(letters)}
        return cls(name, alphabet, _project(name, alphabet, index, arr.astype(np.int64)))

    def __getitem__(self, pair: tuple[str, str]) -> int:
        a, b = pair
        return int(self.values[self.alphabet.encode(a)[0], self.alphabet.encode(b)[0]])

    @property
    def max_score(self) -> int:
        return int(self.values.max())

    @property
    def min_score(self) -> int:
        return int(self.values.min())


def _project(name: str, alphabet: Alphabet, index: dict[str, int], arr: np.ndarray) -> np.ndarray:
    """Lay a file matrix (letters ``index``) onto an alphabet's codes."""
    if alphabet is PROTEIN:
        missing = [c for c in _STANDARD_AA if c not in index]
        if missing:
            raise ScoringError(f"matrix {name} lacks the amino acids {''.join(missing)}: it cannot score protein")
        fallback = {"U": "X", "O": "X", "B": "XD", "Z": "XE", "X": "", "*": "X"}
    else:
        missing = [c for c in "ACGT" if c not in index]
        if missing:
            raise ScoringError(f"matrix {name} lacks the nucleotides {''.join(missing)}: it cannot score DNA")
        fallback = {"N": ""}
    rows = []
    for letter in alphabet.letters:
        src = letter if letter in index else next((f for f in fallback.get(letter, "") if f in index), None)
        rows.append(index[src] if src is not None else -1)
    v = np.empty((alphabet.size, alphabet.size), dtype=np.int64)
    lowest = int(arr.min())
    for a, ra in enumerate(rows):
        for b, rb in enumerate(rows):
            v[a, b] = arr[ra, rb] if ra >= 0 and rb >= 0 else lowest
    if np.abs(v).max() > 1000:
        raise ScoringError(f"matrix {name}: scores beyond ±1000 are not supported")
    return v.astype(np.int32)


@dataclass(frozen=True, eq=False)
class Scoring:
    """A substitution matrix plus affine gap penalties (positive numbers).

    A gap of length ``k`` costs ``gap_open + (k - 1) * gap_extend``.
    """

    matrix: ScoreMatrix
    gap_open: int
    gap_extend: int

    def __post_init__(self):
        for label, value in (("gap open", self.gap_open), ("gap extend", self.gap_extend)):
            if int(value) != value:
                raise ScoringError(f"{label} penalty must be an integer, got {value}")
        object.__setattr__(self, "gap_open", int(self.gap_open))
        object.__setattr__(self, "gap_extend", int(self.gap_extend))
        if self.gap_extend < 0 or self.gap_open < 0:
            raise ScoringError(
                f"gap penalties are positive costs (e.g. --gap-open 11 --gap-extend 1), got open {self.gap_open}, extend {self.gap_extend}"
            )
        if self.gap_open == 0:
            raise ScoringError("gap open penalty must be at least 1")
        if self.gap_extend > self.gap_open:
            raise ScoringError(
                f"gap extend ({self.gap_extend}) must not exceed gap open ({self.gap_open}); "
                "a gap of length k costs open + (k-1)*extend"
            )
        if self.gap_open > 10000:
            raise ScoringError("gap penalties above 10000 are not supported")
        if self.matrix.max_score <= 0:
            raise ScoringError(f"matrix {self.matrix.name} has no positive score: every local alignment would be empty")

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
            raise ScoringError("give either a matrix or match/mismatch scores, not both")
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
