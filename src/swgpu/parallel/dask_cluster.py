"""The Dask clusters swgpu starts itself, and the security of those it joins.

Dask runs whatever functions its clients send, so whoever reaches a
scheduler or a worker can run code as the user who started it. A local
cluster (:func:`start_local`: ``--workers``, ``DaskExecutor(workers=...)``
or ``gpus=...``, with or without dask-cuda) is therefore kept to this
machine and this user:

- its scheduler, nannies and workers listen on the loopback interface only
  (:data:`LOOPBACK`), never on ``0.0.0.0``, ``::`` or the host's address;
- the scheduler serves no dashboard, and neither it nor the workers serve
  any other HTTP page (the ``http.routes`` of both are empty);
- the workers keep their scratch files in a private folder (mode 0700) made
  under the user's temporary folder (:func:`private_scratch`: ``$TMPDIR``,
  else ``/tmp``), removed when the cluster is closed, never in a shared
  ``/tmp/dask-scratch-space``;
- Dask's log lines below ``log_level`` are dropped in all its processes
  (:data:`QUIET`: none at all).

A cluster its user started (``--scheduler``, ``$SWGPU_SCHEDULER``) is
reached with Dask's own security settings (:func:`client_security`): a
``tls://`` address, the certificates of ``distributed.comm.tls.*`` and
``distributed.comm.require-encryption`` in the Dask configuration. A local
cluster follows ``require-encryption`` too (``tls://`` between its
processes, with the configured certificates).
"""

from __future__ import annotations

import contextlib
import logging
import os
import tempfile
import threading
import warnings

from ..exceptions import InputError

__all__ = ["LOOPBACK", "QUIET", "local_shape", "worker_environ", "private_scratch", "start_local", "uninterrupted",
           "stop_workers", "client_security", "dask_logs", "quiet_abandoned_gathers"]

#: The only interface a local cluster listens on.
LOOPBACK = "127.0.0.1"
#: A ``log_level`` above every level: none of Dask's log lines.
QUIET = logging.CRITICAL + 10
_TLS_HOWTO = "see 'On a Dask cluster' in docs/search.md"


def local_shape(workers: int | None, threads_per_worker: int | None, cores: int | None = None) -> tuple[int, int]:
    """``(worker processes, threads each)`` of a local CPU cluster: by default
    one single-threaded worker per core; given one of the two, the other
    shares the cores among them (at least 1)."""
    cores = max(1, int(cores or os.cpu_count() or 1))
    if workers is None and threads_per_worker is None:
        return cores, 1
    if workers is None:
        return max(1, cores // threads_per_worker), threads_per_worker
    return workers, threads_per_worker or max(1, cores // workers)


def worker_environ() -> dict:
    """What Dask's nanny sets in a local worker's environment before it starts,
    less ``MALLOC_TRIM_THRESHOLD_``: setting it (Dask sets 65536) turns off
    glibc's moving mmap threshold, so that every large temporary array is a
    fresh mapping, page-faulted in and unmapped again; the host side of a
    genome scan ran 2.8x slower in such a worker (7.3-8.2 s against 2.4-2.6 s
    in the same job outside Dask, or 8.1 s outside with the variable set)."""
    import dask

    environ = dict(dask.config.get("distributed.nanny.pre-spawn-environ", None) or {})
    environ.pop("MALLOC_TRIM_THRESHOLD_", None)
    return environ


def private_scratch() -> str:
    """A new folder only this user may enter (mode 0700), under the user's
    temporary folder (``tempfile.gettempdir()``); remove it when done."""
    return tempfile.mkdtemp(prefix="swgpu-dask-")


def _local_config(scratch: str, allowed_failures: int) -> dict:
    """The Dask configuration a local cluster starts under (its nannies pass it on to their workers)."""
    import dask

    return {"distributed.scheduler.allowed-failures":
            max(allowed_failures, int(dask.config.get("distributed.scheduler.allowed-failures"))),
            "distributed.nanny.pre-spawn-environ": worker_environ(),
            "temporary-directory": scratch,
            "distributed.scheduler.http.routes": [],
            "distributed.worker.http.routes": []}


def start_local(workers: int | None, threads: int | None, gpus: list[int] | None, scratch: str, log_level: int,
                allowed_failures: int):
    """A local Dask cluster, started: one worker process per id of ``gpus``
    (each seeing only its GPU: dask-cuda's ``LocalCUDACluster`` when
    installed, else Dask's nannies with ``CUDA_VISIBLE_DEVICES`` set), or
    :func:`local_shape` CPU worker processes. See the module docs for where it
    listens, keeps its files and logs."""
    import dask
    from distributed import LocalCluster
    from distributed.security import Security

    security = Security()  # the Dask configuration's: tls:// when it requires encryption
    protocol = "tls" if security.require_encryption else "tcp"
    common = {"host": LOOPBACK, "protocol": protocol, "security": security, "silence_logs": log_level,
              "dashboard_address": None, "memory_limit": 0,
              "scheduler_kwargs": {"dashboard": False, "dashboard_address": f"{LOOPBACK}:0"}}
    with dask.config.set(_local_config(scratch, allowed_failures)), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "port in use" and the like, from a local cluster starting
        if gpus is None:
            n, t = local_shape(workers, threads)
            return LocalCluster(n_workers=n, threads_per_worker=t, processes=True, local_directory=scratch, **common)
        threads = local_shape(len(gpus), threads)[1]
        try:
            from dask_cuda import LocalCUDACluster
        except ImportError:
            LocalCUDACluster = None
        if LocalCUDACluster is not None:
            return LocalCUDACluster(CUDA_VISIBLE_DEVICES=",".join(map(str, gpus)), threads_per_worker=threads,
                                    local_directory=scratch, **common)
        return _nanny_cluster(gpus, threads, scratch, security, protocol, log_level)


def _nanny_cluster(gpus: list[int], threads: int, scratch: str, security, protocol: str, log_level: int):
    """One nanny and worker process per GPU id, without dask-cuda."""
    from distributed import Nanny, Scheduler, SpecCluster

    where = {"host": LOOPBACK, "protocol": protocol, "security": security}
    workers = {f"gpu-{g}": {"cls": Nanny, "options": {
        "nthreads": threads, "memory_limit": 0, "env": {"CUDA_VISIBLE_DEVICES": str(g)}, "local_directory": scratch,
        "silence_logs": log_level, "dashboard": False, "dashboard_address": None, **where}} for g in gpus}
    scheduler = {"cls": Scheduler, "options": {"dashboard": False, "dashboard_address": f"{LOOPBACK}:0", **where}}
    return SpecCluster(workers=workers, scheduler=scheduler, security=security, silence_logs=log_level)


def uninterrupted(fn, *args):
    """``(fn(*args), interrupt)``: ``fn`` run to its end in a thread of its
    own, whatever comes meanwhile; ``interrupt`` is the first
    KeyboardInterrupt (Ctrl-C, or SIGTERM through the command line's handler)
    that came while waiting for it, or None, for the caller to raise once it
    holds the result. A Dask cluster whose start was interrupted is left
    half-started, with nothing to close it but Dask's own exit handler."""
    box: dict = {}
    done = threading.Event()  # not Thread.join: an interrupted join can leave is_alive() False too early

    def run() -> None:
        try:
            box["result"] = fn(*args)
        except BaseException as exc:  # handed to the caller
            box["error"] = exc
        finally:
            done.set()

    threading.Thread(target=run, name="swgpu-dask-start", daemon=True).start()
    interrupt = None
    while not done.is_set():
        try:
            done.wait()
        except KeyboardInterrupt as exc:
            interrupt = interrupt or exc
    if "error" in box:
        raise box["error"]
    return box["result"], interrupt


async def _close_all(workers, timeout: float) -> None:
    import asyncio  # (only here: not imported by every command)

    await asyncio.gather(*(w.close(timeout=timeout) for w in workers), return_exceptions=True)


def stop_workers(cluster, timeout: float) -> None:
    """Stop the worker processes of a local ``cluster`` now: each is asked to
    stop and, if still running after ``timeout`` seconds (a task runs on),
    killed. Dask's own close waits 4 s for running tasks."""
    workers = [w for w in dict(cluster.workers).values() if hasattr(w, "close")]
    with contextlib.suppress(Exception):
        cluster.sync(_close_all, workers, timeout)


def client_security(address: str):
    """The ``Security`` of the Dask configuration, for a client of the
    scheduler at ``address``; an InputError (``param="scheduler"``) when the
    two cannot work together: a plain address while the configuration
    requires encryption, or a ``tls://`` address without certificates."""
    from distributed.security import Security

    security = Security()
    try:
        context = security.get_connection_args("client")["ssl_context"]
    except (OSError, ValueError) as exc:  # a certificate that cannot be read
        files = ", ".join(f"{name} {path}" for name, path in (("ca-file", security.tls_ca_file),
                          ("client.cert", security.tls_client_cert), ("client.key", security.tls_client_key)) if path)
        detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
        raise InputError(f"cannot use the TLS files of the Dask configuration (distributed.comm.tls: {files}): "
                         f"{detail}", param="scheduler") from None
    scheme = address.split("://", 1)[0].lower() if "://" in address else "tcp"
    if security.require_encryption and scheme != "tls":
        raise InputError(f"{address}: the Dask configuration requires encryption "
                         f"(distributed.comm.require-encryption): give a tls:// address", param="scheduler")
    if scheme == "tls" and context is None:
        raise InputError(f"{address}: a tls:// scheduler needs certificates: set distributed.comm.tls.ca-file, "
                         f".client.cert and .client.key in the Dask configuration ({_TLS_HOWTO})", param="scheduler")
    return security


@contextlib.contextmanager
def dask_logs(level: int):
    """Dask's log lines below ``level`` dropped in this process (those the
    handlers of the ``distributed`` logger print) until the block ends."""
    handlers = [h for h in logging.getLogger("distributed").handlers if isinstance(h, logging.StreamHandler)]
    old = [h.level for h in handlers]
    for handler in handlers:
        handler.setLevel(level)
    try:
        yield
    finally:
        for handler, level_before in zip(handlers, old):
            handler.setLevel(level_before)


def quiet_abandoned_gathers(loop) -> None:
    """Drop asyncio's "Task exception was never retrieved" for the waits of a
    gather that stopped early (an error, an interrupt): Dask ends each such
    wait with ``AllExit`` when the client closes, and nothing is lost by not
    printing it. Other unhandled errors of the loop are reported as before."""
    try:
        from distributed.client import AllExit
    except ImportError:  # pragma: no cover - another version of Dask
        return

    def handler(loop, context):
        if not isinstance(context.get("exception"), AllExit):
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)
