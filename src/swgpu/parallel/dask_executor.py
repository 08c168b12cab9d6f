"""A Dask distributed executor: tasks on worker processes of a local or remote cluster.

:class:`DaskExecutor` has the two methods of :class:`~swgpu.parallel.executors.Executor`
(``map`` and ``imap``, results in input order), so workloads run their tasks
on a Dask cluster as they would on threads. It either starts a local cluster
(one worker process per GPU, or CPU worker processes) or connects to a running
scheduler (``tcp://host:8786``); :func:`executor_for` picks one from the
options and ``SWGPU_SCHEDULER``.

Workers are processes watched by a nanny: a worker that dies is restarted,
and the scheduler runs its unfinished tasks again elsewhere (up to
``distributed.scheduler.allowed-failures`` times per task; a local cluster
allows at least :data:`ALLOWED_FAILURES`). So results do not depend on
which worker ran what, or on workers lost on the way.

Dask is imported only when an executor is made: ``import swgpu`` never imports it.

>>> worker_gpu()
0
>>> local_shape(workers=None, threads_per_worker=None, cores=8)
(8, 1)
>>> local_shape(workers=3, threads_per_worker=None, cores=8)
(3, 2)
>>> local_shape(workers=None, threads_per_worker=4, cores=8)
(2, 4)
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import time
import uuid
from collections import deque
import warnings
from typing import Any, Callable, Iterable, Iterator, TypeVar

from ..exceptions import InputError
from .device_executor import bound_device, bound_threads
from . import SCHEDULER_ENV  # (the environment variable naming the scheduler when none is given)
from .dask_cluster import (QUIET, client_security, dask_logs, local_shape, private_scratch, quiet_abandoned_gathers,
                           start_local, stop_workers, uninterrupted, worker_environ)

__all__ = ["DaskExecutor", "executor_for", "worker_environ", "worker_gpu", "worker_threads", "local_shape", "ALLOWED_FAILURES",
           "SCHEDULER_ENV", "QUIET"]

T = TypeVar("T")
R = TypeVar("R")

#: Least number of worker deaths a task survives on a local cluster (it is then rerun each time).
ALLOWED_FAILURES = 3
#: Times :meth:`DaskExecutor.map` sends scattered inputs again after the worker holding them died.
LOST_DATA_RETRIES = 3
#: A send of data to every worker (:meth:`DaskExecutor.scatter`) is given this many seconds, plus one for every
#: :data:`SEND_BYTES_PER_S` bytes per worker, then tried again: Dask's scheduler can wait forever on a worker that
#: died while it copied the data there.
SEND_TIMEOUT_S = 20
SEND_BYTES_PER_S = 10 << 20
#: Seconds to wait for a first worker of a remote cluster.
WAIT_FOR_WORKERS = 30
#: Seconds a local worker is given to stop by :meth:`DaskExecutor.abort` before it is killed.
ABORT_S = 0.3
_INSTALL = "the Dask executor needs dask.distributed: install swgpu[dist] (pip install 'swgpu[dist]')"


def _distributed():
    """``distributed``, or an InputError saying how to install it."""
    try:
        import distributed
    except ImportError:
        raise InputError(_INSTALL, param="scheduler") from None
    return distributed


def worker_gpu() -> int:
    """The GPU id a task uses inside its worker (``get_engine("cuda", worker_gpu())``):
    the first GPU the worker sees, 0. Each worker of a local GPU cluster sees
    one GPU, its own (``CUDA_VISIBLE_DEVICES`` set to its id; CUDA numbers the
    visible GPUs from 0 in each process). Start remote workers the same way,
    one per GPU (``CUDA_VISIBLE_DEVICES=1 dask worker ...``); a worker that
    sees several uses the first. On a thread of a
    :class:`~swgpu.parallel.device_executor.DeviceExecutor`: that thread's GPU."""
    bound = bound_device()
    return 0 if bound is None else bound


def worker_threads() -> int:
    """Threads of the Dask worker (or the device executor's thread) running
    the calling task (1 outside a worker)."""
    bound = bound_threads()
    if bound is not None:
        return bound
    try:
        from distributed import get_worker

        return max(1, int(get_worker().state.nthreads))
    except (ImportError, ValueError, AttributeError):
        return 1


class DaskExecutor:
    """Runs tasks on a Dask cluster; results in input order.

    Parameters
    ----------
    scheduler:
        Address of a running scheduler (``tcp://host:8786``): connect to that cluster.
        None: start a local cluster, closed with this executor.
    workers:
        Local CPU worker processes (default: cores // ``threads_per_worker``).
    gpus:
        GPU ids: a local cluster of one worker process per GPU, each with
        ``CUDA_VISIBLE_DEVICES`` set to its id (``dask_cuda`` when installed).
    threads_per_worker:
        Threads of each local worker (default: cores // workers, at least 1).
    retries:
        Times a task that raised is run again (a worker's death is not
        counted here: its tasks are always rerun, see the module docs).
    log_level:
        Dask's log lines below this level are dropped, in this process while
        the executor is open and in the processes of a local cluster
        (:data:`~swgpu.parallel.dask_cluster.QUIET`: none; ``logging.INFO``: Dask's usual lines).

    A local cluster listens on the loopback interface only, serves no
    dashboard, and keeps its workers' files in a private folder removed when
    it closes; a remote one is reached with the security settings of the Dask
    configuration (``tls://``): see :mod:`swgpu.parallel.dask_cluster`.

    Tasks must be functions defined at module level (they are pickled).
    """

    #: Runs tasks on a cluster (see :func:`~swgpu.parallel.executors.is_distributed`).
    distributed = True

    def __init__(self, scheduler: str | None = None, workers: int | None = None, gpus: list[int] | None = None,
                 threads_per_worker: int | None = None, retries: int = 1, log_level: int = logging.ERROR):
        distributed = _distributed()

        for name, value in (("workers", workers), ("threads", threads_per_worker)):
            if value is not None and (not isinstance(value, int) or value < 1):
                raise InputError(f"must be a whole number >= 1, got {value!r}", param=name)
        if gpus is not None and (not gpus or any(not isinstance(g, int) or g < 0 for g in gpus)):
            raise InputError(f"GPU ids must be whole numbers >= 0, got {gpus!r}", param="gpus")
        if scheduler and (workers is not None or gpus is not None):
            raise InputError(f"workers and gpus start a local cluster; not with the scheduler {scheduler}",
                             param="workers" if workers is not None else "gpus")
        self.retries = int(retries)
        self._scattered: dict = {}  # key of a scattered future -> its object (sent again when lost)
        self.cluster = None
        self.client = None
        self.address = scheduler
        self._scratch: str | None = None
        self._logs = contextlib.ExitStack()
        self._logs.enter_context(dask_logs(log_level))
        try:
            if scheduler:
                self._connect(distributed, scheduler)
            else:
                self._scratch = private_scratch()
                self.cluster, interrupt = uninterrupted(start_local, workers, threads_per_worker,
                                                        None if gpus is None else list(gpus), self._scratch, log_level,
                                                        ALLOWED_FAILURES)
                if interrupt is not None:
                    raise interrupt
                self.client = distributed.Client(self.cluster)
                quiet_abandoned_gathers(self.client.loop.asyncio_loop)
                self.address = self.cluster.scheduler_address
                self.client.wait_for_workers(len(self.cluster.workers), timeout=120)
        except BaseException:
            self.abort()
            raise

    def _connect(self, distributed, scheduler: str) -> None:
        """Connect to the scheduler at ``scheduler`` and wait for a first worker."""
        security = client_security(scheduler)
        try:
            self.client = distributed.Client(scheduler, timeout="10s", security=security)
        except (OSError, TimeoutError) as exc:
            raise InputError(f"cannot connect to the Dask scheduler at {scheduler}: {exc}",
                             param="scheduler") from None
        quiet_abandoned_gathers(self.client.loop.asyncio_loop)
        try:
            self.client.wait_for_workers(1, timeout=WAIT_FOR_WORKERS)
        except TimeoutError:
            raise InputError(f"the Dask scheduler at {scheduler} has no workers (waited {WAIT_FOR_WORKERS} s): "
                             f"start some with `dask worker {scheduler}`", param="scheduler") from None
        self._check_failures()

    def _check_failures(self) -> None:
        """Warn when a remote scheduler lets tasks survive fewer worker deaths than ours."""
        try:
            allowed = self.client.run_on_scheduler(_allowed_failures)
        except Exception:  # a scheduler that refuses to run functions: nothing to check
            return
        if allowed < ALLOWED_FAILURES:
            warnings.warn(f"the Dask scheduler at {self.address} reruns a task after at most {allowed} worker "
                          f"deaths (distributed.scheduler.allowed-failures); {ALLOWED_FAILURES} is advised",
                          stacklevel=3)

    # ------------------------------------------------------------ cluster

    @property
    def persistent(self) -> bool:
        """True for the cluster of a scheduler given by address: it outlives this
        executor, so what its workers keep serves the next command."""
        return self.cluster is None

    @property
    def workers(self) -> int:
        """Number of workers connected now."""
        return len(self.addresses())

    @property
    def threads(self) -> int:
        """Threads of all workers together."""
        return sum(self.client.nthreads().values()) or 1

    def addresses(self) -> list[str]:
        """Addresses of the workers connected now, sorted."""
        return sorted(self.client.scheduler_info(n_workers=-1)["workers"])

    def run(self, fn: Callable[..., R], *args) -> dict[str, R]:
        """``fn(*args)`` on every worker now (outside the task queue): ``{address: result}``."""
        return self.client.run(fn, *args)

    def close(self) -> None:
        """Disconnect; a local cluster is shut down and its scratch folder removed."""
        self._finish(abort=False)

    def abort(self) -> None:
        """Close at once (an interrupt, an error): the worker processes of a
        local cluster are stopped without waiting for the tasks they run."""
        self._finish(abort=True)

    def _finish(self, abort: bool) -> None:
        """Close to the end even through interrupts (one cut short would leave
        Dask closing the cluster at exit, and printing), then raise the first
        of them."""
        _, interrupt = uninterrupted(self._close, abort)
        if interrupt is not None:
            raise interrupt

    def _close(self, abort: bool) -> None:
        try:
            if abort and self.cluster is not None:
                stop_workers(self.cluster, ABORT_S)
            if self.client is not None:
                self.client.close()
            if self.cluster is not None:
                self.cluster.close()
        finally:
            self.cluster = None
            if self._scratch is not None:
                shutil.rmtree(self._scratch, ignore_errors=True)
                self._scratch = None
            self._logs.close()

    def __enter__(self) -> "DaskExecutor":
        return self

    def __exit__(self, kind, *exc) -> None:
        if kind is None:
            self.close()
        else:
            self.abort()

    def __repr__(self) -> str:
        return f"DaskExecutor({self.address!r}, workers={self.workers})"

    # ------------------------------------------------------------ tasks

    def scatter(self, obj: Any):
        """Send ``obj`` (a big array, a database part) to every worker once; the
        returned future stands for it as a task argument. The object is kept
        here too: Dask's memory manager keeps one copy of scattered data, and
        when the worker holding it dies, :meth:`map` sends it again."""
        future = self._send(obj)
        self._scattered[future.key] = obj
        return future

    def _send(self, obj: Any):
        """``obj`` scattered to every worker; tried again when a worker goes away meanwhile."""
        from dask.sizeof import sizeof
        from distributed import TimeoutError as SendTimeout

        timeout = SEND_TIMEOUT_S + sizeof(obj) * max(1, self.workers) / SEND_BYTES_PER_S
        broadcast = True
        for attempt in range(LOST_DATA_RETRIES + 1):
            try:
                return self._scatter_within(obj, timeout, broadcast)
            # a connection to a worker that died (CommClosedError is an OSError), the scheduler's KeyError for a
            # worker that left while it replicated the data, or no end to that replication: then the data goes
            # to one worker, and the others fetch it from there as their tasks need it
            except (OSError, KeyError, SendTimeout) as exc:
                if attempt == LOST_DATA_RETRIES:
                    raise
                broadcast = broadcast and not isinstance(exc, SendTimeout)
                time.sleep(0.5 * (attempt + 1))
        raise AssertionError("unreachable")  # pragma: no cover

    def _scatter_within(self, obj: Any, timeout: float, broadcast: bool = True):
        """``client.scatter([obj], broadcast=broadcast)``, given up after
        ``timeout`` seconds: the client's own timeout bounds only the wait for
        workers, not the copies to them (the coroutine under ``scatter``,
        bounded as ``Client.sync`` can bound it; the plain call where that is not there)."""
        client = self.client
        inner = getattr(client, "_scatter", None)
        if inner is None:  # pragma: no cover - (another version of distributed)
            return client.scatter([obj], broadcast=broadcast, hash=False, timeout=timeout)[0]
        return client.sync(inner, [obj], broadcast=broadcast, hash=False, timeout=timeout,
                           callback_timeout=timeout)[0]

    def _scatter_again(self, items: list) -> list:
        """``items`` with every scattered future in them replaced by a new
        one of the same object, sent again (the first was lost with a worker)."""
        from distributed import Future

        fresh = {key: self._send(obj) for key, obj in self._scattered.items()}
        self._scattered = {f.key: self._scattered[key] for key, f in fresh.items()}

        def swap(x):
            if isinstance(x, dict):
                return {k: swap(v) for k, v in x.items()}
            if isinstance(x, (list, tuple)):
                return type(x)(swap(v) for v in x)
            return fresh.get(x.key, x) if isinstance(x, Future) else x

        return [swap(x) for x in items]

    def submit(self, fn: Callable[..., R], *args, name: str | None = None, worker: str | None = None,
               retries: int | None = None):
        """A future of ``fn(*args)`` (never merged with another call: ``pure=False``);
        ``name`` prefixes its key (``swgpu-NAME-...``); ``worker``: the address
        to prefer (another runs it when that one is gone or busy elsewhere)."""
        key = f"swgpu-{name or getattr(fn, '__name__', 'task')}-{uuid.uuid4().hex}"
        where = {"workers": [worker], "allow_other_workers": True} if worker else {}
        return self.client.submit(fn, *args, key=key, pure=False,
                                  retries=self.retries if retries is None else retries, **where)

    def gather(self, futures: list) -> list:
        """The results of ``futures``, in order (the first error is raised)."""
        return self.client.gather(list(futures))

    def holders(self, futures: list) -> list[str | None]:
        """For each future, a worker holding its result now (None: none yet)."""
        who = self.client.who_has(list(futures))
        return [(sorted(who.get(f.key) or []) or [None])[0] for f in futures]

    def cancel(self, futures: list) -> None:
        """Forget ``futures`` (their results are dropped from the workers; a
        scattered object is no longer kept here to be sent again)."""
        for future in futures:
            self._scattered.pop(getattr(future, "key", None), None)
        self.client.cancel(list(futures))

    def map(self, fn: Callable[[T], R], items: Iterable[T]) -> list[R]:
        """``[fn(x) for x in items]`` on the workers, in input order."""
        items = list(items)
        if not items:
            return []
        for attempt in range(LOST_DATA_RETRIES + 1):
            prefix = f"swgpu-{getattr(fn, '__name__', 'task')}-{uuid.uuid4().hex}"
            futures = self.client.map(fn, items, key=[f"{prefix}-{i}" for i in range(len(items))], pure=False,
                                      retries=self.retries)
            try:
                return self.gather(futures)
            except _cancelled() as exc:  # a scattered input lost with its worker: sent again, the tasks rerun
                if attempt == LOST_DATA_RETRIES or not self._scattered or "lost dependencies" not in str(exc):
                    raise
                items = self._scatter_again(items)
            finally:
                self.cancel(futures)
        raise AssertionError("unreachable")  # pragma: no cover

    def imap(self, fn: Callable[[T], R], items: Iterable[T]) -> Iterator[R]:
        """The same, yielded in input order; at most ``2 * threads`` tasks
        (at least 4) are submitted ahead, so memory stays flat on huge inputs."""
        window = max(4, 2 * self.threads)
        it = iter(items)
        pending: deque = deque()
        try:
            for x in it:
                pending.append(self.submit(fn, x))
                if len(pending) >= window:
                    break
            while pending:
                result = pending.popleft().result()
                for x in it:
                    pending.append(self.submit(fn, x))
                    break
                yield result
        finally:
            if pending:
                self.cancel(list(pending))


def _cancelled() -> tuple:
    """The exception classes of a future cancelled by the scheduler (lost dependencies)."""
    import concurrent.futures

    import distributed.client as dc

    return tuple({getattr(dc, "FutureCancelledError", concurrent.futures.CancelledError),
                  concurrent.futures.CancelledError})


def _allowed_failures(dask_scheduler=None) -> int:
    return int(dask_scheduler.allowed_failures)


def executor_for(scheduler: str | None = None, gpus: list[int] | None = None, workers: int | None = None,
                 threads: int | None = None, log_level: int = logging.ERROR) -> DaskExecutor:
    """The Dask executor of the options: connect to ``scheduler``; else start a
    local cluster of one worker per id of ``gpus``, or of ``workers`` CPU
    workers with ``threads`` threads each; with none of the three, connect to
    ``$SWGPU_SCHEDULER`` when it is set (and not empty), else start a local CPU
    cluster (:func:`local_shape`); ``log_level`` as :class:`DaskExecutor`'s.
    ``gpus`` is ignored with a scheduler (its workers have their GPUs);
    ``workers`` with a scheduler is an error.
    An :class:`~swgpu.exceptions.InputError` (``param="scheduler"``) when
    dask.distributed is not installed."""
    local = workers is not None or gpus is not None
    from_env = scheduler is None and not local and bool(os.environ.get(SCHEDULER_ENV, "").strip())
    if from_env:
        scheduler = os.environ[SCHEDULER_ENV]
    if scheduler is not None:
        scheduler = scheduler.strip()
        if not scheduler:
            raise InputError("empty address: give one such as tcp://host:8786", param="scheduler")
        if workers is not None:
            raise InputError(f"a local cluster of {workers} workers, or the cluster of the scheduler "
                             f"{scheduler}: give one of the two", param="workers")
    _distributed()
    try:
        return DaskExecutor(scheduler, workers=workers, gpus=None if scheduler else gpus, threads_per_worker=threads,
                            log_level=log_level)
    except InputError as exc:
        if from_env and exc.param == "scheduler":
            raise InputError(f"{exc.message} (the address of ${SCHEDULER_ENV})", param="scheduler") from None
        raise
