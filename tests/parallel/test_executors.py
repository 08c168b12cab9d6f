"""``swgpu.parallel.executors.ThreadExecutor``: results in input order with one
and several threads, exceptions propagate, ``imap`` is lazy with bounded
look-ahead; the ``distributed`` flag that tells a cluster's executor from a local one."""

from __future__ import annotations

import inspect
import threading
import time

import pytest

from swgpu.parallel.executors import Executor, ThreadExecutor

THREADS = [1, 2, 4]


def _jittered_square(x):
    # later items finish first, so an executor that yields by completion would reorder
    time.sleep(0.002 * ((7 - x) % 5))
    return x * x


def test_default_threads_at_least_one():
    assert ThreadExecutor().threads >= 1
    assert ThreadExecutor(0).threads >= 1
    assert ThreadExecutor(3).threads == 3


@pytest.mark.parametrize("threads", THREADS)
def test_map_keeps_input_order(threads):
    ex = ThreadExecutor(threads)
    items = list(range(25))
    assert ex.map(_jittered_square, items) == [x * x for x in items]
    assert ex.map(_jittered_square, iter(items)) == [x * x for x in items]  # any iterable
    assert ex.map(_jittered_square, []) == []
    assert ex.map(_jittered_square, [3]) == [9]


@pytest.mark.parametrize("threads", THREADS)
def test_imap_keeps_input_order(threads):
    ex = ThreadExecutor(threads)
    items = list(range(40))
    assert list(ex.imap(_jittered_square, items)) == [x * x for x in items]
    assert list(ex.imap(_jittered_square, (x for x in items))) == [x * x for x in items]
    assert list(ex.imap(_jittered_square, [])) == []
    assert list(ex.imap(_jittered_square, [2])) == [4]


@pytest.mark.parametrize("threads", THREADS)
@pytest.mark.parametrize("method", ["map", "imap"])
def test_exceptions_propagate(threads, method):
    def fn(x):
        if x == 5:
            raise KeyError("bad item 5")
        return x

    ex = ThreadExecutor(threads)
    with pytest.raises(KeyError, match="bad item 5"):
        list(getattr(ex, method)(fn, range(10)))


@pytest.mark.parametrize("threads", THREADS)
def test_imap_yields_results_before_the_failure(threads):
    def fn(x):
        if x == 3:
            raise ValueError("three")
        return x

    it = ThreadExecutor(threads).imap(fn, range(8))
    assert [next(it), next(it), next(it)] == [0, 1, 2]
    with pytest.raises(ValueError, match="three"):
        next(it)


@pytest.mark.parametrize("threads", THREADS)
def test_imap_is_lazy(threads):
    ex = ThreadExecutor(threads)
    calls = []
    lock = threading.Lock()

    def fn(x):
        with lock:
            calls.append(x)
        return x

    it = ex.imap(fn, range(1000))
    assert inspect.isgenerator(it)
    assert calls == []  # nothing runs before the first item is asked for
    assert next(it) == 0
    time.sleep(0.05)  # let any eagerly submitted task run
    with lock:
        ran = len(calls)
    assert ran <= 4 * threads + 1, f"{ran} of 1000 tasks ran for the first result"
    it.close()


def test_imap_lookahead_is_bounded():
    """With a gate closed, only the look-ahead window of tasks can start."""
    threads = 2
    gate = threading.Event()
    started = []
    lock = threading.Lock()

    def fn(x):
        with lock:
            started.append(x)
        if x > 0:
            gate.wait(5)
        return x

    it = ThreadExecutor(threads).imap(fn, range(500))
    try:
        assert next(it) == 0
        time.sleep(0.05)
        with lock:
            assert len(started) <= 4 * threads + 1
    finally:
        gate.set()
    assert list(it) == list(range(1, 500))


def test_thread_executor_is_an_executor():
    ex: Executor = ThreadExecutor(2)
    assert callable(ex.map) and callable(ex.imap)


def test_distributed_flag():
    from swgpu.parallel.dask_executor import DaskExecutor
    from swgpu.parallel.executors import is_distributed
    from swgpu.parallel.executors import is_distributed as distributed  # (what the genome tasks test, too)

    class Cluster:
        distributed = True

    assert ThreadExecutor.distributed is False and DaskExecutor.distributed is True
    for executor, want in ((ThreadExecutor(2), False), (Cluster(), True), (object(), False), (None, False)):
        assert is_distributed(executor) is want
        assert distributed(executor) is want
