"""The ``swgpu`` parser, ``main`` and its error policy.

Every user error is one line on stderr and exit status 2: a usage error as
argparse words it (``swgpu align: ... (see swgpu align --help)``), any other
``swgpu: error: ...``. A library error about a parameter
(:attr:`SwgpuError.param <swgpu.exceptions.SwgpuError.param>`) names the flag of
that parameter in the command being run (``gap_open`` → ``--gap-open``), or
the parameter itself when the command has no flag for it.
"""

from __future__ import annotations

import contextlib
import os
import sys

from .. import __version__
from ..exceptions import InputError, SwgpuError
from . import align, bench, info, makedb, screen, search
from .options import Parser, UsageError

__all__ = ["main", "build_parser", "error_message"]

# in the order of `swgpu --help`; info adds `demo` and `info`
COMMANDS = (align, search, screen, makedb, bench, info)


def build_parser() -> Parser:
    parser = Parser(prog="swgpu", description="Exact Smith-Waterman local alignment on GPUs and CPUs.")
    parser.add_argument("--version", action="version", version=f"swgpu {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def error_message(exc: SwgpuError, args=None) -> str:
    """The line printed for ``exc``: its parameter shown as the command's flag."""
    if exc.param:
        flags = getattr(args, "param_flags", None) or {}
        return f"swgpu: error: {flags.get(exc.param, exc.param)}: {exc.message}"
    return f"swgpu: error: {exc}"


def _set_threads(args) -> None:
    if getattr(args, "threads", None):
        if args.threads < 1:
            raise InputError("--threads must be at least 1")
        import numba

        numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))


def _run(parser: Parser, args) -> int:
    _set_threads(args)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    return int(args.func(args) or 0)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    args = None
    try:
        args = parser.parse_args(argv)
        args.argv = argv
        return _run(parser, args)
    except UsageError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into e.g. `head`: stop quietly, as SIGPIPE would
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except SwgpuError as exc:
        print(error_message(exc, args), file=sys.stderr)
        return 2
    except (OSError, MemoryError) as exc:
        detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
        where = f"{exc.filename}: " if isinstance(exc, OSError) and exc.filename else ""
        print(f"swgpu: error: {where}{detail}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("swgpu: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
