"""argparse ``type`` s for numeric options: each refuses a value out of its
range (and ``nan``, ``inf``) with one line naming the allowed range, which
argparse shows after the option (``argument --threads: must be an integer >=
1, got '0'``).

>>> positive_int("3"), non_positive_int("-3"), positive_float("1e-5")
(3, -3, 1e-05)
>>> positive_int("0")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: must be an integer >= 1, got '0'
>>> positive_float("inf")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: must be a finite number > 0, got 'inf'
>>> memory_size("8G"), memory_size("500M"), memory_size("2097152")
(8589934592, 524288000, 2097152)
"""

from __future__ import annotations

import argparse
import math

__all__ = ["int_in", "positive_int", "non_negative_int", "non_positive_int", "gap_penalty", "positive_float", "memory_size"]


def int_in(low: int | None = None, high: int | None = None):
    """An argparse ``type``: an integer in ``[low, high]`` (either end open when None)."""
    if low is not None and high is not None:
        allowed = f"an integer from {low} to {high}"
    elif low is not None:
        allowed = f"an integer >= {low}"
    else:
        allowed = f"an integer <= {high}"

    def parse(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {allowed}, got {text!r}") from None
        if (low is not None and value < low) or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"must be {allowed}, got {text!r}")
        return value

    parse.__name__ = f"int_in_{low}_{high}"
    return parse


positive_int = int_in(1)
non_negative_int = int_in(0)
non_positive_int = int_in(None, 0)


def gap_penalty(low: int):
    """An argparse ``type``: a gap penalty from ``low`` to the largest a Scoring takes."""
    def parse(text: str) -> int:
        from ..scoring.scoring import MAX_GAP_PENALTY  # numpy only once a command runs

        return int_in(low, MAX_GAP_PENALTY)(text)

    parse.__name__ = f"gap_penalty_{low}"
    return parse


def positive_float(text: str) -> float:
    """An argparse ``type``: a finite number above 0 (``nan`` and ``inf`` refused)."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text!r}")
    return value


_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}


def memory_size(text: str) -> int:
    """An argparse ``type``: bytes, as a whole number with an optional unit
    K, M, G or T (powers of 1,024; ``B`` or ``iB`` after it allowed), at least 1M."""
    t = text.strip().upper().removesuffix("B").removesuffix("I")
    unit = t[-1:] if t[-1:] in _UNITS else ""
    try:
        value = int(t[:len(t) - len(unit)]) * _UNITS[unit]
    except ValueError:
        value = -1
    if value < _UNITS["M"]:
        raise argparse.ArgumentTypeError(f"must be a size of at least 1M, such as 500M or 8G, got {text!r}")
    return value
