"""One process per GPU of this host: :class:`DeviceProcesses`.

The threads of one process share one interpreter lock. Where each GPU's host
work is large -- a screen's reading, tracing and output bytes, per part --
threads that drive several GPUs wait on each other; one process per GPU does
not. Each process is started fresh (``spawn``: CUDA does not survive a fork)
and runs ``main(device, config, tasks, results)``: it takes tasks from one
queue shared by all (whichever process is free first takes the next) and puts
what it made on another. The processes leave interrupts to this one, which
ends them when it closes the pool -- at the end, on an error, on an
interrupt -- and they end themselves if this process dies.

>>> with DeviceProcesses(_double, [0, 1], 10) as pool:
...     for k in range(4):
...         pool.put(k)
...     pool.end()
...     sorted(pool.get()[1] for _ in range(4))
[10, 12, 14, 16]
"""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import threading
from typing import Any, Callable

from ..exceptions import EngineError, InputError, ScoringError, SwgpuError

__all__ = ["DeviceProcesses"]

_ERRORS = {cls.__name__: cls for cls in (InputError, EngineError, ScoringError, SwgpuError)}
_POLL = 0.2  # seconds between looks at the processes while waiting


class DeviceProcesses:
    """Processes ``main(device, config, tasks, results)``, one per entry of
    ``devices``; :meth:`put` a task, :meth:`end` when there are no more,
    :meth:`get` what they put, in the order it comes. An error in a process
    is raised by :meth:`get` (an :class:`~swgpu.exceptions.InputError`,
    ``EngineError``, ``ScoringError`` or one of ``errors`` (classes taking a message)
    as it was; anything else as an ``EngineError`` naming it)."""

    def __init__(self, main: Callable, devices: list, config: Any, errors: tuple = ()):
        import multiprocessing

        self._errors = {**_ERRORS, **{cls.__name__: cls for cls in errors}}
        context = multiprocessing.get_context("spawn")
        self.devices = list(devices)
        self._done: set[int] = set()
        self._tasks = context.Queue()
        self._results = context.Queue()
        self._processes = [context.Process(target=_run, args=(main, d, config, self._tasks, self._results, os.getpid()),
                                           name=f"swgpu-device-{k}", daemon=True) for k, d in enumerate(self.devices)]
        try:
            with _interrupts_ignored():  # (the processes start with them ignored: none prints a traceback)
                for p in self._processes:
                    p.start()
        except BaseException:
            self.close()
            raise

    def put(self, task) -> None:
        self._tasks.put(task)

    def notify(self, item) -> None:
        """Put ``item`` among what the processes put (from a thread of this process)."""
        self._results.put(item)

    def end(self) -> None:
        """No more tasks: each process ends once the queue is empty."""
        for _ in self._processes:
            self._tasks.put(None)

    def finished(self, k: int) -> None:
        """Process ``k`` (of :attr:`devices`) has put all it will: how it exits no longer matters."""
        self._done.add(k)

    def get(self):
        """The next thing a process put (waits); its error raised here. The processes
        put small things only (a message is written to the pipe at once, so a process
        that dies leaves none half-written)."""
        while True:
            try:
                item = self._results.get(timeout=_POLL)
            except queue.Empty:
                for k, (d, p) in enumerate(zip(self.devices, self._processes)):
                    if p.exitcode not in (None, 0) and k not in self._done:
                        raise EngineError(f"the process of {_named(d)} ended unexpectedly (exit code {p.exitcode})")
                if all(p.exitcode is not None for p in self._processes):
                    raise EngineError("the processes ended before their work was done")
                continue
            if isinstance(item, tuple) and item and item[0] == _FAILED:
                _, kind, message, param = item
                if kind == "OSError":
                    raise OSError(*message)
                cls = self._errors.get(kind)
                if cls is None:
                    raise EngineError(f"{kind}: {message}")
                raise cls(message, param=param) if param is not None else cls(message)
            return item

    def close(self) -> None:
        """End the processes now (those still working are stopped)."""
        for p in self._processes:
            if p.is_alive():
                p.terminate()
        for p in self._processes:
            if p.pid is not None:
                p.join(timeout=2)
                if p.is_alive():
                    p.kill()
                    p.join(timeout=1)
        for q in (self._tasks, self._results):
            q.cancel_join_thread()
            q.close()

    def __enter__(self) -> DeviceProcesses:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


_FAILED = "swgpu-process-failed"


@contextlib.contextmanager
def _interrupts_ignored():
    """SIGINT ignored meanwhile (in the main thread; a process started now keeps it ignored from its start)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _named(device) -> str:
    return f"device {device}" if isinstance(device, int) else str(device)


def _run(main: Callable, device, config, tasks, results, parent: int) -> None:
    """A process's life: interrupts left to the parent, ended when the parent is gone, errors sent back."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            threading.Event().wait(1.0)
        os._exit(1)

    threading.Thread(target=watch, name="swgpu-parent-watch", daemon=True).start()
    try:
        main(device, config, tasks, results)
    except BaseException as exc:  # (any error: a line for the parent, not a traceback here)
        if isinstance(exc, OSError) and exc.errno is not None:
            results.put((_FAILED, "OSError", (exc.errno, exc.strerror, exc.filename), None))
        else:
            param = getattr(exc, "param", None)
            message = getattr(exc, "message", None) or str(exc) or type(exc).__name__
            results.put((_FAILED, type(exc).__name__, message[:2000], param))
    finally:
        results.close()
        results.join_thread()


def _double(device, config, tasks, results) -> None:  # (for the example above)
    while (task := tasks.get()) is not None:
        results.put((device, 2 * task + config))
