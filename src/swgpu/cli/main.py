"""The ``swgpu`` parser, ``main`` and its error policy.

Every user error is one line on stderr and exit status 2: a usage error as
argparse words it (``swgpu align: ... (see swgpu align --help)``), any other
``swgpu: error: ...``. A library error about a parameter
(:attr:`SwgpuError.param <swgpu.exceptions.SwgpuError.param>`) names the flag of
that parameter in the command being run (``gap_open`` → ``--gap-open``) when
the command line gave it, or the positional argument it is; a parameter the
command has no option for, or an option left at its default, is not named.

A warning (``warnings.warn``, e.g. duplicate IDs in a database) is one line
``swgpu: warning: ...``. SIGTERM and SIGHUP stop a command as Ctrl-C (SIGINT)
does: outputs being written are removed (their temporary files deleted), one
line is printed and the exit status is 128 + the signal's number (143, 129;
130 for SIGINT), as a shell reports a process killed by it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
import warnings

from .. import __version__
from ..exceptions import InputError, SwgpuError
from ..io.writers.output import abort_pending
from . import align, bench, detach, info, makedb, scan, screen, search
from .flags import shown_param
from .options import Parser, UsageError
from .paths import check_files, large_inputs

__all__ = ["main", "build_parser", "error_message", "Terminated"]

# in the order of `swgpu --help`; info adds `demo` and `info`
COMMANDS = (align, search, scan, screen, makedb, bench, info)


def build_parser() -> Parser:
    parser = Parser(prog="swgpu", description="Exact Smith-Waterman local alignment on GPUs and CPUs.")
    parser.add_argument("--version", action="version", version=f"swgpu {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for command in COMMANDS:
        command.add_parser(sub)
    return parser


def error_message(exc: SwgpuError, args=None) -> str:
    """The line printed for ``exc``: its parameter shown as the command's flag
    when the command line gave it (:func:`~.flags.shown_param`)."""
    if exc.param:
        shown = shown_param(args, exc.param)
        return f"swgpu: error: {shown + ': ' if shown else ''}{exc.message}"
    return f"swgpu: error: {exc}"


def _set_threads(args) -> None:
    """Check ``--threads`` (the engines take it; no kernel runs on Numba's own thread pool, so Numba is not loaded
    here, on the command's way to its work)."""
    if getattr(args, "threads", None) is not None and args.threads < 1:
        raise InputError("--threads must be at least 1")


class Terminated(KeyboardInterrupt):
    """Raised in the main thread by SIGTERM or SIGHUP, so that every ``with
    OutputFile(...)`` aborts as it does on Ctrl-C."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


class _Termination:
    """SIGINT, SIGTERM and SIGHUP: between :meth:`install` and :meth:`restore`
    they raise ``KeyboardInterrupt`` (SIGINT) or :class:`Terminated` in the
    main thread inside the ``with`` block (one that came before it raises on
    entering it), and do nothing once the block has ended, so that clean-up is
    not interrupted.

    Python drops an exception raised inside a ``__del__`` or a garbage
    collector callback (Numba's compiler and Dask's client run many); so once
    a signal has come, it is sent again to the main thread every half second
    until the block has ended. A signal ignored at
    :meth:`install` (``nohup``) stays ignored. Outside the main thread nothing
    is changed.
    """

    RESEND_S = 0.5

    def __init__(self) -> None:
        self.signum: int | None = None
        self.armed = False
        self.done = False
        self._lock = threading.Lock()
        self._previous: dict = {}

    def install(self) -> None:
        if threading.current_thread() is not threading.main_thread():
            return
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
            old = signal.getsignal(signum)
            if old is not signal.SIG_IGN:
                self._previous[signum] = old
                signal.signal(signum, self._handler)

    def restore(self) -> None:
        self.done = True
        for signum, old in self._previous.items():
            signal.signal(signum, signal.SIG_DFL if old is None else old)
        self._previous.clear()

    def __enter__(self) -> "_Termination":
        self.armed = True
        if self.signum is not None:
            _raise(self.signum)
        return self

    def __exit__(self, *exc) -> None:
        self.done = True  # first: a signal while waiting for the lock must find the handler inert
        with self._lock:  # a resend under way has been sent
            pass

    def _handler(self, signum, frame) -> None:
        if self.done:
            return
        if self.signum is None:
            self.signum = signum
            threading.Thread(target=self._resend, name="swgpu-signal-resend", daemon=True).start()
        if self.armed:
            _raise(self.signum)

    def _resend(self) -> None:
        main_thread = threading.main_thread().ident
        while True:
            time.sleep(self.RESEND_S)
            with self._lock:
                if self.done:
                    return
                signal.pthread_kill(main_thread, self.signum)  # type: ignore[arg-type]


def _raise(signum: int) -> None:
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated(signum)


def _print_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """``warnings.showwarning`` of the command line: one line, ``swgpu: warning: ...``."""
    text = " ".join(str(message).split())
    kind = "" if category is UserWarning else f"{category.__name__}: "
    print(f"swgpu: warning: {kind}{text}", file=sys.stderr if file is None else file)


def _run(parser: Parser, args) -> int:
    from ..io import compiled

    compiled.WITHOUT_BLAS = True  # the kernels of a command use no linear algebra: Numba loads without SciPy
    _set_threads(args)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    check_files(args)  # outputs writable, none of them an input or another output: before any work
    without = getattr(args, "without_numba", None)  # (a command that then has no need of Numba: not loaded)
    if large_inputs(args, compiled.COMPILED_BYTES) and not (without and without(args)):
        compiled.preload_scan()  # Numba loads while NumPy, the engines and CuPy are imported
    elsewhere = getattr(args, "gpus_elsewhere", None)  # (a command whose GPUs are driven by other processes)
    if getattr(args, "device", None) and not (elsewhere is not None and elsewhere(args)):
        from ..engines.start import start_gpu  # before NumPy is imported
        from .cluster import gpus_to_start

        start_gpu(args.device, gpus_to_start(args))  # the GPUs start while the command reads its input
    return int(args.func(args) or 0)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    termination = _Termination()
    termination.install()
    try:
        return _main(argv, termination)
    finally:
        termination.restore()


def _main(argv: list[str], termination: _Termination) -> int:
    parser = build_parser()
    args = None
    try:
        with termination, warnings.catch_warnings():
            warnings.showwarning = _print_warning
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
    except Terminated as exc:
        abort_pending()
        print(f"swgpu: terminated by {signal.Signals(exc.signum).name}", file=sys.stderr)
        return 128 + exc.signum
    except KeyboardInterrupt:
        abort_pending()
        print("swgpu: interrupted", file=sys.stderr)
        return 130


def entry() -> None:
    """The ``swgpu`` program: :func:`main`, then exit.

    A command that may use a GPU runs in a child process (:mod:`.detach`): the
    shell gets its exit status as soon as its outputs are complete, while the
    driver releases the GPU (0.1-0.15 s). Every run then ends without the
    interpreter's teardown (0.1 s of freeing modules and arrays on a CPU run;
    CuPy's memory pools and the CUDA context are released by the exit itself):
    every output file is complete and closed by then, and a run stopped by a
    signal has removed its outputs; worker threads still in a kernel end with
    the process, at once."""
    from . import progress

    progress.PROCESS_START = progress.process_start()  # --timings counts from here (a child inherits it)
    if detach.wanted(sys.argv[1:]):
        detach.split()
    rc = main()
    detach.report(rc)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(rc)


if __name__ == "__main__":  # pragma: no cover
    entry()
