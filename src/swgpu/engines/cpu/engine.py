"""The CPU engine: Numba kernels behind the engine interface.

* database search: :class:`~swgpu.engines.cpu.search.CpuSearchEngine`
  (inter-sequence 16-bit lanes, exact 32-bit re-runs);
* pair screening: the bit-sliced kernel (64 pairs per word) or the scalar
  pairwise kernel, :mod:`swgpu.engines.cpu.bitsliced`; ``auto`` picks one per
  batch of pairs with a measured cost model (:func:`choose_kernels`);
* traceback: the pairwise kernels of :mod:`swgpu.engines.cpu.pairwise`.
"""

from __future__ import annotations

import numpy as np

from ...exceptions import InputError
from ...scoring import Scoring
from ..base import Engine
from ..bulk import as_code_arrays, chunks_by_shape, score_bits, score_bound
from . import bitsliced, pairwise
from .search import CpuSearchEngine

__all__ = ["CpuEngine", "CpuPairScorer", "choose_kernels", "bitsliced_ns", "scalar_ns"]

#: Pair-scoring kernels: ``bitwise`` (bit-sliced), ``wordwise`` (scalar, one
#: pair at a time), ``group`` (the bit-sliced kernel on the CPU) and ``auto``
#: (per batch, the one the cost model below expects to be faster).
PAIR_KERNELS = ("auto", "bitwise", "wordwise", "group")

# Cost model of the two kernels, nanoseconds on one thread. Fitted by least
# squares on relative error (Xeon with AVX-512, 2024; minimum of 4 runs each):
# * bit-sliced: a batch of ``words`` words of 64 pairs, padded to m x n, with
#   ``bits`` score bits costs m * n * (bits * (c1 + c2 * words) + c3 + c4 * words),
#   fitted on batches of 64 * words equal pairs, m = n = 160, words 1, 2, 4, 8,
#   12, 16 and bits 8, 12, 16, 20 (match 1, 16, 256, 4096); worst fit 25%
#   (linear gaps, 2/-1/1/1) and 57% (affine, 2/-3/5/2; one outlier, the rest
#   within 20%). A batch costs about as much with 1 word as with 16: the cell
#   loop's overhead, not its 64-pair words, dominates, so the kernel only wins
#   on hundreds of pairs of one shape.
# * scalar (``pairwise.sw_end``): SCALAR_CELL per cell plus SCALAR_PAIR per pair,
#   fitted on pairs of 10x10 .. 3000x3000 and 200x20000 (1.5-1.9 ns a cell above
#   100x100).
# Both paths also spend BITS_PAIR / SCALAR_PAIR per pair on checks and layout.
# On the 20,000 GASAL2 read pairs (150 x ~250) this picks the bit-sliced kernel
# (measured 1.3-1.7x the scalar one with affine gaps, 2.8-3.2x linear); on one
# 10 kbp pair, three 40 kbp pairs, or 3,000 pairs of 1-3,000 bp it picks the
# scalar one (0.2-0.4 s, 9 s and 12 s here, against 78 s, over 1,200 s and
# 41 s bit-sliced).
_BITS_AFFINE = (50.4, 1.50, 434.0, 18.3)
_BITS_LINEAR = (32.4, 1.65, 81.0, 22.7)
BITS_PAIR = 7000.0
SCALAR_CELL = 1.58
SCALAR_PAIR = 8100.0


def bitsliced_ns(words: int, m: int, n: int, bits: int, affine: bool, pairs: int) -> float:
    """Expected nanoseconds of one bit-sliced batch."""
    c1, c2, c3, c4 = _BITS_AFFINE if affine else _BITS_LINEAR
    return m * n * (bits * (c1 + c2 * words) + c3 + c4 * words) + BITS_PAIR * pairs


def scalar_ns(cells: int, pairs: int) -> float:
    """Expected nanoseconds of the scalar kernel on ``pairs`` pairs of ``cells`` cells in all."""
    return SCALAR_CELL * cells + SCALAR_PAIR * pairs


def choose_kernels(mlens, nlens, match: int, affine: bool) -> np.ndarray:
    """For each pair, True when ``auto`` scores it with the bit-sliced kernel.

    The pairs are cut into the bit-sliced kernel's batches (sorted by shape,
    :func:`~swgpu.engines.bulk.chunks_by_shape`) and each batch goes to the
    kernel with the lower expected cost (:func:`bitsliced_ns`,
    :func:`scalar_ns`). Pairs with an empty side are left to the scalar kernel.
    """
    mlens = np.asarray(mlens, dtype=np.int64)
    nlens = np.asarray(nlens, dtype=np.int64)
    use_bits = np.zeros(mlens.size, dtype=bool)
    for sel in chunks_by_shape(mlens, nlens, bitsliced.WORD * bitsliced.WORDS_PER_BATCH):
        m, n = mlens[sel], nlens[sel]
        bits = score_bits(score_bound(m, n, match))
        words = -(-sel.size // bitsliced.WORD)
        cost = bitsliced_ns(words, int(m.max()), int(n.max()), bits, affine, sel.size)
        use_bits[sel] = cost < scalar_ns(int((m * n).sum()), sel.size)
    return use_bits


class CpuPairScorer:
    """Best local score of DNA pairs on the CPU (a :class:`~swgpu.engines.base.PairScorer`)."""

    def __init__(self, scoring: Scoring, kernel: str = "auto"):
        if kernel not in PAIR_KERNELS:
            raise InputError(f"unknown kernel {kernel!r}: use {', '.join(PAIR_KERNELS)}", param="kernel")
        self.match, self.mismatch = scoring.match_mismatch()
        self.gap_open, self.gap_extend = scoring.gap_open, scoring.gap_extend
        self.kernel = kernel
        self.last_timings = None
        #: pairs scored by each kernel in the last call (``auto`` splits them)
        self.last_kernels: dict[str, int] = {}

    def scores(self, queries, targets) -> np.ndarray:
        params = (self.match, self.mismatch, self.gap_open, self.gap_extend)
        if self.kernel == "wordwise":
            self.last_kernels = {"wordwise": len(queries)}
            return bitsliced.screen_scores_scalar(queries, targets, *params)
        if self.kernel != "auto" or self.gap_extend > self.gap_open:  # the scalar kernel needs extend <= open
            self.last_kernels = {"bitwise": len(queries)}
            return bitsliced.screen_scores_bitsliced(queries, targets, *params)
        if len(queries) != len(targets):
            as_code_arrays(queries, targets)  # raises: pairs need one of each
        try:
            mlens = np.array([len(q) for q in queries], dtype=np.int64)
            nlens = np.array([len(t) for t in targets], dtype=np.int64)
            use_bits = choose_kernels(mlens, nlens, self.match, self.gap_open != self.gap_extend)
            out = np.zeros(len(queries), dtype=np.int32)
            for mask, fn in ((use_bits, bitsliced.screen_scores_bitsliced), (~use_bits, bitsliced.screen_scores_scalar)):
                picked = np.flatnonzero(mask)
                if picked.size:
                    out[picked] = fn([queries[i] for i in picked], [targets[i] for i in picked], *params)
        except (InputError, TypeError):
            as_code_arrays(queries, targets)  # the error again, naming the pair by its place in the whole input
            raise
        self.last_kernels = {"bitwise": int(use_bits.sum()), "wordwise": int((~use_bits).sum())}
        return out


class CpuEngine(Engine):
    """All CPU cores (Numba releases the GIL; search kernels run in parallel)."""

    name = "cpu"

    def database_scorer(self, scoring: Scoring) -> CpuSearchEngine:
        return CpuSearchEngine(scoring.matrix.values, scoring.gap_open, scoring.gap_extend)

    def pair_scorer(self, scoring: Scoring, kernel: str = "auto", transpose: str = "ballot") -> CpuPairScorer:
        return CpuPairScorer(scoring, kernel)  # no transpose on the CPU

    def traceback_kernels(self):
        return pairwise

    def genome_scanner(self, scoring: Scoring, method: str = "auto"):
        from .scan import CpuGenomeScanner

        return CpuGenomeScanner(scoring, self.threads, method)
