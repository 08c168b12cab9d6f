"""The line-writing kernels of :mod:`.rows` and :mod:`.columns` in array
operations (NumPy), for batches too small to pay for loading Numba
(:func:`~swgpu.io.compiled.worth`): the same bytes as the compiled kernels,
each field written for all lines at once.

>>> bytes(render_ints(np.array([0, -7, 120, 9]), np.array([0, 2, 5, 9]), 10)).replace(b"\\0", b".")
b'0.-7.120.9'
"""

from __future__ import annotations

import numpy as np

from ..texts import gather_segments, put_segments

__all__ = ["digits", "render_ints", "render_rows", "cigar_column", "merge_column"]

_POWERS = 10 ** np.arange(19, dtype=np.int64)


def digits(values: np.ndarray) -> np.ndarray:
    """Characters of each integer in decimal (a minus sign counted)."""
    v = np.asarray(values, dtype=np.int64)
    a = np.abs(v)
    n = np.ones(v.size, dtype=np.int64)
    for p in _POWERS[1:]:
        big = a >= p
        if not big.any():
            break
        n += big
    return n + (v < 0)


def render_ints(values: np.ndarray, at: np.ndarray, size: int, out: np.ndarray | None = None) -> np.ndarray:
    """Each integer of ``values`` in decimal at ``out[at[k]:]`` (``out``: ``size`` zero bytes when not given)."""
    v = np.asarray(values, dtype=np.int64)
    out = np.zeros(size, dtype=np.uint8) if out is None else out
    neg = v < 0
    out[at[neg]] = 45  # '-'
    a = np.abs(v)
    n = digits(v) - neg
    end = at + neg + n - 1  # the last digit's place
    for d in range(int(n.max()) if n.size else 0):
        live = n > d
        out[end[live] - d] = 48 + (a[live] // _POWERS[d]) % 10
    return out


def render_rows(n: int, kinds, args, ints, starts, ends, pool_of, pools, const: bytes, coff) -> np.ndarray:
    """The lines of :class:`~.rows.Rows` (its fields as the compiled
    ``sizes``/``fill`` kernels take them) as one ``uint8`` array."""
    sizes = []
    for kind, g in zip(kinds, args):
        if kind == 0:
            sizes.append(digits(ints[g]))
        elif kind == 1:
            sizes.append(ends[g] - starts[g])
        else:
            sizes.append(np.full(n, coff[g + 1] - coff[g], dtype=np.int64))
    line = np.sum(sizes, axis=0) if sizes else np.zeros(n, dtype=np.int64)
    at = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(line, out=at[1:])
    out = np.empty(int(at[-1]), dtype=np.uint8)
    pos = at[:-1].copy()
    cbytes = np.frombuffer(const, dtype=np.uint8)
    for (kind, g), size in zip(zip(kinds, args), sizes):
        if kind == 0:
            render_ints(ints[g], pos, 0, out)
        elif kind == 1:
            put_segments(pools[pool_of[g]], starts[g], ends[g], pos, out)
        else:
            text = cbytes[coff[g]:coff[g + 1]]
            if text.size:
                out[pos[:, None] + np.arange(text.size)] = text
        pos += size
    return out


def cigar_column(run_len, run_op, first, last, left, right, clip: int) -> tuple[np.ndarray, np.ndarray]:
    """Bytes and offsets of each CIGAR: ``left[k]`` clips (``clip``), runs
    ``first[k]:last[k]``, ``right[k]`` clips (a clip of 0 left out), as the
    compiled ``cigar_sizes``/``cigar_fill`` write them."""
    nruns = last - first
    has_l, has_r = (left > 0).astype(np.int64), (right > 0).astype(np.int64)
    count = nruns + has_l + has_r
    off = np.zeros(count.size + 1, dtype=np.int64)
    np.cumsum(count, out=off[1:])
    lengths = np.empty(int(off[-1]), dtype=np.int64)
    ops = np.empty(int(off[-1]), dtype=np.uint8)
    lk = np.flatnonzero(has_l)
    lengths[off[lk]], ops[off[lk]] = left[lk], clip
    rk = np.flatnonzero(has_r)
    lengths[off[rk + 1] - 1], ops[off[rk + 1] - 1] = right[rk], clip
    total = int(nruns.sum())
    if total:
        begin = np.zeros(nruns.size, dtype=np.int64)
        np.cumsum(nruns[:-1], out=begin[1:])
        step = np.arange(total, dtype=np.int64) - np.repeat(begin, nruns)
        dst = np.repeat(off[:-1] + has_l, nruns) + step
        src = np.repeat(first, nruns) + step
        lengths[dst], ops[dst] = run_len[src], run_op[src]
    # each entry: its length in decimal, then its letter
    size = digits(lengths) + 1
    at = np.zeros(size.size + 1, dtype=np.int64)
    np.cumsum(size, out=at[1:])
    out = render_ints(lengths, at[:-1], int(at[-1]))
    out[at[1:] - 1] = ops
    return out, at[off]


def merge_column(a: np.ndarray, b: np.ndarray, which: np.ndarray, first: np.ndarray, last: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """String ``k``: ``b[first[k]:last[k]]`` where ``which[k]``, else ``a[first[k]:last[k]]``; end to end, offsets."""
    shift = np.where(which, a.size, 0)
    return gather_segments(np.concatenate([a, b]), first + shift, last + shift)
