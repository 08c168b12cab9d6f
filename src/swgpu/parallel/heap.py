"""The C library's heap, for runs whose input is larger than their memory should be."""

from __future__ import annotations

import os
import sys

__all__ = ["map_large_blocks", "LARGE_INPUT"]

#: Bytes of input from which a streamed run maps its large blocks on their own.
LARGE_INPUT = 1 << 30


def map_large_blocks(size: int = 4 << 20) -> bool:
    """glibc only: memory blocks of ``size`` bytes and more each mapped on its
    own, so that freeing one gives it back to the system. By default glibc
    raises that limit to the largest block freed so far (up to 32 MiB), and
    the parts of a streamed run, freed one after another by several threads,
    then stay in the heap: memory would grow with the input (3.3 GB for 10
    million read pairs with SAM, 2.1 GB mapped). Mapped blocks cost page faults
    when first written (about a fifth more time there), so a command asks for
    this for large inputs only (:data:`LARGE_INPUT`). ``MALLOC_MMAP_THRESHOLD_``
    in the environment (glibc's own setting) wins. Returns whether it was set."""
    if not sys.platform.startswith("linux") or "MALLOC_MMAP_THRESHOLD_" in os.environ:
        return False
    try:
        import ctypes

        return bool(ctypes.CDLL("libc.so.6").mallopt(-3, size))  # M_MMAP_THRESHOLD
    except (OSError, AttributeError):  # another C library (musl)
        return False
