"""The common case of the FASTA scan in array operations (NumPy, no Numba).

:func:`scan_part` reads a FASTA text that begins with a record as
:func:`~swgpu.io.kernels.scan` (``exact=False``) does, with whole-array
passes instead of a loop over the bytes: the lines from the positions of the
``\\n`` bytes, the headers' names and descriptions from their bytes gathered,
and the letters by one mask over the text (newlines, header lines and a
``\\r`` before a line end dropped). It needs no compiled code, so a command
that reads FASTA does not load Numba (0.3 s on a 2-core machine, 0.6-0.9 s
where imports are slower) unless something else asks for it.

It gives the same fields, letter offsets, letters and codes as the compiled
scan, or says which way to go instead: :data:`REJECT` when the compiled
scan of the whole text (``exact=True``) would find a problem as well (a
header with a byte that is not ASCII or a control byte, a header without a
name, a record without letters), :data:`RECHECK` when only a letter line has
something other than letters of the alphabet (whitespace or a comment among
them, which that scan may still take).

>>> data = np.frombuffer(b">r1 first read \\nACGT\\r\\nTT\\n>r2\\nGA\\n", dtype=np.uint8)
>>> lut = np.arange(256, dtype=np.uint8)
>>> fields, loff, letters, codes = scan_part(data, lut)
>>> fields.tolist(), loff.tolist(), bytes(letters)
([[1, 3, 4, 14], [26, 28, 28, 28]], [0, 6, 8], b'ACGTTTGA')
>>> scan_part(np.frombuffer(b">r1\\nAC GT\\n", dtype=np.uint8), lut) is RECHECK
True
>>> scan_part(np.frombuffer(b">\\nACGT\\n", dtype=np.uint8), lut) is REJECT
True
"""

from __future__ import annotations

import numpy as np

__all__ = ["scan_part", "checked", "REJECT", "RECHECK"]

REJECT = "reject"    #: the text is not of the common case (the exact scan would say so too)
RECHECK = "recheck"  #: a letter line holds something else: the exact scan decides

_WS, _HEAD, _COMMENT, _CONTROL = 1, 2, 8, 16  # byte classes (kernels.WS, ...)


def scan_part(data: np.ndarray, lut: np.ndarray, cls: np.ndarray | None = None):
    """``(fields, loff, letters, codes)`` of the FASTA text ``data`` (``uint8``,
    starting with ``>``) as the compiled scan gives them, with the codes by
    ``lut`` (256 bytes, 255: not a letter); or :data:`REJECT` / :data:`RECHECK`.
    ``cls``: the byte classes (:data:`swgpu.io.scanner._CLASS`)."""
    if cls is None:
        from .scanner import _CLASS as cls
    n = data.size
    if n == 0 or data[0] != 62:
        return REJECT
    keep = data != 10  # (the letters, once the header lines and line-end \r are dropped too)
    nl = np.flatnonzero(~keep)
    starts = np.empty(nl.size + 1, dtype=np.int64)
    starts[0] = 0
    starts[1:] = nl + 1
    ends = np.empty(nl.size + 1, dtype=np.int64)
    ends[:-1] = nl
    ends[-1] = n
    if starts[-1] == n:  # nothing after the last line end
        starts, ends = starts[:-1], ends[:-1]
    head = data[starts] == 62
    hline = np.flatnonzero(head)
    hs, he = starts[hline], ends[hline]
    found = _headers(data, hs, he, cls, keep)
    if found is None:
        return REJECT
    # letters: every byte of the other lines but a \r before the line end
    size = ends - starts
    cr = (size > 0) & ~head
    cr[cr] = data[ends[cr] - 1] == 13
    count = np.where(head, 0, size - cr)
    cum = np.zeros(count.size + 1, dtype=np.int64)
    np.cumsum(count, out=cum[1:])
    loff = np.append(cum[hline], cum[-1])
    if bool(np.any(loff[1:] == loff[:-1])):
        return REJECT  # a record without letters
    keep[ends[cr] - 1] = False
    letters = data[keep]
    codes = np.frombuffer(letters.tobytes().translate(checked(lut, cls).tobytes()), dtype=np.uint8)  # (2x a look-up)
    if bool(np.any(codes == 255)):
        return RECHECK
    return found, loff, letters, codes


def checked(lut: np.ndarray, cls: np.ndarray) -> np.ndarray:
    """``lut`` with 255 for the bytes the exact scan drops or refuses among letters (whitespace, comments, control)."""
    check = lut.copy()
    check[(cls & (_WS | _COMMENT | _CONTROL)) != 0] = 255
    return check


def _headers(data: np.ndarray, hs: np.ndarray, he: np.ndarray, cls: np.ndarray, keep: np.ndarray) -> np.ndarray | None:
    """Name start, end, description start, end of each header line
    ``data[hs[k]:he[k]]`` (``>`` first), cut as the compiled scan cuts them,
    its bytes marked False in ``keep``; ``None`` for a header with a byte that
    is not ASCII or a control byte, or without a name."""
    r = hs.size
    length = he - hs - 1  # bytes after the '>'
    if bool(np.any(length <= 0)) or bool(np.any(cls[data[hs + 1]] == _WS)):
        return None  # no name
    keep[hs] = False
    off = np.zeros(r + 1, dtype=np.int64)
    np.cumsum(length, out=off[1:])
    at = np.arange(int(off[-1]), dtype=np.int64)
    at += np.repeat(hs + 1 - off[:-1], length)
    keep[at] = False
    text = data[at]
    kind = cls[text]
    if bool(np.any(kind & (_HEAD | _CONTROL))):
        return None
    ws = kind == _WS
    rel = np.arange(text.size, dtype=np.int64) - np.repeat(off[:-1], length)
    ends = np.repeat(length, length)
    first = off[:-1]
    name = np.minimum.reduceat(np.where(ws, rel, ends), first)
    after = ~ws & (rel >= np.repeat(name, length))
    dstart = np.minimum.reduceat(np.where(after, rel, ends), first)
    dend = np.maximum.reduceat(np.where(after, rel + 1, 0), first)
    dend = np.where(dstart == length, length, dend)
    fields = np.empty((r, 4), dtype=np.int64)
    base = hs + 1
    fields[:, 0] = base
    fields[:, 1] = base + name
    fields[:, 2] = base + dstart
    fields[:, 3] = base + dend
    return fields
