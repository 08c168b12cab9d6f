"""The pinned-ring uploader's threading, on the CPU: a stand-in for CuPy
copies at once, so the bytes, the order of the chunks, the reuse of the ring
and the hand-over of errors can be checked without a GPU."""

from __future__ import annotations

import ctypes
import threading
from types import SimpleNamespace

import numpy as np
import pytest

from swgpu.engines.cuda import staging


class _Event:
    def __init__(self, disable_timing=False):
        self.recorded = None

    def record(self, stream=None):
        self.recorded = stream

    def synchronize(self):
        pass


class FakeCupy:
    """Enough of CuPy for :class:`staging.Stager`: copies happen when issued."""

    def __init__(self, fail_at: int | None = None):
        self.copies: list[tuple[int, int]] = []  # (device address, bytes) in issue order
        self.fail_at = fail_at
        self._lock = threading.Lock()
        runtime = SimpleNamespace(setDevice=lambda d: None, memcpyHostToDevice=1, memcpyAsync=self._memcpy)
        self.cuda = SimpleNamespace(Device=lambda *a: SimpleNamespace(id=0), runtime=runtime, Event=_Event,
                                    alloc_pinned_memory=lambda n: bytearray(n))

    def _memcpy(self, dst, src, n, kind, stream):
        with self._lock:
            if self.fail_at is not None and len(self.copies) == self.fail_at:
                raise RuntimeError("copy failed")
            ctypes.memmove(dst, src, n)
            self.copies.append((dst, n))


def _device(n):
    a = np.zeros(max(n, 1), dtype=np.uint8)
    return SimpleNamespace(data=SimpleNamespace(ptr=a.ctypes.data), host=a)


@pytest.fixture
def small_ring(monkeypatch):
    monkeypatch.setattr(staging.Stager, "CHUNK", 64)
    monkeypatch.setattr(staging.Stager, "SLOTS", 3)
    monkeypatch.setattr(staging.Stager, "PAGEABLE_MAX", 0)  # every upload through the ring


@pytest.mark.parametrize("threads", [1, 2, 5])
def test_every_byte_arrives_through_a_small_ring(small_ring, threads):
    cp = FakeCupy()
    st = staging.Stager(cp, threads)
    rng = np.random.default_rng(threads)
    stream = SimpleNamespace(ptr=7)
    for sizes in ((1000, 0, 65, 64, 3), (5,), (700, 700)):  # several uploads reuse the ring
        parts = [rng.integers(0, 256, n, dtype=np.uint8) for n in sizes]
        devs = [_device(n) for n in sizes]
        up = st.upload([(h, d) for h, d in zip(parts, devs)], stream)
        assert up.ready(0, min(sizes[0], 100)) is not None
        up.finish()
        for h, d in zip(parts, devs):
            np.testing.assert_array_equal(d.host[: h.size], h)
    assert len(st.buf) == 3 * 64  # the ring never grew past SLOTS chunks


def test_ready_waits_for_the_prefix(small_ring):
    cp = FakeCupy()
    st = staging.Stager(cp, 4)
    host = np.arange(640, dtype=np.uint8)
    dev = _device(640)
    up = st.upload([(np.zeros(10, np.uint8), _device(10)), (host, dev)], SimpleNamespace(ptr=1))
    ev = up.ready(1, 200)  # the chunks holding bytes 0..199 of part 1, and all of part 0, were sent
    assert ev is not None
    np.testing.assert_array_equal(dev.host[:200], host[:200])
    assert up.ready(1, 0) is not None  # nothing of part 1: part 0 only
    up.finish()
    np.testing.assert_array_equal(dev.host, host)


@pytest.mark.parametrize("pageable", [0, 1 << 20])
def test_a_failed_copy_is_raised_and_the_stager_is_usable_again(small_ring, monkeypatch, pageable):
    """Through the ring, or copied without one (pageable): the error reaches
    the waiting thread, and the stager is not left busy."""
    monkeypatch.setattr(staging.Stager, "PAGEABLE_MAX", pageable)
    cp = FakeCupy(fail_at=3)
    st = staging.Stager(cp, 3)
    host = np.arange(1000, dtype=np.uint32).astype(np.uint8)
    up = st.upload([(host, _device(1000))], SimpleNamespace(ptr=1))
    with pytest.raises(RuntimeError, match="copy failed"):
        up.finish()
    cp.fail_at = None
    dev = _device(1000)
    st.upload([(host, dev)], SimpleNamespace(ptr=1)).finish()
    np.testing.assert_array_equal(dev.host, host)
    assert (st.buf is None) == bool(pageable)


def test_empty_upload():
    st = staging.Stager(FakeCupy())
    up = st.upload([], SimpleNamespace(ptr=1))
    assert up.finish() is None


def test_a_small_first_upload_is_copied_without_a_ring(monkeypatch):
    """Up to PAGEABLE_MAX bytes, before any ring exists: copied from where they
    lie, in order, in the calling thread, and no pinned memory is allocated."""
    monkeypatch.setattr(staging.Stager, "CHUNK", 64)
    monkeypatch.setattr(staging.Stager, "PAGEABLE_MAX", 1000)
    cp = FakeCupy()
    cp.cuda.alloc_pinned_memory = None  # must not be called
    st = staging.Stager(cp, 4)
    rng = np.random.default_rng(3)
    parts = [rng.integers(0, 256, n, dtype=np.uint8) for n in (300, 0, 129, 500)]
    devs = [_device(n) for n in (300, 0, 129, 500)]
    up = st.upload(list(zip(parts, devs)), SimpleNamespace(ptr=1))
    assert up.ready(3, 10) is not None and up.ready(1, 0) is not None
    assert up.finish() is not None
    for h, d in zip(parts, devs):
        np.testing.assert_array_equal(d.host[: h.size], h)
    assert [n for _, n in cp.copies] == [64] * 4 + [44] + [64, 64, 1] + [64] * 7 + [52]  # chunk by chunk, in order
    assert st.buf is None
    more = [rng.integers(0, 256, 1001, dtype=np.uint8)]  # past PAGEABLE_MAX: the ring is made
    cp.cuda.alloc_pinned_memory = lambda n: bytearray(n)
    dev = _device(1001)
    st.upload([(more[0], dev)], SimpleNamespace(ptr=1)).finish()
    np.testing.assert_array_equal(dev.host, more[0])
    assert st.buf is not None


def test_an_interrupt_during_a_pageable_copy_goes_on_up_and_frees_the_stager(monkeypatch):
    monkeypatch.setattr(staging.Stager, "CHUNK", 64)
    cp = FakeCupy()
    st = staging.Stager(cp, 2)

    def interrupted(*args):
        raise KeyboardInterrupt

    cp.cuda.runtime.memcpyAsync = interrupted
    with pytest.raises(KeyboardInterrupt):
        st.upload([(np.ones(100, np.uint8), _device(100))], SimpleNamespace(ptr=1))
    cp.cuda.runtime.memcpyAsync = cp._memcpy
    dev = _device(100)
    st.upload([(np.ones(100, np.uint8), dev)], SimpleNamespace(ptr=1)).finish()  # not left busy
    assert dev.host.tolist() == [1] * 100
