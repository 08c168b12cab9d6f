"""Running one Numba kernel on several threads that share a work queue.

The CPU kernels release the GIL and take their work items from a shared
counter (:func:`~swgpu.engines.cpu.simd.atomic_next`): :func:`run_shared`
starts the same call on ``threads`` threads (the caller's thread is one of
them), so the items are scheduled dynamically, in the order the kernel's
queue lists them (longest first), and every thread keeps busy until the
queue is empty.

Called from the main thread, every call runs on the pool's threads while the
main thread waits, so that Ctrl-C (or SIGTERM) is seen at once; the counter
is then set to :data:`CANCEL`, which a kernel that reads it
(:func:`~.simd.atomic_read`) takes as the order to stop.

>>> import numpy as np
>>> seen = []
>>> def kernel(counter, n):
...     while (i := int(counter[0])) < n:
...         counter[0] += 1
...         seen.append(i)
>>> run_shared(kernel, lambda counter: (counter, 5), threads=1, items=5)
>>> seen
[0, 1, 2, 3, 4]
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor, wait
from typing import Callable

import numpy as np

__all__ = ["run_shared", "get_pool", "default_threads", "CANCEL"]

#: A work-queue counter at or above this stops the kernels sharing it.
CANCEL = 1 << 62

_pool: ThreadPoolExecutor | None = None
_pool_size = 0
_lock = threading.Lock()


def default_threads(threads: int | None = None) -> int:
    """``threads``, or every core."""
    return max(1, int(threads or os.cpu_count() or 1))


def get_pool(workers: int) -> ThreadPoolExecutor:
    """The shared pool of worker threads, with at least ``workers`` threads."""
    global _pool, _pool_size
    with _lock:
        if _pool is None or _pool_size < workers:
            old = _pool
            _pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="swgpu-cpu")
            _pool_size = workers
            if old is not None:
                old.shutdown(wait=False)
        return _pool


def _submit(workers: int, fn, args):
    """``fn(*args)`` on the shared pool (a pool another thread replaced and shut
    down meanwhile refuses it: the new one takes it)."""
    while True:
        pool = get_pool(workers)
        try:
            return pool.submit(fn, *args)
        except RuntimeError:
            if _pool is pool:  # not replaced: a real refusal (the interpreter ending)
                raise


def run_shared(kernel: Callable, make_args: Callable[[np.ndarray], tuple], threads: int, items: int) -> None:
    """Call ``kernel(*make_args(counter))`` on ``min(threads, items)`` threads
    with one shared ``counter`` (an int64 array of one element, from 0)."""
    counter = np.zeros(1, dtype=np.int64)
    args = make_args(counter)
    n = max(1, min(int(threads), int(items)))
    inline = threading.current_thread() is not threading.main_thread()  # the caller's thread is one of them
    if n == 1 and inline:
        kernel(*args)
        return
    futures = [_submit(n - inline, kernel, args) for _ in range(n - inline)]
    try:
        if inline:
            kernel(*args)
            for f in futures:  # a call no pool thread has started (the pool busy): run here
                if f.cancel():  # (a kernel takes its part when it starts, so this one takes what is left)
                    kernel(*args)
        for f in futures:
            if not f.cancelled():
                f.result()  # the main thread waits here, where a signal's handler runs
    except BaseException:
        counter[0] = CANCEL
        wait(futures)
        raise
