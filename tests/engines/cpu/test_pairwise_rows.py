"""The row kernels of one pair against plain one-cell-at-a-time loops: the
horizontal gaps taken from H before they are folded in (``nw_path``,
``sw_start``) give the same values and the same extend-or-open bytes, since
gap_open >= gap_extend, with ties everywhere (small alphabets, equal scores)."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu.engines.cpu.pairwise import nw_path, sw_end, sw_start

NEG = -(1 << 29)


def _nw_path_cells(a, b, matrix, go, ge, lead_open, tail_open):
    """Gotoh global path, one cell at a time (H from diagonal, E, F in that order of preference)."""
    m, n = len(a), len(b)
    D = np.zeros((m + 1, n + 1), np.uint8)
    H = [0] + [-(go + (j - 1) * ge) for j in range(1, n + 1)]
    F = [NEG] * (n + 1)
    for i in range(1, m + 1):
        diag = H[0]
        h = -(lead_open + (i - 1) * ge)
        H[0] = h
        e = NEG
        for j in range(1, n + 1):
            flags = 0
            if e - ge >= h - go:
                e, flags = e - ge, 4
            else:
                e = h - go
            up = H[j]
            if F[j] - ge >= up - go:
                f, flags = F[j] - ge, flags | 8
            else:
                f = up - go
            F[j] = f
            h = diag + int(matrix[a[i - 1], b[j - 1]])
            if e > h:
                h, flags = e, (flags & 12) | 1
            if f > h:
                h, flags = f, (flags & 12) | 2
            D[i, j] = flags
            diag = up
            H[j] = h
    final, state = H[n], 0
    if m and n and F[n] + go - tail_open > final:
        final, state = F[n] + go - tail_open, 2
    ops, i, j = [], m, n
    while i > 0 or j > 0:
        if i == 0:
            ops.append(2); j -= 1
        elif j == 0:
            ops.append(1); i -= 1
        elif state == 0:
            src = D[i, j] & 3
            if src == 0:
                ops.append(0); i -= 1; j -= 1
            else:
                state = src
        elif state == 1:
            ops.append(2)
            state = 1 if D[i, j] & 4 else 0
            j -= 1
        else:
            ops.append(1)
            state = 2 if D[i, j] & 8 else 0
            i -= 1
    return ops[::-1], final


@pytest.mark.parametrize("seed", range(4))
def test_nw_path_and_sw_start_match_cell_loops(seed):
    rng = np.random.default_rng(seed)
    for t in range(60):
        k = int(rng.choice([2, 4, 24]))
        if t % 3 == 0:
            matrix = np.full((k, k), int(rng.integers(-4, 0)), np.int32)
            np.fill_diagonal(matrix, int(rng.integers(1, 4)))
        else:
            raw = rng.integers(-4, 6, (k, k))
            matrix = ((raw + raw.T) // 2).astype(np.int32)
        ge = int(rng.integers(0, 4))
        go = ge + int(rng.integers(0, 5))
        a = rng.integers(0, k, int(rng.integers(0, 18))).astype(np.uint8)
        b = rng.integers(0, k, int(rng.integers(0, 18))).astype(np.uint8)
        lead, tail = int(rng.choice([go, ge])), int(rng.choice([go, ge]))
        ops, score = nw_path(a, b, matrix, go, ge, lead, tail)
        want_ops, want_score = _nw_path_cells(a, b, matrix, go, ge, lead, tail)
        assert (ops.tolist(), int(score)) == (want_ops, want_score)
        best, ie, je = sw_end(a, b, matrix, go, ge)
        if best > 0:  # the start: the first reversed cell (row-major) where a pair ends at the best score
            ri, rj = sw_start(a[:ie][::-1].copy(), b[:je][::-1].copy(), matrix, go, ge, best)
            assert 1 <= ri <= ie and 1 <= rj <= je
            sub_ops, sub_score = _nw_path_cells(a[ie - ri:ie], b[je - rj:je], matrix, go, ge, go, go)
            assert sub_score == best  # the box holds an alignment of the best score
            assert go == 0 or sub_ops[0] == 0  # that starts with a pair there (a free gap may tie)
