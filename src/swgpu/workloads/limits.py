"""The 32-bit range of the kernels, checked once for every workload before
anything is scored; and the memory a job may take (:func:`check_memory`).

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

import os

import numpy as np

from ..exceptions import InputError, ScoringError
from ..scoring import ScoreMatrix, Scoring
from ..scoring.checks import GAP_LIMIT, SCORE_LIMIT

__all__ = ["SCORE_LIMIT", "GAP_LIMIT", "check_int32", "check_pairs", "available_memory", "check_memory", "check_max_hsps"]


def _match_mismatch(matrix: ScoreMatrix) -> bool:
    """Whether ``matrix`` is a match/mismatch scoring (of DNA, or of proteins
    with ``--matrix none``): its fault is then the match or mismatch score."""
    if matrix.match_mismatch_scores is not None:
        return True
    top, low = matrix.max_score, matrix.min_score
    return 0 < top <= SCORE_LIMIT and -GAP_LIMIT <= low <= 0 and np.array_equal(matrix.values, ScoreMatrix.match_mismatch(
        top, low, matrix.alphabet).values)


def check_int32(scoring: Scoring, shorter: int, longest_pair: int) -> None:
    """Refuse a job whose scores or gap arithmetic could leave the 32-bit range.

    ``shorter``: the largest ``min(len(query), len(target))`` of any pair of
    the job; ``longest_pair``: the largest ``len(query) + len(target)``.
    """
    shorter, longest_pair = int(shorter), int(longest_pair)
    top = scoring.matrix.max_score
    match_scoring = _match_mismatch(scoring.matrix)
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


def available_memory() -> int | None:
    """Bytes of memory a job can still take: psutil's ``available`` when it is
    installed, else ``MemAvailable`` of ``/proc/meminfo``, else the free pages
    (``os.sysconf``); None when the system does not say."""
    try:
        import psutil

        return int(psutil.virtual_memory().available)
    except Exception:  # not installed, or no answer here
        pass
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None


def _bytes(n: int) -> str:
    """``n`` bytes in binary units.

    >>> _bytes(6_553_600_000_000), _bytes(3 * 2**30), _bytes(512)
    ('5.96 TiB', '3.00 GiB', '512 B')
    """
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.2f} {unit}"
    return f"{n} B"


def check_memory(need: int, what: str) -> None:
    """Refuse a job that needs more memory than is available (``what`` needs
    ``need`` bytes), before anything is allocated: an
    :class:`~swgpu.exceptions.InputError` rather than a process killed for
    memory, or a ``MemoryError`` deep inside the job."""
    have = available_memory()
    if have is not None and need > have:
        raise InputError(f"{what} need at least {_bytes(need)} of memory, and {_bytes(have)} is available")


def check_max_hsps(max_hsps) -> None:
    """``max_hsps`` (alignments of one query-target pair) is a whole number of 1 or more."""
    if isinstance(max_hsps, bool) or not isinstance(max_hsps, int) or max_hsps < 1:
        raise InputError(f"max_hsps must be a whole number of 1 or more, not {max_hsps!r}", param="max_hsps")
