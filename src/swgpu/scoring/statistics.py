"""E-values and bit scores: Karlin-Altschul statistics as BLAST reports them.

A local alignment score ``S`` found in a search of a query of ``m`` residues
against a database of ``n`` residues in ``N`` sequences is converted with the
Karlin-Altschul parameters ``lambda`` and ``K`` of the scoring system:

* bit score ``S' = (lambda * S - ln K) / ln 2``;
* E-value ``E = K * m' * n' * exp(-lambda * S)``, the number of alignments of
  score ``S`` or more expected by chance, where ``m' * n'`` is the *effective*
  search space (below).

Where the parameters come from
------------------------------
There is no closed form for ``lambda`` and ``K`` of *gapped* alignments: they
are estimated once per scoring system by simulation and tabulated. This module
carries the gapped Karlin-Altschul parameters published with NCBI BLAST
(blast_stat.c): for the protein matrices BLOSUM45, BLOSUM50, BLOSUM62,
BLOSUM80, BLOSUM90, PAM30, PAM70 and PAM250 with each gap cost pair BLAST
accepts, the ungapped row of each of those matrices, and the blastn tables for
match/mismatch scores (reward/penalty 1/-1, 1/-2, 1/-3, 1/-4, 1/-5, 2/-3,
2/-5, 2/-7, 3/-2, 3/-4, 4/-5 and 5/-4, plus their multiples, as BLAST allows).

**Only tabulated scoring systems get E-values.** Any other matrix (NUC.4.4, a
matrix file, a scaled matrix), any gap costs not in the table (for example
linear gaps with a protein matrix) and match/mismatch pairs BLAST does not list
have no statistics here: :func:`lookup` returns ``None`` and
:class:`Statistics` reports ``available == False`` with NaN values. Estimating
``lambda`` and ``K`` for an arbitrary scoring system by simulation (random
sequence pairs, extreme-value fit) is *not* done. The one computed row is the
ungapped one for match/mismatch DNA scoring, which has an exact solution (see
:func:`nucleotide_ungapped`).

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
  unrounded. :func:`evalue` does the same when
  :attr:`KarlinAltschul.round_down` is set; :func:`bitscore` never rounds.

Effective lengths
-----------------
An alignment cannot start near the end of a sequence and still reach a high
score, so BLAST shortens each sequence by a length adjustment ``l`` (an edge
correction using the fitted ``alpha`` and ``beta``): ``l`` is the largest
integer below the fixed point of

    l = beta + (alpha / lambda) * (ln K + ln((m - l) * (n - N * l)))

found by BLAST's bracketed fixed-point iteration (at most 20 steps), kept small
enough that ``K * (m - l) * (n - N * l) > max(m, n)``. The search space is then
``(m - l) * max(1, n - N * l)``. With ``length_correction=False`` it is plain
``m * n``. Ungapped rows use ``alpha = lambda / H`` with the table's ``beta``
(protein) or BLAST's ungapped blastn ``beta`` (-2 for 1/-1 and 2/-3, else 0).

Differences from the programs' printed numbers
----------------------------------------------
The search space and E-values here agree with BLAST+ blastn, and with blastp
run as ``blastp -comp_based_stats 0`` with the environment variable
``OLD_FSC`` set. By default blastp rescales scores with composition-based
statistics and applies a finite-size correction to E-values, neither of which
is done here; its bit scores are the plain ones above. SSEARCH by default
estimates ``lambda`` and ``K`` from the scores of the search itself, not from
these tables, so its bit scores and E-values differ too.

>>> from swgpu.scoring import ScoreMatrix, Scoring
>>> blosum62 = ScoreMatrix.load("BLOSUM62")
>>> p = lookup(Scoring(blosum62, 12, 1))     # BLAST's default, 11/1
>>> p.lambda_, p.K, p.H
(0.267, 0.041, 0.14)
>>> Scoring.default("protein").blast_gap_costs()
(10, 1)
>>> q = lookup(Scoring.default("protein"))   # swgpu open 11 extend 1
>>> q.lambda_, q.K
(0.243, 0.024)
>>> round(bitscore(100, p), 2)
43.13
>>> length_adjustment(p, 300, 10**8, 300_000)       # query 300, 10^8 residues
112
>>> f"{evalue(100, 300, 10**8, 300_000, p):.3g}"
'0.0013'
>>> f"{evalue(100, 300, 10**8, 300_000, p, length_correction=False):.3g}"
'0.00312'
>>> lookup(Scoring(blosum62, 11, 11)) is None   # linear gaps: not tabulated
True
>>> stats = Statistics.for_scoring(Scoring(blosum62, 12, 1))
>>> stats.available
True
>>> stats.bitscore([50, 100]).round(2).tolist()
[23.87, 43.13]
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from .scoring import Scoring

__all__ = [
    "INT2_MAX",
    "KarlinAltschul",
    "Statistics",
    "PROTEIN_MATRICES",
    "NUCLEOTIDE_PAIRS",
    "lookup",
    "lookup_blast",
    "ungapped",
    "nucleotide_ungapped",
    "parse_match_mismatch",
    "length_adjustment",
    "search_space",
    "evalue",
    "evalues",
    "bitscore",
    "bitscores",
]

#: BLAST's sentinel for "infinite" gap costs: the ungapped row of each table.
INT2_MAX = 32767

_LN2 = math.log(2.0)


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


# ---------------------------------------------------------------------------
# Tables. Values are the gapped Karlin-Altschul parameters published with
# NCBI BLAST (blast_stat.c). Protein rows: (existence, extension, lambda, K,
# H, alpha, beta); the first row of each matrix is the ungapped one.
# ---------------------------------------------------------------------------

_U = INT2_MAX

_PROTEIN_ROWS: dict[str, tuple[tuple[float, ...], ...]] = {
    "BLOSUM45": (
        (_U, _U, 0.2291, 0.0924, 0.2514, 0.9113, -5.7),
        (13, 3, 0.207, 0.049, 0.14, 1.5, -22),
        (12, 3, 0.199, 0.039, 0.11, 1.8, -34),
        (11, 3, 0.190, 0.031, 0.095, 2.0, -38),
        (10, 3, 0.179, 0.023, 0.075, 2.4, -51),
        (16, 2, 0.210, 0.051, 0.14, 1.5, -24),
        (15, 2, 0.203, 0.041, 0.12, 1.7, -31),
        (14, 2, 0.195, 0.032, 0.10, 1.9, -36),
        (13, 2, 0.185, 0.024, 0.084, 2.2, -45),
        (12, 2, 0.171, 0.016, 0.061, 2.8, -65),
        (19, 1, 0.205, 0.040, 0.11, 1.9, -43),
        (18, 1, 0.198, 0.032, 0.10, 2.0, -43),
        (17, 1, 0.189, 0.024, 0.079, 2.4, -57),
        (16, 1, 0.176, 0.016, 0.063, 2.8, -67),
    ),
    "BLOSUM50": (
        (_U, _U, 0.2318, 0.112, 0.3362, 0.6895, -4.0),
        (13, 3, 0.212, 0.063, 0.19, 1.1, -16),
        (12, 3, 0.206, 0.055, 0.17, 1.2, -18),
        (11, 3, 0.197, 0.042, 0.14, 1.4, -25),
        (10, 3, 0.186, 0.031, 0.11, 1.7, -34),
        (9, 3, 0.172, 0.022, 0.082, 2.1, -48),
        (16, 2, 0.215, 0.066, 0.20, 1.05, -15),
        (15, 2, 0.210, 0.058, 0.17, 1.2, -20),
        (14, 2, 0.202, 0.045, 0.14, 1.4, -27),
        (13, 2, 0.193, 0.035, 0.12, 1.6, -32),
        (12, 2, 0.181, 0.025, 0.095, 1.9, -41),
        (19, 1, 0.212, 0.057, 0.18, 1.2, -21),
        (18, 1, 0.207, 0.050, 0.15, 1.4, -28),
        (17, 1, 0.198, 0.037, 0.12, 1.6, -33),
        (16, 1, 0.186, 0.025, 0.10, 1.9, -42),
        (15, 1, 0.171, 0.015, 0.063, 2.7, -76),
    ),
    "BLOSUM62": (
        (_U, _U, 0.3176, 0.134, 0.4012, 0.7916, -3.2),
        (11, 2, 0.297, 0.082, 0.27, 1.1, -10),
        (10, 2, 0.291, 0.075, 0.23, 1.3, -15),
        (9, 2, 0.279, 0.058, 0.19, 1.5, -19),
        (8, 2, 0.264, 0.045, 0.15, 1.8, -26),
        (7, 2, 0.239, 0.027, 0.10, 2.5, -46),
        (6, 2, 0.201, 0.012, 0.061, 3.3, -58),
        (13, 1, 0.292, 0.071, 0.23, 1.2, -11),
        (12, 1, 0.283, 0.059, 0.19, 1.5, -19),
        (11, 1, 0.267, 0.041, 0.14, 1.9, -30),
        (10, 1, 0.243, 0.024, 0.10, 2.5, -44),
        (9, 1, 0.206, 0.010, 0.052, 4.0, -87),
    ),
    "BLOSUM80": (
        (_U, _U, 0.3430, 0.177, 0.6568, 0.5222, -1.6),
        (25, 2, 0.342, 0.17, 0.66, 0.52, -1.6),
        (13, 2, 0.336, 0.15, 0.57, 0.59, -3),
        (9, 2, 0.319, 0.11, 0.42, 0.76, -6),
        (8, 2, 0.308, 0.090, 0.35, 0.89, -9),
        (7, 2, 0.293, 0.070, 0.27, 1.1, -14),
        (6, 2, 0.268, 0.045, 0.19, 1.4, -19),
        (11, 1, 0.314, 0.095, 0.35, 0.90, -9),
        (10, 1, 0.299, 0.071, 0.27, 1.1, -14),
        (9, 1, 0.279, 0.048, 0.20, 1.4, -19),
    ),
    "BLOSUM90": (
        (_U, _U, 0.3346, 0.190, 0.7547, 0.4434, -1.4),
        (9, 2, 0.310, 0.12, 0.46, 0.67, -6),
        (8, 2, 0.300, 0.099, 0.39, 0.76, -7),
        (7, 2, 0.283, 0.072, 0.30, 0.93, -11),
        (6, 2, 0.259, 0.048, 0.22, 1.2, -16),
        (11, 1, 0.302, 0.093, 0.39, 0.78, -8),
        (10, 1, 0.290, 0.075, 0.28, 1.04, -15),
        (9, 1, 0.265, 0.044, 0.20, 1.3, -19),
    ),
    "PAM30": (
        (_U, _U, 0.3400, 0.283, 1.754, 0.1938, -0.3),
        (7, 2, 0.305, 0.15, 0.87, 0.35, -3),
        (6, 2, 0.287, 0.11, 0.68, 0.42, -4),
        (5, 2, 0.264, 0.079, 0.45, 0.59, -7),
        (10, 1, 0.309, 0.15, 0.88, 0.35, -3),
        (9, 1, 0.294, 0.11, 0.61, 0.48, -6),
        (8, 1, 0.270, 0.072, 0.40, 0.68, -10),
    ),
    "PAM70": (
        (_U, _U, 0.3345, 0.229, 1.029, 0.3250, -0.7),
        (8, 2, 0.301, 0.12, 0.54, 0.56, -5),
        (7, 2, 0.286, 0.093, 0.43, 0.67, -7),
        (6, 2, 0.264, 0.064, 0.29, 0.90, -12),
        (11, 1, 0.305, 0.12, 0.52, 0.59, -6),
        (10, 1, 0.291, 0.091, 0.41, 0.71, -9),
        (9, 1, 0.270, 0.060, 0.28, 0.97, -14),
    ),
    "PAM250": (
        (_U, _U, 0.2252, 0.0868, 0.2223, 0.98, -5.0),
        (15, 3, 0.205, 0.049, 0.13, 1.6, -23),
        (14, 3, 0.200, 0.043, 0.12, 1.7, -26),
        (13, 3, 0.194, 0.036, 0.10, 1.9, -31),
        (12, 3, 0.186, 0.029, 0.085, 2.2, -41),
        (11, 3, 0.174, 0.020, 0.070, 2.5, -48),
        (17, 2, 0.204, 0.047, 0.12, 1.7, -28),
        (16, 2, 0.198, 0.038, 0.11, 1.8, -29),
        (15, 2, 0.191, 0.031, 0.087, 2.2, -44),
        (14, 2, 0.182, 0.024, 0.073, 2.5, -53),
        (13, 2, 0.171, 0.017, 0.059, 2.9, -64),
        (21, 1, 0.205, 0.045, 0.11, 1.8, -34),
        (20, 1, 0.199, 0.037, 0.10, 1.9, -35),
        (19, 1, 0.192, 0.029, 0.083, 2.3, -52),
        (18, 1, 0.183, 0.021, 0.070, 2.6, -60),
        (17, 1, 0.171, 0.014, 0.052, 3.3, -86),
    ),
}

#: The protein matrices with tabulated parameters.
PROTEIN_MATRICES = tuple(_PROTEIN_ROWS)


@dataclass(frozen=True)
class _NuclTable:
    rows: tuple[tuple[float, ...], ...]  # (existence, extension, lambda, K, H, alpha, beta)
    linear: tuple[float, ...] | None  # greedy non-affine row: (lambda, K, H, alpha, beta)
    existence_max: int  # at/above both thresholds: ungapped parameters
    extension_max: int
    round_down: bool


# blastn: keyed by (reward, penalty) in lowest terms.
_NUCL: dict[tuple[int, int], _NuclTable] = {
    (1, -5): _NuclTable(
        rows=((3, 3, 1.39, 0.747, 1.38, 1.00, 0),),
        linear=(1.39, 0.747, 1.38, 1.00, 0), existence_max=3, extension_max=3, round_down=False,
    ),
    (1, -4): _NuclTable(
        rows=(
            (1, 2, 1.36, 0.67, 1.2, 1.1, 0),
            (0, 2, 1.26, 0.43, 0.90, 1.4, -1),
            (2, 1, 1.35, 0.61, 1.1, 1.2, -1),
            (1, 1, 1.22, 0.35, 0.72, 1.7, -3),
        ),
        linear=(1.383, 0.738, 1.36, 1.02, 0), existence_max=2, extension_max=2, round_down=False,
    ),
    (2, -7): _NuclTable(
        rows=(
            (2, 4, 0.68, 0.67, 1.2, 0.55, 0),
            (0, 4, 0.63, 0.43, 0.90, 0.7, -1),
            (4, 2, 0.675, 0.62, 1.1, 0.6, -1),
            (2, 2, 0.61, 0.35, 0.72, 1.7, -3),
        ),
        linear=(0.69, 0.73, 1.34, 0.515, 0), existence_max=4, extension_max=4, round_down=True,
    ),
    (1, -3): _NuclTable(
        rows=(
            (2, 2, 1.37, 0.70, 1.2, 1.1, 0),
            (1, 2, 1.35, 0.64, 1.1, 1.2, -1),
            (0, 2, 1.25, 0.42, 0.83, 1.5, -2),
            (2, 1, 1.34, 0.60, 1.1, 1.2, -1),
            (1, 1, 1.21, 0.34, 0.71, 1.7, -2),
        ),
        linear=(1.374, 0.711, 1.31, 1.05, 0), existence_max=2, extension_max=2, round_down=False,
    ),
    (2, -5): _NuclTable(
        rows=(
            (2, 4, 0.67, 0.59, 1.1, 0.6, -1),
            (0, 4, 0.62, 0.39, 0.78, 0.8, -2),
            (4, 2, 0.67, 0.61, 1.0, 0.65, -2),
            (2, 2, 0.56, 0.32, 0.59, 0.95, -4),
        ),
        linear=(0.675, 0.65, 1.1, 0.6, -1), existence_max=4, extension_max=4, round_down=True,
    ),
    (1, -2): _NuclTable(
        rows=(
            (2, 2, 1.33, 0.62, 1.1, 1.2, 0),
            (1, 2, 1.30, 0.52, 0.93, 1.4, -2),
            (0, 2, 1.19, 0.34, 0.66, 1.8, -3),
            (3, 1, 1.32, 0.57, 1.0, 1.3, -1),
            (2, 1, 1.29, 0.49, 0.92, 1.4, -1),
            (1, 1, 1.14, 0.26, 0.52, 2.2, -5),
        ),
        linear=(1.28, 0.46, 0.85, 1.5, -2), existence_max=2, extension_max=2, round_down=False,
    ),
    (2, -3): _NuclTable(
        rows=(
            (4, 4, 0.63, 0.42, 0.84, 0.75, -2),
            (2, 4, 0.615, 0.37, 0.72, 0.85, -3),
            (0, 4, 0.55, 0.21, 0.46, 1.2, -5),
            (3, 3, 0.615, 0.37, 0.68, 0.9, -3),
            (6, 2, 0.63, 0.42, 0.84, 0.75, -2),
            (5, 2, 0.625, 0.41, 0.78, 0.8, -2),
            (4, 2, 0.61, 0.35, 0.68, 0.9, -3),
            (2, 2, 0.515, 0.14, 0.33, 1.55, -9),
        ),
        linear=(0.55, 0.21, 0.46, 1.2, -5), existence_max=6, extension_max=4, round_down=True,
    ),
    (3, -4): _NuclTable(
        rows=(
            (6, 3, 0.389, 0.25, 0.56, 0.7, -5),
            (5, 3, 0.375, 0.21, 0.47, 0.8, -6),
            (4, 3, 0.351, 0.14, 0.35, 1.0, -9),
            (6, 2, 0.362, 0.16, 0.45, 0.8, -4),
            (5, 2, 0.330, 0.092, 0.28, 1.2, -13),
            (4, 2, 0.281, 0.046, 0.16, 1.8, -23),
        ),
        linear=None, existence_max=6, extension_max=3, round_down=True,
    ),
    (4, -5): _NuclTable(
        rows=(
            (6, 5, 0.28, 0.21, 0.47, 0.6, -7),
            (5, 5, 0.27, 0.17, 0.39, 0.7, -9),
            (4, 5, 0.25, 0.10, 0.31, 0.8, -10),
            (3, 5, 0.23, 0.065, 0.25, 0.9, -11),
        ),
        linear=(0.22, 0.061, 0.22, 1.0, -15), existence_max=12, extension_max=8, round_down=False,
    ),
    (1, -1): _NuclTable(
        rows=(
            (3, 2, 1.09, 0.31, 0.55, 2.0, -2),
            (2, 2, 1.07, 0.27, 0.49, 2.2, -3),
            (1, 2, 1.02, 0.21, 0.36, 2.8, -6),
            (0, 2, 0.80, 0.064, 0.17, 4.8, -16),
            (4, 1, 1.08, 0.28, 0.54, 2.0, -2),
            (3, 1, 1.06, 0.25, 0.46, 2.3, -4),
            (2, 1, 0.99, 0.17, 0.30, 3.3, -10),
        ),
        linear=None, existence_max=4, extension_max=2, round_down=False,
    ),
    (3, -2): _NuclTable(
        rows=((5, 5, 0.208, 0.030, 0.072, 2.9, -47),),
        linear=None, existence_max=5, extension_max=5, round_down=False,
    ),
    (5, -4): _NuclTable(
        rows=(
            (10, 6, 0.163, 0.068, 0.16, 1.0, -19),
            (8, 6, 0.146, 0.039, 0.11, 1.3, -29),
        ),
        linear=None, existence_max=25, extension_max=10, round_down=False,
    ),
}

#: The (reward, penalty) pairs in lowest terms with blastn tables; any
#: positive multiple of a pair (e.g. 2/-4 of 1/-2) is accepted, as in BLAST.
NUCLEOTIDE_PAIRS = tuple(_NUCL)


# ---------------------------------------------------------------------------
# Look-ups
# ---------------------------------------------------------------------------

_MATCH_MISMATCH = re.compile(r"^match(\d+)/mismatch(-?\d+)$", re.IGNORECASE)


def parse_match_mismatch(name: str) -> tuple[int, int] | None:
    """``(reward, penalty)`` from a name like ``"match2/mismatch-3"``, else None.

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


def ungapped(matrix: str) -> KarlinAltschul | None:
    """The ungapped row for a matrix: a tabulated protein matrix name, or a
    match/mismatch name such as ``"match1/mismatch-3"`` (computed, see
    :func:`nucleotide_ungapped`). None for anything else.

    >>> ungapped("BLOSUM62").lambda_
    0.3176
    """
    key = matrix.strip().upper()
    if key in _PROTEIN_ROWS:
        return _protein_params(key, _PROTEIN_ROWS[key][0])
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
    if key in _PROTEIN_ROWS:
        for row in _PROTEIN_ROWS[key]:
            if row[0] == existence and row[1] == extension:
                return _protein_params(key, row)
        return None
    pair = parse_match_mismatch(matrix)
    if pair is None:
        return None
    return _nucleotide_lookup(pair[0], pair[1], existence, extension)


def _nucleotide_lookup(reward: int, penalty: int, existence: int, extension: int) -> KarlinAltschul | None:
    if reward <= 0 or penalty >= 0:
        return None
    d = math.gcd(reward, -penalty)
    table = _NUCL.get((reward // d, penalty // d))
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
    base frequencies (a match has probability 1/4), computed exactly.

    ``lambda`` solves ``(1/4) e^(lambda r) + (3/4) e^(lambda p) = 1``; ``H`` is the
    relative entropy; ``K`` follows the Karlin-Altschul formula for lattice
    scores (closed forms when a reduced score is +1 or -1, otherwise the
    series over sums of k aligned pairs). ``alpha = lambda / H`` and ``beta``
    is BLAST's ungapped blastn value (-2 for 1/-1 and 2/-3, else 0).

    >>> p = nucleotide_ungapped(1, -3)
    >>> round(p.lambda_, 3), round(p.K, 3), round(p.H, 2)
    (1.374, 0.711, 1.31)
    """
    if reward <= 0 or penalty >= 0:
        raise ValueError(f"need reward > 0 > penalty, got {reward}/{penalty}")
    p_match, p_mismatch = 0.25, 0.75
    mean = p_match * reward + p_mismatch * penalty
    if mean >= 0:
        raise ValueError(f"reward {reward} penalty {penalty}: expected score is not negative")

    def excess(lam: float) -> float:
        return p_match * math.exp(lam * reward) + p_mismatch * math.exp(lam * penalty) - 1.0

    lo, hi = 0.0, math.log(1.0 / p_match) / reward  # excess < 0 on (0, lambda), > 0 at hi
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if excess(mid) < 0:
            lo = mid
        else:
            hi = mid
    lam = 0.5 * (lo + hi)
    H = lam * (p_match * reward * math.exp(lam * reward) + p_mismatch * penalty * math.exp(lam * penalty))

    d = math.gcd(reward, -penalty)
    hi_s, lo_s = reward // d, penalty // d
    lam_d = lam * d
    one_minus = -math.expm1(-lam_d)
    if hi_s == 1 and lo_s == -1:
        K = (p_mismatch - p_match) ** 2 / p_mismatch
    elif hi_s == 1:
        K = (H / lam_d) * one_minus
    elif lo_s == -1:
        K = (mean / d) ** 2 / (H / lam_d) * one_minus
    else:
        # sigma = sum_k (1/k) [E(e^{lambda S_k}; S_k < 0) + P(S_k >= 0)], S_k the
        # score of k aligned pairs; K = lambda e^{-2 sigma} / (H (1 - e^{-lambda})).
        step = np.zeros(hi_s - lo_s + 1)
        step[0], step[-1] = p_mismatch, p_match
        dist = np.ones(1)
        sigma = 0.0
        for k in range(1, 5001):
            dist = np.convolve(dist, step)
            scores = k * lo_s + np.arange(dist.size)
            neg = scores < 0
            term = float(np.dot(dist[neg], np.exp(lam_d * scores[neg])) + dist[~neg].sum())
            sigma += term / k
            if term / k < 1e-13:
                break
        K = lam_d * math.exp(-2.0 * sigma) / (H * one_minus)
    beta = -2.0 if (reward, penalty) in ((1, -1), (2, -3)) else 0.0
    return KarlinAltschul(lam, K, H, lam / H, beta, False,
                          f"computed ungapped, reward {reward} penalty {penalty}, equal base frequencies")


def _matrix_is_canonical(matrix: Any) -> bool:
    """True when a matrix called like a tabulated one holds that matrix's
    scores (a file that merely has the name does not count)."""
    name = str(getattr(matrix, "name", "")).strip().upper()
    values = getattr(matrix, "values", None)
    alphabet = getattr(matrix, "alphabet", None)
    if values is None or alphabet is None:
        return True  # nothing to check against
    if name in _PROTEIN_ROWS:
        if getattr(alphabet, "name", "protein") != "protein":
            return False
        ref = _canonical_protein(name)
        if ref is None:
            return True
        n = ref.shape[0]
        return bool(np.array_equal(np.asarray(values)[:n, :n], ref))
    pair = parse_match_mismatch(name)
    if pair is not None:
        if getattr(alphabet, "name", "dna") != "dna":
            return False
        v = np.asarray(values)[:4, :4]
        expected = np.full((4, 4), pair[1])
        np.fill_diagonal(expected, pair[0])
        return bool(np.array_equal(v, expected))
    return False


@lru_cache(maxsize=None)
def _canonical_protein(name: str) -> np.ndarray | None:
    """The 20 standard amino acids' block of a named matrix, or None when it
    cannot be loaded here."""
    try:
        from .scoring import ScoreMatrix

        return np.asarray(ScoreMatrix.load(name, "protein").values)[:20, :20].copy()
    except Exception:  # pragma: no cover - Biopython missing or broken
        return None


def lookup(scoring: "Scoring") -> KarlinAltschul | None:
    """Karlin-Altschul parameters for a :class:`~swgpu.scoring.Scoring`, or None.

    swgpu's ``(gap_open, gap_extend)`` become BLAST's ``(gap_open - gap_extend,
    gap_extend)``; the matrix is found by ``scoring.matrix.name`` (a tabulated
    protein matrix, or ``match<r>/mismatch<p>`` on the DNA alphabet) and must
    hold that matrix's scores. See the module notes for when ungapped values
    are used.
    """
    matrix = scoring.matrix
    if not _matrix_is_canonical(matrix):
        return None
    existence, extension = scoring.gap_open - scoring.gap_extend, scoring.gap_extend
    return lookup_blast(str(matrix.name), existence, extension)


# ---------------------------------------------------------------------------
# Effective lengths, E-values, bit scores
# ---------------------------------------------------------------------------


def length_adjustment(params: KarlinAltschul, query_length: int, db_residues: int, db_sequences: int) -> int:
    """BLAST's length adjustment ``l`` (an integer, see the module notes).

    >>> p = lookup_blast("BLOSUM62", 11, 1)
    >>> length_adjustment(p, 300, 698_232, 2_000)
    79
    """
    m, n, N = float(query_length), float(db_residues), float(max(1, int(db_sequences)))
    K, logK = params.K, params.logK
    a_l, beta = params.alpha_over_lambda, params.beta
    if m <= 0 or n <= 0:
        return 0

    def f(ell: float) -> float:
        return beta + a_l * (logK + math.log((m - ell) * (n - N * ell)))

    # Largest ell keeping K (m - ell)(n - N ell) > max(m, n): smaller root of
    # N ell^2 - (m N + n) ell + (m n - max(m, n) / K) = 0.
    c = m * n - max(m, n) / K
    if c < 0:
        return 0
    b = m * N + n
    upper = 2.0 * c / (b + math.sqrt(b * b - 4.0 * N * c))
    lower = 0.0
    ell = 0.0
    converged = False
    for it in range(20):
        target = f(ell)
        if target >= ell:  # ell is at or below the fixed point
            lower = ell
            if target - lower <= 1.0:
                converged = True
                break
            if lower == upper:
                break
        else:
            upper = ell
        if lower <= target <= upper:
            ell = target
        else:
            ell = upper if it == 0 else 0.5 * (lower + upper)
    result = int(lower)
    if converged:
        up = math.ceil(lower)
        if up <= upper and f(up) >= up:
            result = int(up)
    return result


def search_space(params: KarlinAltschul, query_length: int, db_residues: int, db_sequences: int,
                 length_correction: bool = True) -> float:
    """Effective search space ``m' * n'`` (``m * n`` without length correction).

    >>> p = lookup_blast("BLOSUM62", 11, 1)
    >>> search_space(p, 300, 698_232, 2_000)
    119391272.0
    """
    m, n = int(query_length), int(db_residues)
    if m <= 0 or n <= 0:
        raise ValueError(f"query length and database residues must be positive, got {m} and {n}")
    if not length_correction:
        return float(m) * float(n)
    ell = length_adjustment(params, m, n, db_sequences)
    eff_db = max(1, n - max(1, int(db_sequences)) * ell)
    return float(m - ell) * float(eff_db)


def evalues(scores: Any, query_length: Any, db_residues: int, db_sequences: int, params: KarlinAltschul,
            length_correction: bool = True) -> np.ndarray:
    """Vectorised :func:`evalue`: ``scores`` (and optionally ``query_length``)
    are arrays broadcast together; returns a float64 array. Scores are rounded
    down to even first when ``params.round_down`` is set."""
    s = np.asarray(scores, dtype=np.float64)
    if params.round_down:
        s = np.floor(s / 2.0) * 2.0
    q = np.asarray(query_length)
    if q.ndim == 0:
        log_ss = math.log(search_space(params, int(q), db_residues, db_sequences, length_correction))
        return np.exp(params.logK + log_ss - params.lambda_ * s)
    uniq, inverse = np.unique(q.astype(np.int64), return_inverse=True)
    spaces = np.array([search_space(params, int(u), db_residues, db_sequences, length_correction) for u in uniq])
    log_ss = np.log(spaces)[inverse].reshape(q.shape)
    return np.exp(params.logK + log_ss - params.lambda_ * s)


def evalue(score: float, query_length: int, db_residues: int, db_sequences: int, params: KarlinAltschul,
           length_correction: bool = True) -> float:
    """Expected number of chance alignments scoring ``score`` or more when a
    query of ``query_length`` residues is searched against ``db_sequences``
    sequences of ``db_residues`` residues in all (for one pair: the subject's
    length and 1). BLAST's effective lengths unless ``length_correction`` is
    False, then ``K * m * n * exp(-lambda * S)``. E-values below the smallest
    double come out as 0.0 (BLAST prints those as 0.0 too).
    """
    return float(evalues(score, query_length, db_residues, db_sequences, params, length_correction))


def bitscores(scores: Any, params: KarlinAltschul) -> np.ndarray:
    """Vectorised :func:`bitscore`."""
    s = np.asarray(scores, dtype=np.float64)
    return (params.lambda_ * s - params.logK) / _LN2


def bitscore(score: float, params: KarlinAltschul) -> float:
    """Bit score ``(lambda * S - ln K) / ln 2`` (of the unrounded score, also
    when :attr:`KarlinAltschul.round_down` is set, as BLAST prints it)."""
    return float(bitscores(score, params))


# ---------------------------------------------------------------------------
# Statistics: the object a search holds
# ---------------------------------------------------------------------------


class Statistics:
    """E-values and bit scores for one scoring system.

    ``Statistics.for_scoring(scoring)`` looks the scoring up (:func:`lookup`).
    When it is not tabulated, :attr:`available` is False, :attr:`params` is
    None and :meth:`evalue` / :meth:`bitscore` return NaN (a float, or an array
    of NaN shaped like the scores): no E-values are given for untabulated
    scoring systems, and no parameters are estimated.

    >>> from swgpu.scoring import Scoring
    >>> s = Statistics.for_scoring(Scoring.default("dna"))   # BLAST 3/2: not in blastn's table
    >>> s.available, s.bitscore(40)
    (False, nan)
    """

    def __init__(self, params: KarlinAltschul | None, description: str = ""):
        self.params = params
        self.description = description

    @classmethod
    def for_scoring(cls, scoring: "Scoring") -> "Statistics":
        params = lookup(scoring)
        describe = getattr(scoring, "describe", None)
        text = describe() if callable(describe) else str(scoring)
        return cls(params, text)

    @property
    def available(self) -> bool:
        return self.params is not None

    def __repr__(self) -> str:
        if self.params is None:
            return f"Statistics({self.description or 'untabulated'}: no E-values)"
        p = self.params
        return f"Statistics(lambda={p.lambda_}, K={p.K}, H={p.H}; {p.source})"

    def evalue(self, scores: Any, query_length: Any, db_residues: int, db_sequences: int,
               length_correction: bool = True) -> float | np.ndarray:
        """E-values for a score or an array of scores (see :func:`evalue`)."""
        if self.params is None:
            return _nan_like(scores)
        out = evalues(scores, query_length, db_residues, db_sequences, self.params, length_correction)
        return float(out) if out.ndim == 0 else out

    def bitscore(self, scores: Any) -> float | np.ndarray:
        """Bit scores for a score or an array of scores."""
        if self.params is None:
            return _nan_like(scores)
        out = bitscores(scores, self.params)
        return float(out) if out.ndim == 0 else out

    def annotate(self, alignments, query_length: int, db_residues: int, db_sequences: int) -> None:
        """Set ``evalue`` and ``bitscore`` of each non-empty alignment in place
        (left ``None`` when these settings have no statistics)."""
        alignments = [a for a in alignments if a.score > 0]
        if not self.available or not alignments:
            return
        scores = np.array([a.score for a in alignments])
        ev = np.atleast_1d(self.evalue(scores, query_length, db_residues, db_sequences))
        bits = np.atleast_1d(self.bitscore(scores))
        for a, e, b in zip(alignments, ev.tolist(), bits.tolist()):
            a.evalue, a.bitscore = e, b

    def search_space(self, query_length: int, db_residues: int, db_sequences: int,
                     length_correction: bool = True) -> float:
        """Effective search space, NaN when unavailable."""
        if self.params is None:
            return float("nan")
        return search_space(self.params, query_length, db_residues, db_sequences, length_correction)


def _nan_like(scores: Any) -> float | np.ndarray:
    shape = np.shape(scores)
    if shape == ():
        return float("nan")
    return np.full(shape, np.nan)
