"""The compiled kernels of the ``io`` layer (Numba, without the interpreter's
lock): FASTA scanning (:mod:`.scanner`), line writing (:mod:`.writers.rows`)
and CIGAR, reverse-complement and copy passes (:mod:`.writers.columns`).

Kept apart so that importing the readers and writers does not import Numba:
a command loads this module the first time it reads or writes in bulk.
"""

from __future__ import annotations

import numpy as np

from .compiled import announce_compile, load_numba

load_numba()
from numba import njit  # noqa: E402

#: Byte classes and problems of the FASTA scan (:mod:`.scanner`).
WS, HEAD, NAMELESS, COMMENT, CONTROL, EMPTY, INVALID = 1, 2, 4, 8, 16, 32, 64


@njit(cache=True, nogil=True, inline="always")
def digits_signed(v):  # pragma: no cover
    n = 1
    if v < 0:
        n += 1
        v = -v
    while v >= 10:
        v //= 10
        n += 1
    return n


@njit(cache=True, nogil=True, inline="always")
def digits(v):  # pragma: no cover
    n = 1
    while v >= 10:
        v //= 10
        n += 1
    return n


@njit(cache=True, nogil=True, inline="always")
def put_digits(out, end, v):  # pragma: no cover
    """The decimal digits of ``v`` (>= 0), ending just before ``out[end]``."""
    while True:
        end -= 1
        out[end] = 48 + v % 10
        v //= 10
        if v == 0:
            break


@njit(cache=True, nogil=True)
def sizes(kinds, args, ints, starts, ends, pool_of, const, coff, a, b, sizes):  # pragma: no cover
    for k in range(a, b):
        size = 0
        for f in range(kinds.size):
            kind = kinds[f]
            g = args[f]
            if kind == 0:
                size += digits_signed(ints[g, k])
            elif kind == 1:
                size += ends[g, k] - starts[g, k]
            else:
                size += coff[g + 1] - coff[g]
        sizes[k] = size


@njit(cache=True, nogil=True)
def fill(kinds, args, ints, starts, ends, pool_of, const, coff, pools, a, b, at, out):  # pragma: no cover
    for k in range(a, b):
        p = at[k]
        for f in range(kinds.size):
            kind = kinds[f]
            g = args[f]
            if kind == 0:
                v = ints[g, k]
                n = digits_signed(v)
                if v < 0:
                    out[p] = 45
                    v = -v
                put_digits(out, p + n, v)
                p += n
            elif kind == 1:
                pool = pools[pool_of[g]]
                for c in range(starts[g, k], ends[g, k]):
                    out[p] = pool[c]
                    p += 1
            else:
                for c in range(coff[g], coff[g + 1]):
                    out[p] = const[c]
                    p += 1


@njit(cache=True, nogil=True)
def hashes(buf, starts, ends, out):  # pragma: no cover
    for k in range(starts.size):  # FNV-1a
        h = np.uint64(14695981039346656037)
        for c in range(starts[k], ends[k]):
            h = (h ^ np.uint64(buf[c])) * np.uint64(1099511628211)
        out[k] = h


@njit(cache=True, nogil=True)
def cigar_sizes(run_len, first, last, left, right, sizes, a, b):  # pragma: no cover
    for k in range(a, b):
        s = 0
        for r in range(first[k], last[k]):
            s += digits(run_len[r]) + 1
        if left[k] > 0:
            s += digits(left[k]) + 1
        if right[k] > 0:
            s += digits(right[k]) + 1
        sizes[k] = s


@njit(cache=True, nogil=True, inline="always")
def put(out, p, v, letter):  # pragma: no cover
    """The digits of ``v`` (>= 0) and ``letter`` from ``out[p]`` on; where they end."""
    n = digits(v)
    put_digits(out, p + n, v)
    out[p + n] = letter
    return p + n + 1


@njit(cache=True, nogil=True)
def cigar_fill(run_len, run_op, first, last, left, right, clip, offsets, out, a, b):  # pragma: no cover
    for k in range(a, b):
        p = offsets[k]
        if left[k] > 0:
            p = put(out, p, left[k], clip)
        for r in range(first[k], last[k]):
            p = put(out, p, run_len[r], run_op[r])
        if right[k] > 0:
            p = put(out, p, right[k], clip)


@njit(cache=True, nogil=True)
def reverse_fill(buf, first, last, table, offsets, out):  # pragma: no cover
    for k in range(first.size):
        p = offsets[k]
        for c in range(last[k] - 1, first[k] - 1, -1):
            out[p] = table[buf[c]]
            p += 1


@njit(cache=True, nogil=True)
def copy_two(a, b, which, first, last, offsets, out):  # pragma: no cover
    for k in range(first.size):
        src = b if which[k] else a
        p = offsets[k]
        for c in range(first[k], last[k]):
            out[p] = src[c]
            p += 1


@njit(cache=True, nogil=True)
def aligned_fill(run_len, run_op, first, last, buf, base, minus, query_side, gap_op, table, offsets, out, a,
                 b, flip=True):  # pragma: no cover
    """One side of each alignment, ``-`` for gaps (``gap_op``), as BLAST shows it: from ``buf[base[k]]`` on;
    on the minus strand the query is read backwards through ``table`` (its reverse complement), and (with
    ``flip``) the whole line is then reversed through ``table``; without, the line is the API's (the
    query as aligned, the target forward)."""
    for k in range(a, b):
        p = offsets[k]
        i = base[k]
        back = minus[k] and query_side
        for r in range(first[k], last[k]):
            op = run_op[r]
            for _ in range(run_len[r]):
                if op == gap_op:
                    out[p] = 45
                elif back:
                    out[p] = table[buf[i]]
                    i -= 1
                else:
                    out[p] = buf[i]
                    i += 1
                p += 1
        if minus[k] and flip:
            lo, hi = offsets[k], p - 1
            while lo < hi:
                x = out[lo]
                out[lo] = table[out[hi]]
                out[hi] = table[x]
                lo += 1
                hi -= 1
            if lo == hi:
                out[lo] = table[out[lo]]


@njit(cache=True, nogil=True)
def btop_sizes(run_len, run_op, first, last, minus, sizes, a, b):  # pragma: no cover
    for k in range(a, b):
        s = 0
        count = 0
        n = last[k] - first[k]
        for rr in range(n):
            r = last[k] - 1 - rr if minus[k] else first[k] + rr
            if run_op[r] == 61:  # '='
                count += run_len[r]
            else:
                if count > 0:
                    s += digits(count)
                    count = 0
                s += 2 * run_len[r]
        if count > 0:
            s += digits(count)
        sizes[k] = s


@njit(cache=True, nogil=True)
def btop_fill(run_len, run_op, first, last, minus, qseq, sseq, aoff, offsets, out, a, b):  # pragma: no cover
    """BLAST's traceback operations, from the aligned lines ``qseq``, ``sseq`` (BLAST's order: the runs
    backwards on the minus strand)."""
    for k in range(a, b):
        p = offsets[k]
        c = aoff[k]
        count = 0
        n = last[k] - first[k]
        for rr in range(n):
            r = last[k] - 1 - rr if minus[k] else first[k] + rr
            length = run_len[r]
            if run_op[r] == 61:
                count += length
                c += length
                continue
            if count > 0:
                d = digits(count)
                put_digits(out, p + d, count)
                p += d
                count = 0
            for _ in range(length):
                out[p] = qseq[c]
                out[p + 1] = sseq[c]
                p += 2
                c += 1
        if count > 0:
            put_digits(out, p + digits(count), count)


@njit(cache=True, nogil=True)
def grow(a, size):  # pragma: no cover
    b = np.empty(size, dtype=a.dtype)
    b[:a.size] = a
    return b


@njit(cache=True, nogil=True)
def scan(data, cls, table, letters, codes, exact):  # pragma: no cover
    """Records of FASTA ``data``: each one's name and description (``fields``:
    start and end of each), its letters end to end in ``letters`` (their
    offsets ``loff``) and their codes by ``table`` in ``codes``; how many
    letters, and the problems found. ``exact``: each letter line looked at byte
    by byte (whitespace dropped, what is not a letter a problem); else each is
    copied and encoded whole (a ``\\r`` before its end aside), and a code 255
    -- what is not a letter of the alphabet, whitespace inside a line among
    them -- is the problem ``INVALID``."""
    n = data.size
    cap = 1024
    fields = np.empty((cap, 4), dtype=np.int64)  # name start, end, description start, end
    loff = np.empty(cap + 1, dtype=np.int64)
    p = 0
    r = -1
    w = 0
    bad = 0
    while p < n:
        q = p
        while q < n and data[q] != 10:
            q += 1
        if data[p] == 62:  # '>': a header line
            r += 1
            if r + 1 >= cap:
                cap *= 2
                grown = np.empty((cap, 4), dtype=np.int64)
                grown[:r] = fields[:r]
                fields = grown
                loff = grow(loff, cap + 1)
            loff[r] = w
            for c in range(p + 1, q):
                bad |= cls[data[c]] & (HEAD | CONTROL)
            a = p + 1  # the name: up to the first whitespace
            while a < q and cls[data[a]] != WS:
                a += 1
            fields[r, 0] = p + 1
            fields[r, 1] = a
            if a == p + 1:
                bad |= NAMELESS
            while a < q and cls[data[a]] == WS:
                a += 1
            b = q
            while b > a and cls[data[b - 1]] == WS:
                b -= 1
            fields[r, 2] = a
            fields[r, 3] = b
        elif r < 0:
            return fields[:0], loff[:1], 0, bad | EMPTY
        elif exact:
            for c in range(p, q):
                x = data[c]
                k = cls[x]
                if k == 0 or k == HEAD:
                    letters[w] = x
                    code = table[x]
                    codes[w] = code
                    if code == 255:
                        bad |= INVALID
                    w += 1
                elif k != WS:
                    bad |= k
        else:
            b = q
            if b > p and data[b - 1] == 13:
                b -= 1
            invalid = False
            for c in range(p, b):
                x = data[c]
                letters[w] = x
                code = table[x]
                codes[w] = code
                invalid |= code == 255
                w += 1
            if invalid:
                bad |= INVALID
        p = q + 1
    loff[r + 1] = w
    for k in range(r + 1):
        if loff[k + 1] == loff[k]:
            bad |= EMPTY
    return fields[:r + 1], loff[:r + 2], w, bad


@njit(cache=True, nogil=True)
def gather(data, starts, ends, out, offsets):  # pragma: no cover
    p = 0
    for k in range(starts.size):
        offsets[k] = p
        for c in range(starts[k], ends[k]):
            out[p] = data[c]
            p += 1
    offsets[starts.size] = p


@njit(cache=True, nogil=True)
def scatter(data, starts, ends, at, out):  # pragma: no cover
    for k in range(starts.size):
        p = at[k]
        for c in range(starts[k], ends[k]):
            out[p] = data[c]
            p += 1


announce_compile(scan, gather, scatter, grow, sizes, fill, hashes, cigar_sizes, cigar_fill, reverse_fill, copy_two,
                 aligned_fill, btop_sizes, btop_fill)
