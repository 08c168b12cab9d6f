"""The 32-bit range of the kernels, checked once for every workload before
anything is scored.

Every kernel keeps scores in 32 bits (the CPU's Numba kernels, the GPU's
32-bit re-runs and traceback), and the traceback's global passes use
``-2**29`` as minus infinity. A job is refused with a
:class:`~swgpu.exceptions.ScoringError` when either end of that range could
be reached:

* **scores**: the best reachable local score, ``min(len(query),
  len(target))`` times the largest matrix entry, must be at most
  :data:`SCORE_LIMIT` = 2**30 - 1 -- half the ``int32`` range, so one more
  diagonal step still fits, and the GPU's 30-bit bit-sliced kernel holds it;
* **gap arithmetic**: the traceback aligns the two aligned substrings
  globally, whose cells go down to about ``2 * gap_open + |smallest entry| +
  gap_extend * (query + target residues aligned)``; that must stay at most
  :data:`GAP_LIMIT` = 2**28, half the kernels' minus infinity. The aligned
  residues of a local alignment that scores above 0 are at most ``len(query)
  + len(target)``, and at most ``2 s + s * max / gap_extend`` for ``s`` the
  shorter length (each gap column costs at least ``gap_extend``).

>>> from swgpu.scoring import Scoring
>>> check_int32(Scoring.build("dna", match=100_000_000), 27, 54)  # doctest: +ELLIPSIS
Traceback (most recent call last):
    ...
swgpu.exceptions.ScoringError: match: the best possible score ... 27 x 100,000,000 = 2,700,000,000, does not fit ...
>>> check_int32(Scoring.default("protein"), 5_000, 10_000)
"""

from __future__ import annotations

import numpy as np

from ..exceptions import ScoringError
from ..scoring import Scoring

__all__ = ["SCORE_LIMIT", "GAP_LIMIT", "check_int32", "check_pairs"]

#: Largest best-possible score a job may reach.
SCORE_LIMIT = (1 << 30) - 1
#: Largest magnitude the traceback's gap arithmetic may reach.
GAP_LIMIT = 1 << 28


def check_int32(scoring: Scoring, shorter: int, longest_pair: int) -> None:
    """Refuse a job whose scores or gap arithmetic could leave the 32-bit range.

    ``shorter``: the largest ``min(len(query), len(target))`` of any pair of
    the job; ``longest_pair``: the largest ``len(query) + len(target)``.
    """
    shorter, longest_pair = int(shorter), int(longest_pair)
    top = scoring.matrix.max_score
    match_scoring = scoring.matrix.match_mismatch_scores is not None
    bound = shorter * top
    if bound > SCORE_LIMIT:
        what = "match score" if match_scoring else "matrix (smaller entries)"
        raise ScoringError(f"the best possible score of these sequences, {shorter:,} x {top:,} = {bound:,}, does "
                           f"not fit the 32-bit kernels (at most {SCORE_LIMIT:,}); use a smaller {what}",
                           param="match" if match_scoring else "matrix")
    ge = scoring.gap_extend
    aligned = longest_pair if ge == 0 else min(longest_pair, 2 * shorter + -(-shorter * top // ge))
    terms = {"gap_open": 2 * scoring.gap_open, "mismatch" if match_scoring else "matrix":
             abs(min(scoring.matrix.min_score, 0)), "gap_extend": ge * aligned}
    low = sum(terms.values())
    if low > GAP_LIMIT:
        raise ScoringError(f"the traceback's scores could reach -{low:,} for these sequences (2 x gap_open "
                           f"{scoring.gap_open:,}, the lowest matrix entry, gap_extend {ge:,} x {aligned:,} aligned "
                           f"residues), beyond the 32-bit kernels' range (-{GAP_LIMIT:,}); use smaller penalties",
                           param=max(terms, key=terms.get))


def check_pairs(scoring: Scoring, query_lengths, target_lengths) -> None:
    """:func:`check_int32` of the pairs ``(query i, target i)`` (arrays of lengths)."""
    q = np.asarray(query_lengths, dtype=np.int64)
    t = np.asarray(target_lengths, dtype=np.int64)
    if q.size:
        check_int32(scoring, int(np.minimum(q, t).max()), int((q + t).max()))
