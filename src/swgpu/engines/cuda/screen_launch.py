"""One launch batch of the GPU screening kernels: pad the pairs into pinned
buffers, copy, run the kernel phases on one stream, copy the scores back, and
time each phase with CUDA events (see :class:`~.screen_shapes.ScreenTimings`).
"""

from __future__ import annotations

import time

import numpy as np

from ...exceptions import InputError, ScoringError
from ..bulk import N_CODE, score_bits
from . import runtime
from .screen_shapes import (GROUP_PACK4, ScreenTimings, bitwise_rows, group_packed_ok, group_shape, roundup,
                            wordwise_k, wordwise_packed_ok)

__all__ = ["DevicePairs", "run_batch", "run_group_batch", "KERNEL_FILE", "GROUP_KERNEL_FILE", "BLOCK"]

KERNEL_FILE = "bpbc.cu"
GROUP_KERNEL_FILE = "screen_group.cu"
PACK_FILE = "screen_pack.cu"
BLOCK = 128


def _pinned(cp, shape, dtype) -> np.ndarray:
    count = int(np.prod(shape))
    mem = cp.cuda.alloc_pinned_memory(max(1, count * np.dtype(dtype).itemsize))
    return np.frombuffer(mem, dtype=dtype, count=count).reshape(shape)


class _Stager:
    """Host-to-GPU copies through a ring of reused pinned chunks: a pool of
    threads fills the chunks (NumPy copies release the GIL), each chunk is
    sent as soon as it is full, and a chunk is refilled as soon as its
    previous transfer is done, so host copies and transfers overlap all the
    way (not wave by wave). One per process, allocated at first use."""

    CHUNK = 4 << 20
    SLOTS = 16

    def __init__(self, cp):
        import os
        from concurrent.futures import ThreadPoolExecutor

        self._cp = cp
        self.buf = _pinned(cp, (self.SLOTS * self.CHUNK,), np.uint8)
        self.pool = ThreadPoolExecutor(max(1, min(self.SLOTS, os.cpu_count() or 1)), thread_name_prefix="swgpu-stage")
        self.events: list = [None] * self.SLOTS

    @staticmethod
    def _fill(event, dst: np.ndarray, src: np.ndarray) -> None:
        if event is not None:
            event.synchronize()  # the chunk's previous transfer is done (waits without the GIL)
        np.copyto(dst, src)

    def upload(self, x: np.ndarray, dev, stream) -> None:
        """Copy the contiguous array ``x`` into the device array ``dev`` on ``stream``."""
        cp = self._cp
        rt = cp.cuda.runtime
        raw = x.reshape(-1).view(np.uint8)
        C, S = self.CHUNK, self.SLOTS
        chunks = [(a, min(raw.size, a + C)) for a in range(0, raw.size, C)]
        jobs: dict = {}

        def submit(c: int) -> None:
            a, b = chunks[c]
            k = c % S
            jobs[c] = self.pool.submit(self._fill, self.events[k], self.buf[k * C:k * C + (b - a)], raw[a:b])

        for c in range(min(S, len(chunks))):
            submit(c)
        for c, (a, b) in enumerate(chunks):
            jobs.pop(c).result()
            k = c % S
            rt.memcpyAsync(dev.data.ptr + a, self.buf.ctypes.data + k * C, b - a, rt.memcpyHostToDevice, stream.ptr)
            ev = cp.cuda.Event(disable_timing=True)
            ev.record(stream)
            self.events[k] = ev
            if c + S < len(chunks):
                submit(c + S)


_stagers: dict = {}


def _stager(cp) -> _Stager:
    key = cp.cuda.Device().id
    if key not in _stagers:
        _stagers[key] = _Stager(cp)
    return _stagers[key]


class DevicePairs:
    """The codes of every pair on the GPU, uploaded once (each side end to end,
    through a ring of pinned chunks, copies overlapping transfers); :meth:`pack`
    writes a batch's padded rows there. ``check``: test on the GPU that every
    code is at most ``N_CODE`` (for inputs that were not checked on the host)."""

    def __init__(self, cp, qcat, qoff, tcat, toff, swap, timings: ScreenTimings, check: bool = False):
        self._cp = cp
        stream = cp.cuda.Stream(non_blocking=True)
        ev = [cp.cuda.Event(), cp.cuda.Event()]
        t_host = time.perf_counter()
        host = [np.ascontiguousarray(x) for x in (qcat, qoff, tcat, toff, swap.astype(np.uint8))]
        dev = [cp.empty(max(x.size, 1), dtype=x.dtype) for x in host]
        stager = _stager(cp)
        with stream:
            ev[0].record(stream)
            for d, h in zip(dev, host):
                stager.upload(h, d, stream)
            ev[1].record(stream)
        timings.host_ms += (time.perf_counter() - t_host) * 1e3
        ev[1].synchronize()
        ms = cp.cuda.get_elapsed_time(ev[0], ev[1])
        timings.h2d_ms += ms
        timings.total_ms += ms
        self.q, self.qoff, self.t, self.toff, self.swap = dev
        mod = runtime.get_module(PACK_FILE)
        if check:
            flag = cp.zeros(2, dtype=np.uint32)
            chk = mod.get_function("pk_check")
            for k, (d, h) in enumerate(((self.q, host[0]), (self.t, host[2]))):
                chk((1024,), (256,), (d, np.int64(h.size), np.uint32(N_CODE), flag[k:]))
            flags = flag.get()
            for side, f, h, off in (("query", flags[0], host[0], host[1]), ("target", flags[1], host[2], host[3])):
                if f:
                    bad = int(np.flatnonzero(h > N_CODE)[0])
                    i = int(np.searchsorted(off, bad, side="right")) - 1
                    raise InputError(f"{side} {i}: DNA codes must be 0..{N_CODE} (A C G T N), got {int(h[bad])}",
                                     param="queries" if side == "query" else "targets")
        self._pack = mod.get_function("pk_rows")

    def pack(self, d_idx, nidx: int, rows: int, width: int, nibble: bool, columns: bool, out) -> None:
        """Rows of pairs ``d_idx`` (``nidx`` of them) into ``out`` (``rows`` x
        ``width`` codes, two per byte with ``nibble``); ``columns``: the longer
        side of each pair, else the shorter."""
        total = rows * (width >> int(nibble))
        self._pack((max(1, min(-(-total // BLOCK), 65535)),), (BLOCK,),
                   (self.q, self.qoff, self.t, self.toff, self.swap, d_idx, np.int32(nidx), np.int32(rows),
                    np.int32(width), np.int32(int(nibble)), np.int32(int(columns)), np.uint32(N_CODE), out))


def _grid(threads: int) -> tuple[int]:
    return (max(1, -(-int(threads) // BLOCK)),)


def _timed(cp, prepare, phases, out_h, scores_d, timings: ScreenTimings, info: dict, padded_cells: int) -> np.ndarray:
    """Run ``prepare`` (small copies in, packing on the GPU), the three
    ``phases`` (transpose, SW, untranspose; None: nothing) on one stream,
    copy the scores back; six events time the phases into ``timings``."""
    stream = cp.cuda.Stream(non_blocking=True)
    ev = [cp.cuda.Event() for _ in range(6)]
    rt = cp.cuda.runtime
    with stream:
        ev[0].record(stream)
        prepare(stream)
        ev[1].record(stream)
        for k, phase in enumerate(phases):
            if phase is not None:
                phase()
            ev[2 + k].record(stream)
        rt.memcpyAsync(out_h.ctypes.data, scores_d.data.ptr, out_h.nbytes, rt.memcpyDeviceToHost, stream.ptr)
        ev[5].record(stream)
    ev[5].synchronize()
    el = [cp.cuda.get_elapsed_time(ev[i], ev[i + 1]) for i in range(5)]
    timings.h2d_ms += el[0]
    timings.transpose_ms += el[1]
    timings.sw_ms += el[2]
    timings.untranspose_ms += el[3]
    timings.d2h_ms += el[4]
    timings.total_ms += cp.cuda.get_elapsed_time(ev[0], ev[5])
    timings.padded_cells += padded_cells
    info.update(h2d_ms=el[0], transpose_ms=el[1], sw_ms=el[2], untranspose_ms=el[3], d2h_ms=el[4])
    timings.batches.append(info)
    return out_h


def _bitwise_phases(cp, mod, transpose, qd, td, scores_d, rows, R, m_pad, n_pad, nb, affine, sw):
    """Device buffers and the three phases of the bit-sliced kernel."""
    i32 = np.int32
    ngroups = rows // 32
    tk = mod.get_function("bpbc_transpose_" + transpose)
    uk = mod.get_function("bpbc_untranspose_" + transpose)
    qp = cp.empty((ngroups, 3, m_pad), dtype=cp.uint32)
    tp = cp.empty((ngroups, 3, n_pad), dtype=cp.uint32)
    best = cp.empty((ngroups, nb), dtype=cp.uint32)
    nstrips = m_pad // (32 * R)
    scratch = cp.empty((ngroups * (2 if affine else 1) * nb * n_pad if nstrips > 1 else 1,), dtype=cp.uint32)
    per = 32 if transpose == "ballot" else 1  # ballot: a warp per 32 positions; swap: a thread per 4

    def planes():
        for d, p, width in ((qd, qp, m_pad), (td, tp, n_pad)):
            tk(_grid(ngroups * (width if per == 32 else width // 4)), (BLOCK,), (d, p, i32(ngroups), i32(width)))

    def score():
        sw(_grid(ngroups * 32), (BLOCK,), (qp, tp, best, scratch, i32(ngroups), i32(m_pad), i32(n_pad)))

    def unplanes():
        uk(_grid(ngroups * per), (BLOCK,), (best, scores_d, i32(ngroups), i32(nb)))

    return nstrips, (planes, score, unplanes)


def _wordwise_phases(cp, mod, td, qd, scores_d, npairs, K, packed, m_pad, n_pad, sw):
    """Device buffers and the phases of the word-wise kernel (no untranspose)."""
    i32 = np.int32
    ik = mod.get_function("ww_interleave")
    tint = cp.empty((n_pad // 16, npairs, 16), dtype=cp.uint8)
    nstrips = m_pad // ((2 if packed else 1) * K)
    scratch = cp.empty((n_pad * (1 if packed else 2) * npairs if nstrips > 1 else 1,), dtype=cp.uint32)

    def interleave():  # target layout [n_pad/16][npairs] of 16-byte chunks (coalesced per warp)
        ik((-(-npairs // 32), -(-(n_pad // 16) // 32)), (32, 8), (td, tint, i32(npairs), i32(n_pad)))

    def score():
        sw(_grid(npairs), (BLOCK,), (qd, tint, scores_d, scratch, i32(npairs), i32(m_pad), i32(n_pad)))

    return nstrips, (interleave, score, None)


def _prepare(cp, pairs: DevicePairs, idx: np.ndarray, rows: int, sides, extra=()):
    """The copy phase of a batch: the pair indices (and ``extra`` (device,
    host) arrays) in, then the rows of each side packed on the GPU;
    ``sides`` = ((out, width, nibble, columns), ...)."""
    h_idx = _pinned(cp, (max(idx.size, 1),), np.int64)
    h_idx[: idx.size] = idx
    d_idx = cp.empty(h_idx.size, dtype=np.int64)

    def run(stream):
        rt = cp.cuda.runtime
        for d, h in ((d_idx, h_idx),) + tuple(extra):
            rt.memcpyAsync(d.data.ptr, h.ctypes.data, h.nbytes, rt.memcpyHostToDevice, stream.ptr)
        for out, width, nibble, columns in sides:
            pairs.pack(d_idx, int(idx.size), rows, width, nibble, columns, out)

    return run


def run_batch(cp, kernel, transpose, pairs: DevicePairs, idx, m_max, n_max, bound, params, timings: ScreenTimings,
              rows_per_lane: int | None = None) -> np.ndarray:
    """Scores of pairs ``idx`` on the bit-sliced or word-wise kernel; all share
    (m_pad, n_pad) and the scoring constants."""
    match, mismatch, gap_open, gap_extend = params
    affine = gap_open != gap_extend
    nb = score_bits(bound)
    npairs = int(idx.size)
    n_pad = roundup(max(n_max, 1), 32)
    info = {"pairs": npairs, "m_max": int(m_max), "n_max": int(n_max), "bits": nb}
    if kernel == "bitwise":
        if nb > 30:
            raise ScoringError(f"best possible score {bound} needs {nb} bits; the bit-sliced kernel handles up to 30",
                               param="match")
        R = rows_per_lane or bitwise_rows(nb, affine, m_max)
        m_pad = roundup(max(m_max, 1), 32 * R)
        rows = -(-npairs // 32) * 32
        name = f"bpbc_sw<{nb},{R},{match},{mismatch},{gap_open},{gap_extend},{int(affine)}>"
        info.update(kernel=name, rows_per_lane=R, m_pad=m_pad, n_pad=n_pad)
    else:
        packed = wordwise_packed_ok(bound, match, mismatch, gap_open, gap_extend)
        K = wordwise_k(m_max, packed)
        m_pad = roundup(max(m_max, 1), (2 if packed else 1) * K)
        rows = npairs
        name = f"ww_sw<{K},{int(packed)},{int(affine)},{match},{mismatch},{gap_open},{gap_extend}>"
        info.update(kernel=name, m_pad=m_pad, n_pad=n_pad)
    # compile (first use) and allocate before the first event
    mod = runtime.get_module(KERNEL_FILE, (), (name,))
    sw = mod.get_function(name)
    qd = cp.empty((rows, m_pad), dtype=cp.uint8)
    td = cp.empty((rows, n_pad), dtype=cp.uint8)
    scores_d = cp.empty((rows,), dtype=cp.int32)
    if kernel == "bitwise":
        nstrips, phases = _bitwise_phases(cp, mod, transpose, qd, td, scores_d, rows, R, m_pad, n_pad, nb, affine, sw)
    else:
        nstrips, phases = _wordwise_phases(cp, mod, td, qd, scores_d, npairs, K, packed, m_pad, n_pad, sw)
    info["strips"] = nstrips
    t_host = time.perf_counter()
    prepare = _prepare(cp, pairs, idx, rows, ((qd, m_pad, False, False), (td, n_pad, False, True)))
    out_h = _pinned(cp, (rows,), np.int32)
    timings.host_ms += (time.perf_counter() - t_host) * 1e3
    _timed(cp, prepare, phases, out_h, scores_d, timings, info, rows * m_pad * n_pad)
    return np.array(out_h[:npairs], dtype=np.int32)


def run_group_batch(cp, pairs: DevicePairs, idx, nlen, m_max, n_max, bound, params, timings: ScreenTimings,
                    group_size: int | None = None) -> np.ndarray:
    """One launch of the group kernel; ``idx`` sorted by target length, so pairs
    ``2g`` and ``2g + 1`` (group ``g``) have similar targets."""
    match, mismatch, gap_open, gap_extend = params
    affine = gap_open != gap_extend
    npairs = int(idx.size)
    packed = group_packed_ok(bound, match, mismatch, gap_open, gap_extend)
    G, R, passes = group_shape(m_max, packed, group_size)
    m_pad = G * R * passes
    n_pad = roundup(max(n_max, 1), 32)
    ngroups = -(-npairs // 2)
    rows = 2 * ngroups
    pack4 = bool(GROUP_PACK4)
    div = 2 if pack4 else 1
    name = f"grp_sw<{G},{R},{int(not packed)},{int(affine)},{int(pack4)},{match},{mismatch},{gap_open},{gap_extend}>"
    info = {"pairs": npairs, "m_max": int(m_max), "n_max": int(n_max), "bits": score_bits(bound), "kernel": name,
            "group_size": G, "rows_per_thread": R, "m_pad": m_pad, "n_pad": n_pad, "strips": passes}

    mod = runtime.get_module(GROUP_KERNEL_FILE, (), (name,))
    sw = mod.get_function(name)
    qd = cp.empty((rows, m_pad // div), dtype=cp.uint8)
    td = cp.empty((rows, n_pad // div), dtype=cp.uint8)
    lend = cp.empty((ngroups,), dtype=cp.int32)
    scores_d = cp.empty((rows,), dtype=cp.int32)
    scratch = cp.empty((ngroups * n_pad * (2 if packed else 4) if passes > 1 else 1,), dtype=cp.uint32)

    t_host = time.perf_counter()
    lh = _pinned(cp, (ngroups,), np.int32)
    nl = np.zeros(rows, dtype=np.int32)
    nl[:npairs] = nlen[idx]
    lh[:] = nl.reshape(ngroups, 2).max(axis=1)
    prepare = _prepare(cp, pairs, idx, rows, ((qd, m_pad, pack4, False), (td, n_pad, pack4, True)),
                       extra=((lend, lh),))
    out_h = _pinned(cp, (rows,), np.int32)
    timings.host_ms += (time.perf_counter() - t_host) * 1e3

    i32 = np.int32

    def score():
        sw(_grid(ngroups * G), (BLOCK,), (qd, td, lend, scores_d, scratch, i32(ngroups), i32(m_pad), i32(n_pad)))

    _timed(cp, prepare, (None, score, None), out_h, scores_d, timings, info, rows * m_pad * n_pad)
    return np.array(out_h[:npairs], dtype=np.int32)
