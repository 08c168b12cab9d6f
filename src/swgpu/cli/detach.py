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
the same signal (without a core file of its own), or exits with the same
code. A parent that dies (``kill -9``) sends the child SIGTERM (Linux).

When a GPU the child used is not in the default compute mode (exclusive-process
GPUs let one process at a time hold a context), the child does not report
early: the parent returns when the child has ended and released the GPU, so
that a next command can start on it.

``SWGPU_DETACH=0`` turns this off (``=1`` turns it on for the CPU too). There
is no fork on Windows, and no waiting on signals on macOS: off there.
"""

from __future__ import annotations

import os
import signal
import sys

__all__ = ["report", "split", "wanted", "nvidia_driver"]

_GPU_COMMANDS = frozenset({"search", "screen", "scan", "align"})
_SI_KERNEL = 0x80  # si_code of a signal the kernel sent (a terminal's Ctrl-C), not kill()
_FORWARDED = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT) if hasattr(signal, "SIGHUP") else ()
_POSSIBLE = hasattr(os, "fork") and hasattr(signal, "sigwaitinfo") and bool(_FORWARDED)
_report_fd: int | None = None
_parent = 0


def wanted(argv: list[str], environ=os.environ) -> bool:
    """Whether the command ``argv`` runs in a child: one of the GPU workloads,
    without ``--device cpu``, on a machine with an NVIDIA driver's device file.
    ``SWGPU_DETACH=0`` says never, ``=1`` always for those workloads (any device).

    >>> wanted(["screen", "-q", "a", "--device", "cpu"], {}), wanted(["makedb", "x"], {"SWGPU_DETACH": "1"})
    (False, False)
    >>> wanted(["screen", "--device", "cpu"], {"SWGPU_DETACH": "1"}) == _POSSIBLE
    True
    """
    mode = environ.get("SWGPU_DETACH", "")
    if mode == "0" or not _POSSIBLE:
        return False
    if not argv or argv[0] not in _GPU_COMMANDS or any(a in ("-h", "--help") for a in argv):
        return False
    if mode == "1":
        return True
    for k, a in enumerate(argv):
        if a == "--device=cpu" or (a == "--device" and argv[k + 1:k + 2] == ["cpu"]):
            return False
    return nvidia_driver()


def nvidia_driver() -> bool:
    """Whether this machine has an NVIDIA driver's device file (a GPU may be used; nothing is loaded to know)."""
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
    old_chld = signal.signal(signal.SIGCHLD, signal.SIG_DFL)  # an inherited SIG_IGN would reap the child unseen
    pid = os.fork()
    if pid == 0:
        os.close(readable)
        _report_fd = writable
        signal.signal(signal.SIGCHLD, old_chld)
        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
        _parent_death_signal(signal.SIGTERM)
        if os.getppid() != _parent:  # the parent died before that was set
            os.kill(os.getpid(), signal.SIGTERM)
        return
    os.close(writable)
    _wait(pid, readable, blocked)


def _parent_death_signal(signum: int) -> None:
    """Linux: ``signum`` comes to this process when its parent dies (0: nothing)."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signum, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux
        pass


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
        elif info.si_signo in _FORWARDED and not (info.si_signo == signal.SIGINT and info.si_code == _SI_KERNEL):
            try:
                os.kill(pid, info.si_signo)
            except ProcessLookupError:  # ended meanwhile: its SIGCHLD is next
                pass


def _ready(fd: int) -> bool:  # pragma: no cover
    import select

    return bool(select.select([fd], [], [], 0)[0])


def _exit_as(status: int) -> None:  # pragma: no cover
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            import resource

            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # the child's core file, if any, is the useful one
        except (ImportError, ValueError, OSError):
            pass
        if sig not in (signal.SIGKILL, signal.SIGSTOP):  # those two cannot be caught, nor set
            signal.signal(sig, signal.SIG_DFL)
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {sig})
        os.kill(os.getpid(), sig)
        os._exit(128 + sig)  # a signal whose default is not to end the process
    os._exit(os.waitstatus_to_exitcode(status))


def _exclusive_gpu() -> bool:
    """Whether a GPU of this process (CuPy loaded) is not in the default compute mode."""
    cp = sys.modules.get("cupy")
    if cp is None:
        return False
    try:
        rt = cp.cuda.runtime
        return any(rt.getDeviceProperties(d)["computeMode"] != 0 for d in range(rt.getDeviceCount()))
    except Exception:  # noqa: BLE001 - no answer: do not report early
        return True


def report(rc: int) -> None:
    """In a child of :func:`split`: the command has ended with ``rc`` and its
    outputs are complete. Standard output and error are flushed and closed
    (pointed at the null device) and the parent exits with ``rc``. Elsewhere,
    or when a GPU in use is exclusive to one process, it does nothing (the
    parent then returns when this process ends)."""
    global _report_fd
    if _report_fd is None or _exclusive_gpu():
        return
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001, S110 - a closed or broken stream: nothing more to write
            pass
    null = os.open(os.devnull, os.O_WRONLY)
    os.dup2(null, 1)
    os.dup2(null, 2)
    os.close(null)
    _parent_death_signal(0)  # from here the parent's end is expected
    os.write(_report_fd, str(rc).encode())
    os.close(_report_fd)
    _report_fd = None
    if os.getppid() == _parent:  # not when the parent is gone
        os.kill(_parent, signal.SIGUSR1)
