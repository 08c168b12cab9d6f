"""The disk cache of compiled kernels.

A kernel file is compiled once per (source with its headers, NVRTC options,
name expressions, CuPy and CUDA runtime versions) with NVRTC, through CuPy's
bindings, to a ``cubin`` for the device's architecture. NVRTC's own version is
not in the key: asking for it loads libnvrtc (0.19 s on an H100 machine), and a
cubin from an older NVRTC is still correct code; delete the folder after
upgrading NVRTC to recompile with it. The binary and the
mangled names of its name expressions are kept in the cache directory; a
later process loads them with ``cupy.RawModule(path=...)`` and runs no
compiler at all. (CuPy's own cache, ``~/.cupy/kernel_cache``, loads NVRTC in
every process to compute its key: 0.1-0.2 s of a command's start.)

The directory is ``$SWGPU_CACHE_DIR``, else ``$XDG_CACHE_HOME/swgpu/kernels``,
else ``~/.cache/swgpu/kernels``. Files are written to a temporary name and
renamed, so processes may share the directory; a file that cannot be loaded
(truncated, from another driver) is compiled again and replaced. When the
directory cannot be written the kernels are compiled in every process. Files
are made readable by every user (0644), so that a folder can be shared.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from ...io.compiled import announce_compiling

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


# CUDA driver errors that mean "this file is not a module this driver can load": compile again
_BAD_BINARY = frozenset({200, 209, 218, 222, 300, 301})  # INVALID_IMAGE, NO_BINARY_FOR_GPU, INVALID_PTX,
# UNSUPPORTED_PTX_VERSION, INVALID_SOURCE, FILE_NOT_FOUND


def _compile(source: str, options: tuple[str, ...], names: tuple[str, ...],
             filename: str) -> tuple[bytes, dict[str, str]]:
    global _compiled
    from cupy.cuda.compiler import CompileException
    from cupy_backends.cuda.libs import nvrtc

    announce_compiling()  # (a first run on a machine: a terminal is told why it pauses)
    prog = nvrtc.createProgram(source, filename, [], [])
    try:
        for name in names:
            nvrtc.addNameExpression(prog, name)
        try:
            nvrtc.compileProgram(prog, list(options))
        except nvrtc.NVRTCError as exc:
            log = nvrtc.getProgramLog(prog).strip()
            message = (f"{filename} (its headers pasted in) failed to compile with NVRTC, options "
                       f"{' '.join(options)}: {exc}" + (f"\n{log}" if log else ""))
            raise CompileException(message, source, filename, options, "nvrtc") from exc
        _compiled += 1
        return nvrtc.getCUBIN(prog), {name: nvrtc.getLoweredName(prog, name) for name in names}
    finally:
        nvrtc.destroyProgram(prog)


def _write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            os.fchmod(f.fileno(), 0o644)  # readable by the other users of a shared folder (mkstemp gives 0600)
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


def _cached(cp, binary: Path, table: Path) -> KernelModule | None:
    """The stored module, or None when it is missing or unusable (compile it
    again). Errors that are not about the files (out of memory, no device) are
    raised."""
    try:
        lowered = json.loads(table.read_text())
        return KernelModule(_load(cp, binary), lowered)
    except (OSError, ValueError):  # missing, unreadable, or not JSON
        return None
    except Exception as exc:
        if getattr(exc, "status", None) in _BAD_BINARY:  # a driver error about the file itself
            return None
        raise


def _versions(cp) -> tuple:
    # Not NVRTC's version: asking for it loads libnvrtc, 0.19 s on an H100 machine, most of what the cache saves.
    # A cubin from an older NVRTC is still correct code for its architecture; delete the folder to recompile.
    return (cp.__version__, cp.cuda.runtime.runtimeGetVersion())


def load_or_compile(cp, source: str, options: tuple[str, ...], names: tuple[str, ...],
                    filename: str = "kernel.cu") -> KernelModule:
    """The module of ``source`` (the kernel file ``filename``) compiled with
    ``options`` (which name the architecture, ``-arch=sm_XY``): loaded from the
    cache, else compiled with NVRTC and stored there (loaded from a temporary
    file when the cache cannot be written)."""
    key = cache_key(source, options, names, _versions(cp))
    root = cache_dir()
    binary, table = root / f"{key}.cubin", root / f"{key}.json"
    module = _cached(cp, binary, table)
    if module is not None:
        return module
    cubin, lowered = _compile(source, options, names, filename)
    try:
        root.mkdir(parents=True, exist_ok=True)
        _write(binary, cubin)
        _write(table, json.dumps(lowered).encode())
    except OSError:  # a read-only or full disk, or another user's file in a shared folder
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "kernel.cubin"
            path.write_bytes(cubin)
            return KernelModule(_load(cp, path), lowered)  # loaded before the file goes
    return KernelModule(_load(cp, binary), lowered)
