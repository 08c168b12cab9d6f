"""Test oracles: parasail (an independent peer) with the same scoring laid onto
its matrices, and a plain-Python Gotoh score for match/mismatch DNA pairs that
accepts any gap costs (also open < extend, which Scoring refuses)."""

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


N = 4  # the DNA unknown code: a mismatch against everything, itself included
NEG = -(10**9)


def gotoh(q, t, match, mismatch, gap_open, gap_extend) -> int:
    """Best local score of code lists, H = max(0, Hdiag + s, E, F), straight from the definition."""
    m = len(q)
    best = 0
    H = [0] * (m + 1)  # H[i][j-1], row i at index i+1
    E = [NEG] * (m + 1)
    for tj in t:
        diag, f, hup = 0, NEG, 0
        for i in range(m):
            s = match if (q[i] == tj and q[i] != N) else mismatch
            e = max(E[i + 1] - gap_extend, H[i + 1] - gap_open)
            f = max(f - gap_extend, hup - gap_open)
            h = max(0, diag + s, e, f)
            diag, H[i + 1], E[i + 1], hup = H[i + 1], h, e, h
            best = max(best, h)
    return best


def gotoh_scores(qs, ts, params) -> np.ndarray:
    return np.array([gotoh(q.tolist(), t.tolist(), *params) for q, t in zip(qs, ts)], dtype=np.int32)
