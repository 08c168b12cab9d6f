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


#: Match/mismatch/open/extend sets of the screening tests: the two benchmark
#: scorings first, then open < extend, free gaps, and scores past 16 bits.
SCREEN_SCORINGS = [
    (2, -1, 1, 1),  # linear (benchmark)
    (2, -3, 5, 2),  # affine (benchmark)
    (1, -2, 1, 3),  # affine, open < extend
    (3, 0, 0, 0),  # free gaps, mismatch 0
    (5, -4, 9, 1),
    (1000, -1500, 2000, 300),  # scores beyond 16 bits
]

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


def random_pairs(rng, count, m_range, n_range, n_frac=0.05):
    """Random pairs; lengths drawn from the inclusive ranges. Kernels are compiled
    per score width, so each test keeps its lengths to a few widths."""
    qs, ts = [], []
    for i in range(count):
        m = int(rng.integers(m_range[0], m_range[1] + 1))
        n = int(rng.integers(n_range[0], n_range[1] + 1))
        q = rng.integers(0, 4, m).astype(np.uint8)
        t = rng.integers(0, 4, n).astype(np.uint8)
        q[rng.random(m) < n_frac] = N
        t[rng.random(n) < n_frac] = N
        if i % 5 == 0 and min(m, n) > 4:  # plant a shared stretch
            a = int(rng.integers(0, min(m, n) // 2))
            t[a : a + min(m, n) // 2] = q[: min(m, n) // 2]
        qs.append(q)
        ts.append(t)
    return qs, ts


def special_pairs():
    A = np.array
    u8 = np.uint8
    return [
        (A([0, 1, 2, 3] * 10, u8), A([0, 1, 2, 3] * 10, u8)),  # identical: largest score
        (A([2] * 37, u8), A([2] * 37, u8)),
        (A([N] * 12, u8), A([N] * 12, u8)),  # all N: 0
        (A([0, N, 1], u8), A([N, N, N, N], u8)),
        (A([1], u8), A([1], u8)),  # length 1
        (A([1], u8), A([2], u8)),
        (A([3], u8), A([0, 1, 2, 3, 0], u8)),
        (A([], u8), A([0, 1], u8)),  # empty
        (A([0, 1], u8), A([], u8)),
        (A([], u8), A([], u8)),
        (A([0, 1, 2, 3, 3, 2, 1, 0] * 9, u8), A([0, 1, 2, 3] * 3, u8)),  # query longer
        (A([0, 1, 2, 3, 2, 2, 2, 1, 0, 3, 3], u8), A([0, 1, 2, 3, 1, 0, 3, 3], u8)),  # gapped
    ]


def mixed_pairs(seed, count, m_range, n_range):
    """``random_pairs`` followed by every ``special_pairs`` case."""
    qs, ts = random_pairs(np.random.default_rng(seed), count, m_range, n_range)
    for q, t in special_pairs():
        qs.append(q)
        ts.append(t)
    return qs, ts


def last_column_alignment(q, t, scoring):
    """The best alignment of ``q`` ending with a pair at ``t``'s last letter:
    the best ``H(i - 1, n - 1) + s(i, n)`` of the full local matrix, its first row, then the start
    (anchored pass) and the path (linear-memory traceback) of the scalar CPU
    kernels -- the oracle of ``end_at_last``."""
    from swgpu.align.alignment import Alignment
    from swgpu.align.traceback import _OPS, BASE_CELLS, _rev, global_ops
    from swgpu.engines.cpu import pairwise

    m, go, ge = scoring.matrix.values, scoring.gap_open, scoring.gap_extend
    neg = -(1 << 30)
    H = np.zeros((len(q) + 1, len(t) + 1), np.int64)
    E = np.full_like(H, neg)
    F = np.full_like(H, neg)
    for i in range(1, len(q) + 1):
        for j in range(1, len(t) + 1):
            E[i, j] = max(E[i, j - 1] - ge, H[i, j - 1] - go)
            F[i, j] = max(F[i - 1, j] - ge, H[i - 1, j] - go)
            H[i, j] = max(0, H[i - 1, j - 1] + m[q.codes[i - 1], t.codes[j - 1]], E[i, j], F[i, j])
    # alignments ending with a pair at the last column: H(i - 1, n - 1) + s(i, n)
    col = [0] + [int(H[i - 1, len(t) - 1] + m[q.codes[i - 1], t.codes[-1]]) for i in range(1, len(q) + 1)]
    best = max(col)
    if best <= 0:
        return Alignment.empty_for(q, t)
    ie, je = col.index(best), len(t)
    ri, rj = pairwise.sw_start(_rev(q.codes[:ie]), _rev(t.codes[:je]), m, go, ge, best)
    i0, j0 = ie - ri, je - rj
    ops = global_ops(pairwise, q.codes[i0:ie], t.codes[j0:je], m, go, ge, BASE_CELLS)
    return Alignment.from_ops(q, t, scoring, i0, j0, _OPS[ops].tobytes().decode("ascii"), score=best)


def last_column_pairs(seed: int = 31, count: int = 120):
    """DNA pairs for ``end_at_last``: random, half with a prefix of the query
    at the end of the target, and a few special ones."""
    from swgpu import Sequence

    rng = np.random.default_rng(seed)

    def dna(name, n, text=None):
        return Sequence.from_text(name, text if text is not None else "".join(rng.choice(list("ACGT"), n)), "dna")

    pairs = []
    for i in range(count):
        q = dna(f"q{i}", int(rng.integers(1, 60)))
        t = dna(f"t{i}", int(rng.integers(1, 90)))
        if i % 2 == 0:
            t = dna(f"t{i}", 0, t.text + q.text[: int(rng.integers(1, len(q) + 1))])
        pairs.append((q, t))
    pairs += [(dna("n", 0, "N" * 10), dna("n2", 0, "N" * 10)),
              (dna("a", 0, "ACGT" * 10), dna("b", 0, "ACGT" * 12 + "A"))]
    return pairs


def aligned_pairs(a) -> set[tuple[int, int]]:
    """The ``(query, target)`` residue pairs an alignment aligns (0-based)."""
    from swgpu.align.alignment import cigar_to_ops

    i, j, out = a.query_start, a.target_start, set()
    for op in cigar_to_ops(a.cigar):
        if op in "=XM":
            out.add((i, j))
            i, j = i + 1, j + 1
        elif op == "I":
            i += 1
        else:
            j += 1
    return out
