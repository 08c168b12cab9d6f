"""The engine registry: which engines there are, where each one lives, and
whether its devices are present, without importing any engine.

An engine is registered by name with the place of its
:class:`~swgpu.engines.base.Engine` subclass (``"module:Class"``, imported on
first use); an accelerator (a device with ids: a GPU) also gives a probe of
its devices and, optionally, a hook that starts the first device early. The
CPU and CUDA engines are registered at the end of this module; another engine
(ROCm, Metal, ...) is one more :func:`register_engine` call. ``auto`` is the
first available accelerator in registration order, else the CPU. This module
imports only the standard library: an engine's module is imported when the
engine is first built, and its probe runs when its devices are first asked about.

>>> device_choices()
('auto', 'cpu', 'cuda')
>>> lookup("GPU").name, is_accelerator("cpu")
('cuda', False)
>>> probe("cpu")
Probe(available=True, count=1, why_not='', describe=())
>>> entry = register_engine("demo", "swgpu.engines.cpu.engine:CpuEngine", accelerator=True,
...                         probe=lambda: (False, 0, "no demo device", ()))
>>> device_choices(), probe("demo").why_not
(('auto', 'cpu', 'cuda', 'demo'), 'no demo device')
>>> unregister_engine("demo")
>>> names()
('cpu', 'cuda')
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable, NamedTuple, Union

__all__ = ["EngineEntry", "Probe", "register_engine", "unregister_engine", "names", "device_choices", "lookup",
           "is_accelerator", "probe", "describe", "load", "start", "fasta_scanner"]

#: ``"module:attribute"`` (imported when first needed) or the object itself.
Ref = Union[str, Callable]


class Probe(NamedTuple):
    """What an engine's devices are: ``describe`` is a list of dicts (one per
    device: ``id``, ``name``, ``sms``, ``memory``, ``arch``) or a function
    giving it, called only when the devices are listed."""

    available: bool
    count: int
    why_not: str = ""
    describe: object = ()


@dataclass(frozen=True, eq=False)
class EngineEntry:
    """One registered engine (see :func:`register_engine`)."""

    name: str
    loader: Ref
    accelerator: bool
    probe: Ref | None = None
    start: Ref | None = None
    aliases: tuple[str, ...] = ()
    scan: Ref | None = None


_entries: dict[str, EngineEntry] = {}  # by name, in registration order
_probes: dict[str, Probe] = {}  # by name: the probe's answer, asked once per process
_ALWAYS = Probe(True, 1)


def _get(ref: Ref):
    if not isinstance(ref, str):
        return ref
    module, _, attr = ref.partition(":")
    return getattr(importlib.import_module(module), attr)


def register_engine(name: str, loader: Ref, *, accelerator: bool, probe: Ref | None = None, start: Ref | None = None,
                    aliases: tuple[str, ...] = (), scan: Ref | None = None) -> EngineEntry:
    """Register (or replace) the engine ``name``.

    ``loader``: its :class:`~swgpu.engines.base.Engine` subclass, or
    ``"module:Class"``. ``accelerator``: its engines take device ids (the
    ``gpu_id`` of :func:`~swgpu.engines.base.get_engine`) and ``auto`` may
    pick it. ``probe``: a function (or ``"module:function"``) giving
    ``(available, count, why_not, describe)`` as :class:`Probe`, asked on
    first need (default: always available, one device). ``start``: a
    function starting the first device in the background (or, given device
    ids or ``"all"``, those), harmless without one. ``aliases``: other names
    of ``--device`` for it (not listed). ``scan``: a class, made with a device
    id, whose objects scan FASTA text on that device (:func:`fasta_scanner`).
    """
    name = name.lower()
    entry = EngineEntry(name, loader, bool(accelerator), probe, start, tuple(a.lower() for a in aliases), scan)
    _entries.pop(name, None)
    _entries[name] = entry
    _probes.pop(name, None)
    return entry


def unregister_engine(name: str) -> None:
    """Forget the engine ``name`` (nothing when it is not registered)."""
    _entries.pop(name.lower(), None)
    _probes.pop(name.lower(), None)


def names() -> tuple[str, ...]:
    """Registered engine names, in registration order."""
    return tuple(_entries)


def device_choices() -> tuple[str, ...]:
    """What ``--device`` takes: ``auto`` and every engine name."""
    return ("auto",) + names()


def lookup(device: str) -> EngineEntry | None:
    """The engine called ``device`` (a name or an alias, any case), or None."""
    device = (device or "").lower()
    entry = _entries.get(device)
    if entry is None:
        entry = next((e for e in _entries.values() if device in e.aliases), None)
    return entry


def is_accelerator(device: str) -> bool:
    """True when ``device`` names a registered accelerator engine."""
    entry = lookup(device)
    return entry is not None and entry.accelerator


def probe(name: str) -> Probe:
    """The devices of the registered engine ``name`` (asked once per process;
    a probe that raises says unavailable, with the error as the reason)."""
    entry = lookup(name)
    if entry is None:
        raise KeyError(name)
    found = _probes.get(entry.name)
    if found is None:
        if entry.probe is None:
            found = _ALWAYS
        else:
            try:
                available, count, why_not, devices = _get(entry.probe)()
                found = Probe(bool(available), int(count) if available else 0, "" if available else str(why_not),
                              devices if available else ())
            except Exception as exc:  # a broken driver or library: the engine is unavailable, not the program
                found = Probe(False, 0, f"{type(exc).__name__}: {exc}".splitlines()[0])
        _probes[entry.name] = found
    return found


def describe(name: str) -> list[dict]:
    """One dict per device of the engine ``name`` (empty when unavailable)."""
    devices = probe(name).describe
    return list(devices() if callable(devices) else devices)


def load(name: str) -> type:
    """The engine class of ``name`` (its module imported now)."""
    entry = lookup(name)
    if entry is None:
        raise KeyError(name)
    return _get(entry.loader)


def start(device: str = "auto", devices=None) -> None:
    """Start, in the background, the device(s) ``device`` may use: the named
    engine's, or every accelerator's for ``auto``; nothing for other names.
    ``devices``: the ids the command will use (or ``"all"``), passed to the
    engine's start function; None: its first device."""
    device = (device or "auto").lower()
    entries = [e for e in _entries.values() if e.accelerator] if device == "auto" else [lookup(device)]
    for entry in entries:
        if entry is not None and entry.start is not None:
            hook = _get(entry.start)
            hook() if devices is None else hook(devices)


def fasta_scanner(device: str, device_id: int = 0):
    """The FASTA scan of the engine ``device`` on its device ``device_id``, for
    :func:`swgpu.io.scanner.use_device_scan` (``auto``: the first accelerator's
    that has one; ``None``: none has, or ``device`` names none). Its ``prefetch()`` loads its kernels in the
    background, and its ``text()`` gives the renderer of lines on that device,
    for :func:`swgpu.io.writers.rows.use_device`."""
    device = (device or "auto").lower()
    entries = [e for e in _entries.values() if e.accelerator] if device == "auto" else [lookup(device)]
    for entry in entries:
        if entry is not None and entry.scan is not None:
            return _get(entry.scan)(device_id)
    return None


register_engine("cpu", "swgpu.engines.cpu.engine:CpuEngine", accelerator=False)
register_engine("cuda", "swgpu.engines.cuda.engine:CudaEngine", accelerator=True,
                probe="swgpu.engines.cuda.runtime:probe", start="swgpu.engines.cuda.runtime:prime", aliases=("gpu",),
                scan="swgpu.engines.cuda.fasta_scan:DeviceScan")
