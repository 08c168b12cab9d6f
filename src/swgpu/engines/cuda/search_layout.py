"""Host side of the GPU-resident search database (numpy only).

* :func:`unit_layout`: the sequences in length order (longest first), one
  *unit* each, padded to whole blocks of 4 columns with two closing columns
  (the layout of the query-pair kernel, one byte per column);
* :func:`pairs_of_units`: neighbours in that order paired two per 16-bit
  column (the single-query layout);
* :func:`host_unit_codes`: the unit codes built on the host (as the GPU's
  ``swp_build_units`` kernel writes them), for databases streamed in parts;
* :func:`query_schedule`: a batch of queries spread over the two 16-bit halves.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...io.database import length_order

__all__ = ["Units", "Pairs", "unit_layout", "pairs_of_units", "pair_layout", "host_unit_codes", "query_schedule"]


@dataclass
class Units:
    """Unit ``k`` is sequence ``order[k]`` of ``length[k]`` residues, stored at
    columns ``[uoff[k], uoff[k] + ulen[k])``; ``src[k]`` is its first residue."""

    order: np.ndarray
    length: np.ndarray
    ulen: np.ndarray
    uoff: np.ndarray
    src: np.ndarray

    @property
    def n(self) -> int:
        return int(self.order.size)

    @property
    def total_cols(self) -> int:
        return int(self.ulen.sum())

    def part(self, a: int, b: int) -> "Units":
        """Units ``a..b-1`` as a layout of their own (columns from 0)."""
        base = self.uoff[a] if b > a else 0
        return Units(self.order[a:b], self.length[a:b], self.ulen[a:b], self.uoff[a:b] - base, self.src[a:b])


@dataclass
class Pairs:
    """Pair ``k`` holds units ``ua[k]`` (low half) and ``ub[k]`` (high half, -1
    when none) of lengths ``la >= lb`` at columns ``[poff[k], poff[k] + plen[k])``;
    ``porig[k]`` are their original sequence indices."""

    ua: np.ndarray
    ub: np.ndarray
    la: np.ndarray
    lb: np.ndarray
    plen: np.ndarray
    poff: np.ndarray
    porig: np.ndarray

    @property
    def npairs(self) -> int:
        return int(self.ua.size)

    @property
    def total_cols(self) -> int:
        return int(self.plen.sum())


def unit_layout(offsets: np.ndarray) -> Units:
    """Units of the sequences ``offsets[i]:offsets[i + 1]``, longest first
    (stable): ``ulen = length + 2`` (two closing columns) rounded up to 4, or 0
    for an empty sequence."""
    off = np.ascontiguousarray(offsets, dtype=np.int64).ravel()
    order = length_order(off, descending=True)
    ln = np.diff(off)[order]
    ulen = np.where(ln > 0, (ln + 5) // 4 * 4, 0)
    if ulen.size and ulen.max() >= 2**31 - 64:
        raise ValueError("database sequence too long")
    uoff = np.zeros(ulen.size, dtype=np.int64)
    if ulen.size > 1:
        np.cumsum(ulen[:-1], out=uoff[1:])
    return Units(order, ln, ulen, uoff, off[:-1][order])


def host_unit_codes(res: np.ndarray, units: Units, pad: int, out: np.ndarray, copy_residues=None) -> np.ndarray:
    """The GPU code layout of ``units`` built into ``out``: each sequence's
    residues, pad columns up to ``ulen``, the closing letter ``pad + 1`` on the
    last two columns but ``pad + 2`` on the very last. ``copy_residues(res,
    units, out)``, when given, puts the residues in place instead of the
    NumPy gathers here."""
    out[: units.total_cols] = pad
    L, src, uoff = units.length, units.src, units.uoff
    if copy_residues is not None:
        copy_residues(res, units, out)
        return _closing_letters(units, pad, out)
    for k in np.flatnonzero(L >= 4096):  # few: plain slices
        out[uoff[k]: uoff[k] + L[k]] = res[src[k]: src[k] + L[k]]
    short = np.flatnonzero((L > 0) & (L < 4096))
    block = 1 << 22  # residues per vectorised step (bounded temporaries)
    cl = np.concatenate([[0], np.cumsum(L[short])])
    i = 0
    while i < short.size:
        j = max(i + 1, int(np.searchsorted(cl, cl[i] + block, side="right")) - 1)
        ks = short[i:j]
        unit_of = np.repeat(np.arange(ks.size), L[ks])
        pos = np.arange(unit_of.size, dtype=np.int64) - (cl[i:j] - cl[i])[unit_of]
        out[uoff[ks][unit_of] + pos] = res[src[ks][unit_of] + pos]
        i = j
    return _closing_letters(units, pad, out)


def _closing_letters(units: Units, pad: int, out: np.ndarray) -> np.ndarray:
    nz = units.ulen > 0
    ends = units.uoff[nz] + units.ulen[nz]
    out[ends - 2] = pad + 1
    out[ends - 1] = pad + 2
    return out


def pairs_of_units(units: Units, ids: np.ndarray) -> Pairs:
    """Units ``ids`` (ascending, so longest first) paired in turn: ``ids[2k]``
    and ``ids[2k + 1]``; columns ``plen`` = the longer length rounded up to 4."""
    ids = np.asarray(ids, dtype=np.int64)
    npairs = (ids.size + 1) // 2
    ua = ids[0::2]
    ub = np.full(npairs, -1, dtype=np.int64)
    ub[: ids.size // 2] = ids[1::2]
    hasb = ub >= 0
    ubc = np.where(hasb, ub, 0)
    la = units.length[ua]
    lb = np.where(hasb, units.length[ubc] if npairs else ubc, 0)
    plen = (la + 3) // 4 * 4
    poff = np.zeros(npairs, dtype=np.int64)
    if npairs > 1:
        np.cumsum(plen[:-1], out=poff[1:])
    porig = np.stack([units.order[ua], np.where(hasb, units.order[ubc] if npairs else ubc, -1)], axis=1)
    return Pairs(ua, ub, la, lb, plen, poff, porig.astype(np.int32).reshape(npairs, 2))


def pair_layout(offsets: np.ndarray) -> Pairs:
    """Sequence pairs of a whole database (the single-query layout)."""
    units = unit_layout(offsets)
    return pairs_of_units(units, np.arange(units.n))


def query_schedule(lengths, G: int, R: int) -> tuple[int, list]:
    """Rows of a batch of queries on the two halves of the query-pair kernel.

    Each half is a stream of segments of ``R`` rows (segment ``p * G + t`` is
    thread ``t``'s share of pass ``p``); a query of length ``Q`` takes
    ``ceil(Q / R)`` consecutive segments. Longest first, each query goes to the
    half with fewer segments. Returns ``(P, halves)``: ``P`` passes, and
    ``halves[h]`` a list of ``(query index, first segment, segments)``."""
    halves: list[list] = [[], []]
    used = [0, 0]
    for i in sorted(range(len(lengths)), key=lambda i: (-int(lengths[i]), i)):
        n = max(1, -(-int(lengths[i]) // R))
        h = 0 if used[0] <= used[1] else 1
        halves[h].append((i, used[h], n))
        used[h] += n
    return max(1, -(-max(used) // G)), halves
