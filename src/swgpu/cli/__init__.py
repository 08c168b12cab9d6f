"""The ``swgpu`` command line.

Every user error (bad file, bad option, bad letter) is one line on stderr and
exit status 2; output files are written to a temporary name and renamed only
when complete.

Layout: :mod:`.main` builds the parser and holds the error policy,
:mod:`.options` the option groups the commands share, and one module per
command (:mod:`.align`, :mod:`.search`, :mod:`.screen`, :mod:`.makedb`,
:mod:`.bench`, :mod:`.info` with ``info`` and ``demo``), each with
``add_parser(subparsers)`` and ``run(args) -> int``.
"""

from .main import build_parser, entry, main

__all__ = ["main", "entry", "build_parser"]
