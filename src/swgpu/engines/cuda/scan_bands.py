"""Long queries' end points on several GPUs of this process, by rows.

Cutting the genome's columns into one part per GPU costs each part a lead-in:
its pass starts as many letters early as an alignment of the query can span
(a few Mbp for a 1 Mbp query), so that its column maxima are exact; for a
long query that lead is as long as the part itself. :class:`BandedGenomeScanner`
cuts by rows instead: every GPU takes the same problems (each record whole,
as one GPU would) and runs a band of each problem's strips of query rows --
GPU ``g`` the strips ``g * S / G`` to ``(g + 1) * S / G`` of the problem's
``S`` (``kernels/scan.cu``: ``sc_band``). The last strip of a band writes
its last row (``H``, the ``F`` entering the row below, and the column
maxima so far) into the next GPU's memory (peer access; host memory both
map where there is none), and publishes how many columns it has written;
the first strip of the next band reads them as they come, as the strips
within a GPU follow one another. The bands run at
once, each a few columns behind the one above; every cell is computed once,
and the last GPU applies the end-point rule to the column maxima of the
last row -- the end points one GPU finds.

A call whose problems are not all long (or whose problems need more than
one batch of row buffers) runs on the last GPU alone, as
:class:`~swgpu.engines.cuda.scan.CudaGenomeScanner` does. Bands given one
GPU twice run one after another (each band's kernel fills the GPU, so the
next could not start beside it): the same end points, for tests on one GPU.
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ...scoring import Scoring
from . import runtime
from .scan import BAND_ROWS, CudaGenomeScanner, _rounds
from .scan_plan import LONG_STRIP

__all__ = ["BandedGenomeScanner", "Band"]

_PORTABLE_MAPPED = 1 | 2  # cudaHostAllocPortable | cudaHostAllocMapped
#: The time of a strip of 8 rows a lane against half one of 16 (see
#: :meth:`BandedGenomeScanner.rows_per_lane`; measured on four H100s, packed DNA
#: scores, 16 warps a multiprocessor in both).
EIGHT_ROWS_COST = 1.55


@dataclass(eq=False)
class Band:
    """GPU ``index`` of ``count`` (strips of ``rows_per_lane`` rows a lane):
    where its first strips read the row above (``ext_in``: int offsets from
    the address ``rows_in`` per problem, -1 for the first band) and its last
    strips write theirs (``ext_out`` from ``rows_out``; -1 for the last
    band), and the progress ints of those rows (device-visible addresses)."""

    index: int
    count: int
    rows_per_lane: int
    rows_in: int
    rows_out: int
    progress_in: int
    progress_out: int
    ext_in: np.ndarray
    ext_out: np.ndarray

    @property
    def last(self) -> bool:
        return self.index == self.count - 1

    @property
    def key(self) -> tuple:
        return (self.index, self.count, self.rows_per_lane, self.rows_in, self.rows_out, self.progress_in,
                self.progress_out, self.ext_in.tobytes(), self.ext_out.tobytes())


class BandedGenomeScanner:
    """A :class:`~swgpu.engines.base.GenomeScanner` over the GPUs
    ``device_ids`` of this process (see the module docs)."""

    def __init__(self, scoring: Scoring, device_ids, method: str = "auto"):
        ids = [int(d) for d in device_ids]
        if not ids:
            raise ValueError("a banded scan needs at least one GPU")
        with ThreadPoolExecutor(len(ids)) as pool:  # (the GPUs' contexts start at once)
            self.scanners = list(pool.map(lambda d: CudaGenomeScanner(scoring, d, method), ids))
        self.devices = ids
        self.serial = len(set(ids)) != len(ids)  # a GPU given twice: its bands one after another
        self._linked: set = set()  # (GPU, peer) pairs with peer access on
        self.last_timings: dict = {}
        self._cp = runtime.cupy()

    def bandable(self, plan) -> bool:
        """Whether ``plan`` runs in bands: one batch, every problem long, each with a strip per GPU."""
        if len(self.scanners) < 2 or len(plan.batches) != 1 or self.scanners[0].method != "auto":
            return False
        batch = plan.batches[0]
        return bool(batch.long.all()) and int((-(-batch.d[:, 1] // LONG_STRIP)).min()) >= len(self.scanners)

    def _boundaries(self, count: int, ints: int, nprob: int):
        """The rows handed between bands: for each of ``count`` boundaries,
        ``ints`` ints of rows and ``nprob`` progress ints (zeroed), in the
        memory of the GPU below where the GPU above can write it (peer
        access), else in host memory both map. Returns what holds them and
        each boundary's two addresses."""
        cp = self._cp
        held, links = [], []
        for b in range(count):
            up, down = self.devices[b], self.devices[b + 1]
            if up == down or self._peer(up, down):
                with cp.cuda.Device(down):
                    rows, progress = cp.empty(ints, dtype=np.int32), cp.zeros(nprob, dtype=np.int32)
                    cp.cuda.Device(down).synchronize()  # (zeroed before the GPU above writes)
                held.append((rows, progress))
                links.append((int(rows.data.ptr), int(progress.data.ptr)))
            else:
                mem = cp.cuda.PinnedMemory(4 * (ints + nprob), _PORTABLE_MAPPED)
                np.frombuffer(cp.cuda.PinnedMemoryPointer(mem, 4 * ints), dtype=np.int32, count=nprob)[:] = 0
                held.append(mem)
                links.append((int(mem.ptr), int(mem.ptr) + 4 * ints))
        return held, links

    def _peer(self, up: int, down: int) -> bool:
        """Whether GPU ``up`` writes GPU ``down``'s memory (peer access turned on once)."""
        if (up, down) in self._linked:
            return True
        try:
            rt = self._cp.cuda.runtime
            if not rt.deviceCanAccessPeer(up, down):
                return False
            with self._cp.cuda.Device(up):
                try:
                    rt.deviceEnablePeerAccess(down)
                except rt.CUDARuntimeError as exc:  # (on already: cudaErrorPeerAccessAlreadyEnabled)
                    if "AlreadyEnabled" not in str(exc):
                        raise
        except Exception:  # no peer access: host memory
            return False
        self._linked.add((up, down))
        return True

    def rows_per_lane(self, plan) -> int:
        """The rows per lane of the band kernel for ``plan``: the shape whose
        rounds of strips (``_rounds``: as many strips a round as the GPU
        holds warps) cover the fewest rows, counting an 8-row strip as
        :data:`EIGHT_ROWS_COST` of its rows (more of a warp's time goes to
        moving values between lanes). ``SWGPU_BAND_ROWS`` (8 or 16) sets it."""
        forced = os.environ.get("SWGPU_BAND_ROWS", "")
        if forced.strip() in ("8", "16"):
            return int(forced)
        count, m = len(self.scanners), plan.batches[0].d[:, 1]
        warps = self.scanners[-1]._band_warps

        def cost(r: int) -> float:
            strips = -(-m // (32 * r))
            band = -(-strips // count)
            return (_rounds(band, warps[r]).size - 1) * 32 * r * (EIGHT_ROWS_COST if r == 8 else 1.0)
        return min(BAND_ROWS, key=cost)

    def takes(self, queries, bounds, min_score, own=None, radius=None, max_span=None) -> bool:
        """Whether a call with these arguments runs in bands: its plan is
        :meth:`bandable`, and every GPU lays out the same problems (GPUs of
        other sizes could cut the records differently)."""
        return self._banded_plan(*_arguments(queries, bounds, min_score), own, radius, max_span) is not None

    def _banded_plan(self, queries, bounds, floors, own, radius, max_span):
        """The last GPU's plan of the call when it runs in bands (see :meth:`takes`), else None."""
        plans = [s._plan(queries, bounds, floors, own, radius, max_span) for s in self.scanners]
        if not self.bandable(plans[-1]):
            return None
        d = plans[-1].batches[0].d
        return plans[-1] if all(len(p.batches) == 1 and np.array_equal(p.batches[0].d, d) for p in plans) else None

    def candidates(self, queries, genome, bounds, min_score, keep: int, on_done=None, own=None, radius=None,
                   max_span=None):
        """See :class:`~swgpu.engines.base.GenomeScanner`."""
        last = self.scanners[-1]
        queries, bounds, floors = _arguments(queries, bounds, min_score)
        plan = self._banded_plan(queries, bounds, floors, own, radius, max_span)
        if plan is None:
            out = last.candidates(queries, genome, bounds, min_score, keep, on_done, own, radius, max_span)
            self.last_timings = dict(last.last_timings, bands=1)
            return out
        count = len(self.scanners)
        d = plan.batches[0].d
        nprob = d.shape[0]
        sizes = 3 * (d[:, 3] + 1)  # H, F and C of a problem's row
        at = np.zeros(nprob, dtype=np.int64)
        np.cumsum(sizes[:-1], out=at[1:])
        held, links = self._boundaries(count - 1, int(sizes.sum()), nprob)  # (rows, progress) addresses
        none = np.full(nprob, -1, dtype=np.int64)
        rows = self.rows_per_lane(plan)

        def band(g: int) -> Band:  # boundary b lies between bands b and b + 1 (unused ends: boundary 0's)
            above, below = links[max(g - 1, 0)], links[min(g, count - 2)]
            return Band(g, count, rows, above[0], below[0], above[1], below[1], at if g > 0 else none,
                        at if g < count - 1 else none)

        queued, seconds = [], {}
        try:
            for g, scanner in enumerate(self.scanners[:-1]):  # (each band only waits on the ones before it)
                scanner.queue_band(queries, genome, bounds, floors, band(g), own, radius, max_span)
                queued.append(scanner)
                if self.serial:
                    seconds[g] = scanner.finish_band()
            out = last.candidates(queries, genome, bounds, min_score, keep, on_done, own, radius, max_span,
                                  band=band(count - 1))
        finally:
            for g, scanner in enumerate(queued):
                seconds.setdefault(g, scanner.finish_band())
            with self._cp.cuda.Device(last.device_id):  # (an error after its launch: its kernel still reads them)
                last._stream.synchronize()
            del held
        self.last_timings = dict(last.last_timings, bands=count, rows_per_lane=rows,
                                 band_seconds=[seconds[g] for g in range(count - 1)] + [last.last_timings["kernel"]])
        return out


def _arguments(queries, bounds, min_score):
    """The queries as code arrays, the bounds as int64 and a floor per query."""
    queries = [np.ascontiguousarray(q, dtype=np.uint8) for q in queries]
    floors = [int(min_score)] * len(queries) if np.ndim(min_score) == 0 else [int(x) for x in min_score]
    return queries, np.asarray(bounds, dtype=np.int64), floors
