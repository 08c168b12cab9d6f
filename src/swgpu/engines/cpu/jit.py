"""The one-time compile of the CPU kernels, said once on standard error.

Numba compiles a kernel the first time it runs on a machine (about 8 seconds
for those of search, screen and align together) and caches the machine code
beside the module (or in ``NUMBA_CACHE_DIR``); later processes load it in
milliseconds. A user waiting on that first compile at a terminal is told so,
once per process, by :func:`announce_compile` (nothing is added to a
standard error that goes to a file or a pipe, whose lines scripts read).
"""

from __future__ import annotations

import sys

__all__ = ["announce_compile", "will_compile"]

_checked: set[int] = set()
_announced = False


def will_compile(dispatcher) -> bool:
    """True when ``dispatcher`` has no machine code for this CPU in memory or
    in its on-disk cache (its next call compiles)."""
    if dispatcher.overloads:
        return False
    try:
        cache = dispatcher._cache
        index = cache._cache_file._load_index()
        magic = dispatcher.targetctx.codegen().magic_tuple()
        return not any(isinstance(k, tuple) and len(k) > 1 and k[1] == magic for k in index)
    except Exception:  # a Numba without these internals: say nothing
        return False


def announce_compile(*dispatchers) -> None:
    """Before the first call of these kernels in this process: when one of them
    is about to be compiled, say so on standard error (once per process)."""
    global _announced
    fresh = [d for d in dispatchers if id(d) not in _checked]
    if not fresh:
        return
    _checked.update(id(d) for d in fresh)
    if not _announced and _terminal() and any(will_compile(d) for d in fresh):
        _announced = True
        print("swgpu: compiling the CPU kernels for this machine (once; cached for later runs) ...",
              file=sys.stderr, flush=True)


def _terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False
