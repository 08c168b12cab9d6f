"""Bulk pair screening on the CPU: bit-sliced (BPBC) and scalar Numba kernels.

For many DNA pairs (query ``i`` against target ``i``) these return the best
local Smith-Waterman score of each pair, nothing else.

Scoring (exact): ``H = max(0, Hdiag + s, E, F)``,
``E = max(E_left - gap_extend, H_left - gap_open)``,
``F = max(F_up - gap_extend, H_up - gap_open)``; a gap of length *k* costs
``gap_open + (k - 1) * gap_extend`` (linear gaps: ``gap_open == gap_extend``);
``s = match`` when the codes are equal and neither is ``N`` (code 4), else
``mismatch``.

Bit-sliced kernel
-----------------
64 pairs share one ``uint64`` word: bit ``p`` of a word belongs to pair ``p``
(bit-transpose format). A character position of 64 sequences is three words
(code bit 0, code bit 1, the ``N`` flag) and a score of 64 pairs is ``B`` words,
word ``k`` holding bit ``k`` of the 64 scores. The cell update is a boolean
circuit (borrow chains for max and for "minus a constant, clamp at 0"; a
ripple-carry adder for ``Hdiag + s``), so one word operation advances 64 pairs.

Every value is kept non-negative: with ``gap_extend >= 0``,
``max(0, E') = max(0, max(0, E) - gap_extend, H - gap_open)``, so clamping E
and F at 0 in every cell changes no H. All stored values are then at most the
best score, which is at most ``min(m, n) * match``; ``B`` is the number of bits
of that bound, so the arithmetic is exact, with no saturation. The GPU kernels
in ``swgpu/engines/cuda/kernels/bpbc.cu`` evaluate the same circuit.

Padding
-------
Pairs of different lengths share a word after padding queries and targets at
their ends with ``N``. This never changes a score, provided
``mismatch <= 0`` and both gap penalties are ``>= 0``: cells of the original
matrix depend only on cells above and to the left, so they are unchanged; a
padded cell has an ``N`` on its row or column, hence ``s = mismatch <= 0`` and
``Hdiag + s <= Hdiag``, ``E <= max(E_left, H_left)``, ``F <= max(F_up, H_up)``.
By induction in row-major order every padded cell's ``H``, ``E``, ``F`` is at
most ``M``, the best score of the unpadded matrix (``E <= H`` and ``F <= H``
hold in every real cell). The maximum over the padded matrix is therefore
exactly ``M``. The bound ``min(m, n) * match`` of the *real* lengths still
bounds every value, so ``B`` comes from the real lengths, not the padded ones.

Parameters are clamped without changing any score: ``mismatch`` to
``>= -(bound + 1)`` and the gap penalties to ``<= bound + 1`` (a term that is
negative anyway stays negative, and only ``max(0, .)`` of it matters).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...exceptions import ScoringError
from ...io.alphabet import DNA
from ...scoring import ScoreMatrix, check_match_mismatch
from ..bulk import N_CODE, as_code_arrays, chunks_by_shape, effective_scoring, score_bits, score_bound
from .pairwise import sw_end

__all__ = ["screen_scores_bitsliced", "screen_scores_scalar"]

WORD = 64
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)
_ZERO = np.uint64(0)


def _pad_codes(seqs: list[np.ndarray], sel: np.ndarray, rows: int, width: int) -> np.ndarray:
    out = np.full((rows, width), N_CODE, dtype=np.uint8)
    for r, i in enumerate(sel):
        s = seqs[i]
        out[r, : s.size] = s
    return out


def _planes64(codes: np.ndarray) -> np.ndarray:
    """(groups*64, L) uint8 codes -> (groups, 3, L) uint64 bit planes."""
    g = codes.shape[0] // WORD
    c = codes.reshape(g, WORD, codes.shape[1])
    planes = np.empty((g, 3, codes.shape[1]), dtype=np.uint64)
    for b, bits in enumerate(((c & 1) != 0, (c & 2) != 0, c >= N_CODE)):
        packed = np.packbits(bits, axis=1, bitorder="little")  # (g, 8, L)
        planes[:, b, :] = np.ascontiguousarray(packed.transpose(0, 2, 1)).view("<u8")[..., 0]
    return planes


# --------------------------------------------------------------------------
# Bit-sliced primitives. A value is an (nb, W) array: nb bit planes of W words
# (W words of 64 pairs are processed side by side, so the innermost loops run
# over words and vectorise); a lane mask is a (W,) array.
# --------------------------------------------------------------------------


@njit(cache=True, inline="always")
def _lt_mask(br, a, b, nb, W):
    """br = lanes where a < b (unsigned): the borrow out of a - b."""
    for w in range(W):
        br[w] = _ZERO
    for k in range(nb):
        ak = a[k]
        bk = b[k]
        for w in range(W):
            br[w] = (~ak[w] & (bk[w] | br[w])) | (bk[w] & br[w])


@njit(cache=True, inline="always")
def _select(r, a, b, lt, nb, W):
    """r = b where the mask ``lt`` is set, else a (bit-plane by bit-plane); r may alias a or b."""
    for k in range(nb):
        ak = a[k]
        bk = b[k]
        rk = r[k]
        for w in range(W):
            rk[w] = (ak[w] & ~lt[w]) | (bk[w] & lt[w])


@njit(cache=True, inline="always")
def _vmax(r, a, b, lt, nb, W):
    """r = max(a, b); r may alias a or b."""
    _lt_mask(lt, a, b, nb, W)
    _select(r, a, b, lt, nb, W)


@njit(cache=True, inline="always")
def _sub_relu(r, x, cb, cbig, tmp, br, nb, W):
    """r = max(x - C, 0) for a constant with bit masks ``cb``; ``cbig``: C >= 2^nb."""
    if cbig:
        r[:, :] = 0
        return
    for w in range(W):
        br[w] = _ZERO
    for k in range(nb):
        c = cb[k]
        xk = x[k]
        tk = tmp[k]
        for w in range(W):
            xw = xk[w]
            tk[w] = xw ^ c ^ br[w]
            br[w] = (~xw & (c | br[w])) | (c & br[w])
    for k in range(nb):
        rk = r[k]
        tk = tmp[k]
        for w in range(W):
            rk[w] = tk[w] & ~br[w]


@njit(cache=True, inline="always")
def _add_score(X, xs, D, mis, smatch, smis, smis_sign, c, nb, W):
    """X = D + (mis ? MISMATCH : MATCH) in nb+1 bits; xs = the sign plane."""
    for w in range(W):
        c[w] = _ZERO
    for k in range(nb):
        sm = smatch[k]
        sx = smis[k]
        dk = D[k]
        xk = X[k]
        for w in range(W):
            s = (sm & ~mis[w]) | (sx & mis[w])
            d = dk[w]
            xk[w] = d ^ s ^ c[w]
            c[w] = (d & s) | (c[w] & (d ^ s))
    for w in range(W):
        xs[w] = (smis_sign & mis[w]) ^ c[w]


@njit(cache=True, inline="always")
def _max_signed(H, X, xs, G, lt, nb, W):
    """H = max(X, G) for signed X (sign plane xs) and G >= 0."""
    _lt_mask(lt, X, G, nb, W)
    for w in range(W):
        lt[w] |= xs[w]
    _select(H, X, G, lt, nb, W)


@njit(cache=True)
def _bitsliced_words(qp, tp, nb, match, mismatch, gap_open, gap_extend, out):
    """Best scores of W words of 64 pairs. qp: (3, m, W), tp: (3, n, W) uint64.

    ``out`` (W*64,) int32 receives the untransposed scores (pair p of word w at
    ``w*64 + p``).
    """
    W = qp.shape[2]
    m = qp.shape[1]
    n = tp.shape[1]
    affine = gap_open != gap_extend
    shifted = gap_open >= gap_extend
    lim = np.int64(1) << nb
    smatch = np.zeros(nb, np.uint64)
    smis = np.zeros(nb, np.uint64)
    c_open = np.zeros(nb, np.uint64)
    c_ext = np.zeros(nb, np.uint64)
    c_d = np.zeros(nb, np.uint64)
    d_oe = gap_open - gap_extend
    for k in range(nb):
        if (match >> k) & 1:
            smatch[k] = _ALL
        if (mismatch >> k) & 1:  # two's complement (arithmetic shift)
            smis[k] = _ALL
        if (gap_open >> k) & 1:
            c_open[k] = _ALL
        if (gap_extend >> k) & 1:
            c_ext[k] = _ALL
        if d_oe > 0 and (d_oe >> k) & 1:
            c_d[k] = _ALL
    smis_sign = _ALL if mismatch < 0 else _ZERO
    big_open = gap_open >= lim
    big_ext = gap_extend >= lim
    big_d = d_oe >= lim

    H = np.zeros((m, nb, W), np.uint64)  # column j-1, then j
    P = np.zeros((m, nb, W), np.uint64)  # horizontal gap state per row
    up = np.zeros((nb, W), np.uint64)  # H[i-1][j]
    qup = np.zeros((nb, W), np.uint64)  # vertical gap state of row i-1
    diag = np.zeros((nb, W), np.uint64)  # H[i-1][j-1]
    old = np.zeros((nb, W), np.uint64)
    G = np.zeros((nb, W), np.uint64)
    A = np.zeros((nb, W), np.uint64)
    X = np.zeros((nb, W), np.uint64)
    tmp = np.zeros((nb, W), np.uint64)
    best = np.zeros((nb, W), np.uint64)
    mis = np.zeros(W, np.uint64)
    xs = np.zeros(W, np.uint64)
    m1 = np.zeros(W, np.uint64)
    m2 = np.zeros(W, np.uint64)
    for j in range(n):
        t0 = tp[0, j]
        t1 = tp[1, j]
        tn = tp[2, j]
        up[:, :] = 0
        qup[:, :] = 0
        diag[:, :] = 0
        for i in range(m):
            q0 = qp[0, i]
            q1 = qp[1, i]
            qn = qp[2, i]
            for w in range(W):
                mis[w] = (q0[w] ^ t0[w]) | (q1[w] ^ t1[w]) | qn[w] | tn[w]
            Hi = H[i]
            if not affine:
                # G = relu(max(H_left, H_up) - gap)
                _vmax(G, Hi, up, m1, nb, W)
                _sub_relu(G, G, c_open, big_open, tmp, m1, nb, W)
            elif shifted:
                # P = relu(E + d), Q = relu(F + d), d = open - extend
                Pi = P[i]
                _vmax(Pi, Pi, Hi, m1, nb, W)
                _sub_relu(Pi, Pi, c_ext, big_ext, tmp, m1, nb, W)
                _vmax(qup, qup, up, m1, nb, W)
                _sub_relu(qup, qup, c_ext, big_ext, tmp, m1, nb, W)
                _vmax(G, Pi, qup, m1, nb, W)
                if d_oe > 0:
                    _sub_relu(G, G, c_d, big_d, tmp, m1, nb, W)
            else:
                Pi = P[i]
                _sub_relu(Pi, Pi, c_ext, big_ext, tmp, m1, nb, W)
                _sub_relu(A, Hi, c_open, big_open, tmp, m1, nb, W)
                _vmax(Pi, Pi, A, m1, nb, W)
                _sub_relu(qup, qup, c_ext, big_ext, tmp, m1, nb, W)
                _sub_relu(A, up, c_open, big_open, tmp, m1, nb, W)
                _vmax(qup, qup, A, m1, nb, W)
                _vmax(G, Pi, qup, m1, nb, W)
            _add_score(X, xs, diag, mis, smatch, smis, smis_sign, m2, nb, W)
            old[:, :] = Hi
            _max_signed(Hi, X, xs, G, m1, nb, W)
            _vmax(best, best, Hi, m1, nb, W)
            diag[:, :] = old  # H[i][j-1]: the next row's diagonal
            up[:, :] = Hi
    # untranspose: bit p of plane k is bit k of the score of pair p
    for w in range(W):
        for p in range(WORD):
            v = 0
            for k in range(nb):
                v |= np.int64((best[k, w] >> np.uint64(p)) & np.uint64(1)) << k
            out[w * WORD + p] = v


#: Words (of 64 pairs) evaluated side by side by one call of the kernel.
WORDS_PER_BATCH = 16


def batch_bytes(pairs: int, m: int, n: int, match: int) -> int:
    """Bytes of the working arrays of :func:`screen_scores_bitsliced` for
    ``pairs`` pairs of ``m`` x ``n`` letters (its largest batch): the padded
    codes and a byte per letter of their bit masks, the bit planes, and the
    ``H`` and ``P`` planes of every query row."""
    words = -(-min(int(pairs), WORD * WORDS_PER_BATCH) // WORD)
    bits = score_bits(score_bound([m], [n], match))
    return words * (2 * WORD * (m + n) + 24 * (m + n) + 16 * bits * m)


def screen_scores_bitsliced(queries, targets, match: int, mismatch: int, gap_open: int, gap_extend: int) -> np.ndarray:
    """Best local score of each pair ``(queries[i], targets[i])``, bit-sliced.

    ``queries`` and ``targets`` are lists of DNA code arrays (``uint8`` 0..4,
    see :data:`swgpu.io.alphabet.DNA`) or strings. Returns ``int32`` scores.
    Pairs are sorted by shape and cut into batches of up to
    ``WORDS_PER_BATCH * 64`` pairs, each padded with ``N`` to its largest query
    and target (exact, see the module docs); scores use the fewest bits that
    hold the batch's largest reachable score.
    """
    check_match_mismatch(match, mismatch, gap_open, gap_extend)
    qs, ts = as_code_arrays(queries, targets)
    npairs = len(qs)
    scores = np.zeros(npairs, dtype=np.int32)
    if npairs == 0:
        return scores
    mlens = np.array([q.size for q in qs], dtype=np.int64)
    nlens = np.array([t.size for t in ts], dtype=np.int64)
    for sel in chunks_by_shape(mlens, nlens, WORD * WORDS_PER_BATCH):
        bound = score_bound(mlens[sel], nlens[sel], match)
        nb = score_bits(bound)
        if nb > 62:
            raise ScoringError(f"best possible score {bound} does not fit the bit-sliced kernel", param="match")
        mt, mm, go, ge = effective_scoring(bound, match, mismatch, gap_open, gap_extend)
        words = -(-sel.size // WORD)
        m = int(mlens[sel].max())
        n = int(nlens[sel].max())
        qp = np.ascontiguousarray(_planes64(_pad_codes(qs, sel, words * WORD, m)).transpose(1, 2, 0))
        tp = np.ascontiguousarray(_planes64(_pad_codes(ts, sel, words * WORD, n)).transpose(1, 2, 0))
        out = np.zeros(words * WORD, dtype=np.int32)
        _bitsliced_words(qp, tp, nb, mt, mm, go, ge, out)
        scores[sel] = out[: sel.size]
    return scores


# --------------------------------------------------------------------------
# Scalar comparison: the foundation's pairwise kernel, one pair at a time
# --------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _scalar_pairs(qcat, qoff, tcat, toff, matrix, gap_open, gap_extend, out):
    for p in range(out.size):
        out[p] = sw_end(qcat[qoff[p]:qoff[p + 1]], tcat[toff[p]:toff[p + 1]], matrix, gap_open, gap_extend)[0]


def screen_scores_scalar(queries, targets, match: int, mismatch: int, gap_open: int, gap_extend: int) -> np.ndarray:
    """The same scores from the scalar pairwise engine (:func:`swgpu.engines.cpu.pairwise.sw_end`),
    one pair at a time, for comparison with the bit-sliced kernel."""
    check_match_mismatch(match, mismatch, gap_open, gap_extend)
    if gap_extend > gap_open:
        raise ScoringError("the scalar kernel needs gap_extend <= gap_open", param="gap_extend")
    qs, ts = as_code_arrays(queries, targets)
    npairs = len(qs)
    out = np.zeros(npairs, dtype=np.int32)
    if npairs == 0:
        return out
    qoff = np.zeros(npairs + 1, dtype=np.int64)
    toff = np.zeros(npairs + 1, dtype=np.int64)
    qoff[1:] = np.cumsum([q.size for q in qs])
    toff[1:] = np.cumsum([t.size for t in ts])
    qcat = np.concatenate(qs) if qoff[-1] else np.zeros(0, np.uint8)
    tcat = np.concatenate(ts) if toff[-1] else np.zeros(0, np.uint8)
    matrix = ScoreMatrix.match_mismatch(match, mismatch, DNA).values
    _scalar_pairs(qcat, qoff, tcat, toff, matrix, gap_open, gap_extend, out)
    return out
