"""``swgpu.parallel.dask_executor``: results in input order on a local cluster of
two worker processes, scattered data as task arguments, errors that reach the
caller, a worker killed during a run, and ``executor_for``; a local cluster
listens on the loopback interface only, keeps its files in a private folder
removed when it closes, and stops at once on an interrupt."""

from __future__ import annotations

import os
import signal
import sys
import tempfile
import threading
import time

import numpy as np
import pytest

pytest.importorskip("distributed")

from dask_checks import check_loopback_only, check_private, local_directory, served_pages  # noqa: E402
from swgpu.exceptions import InputError  # noqa: E402
from swgpu.parallel.dask_cluster import uninterrupted  # noqa: E402
from swgpu.parallel.dask_executor import SCHEDULER_ENV, DaskExecutor, executor_for, worker_gpu  # noqa: E402


def _jittered_square(x):
    # later items finish first, so an executor that yields by completion would reorder
    time.sleep(0.002 * ((7 - x) % 5))
    return x * x


def _slow_square(x):
    time.sleep(0.15)
    return x * x, os.getpid()


def _row_sum(array, row):
    return int(array[row].sum())


def _refuse(x):
    if x == 3:
        raise InputError(f"item {x} refused", param="query")
    return x


def _visible_gpus():
    return os.environ.get("CUDA_VISIBLE_DEVICES"), worker_gpu()


def _environ():
    return os.environ.get("MALLOC_TRIM_THRESHOLD_"), os.environ.get("OMP_NUM_THREADS")


@pytest.fixture(scope="module")
def ex():
    with DaskExecutor(workers=2, threads_per_worker=1) as executor:
        yield executor


def test_local_cluster_of_worker_processes(ex):
    assert ex.workers == 2
    pids = ex.run(os.getpid)
    assert len(set(pids.values())) == 2 and os.getpid() not in pids.values()
    assert "DaskExecutor(" in repr(ex)


def test_workers_keep_glibc_moving_mmap_threshold(ex):
    """Dask's nanny sets MALLOC_TRIM_THRESHOLD_ (a fixed mmap threshold: large
    temporaries page-faulted in on every call); local workers go without it,
    and keep Dask's other settings."""
    import dask

    omp = dask.config.get("distributed.nanny.pre-spawn-environ", {}).get("OMP_NUM_THREADS")
    expected = None if omp is None else str(omp)
    assert set(ex.run(_environ).values()) == {(None, expected)}


def test_map_keeps_input_order(ex):
    items = list(range(25))
    assert ex.map(_jittered_square, items) == [x * x for x in items]
    assert ex.map(_jittered_square, iter(items)) == [x * x for x in items]  # any iterable
    assert ex.map(_jittered_square, []) == []


def test_imap_in_order_with_bounded_look_ahead(ex):
    pulled = []

    def items():
        for x in range(40):
            pulled.append(x)
            yield x

    it = ex.imap(_jittered_square, items())
    assert next(it) == 0
    assert len(pulled) <= max(4, 2 * ex.threads) + 1  # not the whole input
    assert [0] + list(it) == [x * x for x in range(40)]
    assert list(ex.imap(_jittered_square, [])) == []


def test_scatter_is_a_task_argument(ex):
    array = np.arange(60, dtype=np.int64).reshape(6, 10)
    data = ex.scatter(array)
    futures = [ex.submit(_row_sum, data, r) for r in range(6)]
    assert ex.gather(futures) == [int(row.sum()) for row in array]
    assert all(f.key.startswith("swgpu-") for f in futures)


def test_task_errors_reach_the_caller(ex):
    with pytest.raises(InputError) as info:
        ex.map(_refuse, range(6))
    assert info.value.param == "query" and info.value.message == "item 3 refused"


def test_gpu_id_inside_a_worker(ex):
    # CPU workers do not set CUDA_VISIBLE_DEVICES; a task's GPU is the worker's first
    assert all(gpu == 0 for _, gpu in ex.run(_visible_gpus).values())


def test_gpu_cluster_gives_each_worker_its_gpu(monkeypatch, tmp_path):
    """One worker process per GPU id, each seeing only its GPU (as GPU 0); the
    plain Dask spec cluster here (no dask_cuda), which needs no GPU to start.
    Every process of it listens on the loopback interface only (none on
    0.0.0.0, :: or the host's address), the scheduler has no dashboard, the
    workers' files are in a private folder of the temporary folder, and
    ``abort`` stops workers busy with long tasks at once, removing that folder."""
    monkeypatch.setitem(sys.modules, "dask_cuda", None)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    gpu_ex = DaskExecutor(gpus=[0, 1], threads_per_worker=1)
    try:
        assert gpu_ex.workers == 2
        assert sorted(gpu_ex.run(_visible_gpus).values()) == [("0", 0), ("1", 0)]
        check_loopback_only(gpu_ex.run(os.getpid).values())
        assert served_pages(gpu_ex) == []
        check_private(gpu_ex.run(local_directory).values(), tmp_path)
        busy = [gpu_ex.submit(time.sleep, 60) for _ in range(2)]
        deadline = time.monotonic() + 30
        while sum(len(v) for v in gpu_ex.client.processing().values()) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert busy[0].status == "pending"
        start = time.monotonic()
    finally:
        gpu_ex.abort()
    assert time.monotonic() - start < 2
    assert list(tmp_path.iterdir()) == []


def test_an_interrupt_while_a_cluster_starts_waits_for_it():
    """Dask cannot close a cluster whose start was interrupted: the start
    runs to its end, and the interrupt is handed over to be raised then."""
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals reach the main thread only")

    def start():
        time.sleep(0.4)
        return "started"

    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.1, os.kill, (os.getpid(), signal.SIGINT))
    try:
        timer.start()
        result, interrupt = uninterrupted(start)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, old)
    assert result == "started" and isinstance(interrupt, KeyboardInterrupt)
    with pytest.raises(ZeroDivisionError):
        uninterrupted(lambda: 1 / 0)


def test_killed_worker_tasks_rerun(ex):
    """A worker process killed in the middle of a run: its nanny starts a new
    one, the scheduler reruns its tasks, and the results are the same."""
    items = list(range(16))
    futures = [ex.submit(_slow_square, x) for x in items]
    time.sleep(0.5)  # both workers busy
    victim = sorted(ex.run(os.getpid).values())[0]
    os.kill(victim, signal.SIGKILL)
    results = ex.gather(futures)
    assert [r for r, _ in results] == [x * x for x in items]
    ex.client.wait_for_workers(2, timeout=60)
    pids = set(ex.run(os.getpid).values())
    assert victim not in pids and len(pids) == 2  # restarted
    assert ex.map(_jittered_square, range(5)) == [0, 1, 4, 9, 16]


def test_executor_for_connects_to_the_scheduler_of_the_environment(ex, monkeypatch):
    monkeypatch.setenv(SCHEDULER_ENV, ex.address)
    with executor_for() as remote:
        assert remote.cluster is None and remote.address == ex.address
        assert remote.map(_jittered_square, range(4)) == [0, 1, 4, 9]
    assert ex.map(_jittered_square, [3]) == [9]  # closing a connection leaves the cluster running


def test_executor_for_refuses_bad_options(monkeypatch):
    monkeypatch.delenv(SCHEDULER_ENV, raising=False)
    with pytest.raises(InputError) as info:
        executor_for("   ")
    assert info.value.param == "scheduler" and "tcp://host:8786" in info.value.message
    with pytest.raises(InputError) as info:
        executor_for("tcp://127.0.0.1:8786", workers=2)
    assert info.value.param == "workers"
    with pytest.raises(InputError) as info:
        DaskExecutor(workers=0)
    assert info.value.param == "workers"
    with pytest.raises(InputError) as info:
        DaskExecutor(gpus=[-1])
    assert info.value.param == "gpus"


def test_without_distributed_one_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import fails
    with pytest.raises(InputError) as info:
        executor_for(workers=2)
    assert info.value.param == "scheduler" and "swgpu[dist]" in info.value.message
    assert "\n" not in str(info.value)


def _total(spec: dict) -> int:
    return int(spec["data"].sum()) + spec["k"]


def test_scattered_data_lost_with_its_workers_is_sent_again(ex):
    """Every worker holding a scattered array dies (their nannies start new
    ones): :meth:`DaskExecutor.map` sends the array again and the tasks that
    needed it run again, with the same results."""
    data = np.arange(1000, dtype=np.int64)
    future = ex.scatter(data)
    assert ex.map(_total, [{"data": future, "k": k} for k in range(3)]) == [499500, 499501, 499502]
    victims = set(ex.run(os.getpid).values())
    for pid in victims:
        os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 60
    while True:  # both replaced
        assert time.monotonic() < deadline
        time.sleep(0.2)
        try:
            pids = set(ex.run(os.getpid).values())
        except OSError:  # (a worker still going away)
            continue
        if len(pids) == 2 and not pids & victims:
            break
    assert ex.map(_total, [{"data": future, "k": k} for k in range(3)]) == [499500, 499501, 499502]


@pytest.mark.parametrize("lost", [KeyError("tcp://127.0.0.1:41017"), OSError("connection closed"), "timeout"])
def test_scatter_is_sent_again_when_a_worker_leaves_meanwhile(monkeypatch, lost):
    """A worker killed while its data is replicated: the scheduler answers
    with a KeyError naming it, the connection closes, or the replication never
    ends (the send's timeout); the data is sent again."""
    import swgpu.parallel.dask_executor as module
    from distributed import TimeoutError as SendTimeout

    class Client:
        calls = 0

        def scheduler_info(self, n_workers=-1):
            return {"workers": {"tcp://127.0.0.1:1": {}, "tcp://127.0.0.1:2": {}}}

        def _scatter(self, objs, broadcast, hash, timeout):  # (the coroutine under Client.scatter)
            assert timeout >= module.SEND_TIMEOUT_S + 2 * objs[0].nbytes / module.SEND_BYTES_PER_S
            Client.calls += 1
            if Client.calls == 1:
                assert broadcast
                raise SendTimeout() if lost == "timeout" else lost
            assert broadcast == (lost != "timeout")  # (after a stall: to one worker, the others fetch it)
            return ["future"]

        def sync(self, fn, *args, callback_timeout=None, **kw):
            assert callback_timeout == kw["timeout"]
            return fn(*args, **kw)

    ex = object.__new__(DaskExecutor)
    ex.client = Client()
    monkeypatch.setattr(module.time, "sleep", lambda s: None)
    assert ex._send(np.arange(3)) == "future" and Client.calls == 2


def test_cancel_forgets_a_scattered_object(ex):
    """A scattered object cancelled is not kept to be sent again (a search's hits scatter theirs every group)."""
    future = ex.scatter(np.arange(5))
    assert future.key in ex._scattered
    ex.cancel([future])
    assert future.key not in ex._scattered
