"""Host-side database layout shared by the search engines.

Both engines score a database in length order (:func:`swgpu.io.database.length_order`:
neighbours have similar lengths, so lanes or thread groups in lockstep waste little)
and pad sequences past their ends with one extra letter, the *pad*, whose
substitution score :data:`PAD_SCORE` against everything is so low that a
padded cell can never raise a maximum: a pad cell's diagonal value is at most
``H + PAD_SCORE < 0`` for any stored ``H`` in ``0..32767``, so no 16-bit lane
wraps either.

>>> padded_matrix(np.array([[2, -3], [-3, 2]], dtype=np.int32)).tolist()
[[2, -3, -32768], [-3, 2, -32768], [-32768, -32768, -32768]]
"""

from __future__ import annotations

import numpy as np

__all__ = ["PAD_SCORE", "padded_matrix"]

#: Substitution score of the pad letter against every letter (and itself).
PAD_SCORE = -32768


def padded_matrix(matrix: np.ndarray) -> np.ndarray:
    """``int32`` matrix with the pad letter (code ``K``) added as the last row and column."""
    k = matrix.shape[0]
    out = np.full((k + 1, k + 1), PAD_SCORE, dtype=np.int32)
    out[:k, :k] = matrix
    return out
