"""The compiled loop of :func:`~swgpu.scoring.length_adjust.log_spaces`:
:func:`~swgpu.scoring.length_adjust.adjustment` and
:func:`~swgpu.scoring.length_adjust.space` compiled by Numba, one search
space after another. Kept apart so that importing :mod:`swgpu.scoring` does
not import Numba."""

from __future__ import annotations

import math

from ..io.compiled import announce_compile, load_numba
from . import length_adjust

load_numba()
from numba import njit  # noqa: E402

__all__ = ["log_spaces_into"]

_adjustment = njit(cache=True, nogil=True)(length_adjust.adjustment)
_space = njit(cache=True, nogil=True)(length_adjust.space)


@njit(cache=True, nogil=True)
def _log_spaces(rows, K, logK, a_l, beta, out):  # pragma: no cover
    for k in range(rows.shape[0]):
        m = rows[k, 0]
        n = rows[k, 1]
        N = max(1, rows[k, 2])
        ell = _adjustment(float(m), float(n), float(N), K, logK, a_l, beta)
        out[k] = math.log(_space(m, n, N, ell))


def log_spaces_into(rows, K: float, logK: float, a_l: float, beta: float, out) -> None:
    """``out[k]`` = log of the effective search space of row ``k`` (``m, n, N``) of ``rows`` (``int64``)."""
    announce_compile(_log_spaces)
    _log_spaces(rows, K, logK, a_l, beta, out)
