"""Overflow policy of the narrow-lane score kernels, written once for every engine.

Score kernels run first in 16-bit lanes (``int16`` on the CPU, ``s16x2`` on the
GPU): twice the cells per instruction of 32-bit lanes. A 16-bit lane holds
every value exactly while the best score stays below a limit that depends on
the kernel's arithmetic: the largest 16-bit value, less the largest matrix
entry (one more diagonal step), less the kernel's own ``headroom`` (e.g. a
shift of every stored value). Scores above :attr:`OverflowPolicy.limit` may have
saturated or wrapped; their pairs are re-scored exactly in 32-bit lanes.

>>> p = OverflowPolicy(max_match=11, headroom=12)
>>> p.limit
32744
>>> p.suspects(np.array([5, 32744, 32745, -3])).tolist()
[2]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

__all__ = ["OverflowPolicy"]


@dataclass(frozen=True)
class OverflowPolicy:
    """When a narrow-lane score must be re-computed in 32 bits."""

    max_match: int  #: largest substitution score
    headroom: int = 0  #: extra margin the kernel's arithmetic needs
    bits: int = 16  #: lane width

    @property
    def limit(self) -> int:
        """Largest score that proves no lane overflowed."""
        return (1 << (self.bits - 1)) - 1 - max(int(self.max_match), 0) - int(self.headroom)

    def suspects(self, scores: np.ndarray) -> np.ndarray:
        """Positions of the scores that may have overflowed."""
        return np.flatnonzero(np.asarray(scores) > self.limit)

    def resolve(self, scores: np.ndarray, rescore: Callable[[np.ndarray], np.ndarray]) -> int:
        """Replace the suspect entries of ``scores`` (in place) by
        ``rescore(positions)``, the exact 32-bit scores; returns how many."""
        redo = self.suspects(scores)
        if redo.size:
            scores[redo] = rescore(redo)
        return int(redo.size)
