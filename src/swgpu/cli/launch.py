"""The ``swgpu`` program's first steps, before the command line's modules load.

:func:`entry` is the installed ``swgpu`` script. It imports only what it
needs to decide two things from the raw command line:

- whether the command runs in a child process (:mod:`.detach`);
- whether the command will start a GPU in this process with the defaults
  (:func:`early_device`).

In the second case the GPU's start (the CUDA driver, the first GPU's context,
and CuPy's import: 0.3-0.5 s) begins on background threads at once. It then
overlaps the loading of the command line and NumPy and the reading of the
input, instead of beginning after them. Any other case (``--gpus``, a cluster,
``--processes``, ``--device cpu``) starts its GPUs where the command is
parsed (:func:`swgpu.cli.main._run`), as before.
"""

from __future__ import annotations

import contextlib
import os
import sys

from . import detach, progress

__all__ = ["entry", "early_device"]

# options after which the GPUs a command uses are not simply its first one here
_ELSEWHERE = ("--gpus", "--processes", "--workers", "--scheduler")


def early_device(argv: list[str], environ=os.environ) -> str | None:
    """The ``--device`` of a GPU command that will use its first GPU in this
    process, read from the raw command line ``argv`` (``auto``, ``cuda`` or
    ``gpu``); None when it will not, or when that is not certain before the
    command line is parsed.

    >>> early_device(["screen", "-q", "a", "-t", "b"], {}), early_device(["search", "--device=cuda"], {})
    ('auto', 'cuda')
    >>> early_device(["screen", "--dev", "cpu"], {}), early_device(["scan", "--gpus", "0,1"], {})
    (None, None)
    >>> early_device(["makedb", "x"], {}), early_device(["align", "a", "b"], {"SWGPU_SCHEDULER": "h:1"})
    (None, None)
    """
    if not argv or argv[0] not in detach.GPU_COMMANDS or environ.get("SWGPU_SCHEDULER"):
        return None
    device = "auto"
    for k, arg in enumerate(argv[1:], 1):
        name, eq, value = arg.partition("=")
        if arg in ("-h", "--help") or name in _ELSEWHERE:
            return None
        if len(name) > 4 and "--device".startswith(name):  # (argparse takes a unique prefix too)
            device = value if eq else (argv[k + 1] if k + 1 < len(argv) else "")
    return device if device in ("auto", "cuda", "gpu") else None


def entry() -> None:
    """The ``swgpu`` program: :func:`~swgpu.cli.main.main`, then exit.

    A command that may use a GPU runs in a child process (:mod:`.detach`): the
    shell gets its exit status as soon as its outputs are complete, while the
    driver releases the GPU (0.1-0.15 s). Every run then ends without the
    interpreter's teardown (0.1 s of freeing modules and arrays on a CPU run;
    CuPy's memory pools and the CUDA context are released by the exit itself):
    every output file is complete and closed by then, and a run stopped by a
    signal has removed its outputs; worker threads still in a kernel end with
    the process, at once."""
    progress.PROCESS_START = progress.process_start()  # --timings counts from here (a child inherits it)
    argv = sys.argv[1:]
    if detach.wanted(argv):
        detach.split()
    device = early_device(argv)
    if device is not None:  # (after the fork: a process forks before it starts threads)
        from ..engines.start import start_gpu

        start_gpu(device)
    from .main import main

    rc = main()
    detach.report(rc)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(rc)
