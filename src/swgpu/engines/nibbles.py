"""Codes packed two per byte (the low nibble first), for uploads: half the
bytes to write into pinned memory and to send to the GPU, and the check that
every code is valid on the same pass.

Eight codes (one 64-bit word) become four bytes with a few shifts and masks,
which the compiler turns into SIMD; a byte above ``max_code`` is found by
adding ``0x80 - (max_code + 1)`` to the low seven bits of each byte (no byte
carries into the next) and testing the top bits.

>>> import numpy as np
>>> src = np.array([0, 1, 2, 3, 4, 0, 1, 2, 3], dtype=np.uint8)
>>> dst = np.zeros(5, dtype=np.uint8)
>>> bool(pack_nibbles(src, dst, 4)), dst.tolist()
(False, [16, 50, 4, 33, 3])
>>> bool(pack_nibbles(np.array([0, 7], dtype=np.uint8), dst, 4))
True
"""

from __future__ import annotations

import numba as nb
import numpy as np

__all__ = ["pack_nibbles"]

_U = nb.uint64


@nb.njit(nogil=True, cache=True)
def _pack(src, dst, max_code):
    n = src.size
    words = n // 8
    s64 = src[: words * 8].view(np.uint64)
    d32 = dst[: words * 4].view(np.uint32)
    add = _U(0x80 - (max_code + 1)) * _U(0x0101010101010101)
    low7 = _U(0x7F7F7F7F7F7F7F7F)
    m1 = _U(0x00FF00FF00FF00FF)
    m2 = _U(0x0000FFFF0000FFFF)
    m3 = _U(0xFFFFFFFF)
    bad = _U(0)
    for i in range(words):
        w = s64[i]
        bad |= ((w & low7) + add) | w
        x = (w | (w >> _U(4))) & m1
        x = (x | (x >> _U(8))) & m2
        x = (x | (x >> _U(16))) & m3
        d32[i] = np.uint32(x)
    flag = (bad & _U(0x8080808080808080)) != _U(0)
    for j in range(words * 8, n, 2):
        a = src[j]
        b = src[j + 1] if j + 1 < n else np.uint8(0)
        flag = flag or a > max_code or b > max_code
        dst[j // 2] = np.uint8((a & 15) | ((b & 15) << 4))
    return flag


def pack_nibbles(src: np.ndarray, dst: np.ndarray, max_code: int) -> bool:
    """Pack ``src`` (contiguous ``uint8`` codes) into ``dst`` (at least
    ``(src.size + 1) // 2`` bytes); True when a code is above ``max_code``
    (``max_code`` < 128; the bad code's nibble is then meaningless)."""
    return bool(_pack(src, dst, np.uint8(max_code)))
