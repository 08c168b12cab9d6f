"""Substitution matrices: :class:`ScoreMatrix`, the bundled NCBI matrices
(:data:`MATRIX_NAMES`) and NCBI-format matrix files.

>>> m = ScoreMatrix.load("BLOSUM62")
>>> m["W", "W"], m.match_mismatch_scores
(11, None)
>>> d = ScoreMatrix.match_mismatch(2, -3)
>>> d.name, d["A", "A"], d["A", "C"], d["N", "N"], d.match_mismatch_scores
('match2/mismatch-3', 2, -3, -3, (2, -3))
"""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass, field
from importlib import resources

import numpy as np

from ..exceptions import ScoringError
from ..io.alphabet import DNA, PROTEIN, Alphabet, get_alphabet
from .checks import GAP_LIMIT, SCORE_LIMIT, check_match, check_mismatch

__all__ = ["ScoreMatrix", "MATRIX_NAMES"]

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
        raw = np.asarray(self.values)
        if raw.size and not (raw.min() >= -GAP_LIMIT and raw.max() <= SCORE_LIMIT):  # NaN fails too
            raise ScoringError(f"{self.name}: scores must be from -{GAP_LIMIT:,} to {SCORE_LIMIT:,} (the kernels' "
                               "32-bit range)", param="matrix")
        v = np.ascontiguousarray(raw, dtype=np.int32)
        if v.shape != (self.alphabet.size, self.alphabet.size):
            raise ScoringError(f"{self.name}: shape {v.shape} does not fit the {self.alphabet.name} alphabet",
                               param="matrix")
        v.setflags(write=False)
        object.__setattr__(self, "values", v)

    @classmethod
    def match_mismatch(cls, match: int = 2, mismatch: int = -3, alphabet: str | Alphabet = DNA) -> "ScoreMatrix":
        """``match`` on the diagonal, ``mismatch`` elsewhere; the unknown code
        (``N`` / ``X``) scores ``mismatch`` against everything, itself included."""
        alphabet = get_alphabet(alphabet)
        match, mismatch = check_match(match), check_mismatch(mismatch)
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
        swgpu, the same values BLAST uses, even where a file of that name lies
        in the current folder (give it as a path: ``./BLOSUM62``). A matrix
        file that is not symmetric is used as it is, with a warning. The matrix's letters decide whether it
        scores DNA (``NUC.4.4``, files of nucleotide letters) or protein; asking
        for the other alphabet is an error.

        Letters of the alphabet missing from the file: ``U``, ``O``, ``B``, ``Z``
        and ``*`` take the row of ``X`` (BLAST reads ``U`` and ``O`` as ``X``);
        a matrix without all standard letters is an error.
        """
        text = os.fspath(name_or_path)
        name, source = _find_matrix(text)
        letters, arr = _read_ncbi(text, source)
        upper = set(letters.upper())
        kind = DNA if upper <= _NUCLEOTIDE_MATRIX_LETTERS and upper >= set("ACGT") else PROTEIN
        alphabet = kind if alphabet is None else get_alphabet(alphabet)
        if alphabet is not kind:
            raise ScoringError(
                f"{name} scores {kind.name} but the sequences are {alphabet.name}; "
                + ("use match/mismatch scores or NUC.4.4" if alphabet is DNA else "use a protein matrix such as BLOSUM62"),
                param="matrix",
            )
        if not np.all(np.isfinite(arr)) or not np.all(arr == np.round(arr)):
            raise ScoringError(f"{name}: scores must be integers", param="matrix")
        index = {c.upper(): i for i, c in enumerate(letters)}
        values = _project(name, alphabet, index, arr.astype(np.int64))
        _warn_asymmetric(name, alphabet, values)
        return cls(name, alphabet, values)

    def __getitem__(self, pair: tuple[str, str]) -> int:
        a, b = pair
        return int(self.values[self.alphabet.encode(a)[0], self.alphabet.encode(b)[0]])

    @property
    def max_score(self) -> int:
        return int(self.values.max())

    @property
    def min_score(self) -> int:
        return int(self.values.min())

    @property
    def match_mismatch_scores(self) -> tuple[int, int] | None:
        """``(match, mismatch)`` when this is a DNA match/mismatch matrix, judged
        by its values, else None.

        It is one when the four bases score ``match`` against themselves and
        every other entry, the ``N`` row and column included, is ``mismatch``
        (what :meth:`match_mismatch` builds, whatever the matrix's name).
        """
        if self.alphabet is not DNA:
            return None
        v = self.values
        match, mismatch = int(v[0, 0]), int(v[0, 1])
        expected = np.full_like(v, mismatch)
        np.fill_diagonal(expected[:4, :4], match)
        if not np.array_equal(v, expected):
            return None
        return match, mismatch


def _find_matrix(text: str):
    """``(name, source)`` of a matrix name or file path: a bundled matrix's
    resource (a name always means the shipped matrix, whatever lies in the
    current folder), or the path itself (``./BLOSUM62`` for such a file)."""
    bundled = {n.upper(): n for n in MATRIX_NAMES}
    if text.upper() in bundled:
        name = bundled[text.upper()]
        return name, resources.files("swgpu").joinpath("data", "matrices", name)
    if os.path.isfile(text):
        return os.path.basename(text), text
    raise ScoringError(f"{text!r} is neither a file nor one of {', '.join(MATRIX_NAMES)}", param="matrix")


def _warn_asymmetric(name: str, alphabet: Alphabet, values: np.ndarray) -> None:
    """One warning when ``values`` is not symmetric (as SSEARCH warns): the
    score of a query letter against a target letter then depends on which is
    the query."""
    rows, cols = np.nonzero(values != values.T)
    if len(rows):
        a, b = alphabet.letters[rows[0]], alphabet.letters[cols[0]]
        warnings.warn(f"{name} is not symmetric ({a}-{b} scores {values[rows[0], cols[0]]}, {b}-{a} "
                      f"{values[cols[0], rows[0]]}): scores depend on which sequence is the query", stacklevel=3)


def _read_ncbi(text: str, source) -> tuple[str, np.ndarray]:
    """The letters and the score array of an NCBI-format matrix file: ``#``
    comments, a line of column letters, then one line per row letter with its
    scores (numbers; integers are checked by the caller)."""
    try:
        raw = source.read_text() if not isinstance(source, str) else open(source, encoding="utf-8").read()
    except (OSError, UnicodeDecodeError) as exc:
        raise ScoringError(f"cannot read file {text!r}: {exc}", param="matrix") from None

    def bad(lineno: int, why: str):
        return ScoringError(f"{text!r} line {lineno}: {why} (not an NCBI-format substitution matrix)",
                            param="matrix")

    letters = ""
    rows: list[list[float]] = []
    for lineno, line in enumerate(raw.splitlines(), 1):
        fields = line.split("#", 1)[0].split()
        if not fields:
            continue
        if not letters:
            if any(len(f) != 1 for f in fields) or len(set(fields)) != len(fields):
                raise bad(lineno, "the header must list distinct one-letter columns")
            letters = "".join(fields)
            continue
        if len(rows) == len(letters):
            raise bad(lineno, f"more than {len(letters)} rows")
        want = letters[len(rows)]
        if fields[0] != want or len(fields) != len(letters) + 1:
            raise bad(lineno, f"expected row {want!r} with {len(letters)} scores")
        try:
            rows.append([float(x) for x in fields[1:]])
        except ValueError:
            raise bad(lineno, "scores must be numbers") from None
    if not letters or len(rows) != len(letters):
        raise ScoringError(f"cannot read file {text!r}: not an NCBI-format substitution matrix "
                           f"({len(rows)} of {len(letters)} rows)", param="matrix")
    return letters, np.array(rows, dtype=float)


def _project(name: str, alphabet: Alphabet, index: dict[str, int], arr: np.ndarray) -> np.ndarray:
    """Lay a file matrix (letters ``index``) onto an alphabet's codes."""
    if alphabet is PROTEIN:
        missing = [c for c in _STANDARD_AA if c not in index]
        if missing:
            raise ScoringError(f"{name} lacks the amino acids {''.join(missing)}: it cannot score protein",
                               param="matrix")
        fallback = {"U": "X", "O": "X", "B": "XD", "Z": "XE", "X": "", "*": "X"}
    else:
        missing = [c for c in "ACGT" if c not in index]
        if missing:
            raise ScoringError(f"{name} lacks the nucleotides {''.join(missing)}: it cannot score DNA",
                               param="matrix")
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
        raise ScoringError(f"{name}: scores beyond ±1000 are not supported", param="matrix")
    return v.astype(np.int32)
