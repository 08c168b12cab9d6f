"""When the compiled (Numba) paths of writing pay for themselves.

Loading Numba and its cached kernels costs a new process 0.3-1 s (more where
SciPy is installed, which Numba probes), about what the array and
record-by-record paths spend on 100,000 records. So a command takes the
compiled paths for large outputs, or when Numba is loaded already (the CPU
engine loads it), and the others below that; both give the same bytes.
FASTA is scanned by whole-array passes below :data:`COMPILED_BYTES`, Numba
loaded or not (:mod:`.scan_arrays`; 2-3x slower than the compiled scan, but
nothing to load or, on a machine's first run, to compile).

>>> worth(10) in (True, False), worth(COMPILED_RECORDS)
(True, True)
"""

from __future__ import annotations

import sys

__all__ = ["COMPILED_RECORDS", "COMPILED_BYTES", "worth", "worth_bytes", "read_only", "read_only_codes", "preload_scan",
           "preloading", "wait_preload", "load_scan", "load_numba", "announce_compile", "announce_compiling", "will_compile"]

#: Records from which the compiled paths are taken.
COMPILED_RECORDS = 100_000
#: Bytes of FASTA from which the compiled scan is taken (below: the array scan, :mod:`.scan_arrays`).
COMPILED_BYTES = 32 << 20


#: Set by a command that has a GPU's path for every step that would load Numba (a GPU screen's score table:
#: the GPU's scan and lines): the compiled paths are then taken only once Numba is loaded for something else.
AVOID = False


def worth(records: int) -> bool:
    """Whether ``records`` records are handled in compiled code."""
    return "numba" in sys.modules or (records >= COMPILED_RECORDS and not AVOID)


def read_only(a):
    """A read-only view of the array ``a``: Numba compiles a kernel apart for
    writable and read-only arrays, so the arrays of a kind a kernel takes
    are all passed read-only (some are views of ``bytes``), one compiled version."""
    view = a.view()
    view.flags.writeable = False
    return view


def read_only_codes(a):
    """``a`` as contiguous ``uint8`` codes, read-only (:func:`read_only`): what the
    kernels that take codes from many callers (a file's genome, a copy, a reverse
    complement) are passed, so that one compiled version serves them all."""
    import numpy as np

    return read_only(np.ascontiguousarray(a, dtype=np.uint8))


def worth_bytes(size: int) -> bool:
    """Whether an input of ``size`` bytes is scanned in compiled code (from :data:`COMPILED_BYTES`,
    whether Numba is loaded or not: below, the array scan costs less than the compiled scan's first compile)."""
    return size >= COMPILED_BYTES


def preload_scan() -> None:
    """Load Numba and the compiled FASTA scan on a background thread (for a
    command about to read inputs of :data:`COMPILED_BYTES` or more: the load,
    0.3-0.9 s, then overlaps the imports and the GPU's start instead of
    delaying the first part read). A second call does nothing."""
    global _preloading
    if _preloading is not None or "swgpu.io.kernels" in sys.modules:
        return
    import threading

    def load():
        try:
            load_scan()
        except Exception:  # the reader loads it (and reports any problem) when it needs it
            pass

    _preloading = threading.Thread(target=load, name="swgpu-numba", daemon=True)
    _preloading.start()


def preloading() -> bool:
    """Whether :func:`preload_scan` began loading Numba in this process."""
    return _preloading is not None


def wait_preload() -> None:
    """Wait for :func:`preload_scan`'s load, if one is under way (from another thread)."""
    import threading

    thread = _preloading
    if thread is not None and thread is not threading.current_thread():
        thread.join()


def load_scan() -> None:
    """Load (on a machine's first run: compile) the compiled FASTA scan and
    the gather of its names, with the types a scanned block gives them."""
    import numpy as np

    from . import kernels as K
    from .scanner import _CLASS

    data = np.frombuffer(b">a\nA\n", dtype=np.uint8).copy()  # (the types of a scanned block)
    table = np.zeros(256, dtype=np.uint8)
    K.scan(data, _CLASS, table, np.empty(6, np.uint8), np.empty(6, np.uint8), False)
    edges = np.zeros(1, np.int64)  # (and of the names' gather)
    K.gather(read_only(data), edges, edges, np.empty(0, np.uint8), np.empty(2, np.int64))


_preloading = None


#: Set by the command line: Numba is loaded without probing SciPy's BLAS
#: (:func:`load_numba`).
WITHOUT_BLAS = False


class _NoSciPy:
    """An import hook that answers every ``scipy`` import with ImportError."""

    def find_spec(self, name, path=None, target=None):
        if name == "scipy" or name.startswith("scipy."):
            raise ImportError(f"{name} is not loaded by swgpu's compiled kernels")
        return None


def load_numba() -> None:
    """Import Numba and its array functions. Under :data:`WITHOUT_BLAS` (the
    command line's choice; the kernels use no linear algebra) and while SciPy
    is not loaded, Numba's probe for SciPy's BLAS is answered "absent": loading
    ``scipy.linalg`` costs 0.4 s where it is installed. Numba's ``np.dot`` and
    ``np.linalg`` are then unavailable in that process, nothing else."""
    if "numba.np.arraymath" in sys.modules:
        return
    hook = _NoSciPy() if WITHOUT_BLAS and "scipy" not in sys.modules else None
    if hook is not None:
        sys.meta_path.insert(0, hook)
    try:
        import numba.np.arraymath  # noqa: F401
    finally:
        if hook is not None:
            sys.meta_path.remove(hook)


# The one-time compile of the kernels (Numba compiles a kernel the first time it
# runs on a machine and caches the machine code beside its module, or in
# NUMBA_CACHE_DIR; later processes load it in milliseconds), said once on
# standard error to a user at a terminal.

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
    fresh = [d for d in dispatchers if id(d) not in _checked]
    if not fresh:
        return
    _checked.update(id(d) for d in fresh)
    # (only where it would be said: reading a kernel's cache index costs tens of ms on the way to its first call)
    if not _announced and _terminal() and any(will_compile(d) for d in fresh):
        announce_compiling()


def announce_compiling() -> None:
    """Say on standard error, once per process and only to a terminal, that
    kernels are being compiled for this machine (the CPU's Numba kernels, or
    a GPU's with NVRTC: a first run pauses for a few seconds)."""
    global _announced
    if not _announced and _terminal():
        _announced = True
        print("swgpu: compiling the kernels for this machine (once; cached for later runs) ...",
              file=sys.stderr, flush=True)


def _terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False
