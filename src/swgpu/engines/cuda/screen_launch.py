"""Launch batches of the GPU screening kernels: the codes of all pairs are
uploaded once (:class:`DevicePairs`, asynchronously); each batch waits for its
own codes, packs its rows on the GPU, runs the kernel phases on its stream and
copies its scores back; CUDA events time each phase (see
:class:`~.screen_shapes.ScreenTimings`).
"""

from __future__ import annotations

import time

import numpy as np

from ...exceptions import InputError, ScoringError
from ..bulk import N_CODE, score_bits
from . import runtime
from .screen_shapes import (GROUP_PACK4, ScreenTimings, bitwise_rows, group_packed_ok, group_shape, roundup,
                            wordwise_k, wordwise_packed_ok)
from .staging import pinned, stager

__all__ = ["DevicePairs", "Pending", "run_batch", "run_group_batch", "KERNEL_FILE", "GROUP_KERNEL_FILE", "BLOCK"]

KERNEL_FILE = "bpbc.cu"
GROUP_KERNEL_FILE = "screen_group.cu"
PACK_FILE = "screen_pack.cu"
BLOCK = 128


class DevicePairs:
    """The codes of every pair on the GPU, uploaded once (each side end to end)
    through the pinned ring of :mod:`.staging`, asynchronously: :meth:`ready`
    gives the event after which a batch's codes have arrived, so batches start
    while later bytes are still on their way. :meth:`pack` writes a batch's
    padded rows. ``check``: test on the GPU that every code is at most
    ``N_CODE`` (for inputs that were not checked on the host); codes above it
    are read as ``N`` until :meth:`verify` raises."""

    def __init__(self, cp, qcat, qoff, tcat, toff, swap, timings: ScreenTimings, stream, check: bool = False):
        self._cp = cp
        self._timings = timings
        self.stream = stream  # of the upload and the code check
        self.start, self.end = cp.cuda.Event(), cp.cuda.Event()
        t_host = time.perf_counter()
        # small arrays first, then the query codes, then the target codes
        host = [np.ascontiguousarray(x) for x in (qoff, toff, swap.astype(np.uint8), qcat, tcat)]
        dev = [cp.empty(max(x.size, 1), dtype=x.dtype) for x in host]
        self._host = host
        self.start.record(self.stream)
        self._upload = stager(cp).upload(list(zip(host, dev)), self.stream)
        self.qoff, self.toff, self.swap, self.q, self.t = dev
        mod = runtime.get_module(PACK_FILE)
        self._pack = mod.get_function("pk_rows")
        self._check = mod.get_function("pk_check") if check else None
        self._flag = None
        timings.host_ms += (time.perf_counter() - t_host) * 1e3

    def ready(self, idx: np.ndarray):
        """Event after which the codes of pairs ``idx`` are on the GPU."""
        last = int(idx.max()) + 1  # targets are sent after all the queries
        return self._upload.ready(4, int(self._host[1][last]))

    def finish(self) -> None:
        """Call once every batch is launched: the end of the upload, then the code check."""
        t_host = time.perf_counter()
        self._upload.finish()
        self._timings.host_ms += (time.perf_counter() - t_host) * 1e3
        self.end.record(self.stream)
        if self._check is not None:
            cp = self._cp
            with self.stream:  # the flag is zeroed and read on the upload stream (not the null stream)
                self._flag = cp.zeros(2, dtype=np.uint32)
                for k, d in enumerate((self.q, self.t)):
                    self._check((1024,), (256,), (d, np.int64(self._host[3 + k].size), np.uint32(N_CODE),
                                                  self._flag[k:]))

    def h2d_ms(self) -> float:
        self.end.synchronize()
        return self._cp.cuda.get_elapsed_time(self.start, self.end)

    def verify(self) -> None:
        """Raise :class:`InputError` naming the first pair with a code above ``N_CODE``."""
        if self._flag is None:
            return
        self.stream.synchronize()
        flags = self._flag.get()
        sides = (("query", flags[0], self._host[3], self._host[0]), ("target", flags[1], self._host[4], self._host[1]))
        for side, f, h, off in sides:
            if f:
                bad = int(np.flatnonzero(h > N_CODE)[0])
                i = int(np.searchsorted(off, bad, side="right")) - 1
                raise InputError(f"{side} {i}: DNA codes must be 0..{N_CODE} (A C G T N), got {int(h[bad])}",
                                 param="queries" if side == "query" else "targets")

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


class Pending:
    """A launched batch: :meth:`collect` waits for its scores and adds the
    times of its phases (six events on its stream) to the timings."""

    def __init__(self, cp, stream, wait, prepare, phases, out_h, scores_d, info: dict, padded_cells: int, npairs: int):
        self._cp = cp
        self.ev = [cp.cuda.Event() for _ in range(6)]
        self.end = self.ev[5]
        self._keep = (prepare, phases, scores_d)  # device buffers live until the copy back is done
        self._out, self._info, self._cells, self._n = out_h, info, padded_cells, npairs
        rt = cp.cuda.runtime
        ev = self.ev
        with stream:
            if wait is not None:
                stream.wait_event(wait)  # this batch's codes have arrived
            ev[0].record(stream)
            prepare(stream)
            ev[1].record(stream)
            for k, phase in enumerate(phases):
                if phase is not None:
                    phase()
                ev[2 + k].record(stream)
            rt.memcpyAsync(out_h.ctypes.data, scores_d.data.ptr, out_h.nbytes, rt.memcpyDeviceToHost, stream.ptr)
            ev[5].record(stream)

    def collect(self, timings: ScreenTimings) -> np.ndarray:
        cp, ev = self._cp, self.ev
        ev[5].synchronize()
        el = [cp.cuda.get_elapsed_time(ev[i], ev[i + 1]) for i in range(5)]
        timings.h2d_ms += el[0]
        timings.transpose_ms += el[1]
        timings.sw_ms += el[2]
        timings.untranspose_ms += el[3]
        timings.d2h_ms += el[4]
        timings.padded_cells += self._cells
        self._info.update(pack_ms=el[0], transpose_ms=el[1], sw_ms=el[2], untranspose_ms=el[3], d2h_ms=el[4])
        timings.batches.append(self._info)
        self._keep = None
        return np.array(self._out[: self._n], dtype=np.int32)


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
    h_idx = pinned(cp, (max(idx.size, 1),), np.int64)
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
              stream, wait, rows_per_lane: int | None = None) -> Pending:
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
    out_h = pinned(cp, (rows,), np.int32)
    timings.host_ms += (time.perf_counter() - t_host) * 1e3
    return Pending(cp, stream, wait, prepare, phases, out_h, scores_d, info, rows * m_pad * n_pad, npairs)


def run_group_batch(cp, pairs: DevicePairs, idx, nlen, m_max, n_max, bound, params, timings: ScreenTimings,
                    stream, wait, group_size: int | None = None) -> Pending:
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
    lh = pinned(cp, (ngroups,), np.int32)
    nl = np.zeros(rows, dtype=np.int32)
    nl[:npairs] = nlen[idx]
    lh[:] = nl.reshape(ngroups, 2).max(axis=1)
    prepare = _prepare(cp, pairs, idx, rows, ((qd, m_pad, pack4, False), (td, n_pad, pack4, True)),
                       extra=((lend, lh),))
    out_h = pinned(cp, (rows,), np.int32)
    timings.host_ms += (time.perf_counter() - t_host) * 1e3

    i32 = np.int32

    def score():
        sw(_grid(ngroups * G), (BLOCK,), (qd, td, lend, scores_d, scratch, i32(ngroups), i32(m_pad), i32(n_pad)))

    return Pending(cp, stream, wait, prepare, (None, score, None), out_h, scores_d, info, rows * m_pad * n_pad,
                   npairs)
