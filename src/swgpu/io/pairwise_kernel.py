"""The compiled pass of :func:`swgpu.io.writers.pairwise_columns.pairwise_lines`:
the blocks of the ``pairwise`` view (query, match and target lines of
``width`` columns each, then a blank line) of many alignments, sized then
filled (Numba; loaded on first use)."""

from __future__ import annotations

from .compiled import announce_compile, load_numba
from .kernels import digits

load_numba()
from numba import njit  # noqa: E402

_SPACE, _NL, _GAP = 32, 10, 45


@njit(cache=True, nogil=True, inline="always")
def _put(out, p, byte, write):  # pragma: no cover
    if write:
        out[p] = byte
    return p + 1


@njit(cache=True, nogil=True, inline="always")
def _number(out, p, v, pad, write):  # pragma: no cover
    """``v`` right-justified in ``pad`` characters (wider when it needs more)."""
    n = digits(v)
    for _ in range(pad - n):
        p = _put(out, p, _SPACE, write)
    if write:
        x = v
        for d in range(n - 1, -1, -1):
            out[p + d] = 48 + x % 10
            x //= 10
    return p + n


@njit(cache=True, nogil=True, inline="always")
def _name(out, p, names, noff, i, pad, write):  # pragma: no cover
    """Name ``i`` left-justified in ``pad`` characters."""
    n = noff[i + 1] - noff[i]
    for c in range(n):
        p = _put(out, p, names[noff[i] + c], write)
    for _ in range(pad - n):
        p = _put(out, p, _SPACE, write)
    return p


@njit(cache=True, nogil=True)
def _blocks(k, qa, ta, ml, off, qnames, qnoff, qi, tnames, tnoff, ti, name_width, digits_, qstart, tstart, qlen,
            minus, width, out, p, write):  # pragma: no cover
    a, b = off[k], off[k + 1]
    qpos, tpos = qstart[k], tstart[k]
    pad, w = name_width[k], digits_[k]
    for s in range(a, b, width):
        e = min(b, s + width)
        nq = 0
        nt = 0
        for c in range(s, e):
            nq += qa[c] != _GAP
            nt += ta[c] != _GAP
        if nq:
            qfirst, qlast = qpos + 1, qpos + nq
        else:
            qfirst, qlast = qpos, qpos
        if minus[k]:
            if nq:
                qfirst, qlast = qlen[k] - qpos, qlen[k] - qpos - nq + 1
            else:
                qfirst, qlast = qlen[k] - qpos + 1, qlen[k] - qpos + 1
        if nt:
            tfirst, tlast = tpos + 1, tpos + nt
        else:
            tfirst, tlast = tpos, tpos
        qpos += nq
        tpos += nt
        for line in range(3):
            if line == 1:
                for _ in range(pad + 1 + w + 1):
                    p = _put(out, p, _SPACE, write)
                for c in range(s, e):
                    p = _put(out, p, ml[c], write)
            else:
                if line == 0:
                    p = _name(out, p, qnames, qnoff, qi[k], pad, write)
                    first, last, letters = qfirst, qlast, qa
                else:
                    p = _name(out, p, tnames, tnoff, ti[k], pad, write)
                    first, last, letters = tfirst, tlast, ta
                p = _put(out, p, _SPACE, write)
                p = _number(out, p, first, w, write)
                p = _put(out, p, _SPACE, write)
                for c in range(s, e):
                    p = _put(out, p, letters[c], write)
                p = _put(out, p, _SPACE, write)
                p = _number(out, p, last, w, write)
            p = _put(out, p, _NL, write)
        p = _put(out, p, _NL, write)
    return p


@njit(cache=True, nogil=True)
def block_sizes(qa, ta, ml, off, qnames, qnoff, qi, tnames, tnoff, ti, name_width, digits_, qstart, tstart, qlen,
                minus, width, sizes, a, b):  # pragma: no cover
    dummy = qa[:0]
    for k in range(a, b):
        sizes[k] = _blocks(k, qa, ta, ml, off, qnames, qnoff, qi, tnames, tnoff, ti, name_width, digits_, qstart,
                           tstart, qlen, minus, width, dummy, 0, False)


@njit(cache=True, nogil=True)
def block_fill(qa, ta, ml, off, qnames, qnoff, qi, tnames, tnoff, ti, name_width, digits_, qstart, tstart, qlen,
               minus, width, offsets, out, a, b):  # pragma: no cover
    for k in range(a, b):
        _blocks(k, qa, ta, ml, off, qnames, qnoff, qi, tnames, tnoff, ti, name_width, digits_, qstart, tstart, qlen,
                minus, width, out, offsets[k], True)


announce_compile(block_sizes, block_fill)
