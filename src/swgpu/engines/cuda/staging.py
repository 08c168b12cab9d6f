"""Host-to-GPU uploads through a ring of reused pinned chunks, filled by many
threads at once and sent as soon as each chunk is full.

A pageable copy moves about 7 GB/s; a pinned one 55 GB/s, but only after the
bytes are in pinned memory. One thread copies about 7 GB/s into pinned memory,
eight about 45 GB/s (a 16-core host; more threads were slower), so the threads
of a pool each fill a chunk, and the thread that filled a chunk sends it
(``cudaMemcpyAsync`` on the upload stream) at once: host copies, transfers and -- through :meth:`Upload.ready` -- the
kernels of batches whose bytes have arrived all overlap.

One :class:`Stager` per device and process; its pinned ring grows to the
largest upload seen, up to ``SLOTS`` chunks of ``CHUNK`` bytes, and is reused
by every later upload (a slot is refilled only when its last transfer is
done).

Pinning memory costs more than a small copy: the first 8 MiB chunk takes about
20 ms to allocate, a pageable copy of 8 MiB about 1.2 ms. So until a ring
exists, an upload of at most ``PAGEABLE_MAX`` bytes is copied from where it
lies (a command that uploads a few reads once never pins memory for them).
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

__all__ = ["Stager", "Upload", "stager", "pinned", "streams"]


def pinned(cp, shape, dtype) -> np.ndarray:
    """A NumPy array in pinned host memory (from CuPy's pinned pool)."""
    count = int(np.prod(shape))
    mem = cp.cuda.alloc_pinned_memory(max(1, count * np.dtype(dtype).itemsize))
    return np.frombuffer(mem, dtype=dtype, count=count).reshape(shape)


class Upload:
    """The chunks of one :meth:`Stager.upload` in flight: :meth:`ready` gives
    an event after which the first bytes of a part are on the GPU."""

    def __init__(self, count: int, starts: list[int], ends: list[np.ndarray], on_done):
        self._issued: list = [None] * count  # (issue number, event) of each chunk once sent
        self.workers = 0  # threads still sending (set by the stager)
        self._on_done = on_done  # called once, when the last of them has stopped
        self._cond = threading.Condition()
        self._error: BaseException | None = None
        self._starts = starts  # first chunk of each part
        self._ends = ends  # end byte of each chunk of each part
        self._done = 0  # chunks 0 .. _done - 1 are known to be sent
        self._last = None  # (issue number, event) of the latest-issued chunk among them

    def _set(self, c: int, sent) -> None:
        with self._cond:
            self._issued[c] = sent
            self._cond.notify_all()

    def _fail(self, error: BaseException) -> None:
        with self._cond:
            if self._error is None:
                self._error = error
            self._cond.notify_all()

    def _worker_done(self) -> None:
        with self._cond:
            self.workers -= 1
            if self.workers == 0:
                self._on_done()

    def _wait_sent(self, c: int) -> None:
        with self._cond:
            while self._issued[c] is None:
                if self._error is not None:
                    raise self._error
                self._cond.wait()

    def _wait(self, upto: int) -> None:
        while self._done <= upto:
            self._wait_sent(self._done)
            sent = self._issued[self._done]
            if self._last is None or sent[0] > self._last[0]:
                self._last = sent
            self._done += 1

    def ready(self, part: int, nbytes: int):
        """An event recorded after the first ``nbytes`` of part ``part`` (and
        every part before it) were sent; None when nothing was sent."""
        ends = self._ends[part]
        k = int(np.searchsorted(ends, nbytes, side="left")) if nbytes > 0 else -1
        upto = self._starts[part] + min(k, ends.size - 1) if ends.size else self._starts[part] - 1
        if upto < 0:
            return None
        self._wait(upto)
        return self._last[1]

    def finish(self):
        """Wait until every chunk is sent; the event of the last one (or None)."""
        self._wait(len(self._issued) - 1)
        return self._last[1] if self._last else None


class Stager:
    """Pinned ring and thread pool of one device (see the module docstring)."""

    CHUNK = 8 << 20
    SLOTS = 32
    PAGEABLE_MAX = 32 << 20

    def __init__(self, cp, threads: int | None = None):
        self._cp = cp
        self.device = cp.cuda.Device().id
        #: Sending threads (each upload runs one job per thread of the pool: never more).
        self.threads = max(1, int(threads) if threads else min(8, os.cpu_count() or 1))
        self.pool = ThreadPoolExecutor(self.threads, thread_name_prefix="swgpu-stage")
        self.buf = None
        self.slot_events: list = []
        self._lock = threading.Lock()
        self._busy = threading.Semaphore(1)  # one upload uses the ring at a time
        self._count = 0

    def _ring(self, chunks: int) -> int:
        want = max(1, min(chunks, self.SLOTS))
        if self.buf is None or want > len(self.slot_events):
            for ev in self.slot_events:
                if ev is not None:
                    ev.synchronize()
            self.buf = pinned(self._cp, (want * self.CHUNK,), np.uint8)
            self.slot_events = [None] * want
        return len(self.slot_events)

    def _worker(self, first: int, step: int, pieces: list, slots: int, stream, up: Upload) -> None:
        """Send chunks ``first``, ``first + step``, ... in order: wait until the
        chunk that last used the slot was sent and its transfer is done, copy
        into the slot, send it."""
        rt = self._cp.cuda.runtime
        C = self.CHUNK
        try:
            rt.setDevice(self.device)
            for c in range(first, len(pieces), step):
                src, dptr = pieces[c]
                k = c % slots
                if c >= slots:
                    up._wait_sent(c - slots)
                ev = self.slot_events[k]
                if ev is not None:
                    ev.synchronize()  # waits without the GIL
                size = src.size
                dst = self.buf[k * C : k * C + size]
                np.copyto(dst, src)
                sent = self._send([(dptr, dst.ctypes.data, size)], stream)
                self.slot_events[k] = sent[1]  # before the chunk counts as sent: the slot's next user reads it
                up._set(c, sent)
        except BaseException as e:  # noqa: BLE001 - handed to the waiting thread
            up._fail(e)
        finally:
            up._worker_done()

    def upload(self, parts, stream) -> Upload:
        """Send ``parts`` (a list of (contiguous host array, device array))
        in order on ``stream``; returns at once with an :class:`Upload`."""
        C = self.CHUNK
        pieces, starts, ends = [], [], []
        for host, dev in parts:
            raw = np.ascontiguousarray(host).reshape(-1).view(np.uint8)
            cuts = np.arange(0, raw.size, C)
            starts.append(len(pieces))
            ends.append(np.minimum(cuts + C, raw.size))
            pieces.extend((raw[a : a + C], dev.data.ptr + int(a)) for a in cuts)
        self._busy.acquire()
        if not pieces:
            self._busy.release()
            return Upload(0, starts, ends, None)
        if self.buf is None and sum(src.size for src, _ in pieces) <= self.PAGEABLE_MAX:
            return self._pageable(pieces, starts, ends, stream)
        slots = self._ring(len(pieces))
        up = Upload(len(pieces), starts, ends, self._busy.release)
        workers = up.workers = min(self.threads, len(pieces))
        for w in range(workers):
            self.pool.submit(self._worker, w, workers, pieces, slots, stream, up)
        return up

    def _send(self, copies: list, stream) -> tuple:
        """Issue ``copies`` (device address, host address, bytes) on ``stream``
        and record an event after them: ``(issue number, event)``. Under the
        lock, so that issue numbers follow the stream's order."""
        rt = self._cp.cuda.runtime
        with self._lock:
            for dptr, src, size in copies:
                rt.memcpyAsync(dptr, src, size, rt.memcpyHostToDevice, stream.ptr)
            ev = self._cp.cuda.Event(disable_timing=True)
            ev.record(stream)
            self._count += 1
            return self._count, ev

    def _pageable(self, pieces: list, starts: list, ends: list, stream) -> Upload:
        """Send ``pieces`` from pageable memory at once, in this thread (the
        driver has copied the bytes when each call returns)."""
        up = Upload(len(pieces), starts, ends, self._busy.release)
        up.workers = 1
        try:
            sent = self._send([(dptr, src.ctypes.data, src.size) for src, dptr in pieces], stream)
            for c in range(len(pieces)):
                up._set(c, sent)
        except Exception as e:  # noqa: BLE001 - raised to the waiting thread, as a worker's would be
            up._fail(e)
        finally:  # (an interrupt goes on up from here, the stager released)
            up._worker_done()
        return up


_stagers: dict = {}


def stager(cp) -> Stager:
    """The :class:`Stager` of the current device."""
    key = cp.cuda.Device().id
    if key not in _stagers:
        _stagers[key] = Stager(cp)
    return _stagers[key]


_streams: dict = {}


def streams(cp, count: int) -> list:
    """``count`` non-blocking streams of the current device, created once and
    reused by later calls (for callers that finish all their work on them
    before they return)."""
    key = cp.cuda.Device().id
    have = _streams.setdefault(key, [])
    while len(have) < count:
        have.append(cp.cuda.Stream(non_blocking=True))
    return have[:count]
