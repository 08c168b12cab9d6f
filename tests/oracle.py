"""parasail as an independent oracle: the same scoring, laid onto its matrices."""

from __future__ import annotations

import functools

import numpy as np

parasail = None
try:  # parasail is a test dependency (extra "dev"); tests skip without it
    import parasail  # type: ignore  # noqa: F811
except ImportError:  # pragma: no cover
    pass


@functools.lru_cache(maxsize=64)
def _matrix(key):
    letters, values = key
    values = np.array(values, dtype=np.int32)
    m = parasail.matrix_create(letters, 0, 0)
    for a in range(len(letters)):
        for b in range(len(letters)):
            m.set_value(a, b, int(values[a, b]))
    return m


def parasail_matrix(scoring):
    return _matrix((scoring.alphabet.letters, tuple(map(tuple, scoring.matrix.values.tolist()))))


def parasail_score(q_codes, t_codes, scoring) -> int:
    """parasail's ``sw`` score (prefix-scan, 32-bit; the striped variant mis-scores some open == extend cases) for code arrays under ``scoring``."""
    alpha = scoring.alphabet
    if len(q_codes) == 0 or len(t_codes) == 0:
        return 0
    r = parasail.sw_scan_32(alpha.decode(q_codes), alpha.decode(t_codes), scoring.gap_open, scoring.gap_extend,
                               parasail_matrix(scoring))
    return int(r.score)
