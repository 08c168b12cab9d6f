"""CuPy access and the kernels' modules.

Kernel sources live in ``kernels/*.cu`` beside this file. :func:`get_module`
compiles a source once per (file, options, device architecture) with NVRTC and
keeps the module for the process; the binary is kept on disk
(:mod:`.kernel_cache`), so a later process loads it without compiling.
"""

from __future__ import annotations

import ctypes
import functools
import re
import threading
from importlib import resources

__all__ = ["prime", "probe", "available", "why_unavailable", "cupy", "get_module", "get_modules", "prefetch",
           "kernel_source", "thread_stream", "device_count", "arch", "describe"]

_why = ""
_primer: list | None = None


def _start_driver(device: int | None) -> None:
    # Plain driver calls through ctypes, which releases the GIL around each
    # call: the caller's thread goes on reading input meanwhile. The CUDA
    # runtime (CuPy) later finds the driver started and the primary context
    # of the device made, the one it would have made itself. ``device`` None:
    # every device, each on a thread of its own.
    try:
        lib = ctypes.CDLL("libcuda.so.1")
        if lib.cuInit(0) != 0:
            return
        if device is None:
            count = ctypes.c_int(0)
            if lib.cuDeviceGetCount(ctypes.byref(count)) != 0:
                return
            threads = [threading.Thread(target=_start_driver, args=(d,), name=f"swgpu-cuda-start-{d}", daemon=True)
                       for d in range(count.value)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            return
        dev, ctx = ctypes.c_int(0), ctypes.c_void_p()
        if lib.cuDeviceGet(ctypes.byref(dev), int(device)) == 0:
            lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev)
    except Exception:  # no driver, no GPU: CuPy says why when asked
        pass


def prime(devices=None) -> None:
    """Start the CUDA driver and a GPU's context on a background thread
    (0.2-0.4 s on a data-centre GPU), so that a command that will use the
    GPU overlaps that start with reading its input: the first GPU's, or those
    of ``devices`` (ids, or ``"all"``: every visible GPU, each on a thread of
    its own). Harmless without a GPU; a second call does nothing."""
    global _primer
    if _primer is None:
        if devices is None:
            targets = [0]
        elif devices == "all":
            targets = [None]
        else:
            targets = sorted({int(d) for d in devices}) or [0]
        _primer = [threading.Thread(target=_start_driver, args=(d,), name="swgpu-cuda-start", daemon=True)
                   for d in targets]
        for t in _primer:
            t.start()


@functools.lru_cache(maxsize=None)
def _import():
    global _why
    # Numba being loaded in the background for a large input's compiled scan
    # (io.compiled.preload_scan) loads first: the two imports hold the
    # interpreter's lock, and side by side both end late, while the scan that
    # waits for Numba then runs without the lock beside CuPy's import (1M read
    # pairs with SAM on an H200: 2.42-2.74 s against 2.85-3.53 s). The driver's
    # start (prime) does not wait.
    from ...io.compiled import wait_preload

    wait_preload()
    try:
        import cupy  # noqa: F401

        n = cupy.cuda.runtime.getDeviceCount()
        if n < 1:
            _why = "CuPy sees no CUDA device"
            return None
        return cupy
    except Exception as exc:  # ImportError, CUDARuntimeError, ...
        _why = f"{type(exc).__name__}: {exc}".splitlines()[0]
        return None


def available() -> bool:
    return _import() is not None


def why_unavailable() -> str:
    _import()
    return _why or "CuPy is not installed (pip install 'swgpu[cuda]')"


def probe() -> tuple[bool, int, str, object]:
    """``(available, device count, why not, describe)`` for the engine
    registry (:mod:`swgpu.engines.registry`); ``describe`` is called only
    when the GPUs are listed."""
    if not available():
        return False, 0, why_unavailable(), ()
    return True, device_count(), "", describe


def cupy():
    cp = _import()
    if cp is None:
        from ...exceptions import EngineError

        raise EngineError(f"CUDA engine unavailable: {why_unavailable()}")
    return cp


_thread_streams = threading.local()


def thread_stream():
    """The calling thread's non-blocking stream on the current device, made once.

    Work that runs beside other threads' GPU work (a screen traces one part and
    writes its lines while the next is scored) runs with this stream current:
    its memory then comes from, and goes back to, this stream's part of CuPy's
    pool. Freed into the null stream's part while a launch still used it, a
    block may be handed to another thread that allocates there for the work of
    its own streams, which no stream order protects: about one run in ten of a
    million reads' SAM had some paths wrong (scores right) while the tracer
    shared the null stream's part with the scoring thread."""
    cp = cupy()
    device = cp.cuda.Device().id
    streams = getattr(_thread_streams, "by_device", None)
    if streams is None:
        streams = _thread_streams.by_device = {}
    if device not in streams:
        streams[device] = cp.cuda.Stream(non_blocking=True)
    return streams[device]


def device_count() -> int:
    return cupy().cuda.runtime.getDeviceCount() if available() else 0


def describe() -> list[dict]:
    """One dict per visible GPU: ``id``, ``name``, ``sms``, ``memory`` (bytes), ``arch``."""
    cp = cupy()
    out = []
    for d in range(device_count()):
        props = cp.cuda.runtime.getDeviceProperties(d)
        name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
        out.append({"id": d, "name": name, "sms": int(props["multiProcessorCount"]),
                    "memory": int(props["totalGlobalMem"]), "arch": f"sm_{props['major']}{props['minor']}"})
    return out


def arch(device_id: int | None = None) -> str:
    """``sm_XY`` of the current (or given) device."""
    cp = cupy()
    dev = cp.cuda.Device(device_id) if device_id is not None else cp.cuda.Device()
    return "sm_" + str(dev.compute_capability)


_INCLUDE = re.compile(r'^#include "([A-Za-z0-9_.]+\.cuh)"[ \t]*$', re.M)


def kernel_source(filename: str) -> str:
    """Text of ``kernels/<filename>`` shipped in the package, with its
    ``#include "x.cuh"`` lines replaced by those headers (also from ``kernels/``),
    so NVRTC needs no include path and the compile cache sees header changes."""
    kernels = resources.files(__package__).joinpath("kernels")
    text = kernels.joinpath(filename).read_text()
    return _INCLUDE.sub(lambda m: kernels.joinpath(m.group(1)).read_text().replace("#pragma once", ""), text)


@functools.lru_cache(maxsize=None)
def _module(filename: str, options: tuple[str, ...], arch_name: str, name_expressions: tuple[str, ...] | None):
    from .kernel_cache import load_or_compile

    opts = ("-std=c++17", f"-arch={arch_name}", "--use_fast_math") + tuple(options)
    return load_or_compile(cupy(), kernel_source(filename), opts, tuple(name_expressions or ()), filename)


def get_module(filename: str, options: tuple[str, ...] = (), name_expressions: tuple[str, ...] | None = None):
    """The compiled module of a kernel file (its ``get_function(name)`` gives a
    ``cupy.RawKernel``), kept per device architecture and on disk.

    ``options`` are extra NVRTC options such as ``("-DQUERY_TILE=8",)``.
    """
    key = (filename, tuple(options), arch(), tuple(name_expressions) if name_expressions else None)
    pending = _pending.get(key)
    if pending is not None:
        pending.result()  # compiled on a thread by prefetch(): done there (or failed: raised here)
    return _module(*key)


_pending: dict = {}  # module key -> Future of a prefetch() compile
_pending_lock = threading.Lock()
_prefetcher = None


def _compile_on_thread(key: tuple, device_id: int):
    with cupy().cuda.Device(device_id):
        return _module(*key)


def prefetch(jobs, device_id: int = 0) -> None:
    """Start compiling (or loading) the modules ``jobs`` on background threads
    and return: a later :func:`get_module` of one of them waits for its
    thread instead of compiling it again. For modules a command will need
    later (the traceback's, while a search scores), so that a first run on a
    fresh machine compiles them beside the rest."""
    global _prefetcher
    from concurrent.futures import ThreadPoolExecutor

    with cupy().cuda.Device(device_id):
        a = arch()
    with _pending_lock:
        for f, o, n in jobs:
            key = (f, tuple(o), a, tuple(n) if n else None)
            if key not in _pending:
                if _prefetcher is None:
                    _prefetcher = ThreadPoolExecutor(16, thread_name_prefix="swgpu-compile")
                _pending[key] = _prefetcher.submit(_compile_on_thread, key, device_id)


def get_modules(jobs, device_id: int = 0) -> None:
    """Compile (or load) several modules at once, on :func:`prefetch`'s
    threads, and wait for them: ``jobs`` are ``(filename, options,
    name_expressions)`` as :func:`get_module` takes them. NVRTC runs without
    the GIL, so a first run on a fresh machine compiles its kernels side by
    side (7 search shapes: 0.95 s instead of about 5 s on an H100 machine)."""
    jobs = [(f, tuple(o), tuple(n) if n else None) for f, o, n in jobs]
    prefetch(jobs, device_id)
    with cupy().cuda.Device(device_id):
        for job in jobs:
            get_module(*job)


def resident_blocks(kernel, threads: int, device_id: int) -> int:
    """Blocks of ``threads`` threads of ``kernel`` the GPU holds at once
    (kernels whose warps wait on one another must not launch more)."""
    cp = cupy()
    attrs = cp.cuda.Device(device_id).attributes
    func = getattr(kernel, "kernel", kernel)  # a RawKernel's driver function
    try:
        per_sm = int(cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(func.ptr, threads, 0))
    except Exception:  # no occupancy query: count registers (allocated per warp in units of 256)
        regs = -(-int(kernel.num_regs) * 32 // 256) * 256 * (threads // 32)
        per_sm = min(attrs["MaxRegistersPerMultiprocessor"] // max(regs, 1),
                     attrs["MaxThreadsPerMultiProcessor"] // threads)
    return max(1, per_sm) * int(attrs["MultiProcessorCount"])
