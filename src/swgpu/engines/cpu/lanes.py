"""Lane types and score tables of the SIMD kernels (no Numba here, so that
building an engine or a scorer imports nothing heavy).

>>> lanes_of(np.uint8), lanes_of(np.uint16), lanes_of(np.int32)
(64, 32, 16)
>>> tables, bias = score_tables(np.array([[2, -3], [-3, 2]]), np.uint8, pad=2)
>>> bias, tables[:, :3].tolist()
(3, [[5, 0, 0], [0, 5, 0]])
"""

from __future__ import annotations

import numpy as np

__all__ = ["VEC_BYTES", "LANE_TYPES", "lanes_of", "score_tables"]

#: Bytes per vector (the AVX-512 register width).
VEC_BYTES = 64
#: Lane types of the local-alignment passes, narrowest first.
LANE_TYPES = (np.uint8, np.uint16, np.uint32)


def lanes_of(dtype) -> int:
    """Lanes of a vector of ``dtype`` (64 bytes)."""
    return VEC_BYTES // np.dtype(dtype).itemsize


def score_tables(matrix: np.ndarray, dtype, pad: int) -> tuple[np.ndarray, int] | None:
    """``(tables, bias)`` for lanes of ``dtype``: ``tables[a, b] = matrix[a, b] + bias``
    with ``bias = max(0, -min(matrix))`` (the pad letter ``pad`` and unused
    columns score ``-bias``), rows as wide as a vector when the letters fit
    (``max(32, lanes)`` columns); None when the biased scores do not fit."""
    info = np.iinfo(dtype)
    lo, hi = int(matrix.min()), int(matrix.max())
    bias = max(0, -lo)
    if hi + bias > info.max or bias > info.max:
        return None
    k = matrix.shape[0]
    width = max(32, lanes_of(dtype))
    if pad >= width:
        raise ValueError(f"{k} letters do not fit score tables of {width}")
    tables = np.zeros((k, width), dtype=dtype)
    tables[:, :k] = matrix + bias
    return tables, bias
