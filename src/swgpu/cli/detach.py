"""Returning to the shell before the GPU is released.

Ending a process that holds a CUDA context takes the driver 0.1-0.15 s on a
data-centre GPU, after every output is complete. :func:`split` lets a command
that will use a GPU run in a child process: the parent waits, and exits with
the child's status as soon as the child :func:`report`\\ s it -- when the
outputs are written and closed, and the child's standard output and error
are closed too, so that a pipe reading them ends. The child then ends on its
own, releasing the GPU.

Signals: SIGTERM and SIGHUP sent to the waiting parent are passed to the
child, and so is a SIGINT sent to it alone; Ctrl-C at a terminal reaches both
(one process group), and only the child acts on it. A child that dies without
reporting (killed, crashed) gives the parent its status: the parent dies by
the same signal, or exits with the same code.

``SWGPU_DETACH=0`` turns this off (``=1`` turns it on for the CPU too). There
is no fork on Windows.
"""

from __future__ import annotations

import os
import signal
import sys

__all__ = ["report", "split", "wanted"]

_GPU_COMMANDS = frozenset({"search", "screen", "scan", "align"})
_SI_KERNEL = 0x80  # si_code of a signal the kernel sent (a terminal's Ctrl-C), not kill()
_FORWARDED = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT) if hasattr(signal, "SIGHUP") else ()
_report_fd: int | None = None
_parent = 0


def wanted(argv: list[str], environ=os.environ) -> bool:
    """Whether the command ``argv`` runs in a child: one of the GPU workloads,
    without ``--device cpu``, on a machine with an NVIDIA driver's device file.
    ``SWGPU_DETACH=0`` says never, ``=1`` always for those workloads (any device).

    >>> wanted(["screen", "-q", "a", "--device", "cpu"], {}), wanted(["makedb", "x"], {"SWGPU_DETACH": "1"})
    (False, False)
    >>> wanted(["screen", "--device", "cpu"], {"SWGPU_DETACH": "1"}) == hasattr(os, "fork")
    True
    """
    mode = environ.get("SWGPU_DETACH", "")
    if mode == "0" or not hasattr(os, "fork") or not _FORWARDED:
        return False
    if not argv or argv[0] not in _GPU_COMMANDS or any(a in ("-h", "--help") for a in argv):
        return False
    if mode == "1":
        return True
    for k, a in enumerate(argv):
        if a == "--device=cpu" or (a == "--device" and argv[k + 1:k + 2] == ["cpu"]):
            return False
    return os.path.exists("/dev/nvidiactl")


def split() -> None:
    """Fork. The child returns and runs the command; the parent waits for its
    :func:`report` (or its end) and exits with its status, never returning.
    Call it before any thread is started and before CUDA is used."""
    global _report_fd, _parent
    _parent = os.getpid()
    readable, writable = os.pipe()
    blocked = set(_FORWARDED) | {signal.SIGCHLD, signal.SIGUSR1}
    old_mask = signal.pthread_sigmask(signal.SIG_BLOCK, blocked)  # no signal is lost before the wait
    pid = os.fork()
    if pid == 0:
        os.close(readable)
        _report_fd = writable
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
        return
    os.close(writable)
    _wait(pid, readable, blocked)


def _wait(pid: int, readable: int, blocked: set) -> None:  # pragma: no cover - runs in the parent of a fork
    while True:
        info = signal.sigwaitinfo(blocked)
        if info.si_signo == signal.SIGUSR1 and info.si_pid == pid:
            data = os.read(readable, 16)
            if data:
                os._exit(int(data))
        elif info.si_signo == signal.SIGCHLD:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                data = os.read(readable, 16) if _ready(readable) else b""
                if data:
                    os._exit(int(data))
                _exit_as(status)
        elif info.si_signo in _FORWARDED:
            if not (info.si_signo == signal.SIGINT and info.si_code == _SI_KERNEL):
                os.kill(pid, info.si_signo)


def _ready(fd: int) -> bool:  # pragma: no cover
    import select

    return bool(select.select([fd], [], [], 0)[0])


def _exit_as(status: int) -> None:  # pragma: no cover
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        if sig not in (signal.SIGKILL, signal.SIGSTOP):  # those two cannot be caught, nor set
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {sig})
        os.kill(os.getpid(), sig)
    os._exit(os.waitstatus_to_exitcode(status) if hasattr(os, "waitstatus_to_exitcode") else 1)


def report(rc: int) -> None:
    """In a child of :func:`split`: the command has ended with ``rc`` and its
    outputs are complete. Standard output and error are flushed and closed
    (pointed at the null device) and the parent exits with ``rc``. Elsewhere
    it does nothing."""
    global _report_fd
    if _report_fd is None:
        return
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    os.close(null)
    os.write(_report_fd, str(rc).encode())
    os.close(_report_fd)
    _report_fd = None
    if os.getppid() == _parent:  # not when the parent is gone
        os.kill(_parent, signal.SIGUSR1)
