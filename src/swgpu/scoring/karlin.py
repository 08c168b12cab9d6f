"""Karlin-Altschul parameters of a scoring system: BLAST's table look-ups.

There is no closed form for ``lambda`` and ``K`` of *gapped* alignments: they
are estimated once per scoring system by simulation and tabulated. swgpu
carries the gapped Karlin-Altschul parameters published with NCBI BLAST
(blast_stat.c, in the data file read by :mod:`swgpu.scoring.tables`): for the
protein matrices BLOSUM45, BLOSUM50, BLOSUM62, BLOSUM80, BLOSUM90, PAM30,
PAM70 and PAM250 with each gap cost pair BLAST accepts, the ungapped row of
each of those matrices, and the blastn tables for match/mismatch scores
(reward/penalty 1/-1, 1/-2, 1/-3, 1/-4, 1/-5, 2/-3, 2/-5, 2/-7, 3/-2, 3/-4,
4/-5 and 5/-4, plus their multiples, as BLAST allows).

This module holds the *tables*: any other matrix (a scaled matrix, a file of
other scores), gap costs not in the table (for example linear gaps with a
protein matrix) and match/mismatch pairs BLAST does not list are not here:
:func:`lookup` returns ``None`` and :func:`swgpu.scoring.estimated.parameters`
estimates them by simulation instead (so every scoring system gets E-values,
see :mod:`swgpu.scoring.statistics`). The one computed row here is the
ungapped one for match/mismatch DNA scoring, which has an exact solution (see
:func:`nucleotide_ungapped`; :mod:`swgpu.scoring.ungapped` does any matrix).

Matrices are recognised by their values, never their names: a protein matrix
by its scores among the 20 standard amino acids (:func:`tabulated_name`), DNA
match/mismatch scoring by its scores among ``A C G T`` (so NUC.4.4, which
scores the bases as 5/-4, uses blastn's 5/-4 table).

Gap costs: swgpu against BLAST
------------------------------
swgpu charges ``gap_open + (k - 1) * gap_extend`` for a gap of length ``k``;
BLAST charges ``existence + k * extension``. So BLAST's (existence, extension)
is swgpu's ``(gap_open - gap_extend, gap_extend)``: BLAST's default BLOSUM62
11/1 is swgpu's open 12, extend 1, and swgpu's default protein scoring (open
11, extend 1) is BLAST's 10/1. Tables are keyed in BLAST's convention.

When BLAST uses the ungapped values
-----------------------------------
* Protein matrices: only for the sentinel gap costs existence = extension =
  32767 (``INT2_MAX``, "infinite"); any other pair missing from the table is an
  error in BLAST and ``None`` here. swgpu caps gap costs at 10000, so a
  :class:`~swgpu.scoring.Scoring` never reaches the sentinel; use
  :func:`ungapped` for the ungapped row of a matrix.
* blastn: each reward/penalty pair has a threshold (existence, extension);
  gap costs at or above it in *both* components use the ungapped parameters
  (computed, as BLAST does, from the match/mismatch scores).
* Linear gaps (existence 0) with a match/mismatch pair use the pair's row for
  BLAST's greedy (megablast) extension, whose gap cost is ``reward / 2 -
  penalty`` per base, when the extension is exactly that (e.g. 2/-3 with swgpu
  open = extend = 4); other linear costs are looked up like any pair.
* For reward/penalty 2/-3, 2/-5, 2/-7 and 3/-4 (and their multiples) BLAST
  rounds an odd gapped score down to the next even number before computing its
  E-value (the parameters were fitted on even scores), including when it falls
  back to the ungapped values; the raw score and the bit score it prints stay
  unrounded. :attr:`KarlinAltschul.round_down` says so.

>>> from swgpu.scoring import ScoreMatrix, Scoring
>>> p = lookup(Scoring(ScoreMatrix.load("BLOSUM62"), 12, 1))     # BLAST's default, 11/1
>>> p.lambda_, p.K, p.H
(0.267, 0.041, 0.14)
>>> q = lookup(Scoring.default("protein"))   # swgpu open 11 extend 1
>>> q.lambda_, q.K
(0.243, 0.024)
>>> lookup(Scoring.build("dna", gap_open=7)).lambda_     # blastn's default 2/-3, 5/2
0.625
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from .nucleotide import nucleotide_ungapped_values
from .tables import INT2_MAX, blast_tables, nucleotide_pairs, protein_matrices

if TYPE_CHECKING:  # pragma: no cover
    from .matrices import ScoreMatrix
    from .scoring import Scoring

#: Names read from the data file on first use (module ``__getattr__``).
_LAZY = ("PROTEIN_MATRICES", "NUCLEOTIDE_PAIRS")

__all__ = [
    "INT2_MAX",
    "KarlinAltschul",
    "lookup",
    "lookup_blast",
    "ungapped",
    "nucleotide_ungapped",
    "parse_match_mismatch",
    "tabulated_name",
] + list(_LAZY)


def __getattr__(name: str):
    # The table's keys, read from the data file on first use.
    if name == "PROTEIN_MATRICES":
        return protein_matrices()
    if name == "NUCLEOTIDE_PAIRS":
        return nucleotide_pairs()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class KarlinAltschul:
    """Karlin-Altschul parameters of one scoring system.

    ``lambda_`` and ``K`` give bit scores and E-values; ``H`` is the relative
    entropy (nats per aligned pair); ``alpha`` and ``beta`` drive the length
    adjustment. ``gapped`` is False for ungapped rows. ``round_down``: odd
    scores are rounded down to even before computing E-values (some blastn
    pairs). ``source`` says which table row (or computation) gave the values.
    """

    lambda_: float
    K: float
    H: float
    alpha: float
    beta: float
    gapped: bool
    source: str
    round_down: bool = False

    @property
    def logK(self) -> float:
        return math.log(self.K)

    @property
    def alpha_over_lambda(self) -> float:
        return self.alpha / self.lambda_


_MATCH_MISMATCH = re.compile(r"^match(\d+)/mismatch(-?\d+)$", re.IGNORECASE)


def parse_match_mismatch(name: str) -> tuple[int, int] | None:
    """``(reward, penalty)`` from a name like ``"match2/mismatch-3"``, else None.

    Only for the name-keyed :func:`lookup_blast` and :func:`ungapped`;
    :func:`lookup` reads a matrix's values instead.

    >>> parse_match_mismatch("match2/mismatch-3")
    (2, -3)
    >>> parse_match_mismatch("BLOSUM62") is None
    True
    """
    m = _MATCH_MISMATCH.match(name.strip())
    if not m:
        return None
    return int(m.group(1)), int(m.group(2))


def _protein_params(name: str, row: tuple[float, ...]) -> KarlinAltschul:
    e, x, lam, k, h, alpha, beta = row
    if e == INT2_MAX:
        return KarlinAltschul(lam, k, h, alpha, beta, False, f"BLAST table, {name} ungapped")
    return KarlinAltschul(lam, k, h, alpha, beta, True,
                          f"BLAST table, {name} gap existence {int(e)} extension {int(x)}")


def _protein_lookup(name: str, existence: int, extension: int) -> KarlinAltschul | None:
    for row in blast_tables().protein[name]:
        if row[0] == existence and row[1] == extension:
            return _protein_params(name, row)
    return None


def ungapped(matrix: str) -> KarlinAltschul | None:
    """The ungapped row for a matrix: a tabulated protein matrix name, or a
    match/mismatch name such as ``"match1/mismatch-3"`` (computed, see
    :func:`nucleotide_ungapped`). None for anything else.

    >>> ungapped("BLOSUM62").lambda_
    0.3176
    """
    key = matrix.strip().upper()
    protein = blast_tables().protein
    if key in protein:
        return _protein_params(key, protein[key][0])
    pair = parse_match_mismatch(matrix)
    if pair is not None and pair[0] > 0 and pair[1] < 0 and pair[0] + 3 * pair[1] < 0:
        return nucleotide_ungapped(*pair)
    return None  # unknown matrix, or an expected score that is not negative


def lookup_blast(matrix: str, existence: int, extension: int) -> KarlinAltschul | None:
    """Parameters for a matrix name with gap costs in BLAST's convention
    (a gap of length k costs ``existence + k * extension``); None when BLAST
    has no parameters for the combination.

    ``matrix`` is a protein matrix name (``"BLOSUM62"``) or a match/mismatch
    name (``"match2/mismatch-3"``), which selects the blastn tables.

    >>> lookup_blast("PAM30", 9, 1).K
    0.11
    >>> lookup_blast("match2/mismatch-3", 5, 2).lambda_
    0.625
    >>> lookup_blast("BLOSUM62", 11, 3) is None
    True
    """
    existence, extension = int(existence), int(extension)
    key = matrix.strip().upper()
    if key in blast_tables().protein:
        return _protein_lookup(key, existence, extension)
    pair = parse_match_mismatch(matrix)
    if pair is None:
        return None
    return _nucleotide_lookup(pair[0], pair[1], existence, extension)


def _nucleotide_lookup(reward: int, penalty: int, existence: int, extension: int) -> KarlinAltschul | None:
    if reward <= 0 or penalty >= 0:
        return None
    d = math.gcd(reward, -penalty)
    table = blast_tables().nucleotide.get((reward // d, penalty // d))
    if table is None:
        return None
    label = f"blastn table, reward {reward} penalty {penalty}"
    # Rows are for the pair in lowest terms; a multiple d scales the scores
    # (and so the gap costs) by d, lambda and alpha by 1/d.
    for e, x, lam, k, h, alpha, beta in table.rows:
        if e * d == existence and x * d == extension:
            return KarlinAltschul(lam / d, k, h, alpha / d, beta, True,
                                  f"{label} gap existence {existence} extension {extension}",
                                  table.round_down)
    # The non-affine row: BLAST's greedy cost, reward / 2 - penalty per base.
    if table.linear is not None and existence == 0 and 2 * extension == reward - 2 * penalty:
        lam, k, h, alpha, beta = table.linear
        return KarlinAltschul(lam / d, k, h, alpha / d, beta, True,
                              f"{label} linear gaps {extension}", table.round_down)
    if existence >= table.existence_max * d and extension >= table.extension_max * d:
        base = nucleotide_ungapped(reward, penalty)
        return KarlinAltschul(base.lambda_, base.K, base.H, base.alpha, base.beta, False,
                              f"{label} ungapped (gap costs {existence}/{extension} at or above "
                              f"{table.existence_max * d}/{table.extension_max * d})",
                              table.round_down)
    return None


@lru_cache(maxsize=None)
def nucleotide_ungapped(reward: int, penalty: int) -> KarlinAltschul:
    """Ungapped ``lambda``, ``K`` and ``H`` of match/mismatch scoring with equal
    base frequencies (a match has probability 1/4), computed exactly (see
    :func:`swgpu.scoring.nucleotide.nucleotide_ungapped_values`).
    ``alpha = lambda / H`` and ``beta`` is BLAST's ungapped blastn value (-2
    for 1/-1 and 2/-3, else 0).

    >>> p = nucleotide_ungapped(1, -3)
    >>> round(p.lambda_, 3), round(p.K, 3), round(p.H, 2)
    (1.374, 0.711, 1.31)
    """
    lam, K, H = nucleotide_ungapped_values(reward, penalty)
    beta = -2.0 if (reward, penalty) in ((1, -1), (2, -3)) else 0.0
    return KarlinAltschul(lam, K, H, lam / H, beta, False,
                          f"computed ungapped, reward {reward} penalty {penalty}, equal base frequencies")


def tabulated_name(matrix: "ScoreMatrix") -> str | None:
    """The tabulated protein matrix whose scores among the 20 standard amino
    acids ``matrix`` holds, whatever ``matrix`` is called; else None.

    >>> from swgpu.scoring import ScoreMatrix
    >>> tabulated_name(ScoreMatrix.load("PAM30")), tabulated_name(ScoreMatrix.load("NUC.4.4"))
    ('PAM30', None)
    """
    if getattr(matrix.alphabet, "name", None) != "protein":
        return None
    block = np.asarray(matrix.values)[:20, :20]
    for name in blast_tables().protein:
        ref = _canonical_protein(name)
        if ref is not None and np.array_equal(block, ref):
            return name
    return None


@lru_cache(maxsize=None)
def _canonical_protein(name: str) -> np.ndarray | None:
    """The 20 standard amino acids' block of a named matrix, or None when it
    cannot be loaded here."""
    try:
        from .matrices import ScoreMatrix

        return np.asarray(ScoreMatrix.load(name, "protein").values)[:20, :20].copy()
    except Exception:  # pragma: no cover - a bundled file missing
        return None


def _acgt_match_mismatch(matrix: "ScoreMatrix") -> tuple[int, int] | None:
    """``(match, mismatch)`` when the four bases score as match/mismatch
    scoring (the statistics see only ``A C G T``), else None."""
    pair = matrix.match_mismatch_scores
    if pair is not None or getattr(matrix.alphabet, "name", None) != "dna":
        return pair
    v = np.asarray(matrix.values)[:4, :4]
    match, mismatch = int(v[0, 0]), int(v[0, 1])
    expected = np.full((4, 4), mismatch)
    np.fill_diagonal(expected, match)
    return (match, mismatch) if np.array_equal(v, expected) else None


def lookup(scoring: "Scoring") -> KarlinAltschul | None:
    """BLAST's tabulated Karlin-Altschul parameters for a
    :class:`~swgpu.scoring.Scoring`, or None.

    swgpu's ``(gap_open, gap_extend)`` become BLAST's ``(gap_open - gap_extend,
    gap_extend)``. Matrices are recognised by their values, never their names:
    DNA scoring whose four bases score as match/mismatch selects the blastn
    tables; a protein matrix holding a tabulated matrix's scores among the 20
    standard amino acids (:func:`tabulated_name`) selects that matrix's table.
    See the module notes for when ungapped values are used. For every other
    scoring see :func:`swgpu.scoring.estimated.parameters`.
    """
    matrix = scoring.matrix
    existence, extension = scoring.gap_open - scoring.gap_extend, scoring.gap_extend
    pair = _acgt_match_mismatch(matrix)
    if pair is not None:
        return _nucleotide_lookup(pair[0], pair[1], existence, extension)
    name = tabulated_name(matrix)
    if name is not None:
        return _protein_lookup(name, existence, extension)
    return None
