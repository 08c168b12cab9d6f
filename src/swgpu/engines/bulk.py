"""Host-side helpers shared by the bulk pair-scoring kernels of every engine
(the CPU's bit-sliced kernel and the GPU's screening kernels).

These kernels take DNA code arrays (``A C G T`` = 0..3 and the unknown code
:data:`N_CODE`), match/mismatch scoring and affine gaps, and keep every DP value
in ``0..bound`` where ``bound = max(min(m, n)) * match`` over the pairs run
together; padding with ``N`` never changes a score (proof in
:mod:`swgpu.engines.cpu.bitsliced`).

>>> score_bound([3, 10], [5, 4], 2), score_bits(8)
(8, 4)
>>> effective_scoring(8, 2, -30, 50, 1)
(2, -9, 9, 1)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..exceptions import InputError
from ..io.alphabet import DNA

__all__ = ["N_CODE", "PairBatch", "as_code_arrays", "concat_code_arrays", "score_bound", "score_bits",
           "effective_scoring", "chunks_by_shape"]

#: The DNA unknown code (``N``), also the padding letter of the bulk kernels.
N_CODE = DNA.unknown_code


def _as_codes(seq, what: str, i: int) -> np.ndarray:
    param = "queries" if what == "query" else "targets"
    if isinstance(seq, (str, bytes, bytearray)):
        return DNA.encode(seq, record=f"{what} {i}")
    arr = np.asarray(seq)
    if arr.ndim != 1:
        raise InputError(f"{what} {i}: expected a 1-D code array, got shape {arr.shape}", param=param)
    if arr.size and (arr.dtype.kind not in "ui" or int(arr.min()) < 0 or int(arr.max()) > N_CODE):
        if arr.dtype.kind not in "ui":
            raise InputError(f"{what} {i}: codes must be integers 0..{N_CODE}, got dtype {arr.dtype}",
                             param=param)
        raise InputError(f"{what} {i}: DNA codes must be 0..{N_CODE} (A C G T N), "
                         f"got {int(arr.min())}..{int(arr.max())}", param=param)
    return arr.astype(np.uint8, copy=False)


def as_code_arrays(queries, targets) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Validate two equally long lists of DNA code arrays (or strings)."""
    if len(queries) != len(targets):
        raise InputError(f"{len(queries)} queries but {len(targets)} targets: pairs need one of each",
                         param="targets")
    qs = [_as_codes(q, "query", i) for i, q in enumerate(queries)]
    ts = [_as_codes(t, "target", i) for i, t in enumerate(targets)]
    return qs, ts


def _concat(seqs, what: str) -> tuple[np.ndarray, np.ndarray]:
    """Codes of ``seqs`` end to end and their offsets; validated in one pass
    over all codes when every item is a 1-D integer array (else item by item)."""
    sizes = np.fromiter((len(s) for s in seqs), dtype=np.int64, count=len(seqs))
    off = np.zeros(len(seqs) + 1, dtype=np.int64)
    np.cumsum(sizes, out=off[1:])
    try:
        cat = np.concatenate(seqs) if len(seqs) else np.zeros(0, np.uint8)
        fast = cat.ndim == 1 and cat.size == off[-1] and (cat.dtype.kind in "ui" or cat.size == 0)
    except (ValueError, TypeError):
        fast = False
    if not fast:
        arrs = [_as_codes(s, what, i) for i, s in enumerate(seqs)]
        return (np.concatenate(arrs) if arrs else np.zeros(0, np.uint8)), off
    if cat.size and (int(cat.min()) < 0 or int(cat.max()) > N_CODE):
        bad = int(np.flatnonzero((cat < 0) | (cat > N_CODE))[0])
        i = int(np.searchsorted(off, bad, side="right")) - 1
        _as_codes(seqs[i], what, i)  # raises with the sequence's own message
    return cat.astype(np.uint8, copy=False), off


@dataclass(frozen=True)
class PairBatch:
    """Many DNA pairs in four flat arrays, the form the bulk kernels read:
    pair ``i`` is ``qcodes[qoff[i]:qoff[i + 1]]`` against
    ``tcodes[toff[i]:toff[i + 1]]`` (``uint8`` codes 0..4, ``int64`` offsets).
    Scorers take it in place of two lists and copy it as it is, checking the
    codes on the device (a list of arrays is first put end to end).

    >>> b = PairBatch.from_lists(["ACG", "T"], ["ACGT", ""])
    >>> len(b), b.qoff.tolist(), b.tcodes.tolist()
    (2, [0, 3, 4], [0, 1, 2, 3])
    """

    qcodes: np.ndarray
    qoff: np.ndarray
    tcodes: np.ndarray
    toff: np.ndarray

    def __post_init__(self):
        for name in ("qcodes", "tcodes"):
            if getattr(self, name).dtype != np.uint8 or getattr(self, name).ndim != 1:
                raise InputError(f"PairBatch.{name} must be a 1-D uint8 array", param=name)
        for name, codes in (("qoff", self.qcodes), ("toff", self.tcodes)):
            off = getattr(self, name)
            if off.dtype != np.int64 or off.ndim != 1 or off.size < 1 or off[0] != 0 or off[-1] != codes.size \
                    or np.any(np.diff(off) < 0):
                raise InputError(f"PairBatch.{name} must be int64 offsets from 0 to the codes' length",
                                 param=name)
        if self.qoff.size != self.toff.size:
            raise InputError(f"{self.qoff.size - 1} queries but {self.toff.size - 1} targets: pairs need one of "
                             "each", param="targets")

    def __len__(self) -> int:
        return self.qoff.size - 1

    @classmethod
    def from_lists(cls, queries, targets) -> "PairBatch":
        """Two lists of code arrays (or strings), validated and put end to end."""
        return cls(*concat_code_arrays(queries, targets))


def concat_code_arrays(queries, targets) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Like :func:`as_code_arrays`, for kernels that take all pairs at once:
    ``(query codes, query offsets, target codes, target offsets)``, each
    side's sequences end to end. A :class:`PairBatch` is returned as it is
    (its codes are not checked here)."""
    if isinstance(queries, PairBatch):
        return queries.qcodes, queries.qoff, queries.tcodes, queries.toff
    if len(queries) != len(targets):
        raise InputError(f"{len(queries)} queries but {len(targets)} targets: pairs need one of each",
                         param="targets")
    return _concat(queries, "query") + _concat(targets, "target")


def score_bound(mlens, nlens, match: int) -> int:
    """Largest reachable score of a set of pairs: ``max(min(m, n)) * match``."""
    mlens = np.asarray(mlens, dtype=np.int64)
    nlens = np.asarray(nlens, dtype=np.int64)
    if mlens.size == 0:
        return 0
    return int(np.minimum(mlens, nlens).max()) * int(match)


def score_bits(bound: int) -> int:
    """Bits needed for every value of the DP (at least 1)."""
    return max(1, int(bound).bit_length())


def effective_scoring(bound: int, match: int, mismatch: int, gap_open: int, gap_extend: int) -> tuple[int, int, int, int]:
    """Clamp parameters to ``bound + 1``; no score changes (a term that is
    negative anyway stays negative, and only ``max(0, .)`` of it matters)."""
    lim = int(bound) + 1
    return int(match), max(int(mismatch), -lim), min(int(gap_open), lim), min(int(gap_extend), lim)


def chunks_by_shape(mlens: np.ndarray, nlens: np.ndarray, size: int) -> list[np.ndarray]:
    """Indices of non-empty pairs sorted by (m, n), cut into chunks of ``size``."""
    idx = np.flatnonzero((mlens > 0) & (nlens > 0))
    order = idx[np.lexsort((nlens[idx], mlens[idx]))]
    return [order[i : i + size] for i in range(0, order.size, size)]
