"""The disk cache of compiled kernels.

A kernel file is compiled once per (source with its headers, NVRTC options,
name expressions, CuPy and CUDA runtime versions) with NVRTC, through CuPy's
bindings, to a ``cubin`` for the device's architecture. The binary and the
mangled names of its name expressions are kept in the cache directory; a
later process loads them with ``cupy.RawModule(path=...)`` and runs no
compiler at all. (CuPy's own cache, ``~/.cupy/kernel_cache``, still starts
NVRTC in every process to compute its key: 0.05-0.15 s of a command's start.)

The directory is ``$SWGPU_CACHE_DIR``, else ``$XDG_CACHE_HOME/swgpu/kernels``,
else ``~/.cache/swgpu/kernels``. Files are written to a temporary name and
renamed, so processes may share the directory; a file that cannot be loaded
(truncated, from another driver) is compiled again and replaced. When the
directory cannot be written the kernels are compiled in every process.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

__all__ = ["KernelModule", "cache_dir", "cache_key", "load_or_compile"]

_FORMAT = 1  # bump when what is stored changes
_compiled = 0  # modules this process compiled (the rest were loaded from the cache)


def cache_dir() -> Path:
    """Where compiled kernels are kept (see the module text)."""
    explicit = os.environ.get("SWGPU_CACHE_DIR")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "swgpu" / "kernels"


def cache_key(source: str, options: tuple[str, ...], names: tuple[str, ...], versions: tuple) -> str:
    """Hex digest naming one compiled module.

    >>> a = cache_key("x", ("-O3",), (), (1,))
    >>> a == cache_key("x", ("-O3",), (), (1,)), a == cache_key("x ", ("-O3",), (), (1,))
    (True, False)
    """
    h = hashlib.sha256()
    h.update(json.dumps([_FORMAT, list(options), list(names), list(versions)]).encode())
    h.update(b"\0")
    h.update(source.encode())
    return h.hexdigest()[:40]


class KernelModule:
    """A loaded module: :meth:`get_function` takes a kernel's name or one of
    the name expressions it was compiled with (``"sw<64>"``), as
    ``cupy.RawModule.get_function`` does."""

    def __init__(self, raw, lowered: dict[str, str]):
        self._raw = raw
        self._lowered = lowered

    def get_function(self, name: str):
        return self._raw.get_function(self._lowered.get(name, name))


def _compile(source: str, options: tuple[str, ...], names: tuple[str, ...]) -> tuple[bytes, dict[str, str]]:
    global _compiled
    from cupy.cuda.compiler import CompileException
    from cupy_backends.cuda.libs import nvrtc

    prog = nvrtc.createProgram(source, "swgpu_kernel.cu", [], [])
    try:
        for name in names:
            nvrtc.addNameExpression(prog, name)
        try:
            nvrtc.compileProgram(prog, list(options))
        except nvrtc.NVRTCError:
            log = nvrtc.getProgramLog(prog)
            raise CompileException(log, source, "swgpu_kernel.cu", options, "nvrtc") from None
        _compiled += 1
        return nvrtc.getCUBIN(prog), {name: nvrtc.getLoweredName(prog, name) for name in names}
    finally:
        nvrtc.destroyProgram(prog)


def _write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _load(cp, binary: Path):
    raw = cp.RawModule(path=str(binary))
    _ = raw.module  # loads it now (CuPy loads lazily): a bad file fails here, not at a launch
    return raw


def load_or_compile(cp, source: str, options: tuple[str, ...], names: tuple[str, ...]) -> KernelModule:
    """The module of ``source`` compiled with ``options`` (which name the
    architecture, ``-arch=sm_XY``): loaded from the cache, else compiled with
    NVRTC and stored there; compiled by CuPy in memory when the cache cannot be
    written."""
    versions = (cp.__version__, cp.cuda.runtime.runtimeGetVersion())
    key = cache_key(source, options, names, versions)
    root = cache_dir()
    binary, table = root / f"{key}.cubin", root / f"{key}.json"
    try:
        lowered = json.loads(table.read_text())
        return KernelModule(_load(cp, binary), lowered)
    except Exception:  # not cached yet, unreadable, or not loadable by this driver: compile
        pass
    cubin, lowered = _compile(source, options, names)
    try:
        root.mkdir(parents=True, exist_ok=True)
        _write(binary, cubin)
        _write(table, json.dumps(lowered).encode())
    except OSError:  # a read-only or full disk
        return KernelModule(cp.RawModule(code=source, options=options, name_expressions=list(names) or None), {})
    return KernelModule(_load(cp, binary), lowered)
