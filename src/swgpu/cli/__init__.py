"""The ``swgpu`` command line.

Every user error (bad file, bad option, bad letter) is one line on stderr and
exit status 2; output files are written to a temporary name and renamed only
when complete.

Layout: :mod:`.launch` is the installed script (it decides, before anything
else loads, whether the command runs in a child and whether its GPU starts at
once), :mod:`.main` builds the parser and holds the error policy,
:mod:`.options` the option groups the commands share, and one module per
command (:mod:`.align`, :mod:`.search`, :mod:`.screen`, :mod:`.makedb`,
:mod:`.bench`, :mod:`.info` with ``info`` and ``demo``), each with
``add_parser(subparsers)`` and ``run(args) -> int``.
"""

from .launch import entry

__all__ = ["main", "entry", "build_parser"]


def __getattr__(name: str):
    # main and build_parser load the whole command line: only when asked for (the script needs them later)
    if name in ("main", "build_parser"):
        import importlib

        value = getattr(importlib.import_module(".main", __name__), name)
        globals()[name] = value  # (over the submodule of the same name, as `from .main import main` did)
        return value
    raise AttributeError(f"module 'swgpu.cli' has no attribute {name!r}")
