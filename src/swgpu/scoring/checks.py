"""Checks of scoring parameters, shared by :class:`~swgpu.scoring.Scoring` and the engines.

Each check raises :class:`~swgpu.exceptions.ScoringError` with ``param`` set
to the parameter at fault (``match``, ``mismatch``, ``gap_open``,
``gap_extend``); the message does not name a command-line option.

Scores must fit the kernels' 32-bit arithmetic: a match score is at most
:data:`SCORE_LIMIT` (the best score any job may reach) and a mismatch score
at least ``-GAP_LIMIT`` (the lowest the traceback's arithmetic may reach);
:mod:`swgpu.workloads.limits` checks the same bounds against the lengths of
a job's sequences.

>>> check_match_mismatch(2, -3, 5, 2)
>>> check_match_mismatch(2, -3, -1, 2)
Traceback (most recent call last):
    ...
swgpu.exceptions.ScoringError: gap_open: must be zero or positive (a gap penalty is a cost), got -1
"""

from __future__ import annotations

from ..exceptions import ScoringError

__all__ = ["check_match_mismatch", "check_match", "check_mismatch", "check_gap", "SCORE_LIMIT", "GAP_LIMIT"]

#: Largest score a job may reach: half the ``int32`` range, so one more
#: diagonal step still fits, and the GPU's 30-bit bit-sliced kernel holds it.
SCORE_LIMIT = (1 << 30) - 1
#: Largest magnitude the traceback's gap arithmetic may reach (half its minus infinity, ``-2**29``).
GAP_LIMIT = 1 << 28


def _integer(value, param: str) -> int:
    """``value`` as an ``int``; an error when it is not a whole number."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ScoringError(f"must be an integer, got {value!r}", param=param) from None
    if number != value:
        raise ScoringError(f"must be an integer, got {value}", param=param)
    return number


def check_match(match) -> int:
    """The match score as an ``int``: an integer above 0."""
    number = _integer(match, "match")
    if number <= 0:
        raise ScoringError(f"score must be positive, got {match}", param="match")
    if number > SCORE_LIMIT:
        raise ScoringError(f"score must be at most {SCORE_LIMIT:,} (the kernels' 32-bit range), got {number:,}",
                           param="match")
    return number


def check_mismatch(mismatch) -> int:
    """The mismatch score as an ``int``: an integer, 0 or below."""
    number = _integer(mismatch, "mismatch")
    if number > 0:
        raise ScoringError(f"score must be zero or negative, got {mismatch}", param="mismatch")
    if number < -GAP_LIMIT:
        raise ScoringError(f"score must be at least -{GAP_LIMIT:,} (the kernels' 32-bit range), got {number:,}",
                           param="mismatch")
    return number


def check_gap(value, param: str) -> int:
    """A gap penalty (``param`` is ``"gap_open"`` or ``"gap_extend"``) as an
    ``int``: an integer, 0 or above (penalties are costs, subtracted)."""
    number = _integer(value, param)
    if number < 0:
        raise ScoringError(f"must be zero or positive (a gap penalty is a cost), got {value}", param=param)
    return number


def check_match_mismatch(match: int, mismatch: int, gap_open: int, gap_extend: int) -> None:
    """Check match/mismatch scoring with affine gaps: ``match > 0``,
    ``mismatch <= 0``, ``gap_open >= 0`` and ``gap_extend >= 0``, all integers.

    Raises :class:`~swgpu.exceptions.ScoringError` with ``param`` set to the
    first parameter at fault, in argument order.
    """
    check_match(match)
    check_mismatch(mismatch)
    check_gap(gap_open, "gap_open")
    check_gap(gap_extend, "gap_extend")
