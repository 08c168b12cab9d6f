"""What the Dask tests check of the clusters swgpu starts: the sockets its
process tree listens on, and where its workers keep their files."""

from __future__ import annotations

import os
import stat
from pathlib import Path

LOOPBACK = {"127.0.0.1", "::1"}


def listening_sockets() -> list[tuple[int, str, int]]:
    """``(pid, address, port)`` of every listening socket of this process and its descendants."""
    import psutil

    me = psutil.Process()
    found = []
    for process in [me] + me.children(recursive=True):
        try:
            connections = process.net_connections(kind="inet")
        except psutil.NoSuchProcess:
            continue
        found += [(process.pid, c.laddr.ip, c.laddr.port) for c in connections if c.status == psutil.CONN_LISTEN]
    return found


def check_loopback_only(worker_pids) -> None:
    """Every listening socket of the process tree is on the loopback
    interface, and the worker processes' own sockets are among those seen."""
    sockets = listening_sockets()
    assert set(worker_pids) <= {pid for pid, _, _ in sockets}, (worker_pids, sockets)
    assert all(address in LOOPBACK for _, address, _ in sockets), sockets


def local_directory(dask_worker=None) -> str:
    """The scratch folder of a worker (a function for ``DaskExecutor.run``)."""
    return dask_worker.local_directory


def dask_log_level() -> int | None:
    """The lowest level of a log line of Dask's printed by Dask's own handler
    in this process (None: no such handler, e.g. under pytest's)."""
    import logging

    handlers = [h for h in logging.getLogger("distributed").handlers if isinstance(h, logging.StreamHandler)]
    return min((h.level for h in handlers), default=None)


def check_private(directories, tmp: Path) -> None:
    """Each worker folder is inside one folder of ``tmp`` (the temporary
    folder) that only this user may enter."""
    tops = {Path(d).relative_to(tmp).parts[0] for d in directories}
    assert len(tops) == 1, directories
    top = tmp / tops.pop()
    assert top.name != "dask-scratch-space"
    info = top.stat()
    assert stat.S_IMODE(info.st_mode) == 0o700 and info.st_uid == os.getuid(), oct(info.st_mode)


def served_pages(executor) -> list[str]:
    """The pages of Dask's dashboard and HTTP routes that the scheduler of
    ``executor`` serves (on the loopback interface)."""
    import urllib.error
    import urllib.request

    port = executor.client.scheduler_info()["services"].get("dashboard")
    if port is None:
        return []
    served = []
    for page in ("/status", "/health", "/info/main/workers.html", "/json/identity.json", "/metrics"):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}{page}", timeout=5):
                served.append(page)
        except urllib.error.HTTPError:
            pass
    return served


def stop_processes(procs) -> None:
    """Terminate processes started for a test (last first) and wait for them; kill what does not stop in 10 s."""
    import subprocess

    for proc in reversed(procs):
        proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
