"""The GPU scanner's host logic on the CPU: a stand-in for CuPy (NumPy arrays)
and for the kernels of ``kernels/scan.cu`` (the CPU reference's column
maxima written where each kernel writes them, the end-point rule of
``sc_points``), so that the problem layout, the batches and their row
offsets, the pairing, the genome slice, the collection of end points and the
choice of each query's best ones are checked against the CPU engine without
a GPU."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from swgpu import Scoring
from swgpu.align.scan_rule import end_points
from swgpu.engines import get_engine
from swgpu.engines.cpu.scan_kernels import column_maxima, query_profile
from swgpu.engines.cuda import runtime
from swgpu.engines.cuda import scan as cuda_scan
from swgpu.engines.cuda import scan_best, scan_plan

FIELDS = scan_plan.FIELDS


class _Array(np.ndarray):
    def get(self):
        return np.asarray(self).copy()


def _dev(x, dtype=None):
    return np.array(x, dtype=dtype).view(_Array)


class _Ctx:
    def __init__(self, *a, **k):
        self.attributes = {"MultiProcessorCount": 132}
        self.mem_info = (80 << 30, 80 << 30)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def wait_event(self, event):
        pass


def _fake_cupy():
    cuda = SimpleNamespace(Device=_Ctx, Stream=_Ctx, Event=lambda: SimpleNamespace(record=lambda *a: None, synchronize=lambda: None),
                           get_elapsed_time=lambda a, b: 0.0)
    return SimpleNamespace(
        cuda=cuda, int64=np.int64, asarray=lambda x, dtype=None: _dev(x, dtype),
        zeros=lambda n, dtype: _dev(np.zeros(n, dtype)), empty=lambda n, dtype: _dev(np.full(n, -7, dtype)),
        arange=lambda *a, **k: _dev(np.arange(*a, **k)),
        concatenate=lambda xs: _dev(np.concatenate([np.asarray(x) for x in xs])),
        stack=lambda xs: _dev(np.stack([np.asarray(x) for x in xs])),
        lexsort=lambda keys: _dev(np.lexsort(np.asarray(keys))))


class _Kernels:
    """The kernels of scan.cu by name, as NumPy functions; counts launches."""

    def __init__(self, scoring: Scoring):
        self.matrix = np.ascontiguousarray(scoring.matrix.values, dtype=np.int32)
        self.go, self.ge = scoring.gap_open, scoring.gap_extend
        self.launches: dict[str, int] = {}

    def get_function(self, name: str):
        def launch(grid, block, args):
            self.launches[name] = self.launches.get(name, 0) + 1
            kind = name.split("_")[1]
            getattr(self, "_" + kind)(*args)
        return launch

    def _colmax_into(self, A, B, d, rows, at):
        m, n = int(d[1]), int(d[3])
        prof = query_profile(np.asarray(A[d[0]:d[0] + m]), self.matrix)
        out = np.zeros(n, dtype=np.int32)
        column_maxima(prof, np.asarray(B[d[2]:d[2] + n]), 0, n, self.go, self.ge, out)
        base = int(d[4]) + at + 2 * (n + 1)
        rows[base + 1:base + 1 + n] = out

    def _colmax(self, A, B, desc, nprob, M, K, go, ge, rows):
        for d in np.asarray(desc).reshape(-1, FIELDS)[:int(nprob)]:
            self._colmax_into(A, B, d, rows, 0)

    def _pair(self, A, B, desc, pairs, npairs, M, K, go, ge, rows):
        d = np.asarray(desc).reshape(-1, FIELDS)
        for a, b in np.asarray(pairs).reshape(-1, 2)[:int(npairs)]:
            assert d[a, 0] == d[b, 0] and d[a, 1] == d[b, 1], "a pair of two queries"
            self._colmax_into(A, B, d[a], rows, 0)
            self._colmax_into(A, B, d[b], rows, 0)

    def _long(self, A, B, desc, nprob, strip_first, total, M, K, go, ge, rows, progress):
        d = np.asarray(desc).reshape(-1, FIELDS)
        sf = np.asarray(strip_first)
        for p in range(int(nprob)):
            strips = int(sf[p + 1] - sf[p])
            self._colmax_into(A, B, d[p], rows, ((strips - 1) & 1) * 3 * (int(d[p, 3]) + 1))

    def _rowscan(self, A, B, desc, nprob, tile_first, M, K, go, ge, rows, i, *rest):
        if int(i) == 1:  # the column maxima of all rows, once
            for d in np.asarray(desc).reshape(-1, FIELDS)[:int(nprob)]:
                self._colmax_into(A, B, d, rows, 0)

    _rowchain = _rowscan

    @staticmethod
    def _held(rows, D, p, side):
        """(first genome column, column maxima) that problem ``p`` holds for
        the rule: its own columns, and on a side without a neighbour
        (``side``: 1 before, 2 after) its window's columns there."""
        d = D[p]
        n = int(d[3])
        base = int(d[4]) + 2 * (n + 1) + 1
        lo = int(d[5]) if (d[11] & 1) or side == 2 else 0
        hi = int(d[6]) if (d[11] & 2) or side == 1 else n
        return int(d[9]) + lo, np.asarray(rows[base + lo:base + hi])

    def _points(self, rows, desc, nprob, cols, scores, slots, count, cap):
        D = np.asarray(desc).reshape(-1, FIELDS)
        for p in range(int(nprob)):
            d = D[p]
            # the maxima the rule reads: this problem's, then its neighbours' on each side
            start, line = self._held(rows, D, p, 0)
            q = p
            while D[q, 11] & 1:
                q -= 1
                g, v = self._held(rows, D, q, 1)
                assert g + v.size == start and D[q, 10] == d[10], "neighbours of one query, end to end"
                start, line = g, np.concatenate([v, line])
            q = p
            while D[q, 11] & 2:
                q += 1
                g, v = self._held(rows, D, q, 2)
                assert g == start + line.size and D[q, 10] == d[10], "neighbours of one query, end to end"
                line = np.concatenate([line, v])
            own = (int(d[9] + d[5]) - start, int(d[9] + d[6]) - start)
            c, s = end_points(line, 0, line.size, int(d[7]), int(d[8]), own)
            c = c + start - int(d[9])
            k = int(count[0])
            room = max(0, min(c.size, int(cap) - k))
            cols[k:k + room], scores[k:k + room], slots[k:k + room] = c[:room] + d[9], s[:room], d[10]
            count[0] = k + c.size


@pytest.fixture
def fake_gpu(monkeypatch):
    made = {}

    def module(name, *a, **k):
        return made["kernels"]

    monkeypatch.setattr(runtime, "cupy", _fake_cupy)
    monkeypatch.setattr(runtime, "get_module", module)
    monkeypatch.setattr(runtime, "resident_blocks", lambda *a, **k: 8)

    def scanner(scoring, method="auto"):
        made["kernels"] = _Kernels(scoring)
        return cuda_scan.CudaGenomeScanner(scoring, 0, method), made["kernels"]
    return scanner


SCORINGS = [Scoring.default("dna"), Scoring.build("dna", match=1, mismatch=-2, gap_open=6, gap_extend=1),
            Scoring.build("dna", match=40, mismatch=-60, gap_open=80, gap_extend=10)]


def _case(seed):
    rng = np.random.default_rng(seed)
    sizes = (1, 700, 5_000, 12_000)
    genome = rng.integers(0, 5, sum(sizes)).astype(np.uint8)
    bounds = np.cumsum([0, *sizes])
    queries = [rng.integers(0, 4, n).astype(np.uint8) for n in (1, 20, 64, 64, 300, 450, 700, 1300)]
    for q in queries[1:]:  # planted copies
        at = int(rng.integers(0, genome.size - q.size))
        genome[at:at + q.size] = q
    return queries, genome, bounds


@pytest.mark.parametrize("scoring", SCORINGS, ids=["2/-3/5/2", "1/-2/6/1", "40/-60/80/10"])
@pytest.mark.parametrize("shape", ["default", "small batches", "query batches", "long kernel", "rowscan",
                                   "wide windows"])
def test_end_points_equal_the_cpu_engine(fake_gpu, monkeypatch, scoring, shape):
    queries, genome, bounds = _case(len(shape))
    gpu, kernels = fake_gpu(scoring, "rowscan" if shape == "rowscan" else "auto")
    if shape == "small batches":  # many batches, end points collected between them; a query's problems
        monkeypatch.setattr(scan_plan, "ROW_BUDGET", 9_000)  # need more than a batch (no neighbours read)
        monkeypatch.setattr(cuda_scan, "OUT_BUDGET", 2_000)
    if shape == "query batches":  # batches of whole queries, neighbours read
        monkeypatch.setattr(scan_plan, "ROW_BUDGET", 400_000)
        monkeypatch.setattr(cuda_scan, "OUT_BUDGET", 2_000)
        monkeypatch.setattr(scan_plan, "MIN_WINDOW", 512)
        gpu.window = 512
    if shape == "long kernel":
        gpu.long_query = 300
    if shape == "wide windows":  # one problem a wave: the widest windows
        monkeypatch.setattr(scan_plan, "FILL_WARPS", 0)
    cpu = get_engine("cpu").genome_scanner(scoring)
    batches = []
    real_batch = gpu._batch
    monkeypatch.setattr(gpu, "_batch", lambda A, B, b, *a: batches.append(b.d[:, 11].copy()) or real_batch(A, B, b, *a))
    total = int(bounds[-1])
    for own, radius, floor, keep in ((None, None, 5, 30), ((2_000, 15_000), 40, 12, 4), ((0, total), None, 1, 1000)):
        a = gpu.candidates(queries, genome, bounds, floor, keep, own=own, radius=radius)
        b = cpu.candidates(queries, genome, bounds, floor, keep, own=own, radius=radius)
        for (ca, sa), (cb, sb) in zip(a, b):
            assert ca.tolist() == cb.tolist() and sa.tolist() == sb.tolist()
    linked = [bool(b.any()) for b in batches]
    if shape == "small batches":  # a query's problems span batches: none reads a neighbour
        assert len(batches) > 3 and not any(linked)
    if shape == "query batches":  # (a call whose queries need more than a batch each does not link them)
        assert len(batches) > 3 and any(linked)
    if shape == "default":
        assert all(linked)
    if shape in ("default", "small batches") and scoring is not SCORINGS[2]:
        assert kernels.launches.get("sc_pair_p1", 0) + kernels.launches.get("sc_pair_p2", 0) > 0
    if shape == "long kernel":
        assert any(k.startswith("sc_long") for k in kernels.launches)
    if shape == "rowscan":
        assert set(k for k in kernels.launches if k.startswith("sc_row")) == {"sc_rowchain"}


def test_end_points_chosen_on_either_side(fake_gpu, monkeypatch):
    queries, genome, bounds = _case(3)
    gpu, _ = fake_gpu(SCORINGS[0])
    want = gpu.candidates(queries, genome, bounds, 3, 5)
    monkeypatch.setattr(scan_best, "HOST_SORT", 0)  # the device path of the stand-in
    got = gpu.candidates(queries, genome, bounds, 3, 5)
    for (ca, sa), (cb, sb) in zip(got, want):
        assert ca.tolist() == cb.tolist() and sa.tolist() == sb.tolist()


def test_windows_fill_whole_waves(fake_gpu):
    gpu, _ = fake_gpu(SCORINGS[1])
    q = [np.zeros(256, np.uint8)]
    widest = scan_plan.WIDEST * scan_plan.WINDOW

    def problems(queries, lengths, width):
        return len(queries) * sum(-(-n // width) for n in lengths)

    def narrowest(queries, lengths, warps):  # by brute force: the fewest whole waves, then the narrowest
        want = 2 * warps * 132  # problems of one wave (two a warp, 132 multiprocessors)
        waves = -(-problems(queries, lengths, widest) // want)
        width = next(w for w in range(scan_plan.MIN_WINDOW, widest + 1, 32)
                     if problems(queries, lengths, w) <= waves * want)
        return width, waves

    for queries, lengths in ((q, [4_000_000]), (q * 2, [4_640_000]), (q * 2, [3_000_000, 1_500_000, 200_000, 77]),
                             (q * 20, [4_640_000]), (q * 200, [4_640_000]), (q * 3, [50_000] * 40)):
        width, waves = narrowest(queries, lengths, scan_plan.FILL_WARPS)
        full, full_waves = narrowest(queries, lengths, scan_plan.FULL_WARPS)
        if waves == 1 and full_waves == 1 and full >= scan_plan.FULL_WINDOW:
            width = full
        assert gpu._short_window(queries, lengths) == width
    assert gpu._short_window(q * 2, [4_640_000]) == 2208  # one query, both strands: one wave of 16 warps
    assert gpu._short_window(q * 20, [4_640_000]) == 14_688  # ten: one wave of 24 warps
    assert gpu._short_window(q * 2000, [4_640_000]) == 65_376  # many: waves of windows near the widest
    assert gpu._short_window(q, [3_000]) == scan_plan.MIN_WINDOW  # too few letters to fill a wave
    gpu.window = 64
    assert gpu._short_window(q, [10_000]) == 64  # never narrower than asked
    gpu.fill = False
    assert gpu._short_window(q * 2000, [4_640_000]) == 64


def test_a_read_only_genome_stays_on_the_device(fake_gpu, monkeypatch):
    queries, genome, bounds = _case(4)
    gpu, _ = fake_gpu(SCORINGS[0])
    cpu = get_engine("cpu").genome_scanner(SCORINGS[0])
    want = cpu.candidates(queries, genome, bounds, 5, 30)
    uploads = []
    real = gpu._cp.asarray
    def upload(x, dtype=None):
        if np.asarray(x).dtype == np.uint8 and np.size(x) > 5_000:  # genome letters (the queries are 2,899)
            uploads.append(np.size(x))
        return real(x, dtype)
    monkeypatch.setattr(gpu._cp, "asarray", upload)
    frozen = genome.copy()
    frozen.flags.writeable = False
    # up once, whole; then read on the device; a writable genome goes up each call
    for g, own, sent in ((frozen, None, [genome.size]), (frozen, (2_000, 15_000), []), (genome, None, [genome.size]),
                         (genome, None, [genome.size])):
        uploads.clear()
        got = gpu.candidates(queries, g, bounds, 5, 30, own=own)
        if own is None:
            for (ca, sa), (cb, sb) in zip(got, want):
                assert ca.tolist() == cb.tolist() and sa.tolist() == sb.tolist()
        assert uploads == sent
    assert gpu._resident is None  # a writable genome is not kept


def test_a_plan_is_kept_for_calls_of_the_same_shape(fake_gpu):
    queries, genome, bounds = _case(5)
    gpu, _ = fake_gpu(SCORINGS[0])
    cpu = get_engine("cpu").genome_scanner(SCORINGS[0])
    rng = np.random.default_rng(9)
    frozen = genome.copy()
    frozen.flags.writeable = False
    plans = []
    # other letters, same lengths; the genome copied from column g0 on, then kept whole on the device
    for g in (genome, genome, frozen, genome):
        qs = [rng.integers(0, 4, q.size).astype(np.uint8) for q in queries]
        if g is not frozen:  # planted copies of the new queries
            g = g.copy()
            for q in qs[2:]:
                at = int(rng.integers(0, genome.size - q.size))
                g[at:at + q.size] = q
        got = gpu.candidates(qs, g, bounds, 5, 30, own=(3_000, 16_000))
        want = cpu.candidates(qs, g, bounds, 5, 30, own=(3_000, 16_000))
        for (ca, sa), (cb, sb) in zip(got, want):
            assert ca.tolist() == cb.tolist() and sa.tolist() == sb.tolist()
        plans.append(gpu._last_plan)
    assert all(p is plans[0] for p in plans)
    gpu.candidates(queries[:-1], genome, bounds, 5, 30, own=(3_000, 16_000))
    assert gpu._last_plan is not plans[0]


def test_layouts_of_many_records_equal_record_by_record(fake_gpu):
    gpu, _ = fake_gpu(SCORINGS[1])
    rng = np.random.default_rng(2)
    bounds = np.cumsum([0, *rng.integers(0, 30_000, 40)])
    for linked in (True, False):
        for m, first, end in ((64, 0, int(bounds[-1])), (300, 5_000, int(bounds[-1]) - 7_000)):
            got = gpu._layout(m, 200, m, 4_096, bounds, first, end, linked)
            rows = []
            for lo, hi in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
                starts = list(range(max(lo, first), min(hi, end), 4_096))
                for a in starts:
                    b = min(a + 4_096, hi, end)
                    before, after = linked and a != starts[0], linked and a != starts[-1]
                    w0, w1 = max(lo, a - (0 if before else m) - 199), min(hi, b + (0 if after else m))
                    rows.append([0, m, w0, w1 - w0, 0, a - w0, b - w0, m, 0, w0, 0, before + 2 * after])
            assert got.tolist() == rows


def test_ranked_below_keeps_the_first_of_each_run():
    rng = np.random.default_rng(3)
    for n in (0, 1, 2, 7, 300):
        for keep in (0, 1, 2, 5, 1000):
            slots = np.sort(rng.integers(0, max(1, n // 4), n)).astype(np.int32)
            rank = np.arange(n) - np.searchsorted(slots, slots, side="left")
            assert scan_best._ranked_below(slots, keep).tolist() == np.flatnonzero(rank < keep).tolist()


def test_end_points_gathered_early_stay_on_the_device():
    """Once a flush put end points on the device (``host_upto=0``), later
    ones go there too, found or not, so the parts are of one kind."""
    cp = _fake_cupy()

    def batch(found):
        return (_dev(np.arange(4, dtype=np.int64)), _dev(np.zeros(4, np.int32)), _dev(np.zeros(4, np.int32)),
                _dev([found], np.int64), 4)

    for found in (0, 3):
        out, host = scan_best.collect(cp, [batch(found)], host_upto=0)
        assert not host and isinstance(out[0][0], _Array) and out[0][0].size == found
    out, host = scan_best.collect(cp, [batch(3)], host_upto=scan_best.HOST_SORT)
    assert host and not isinstance(out[0][0], _Array)
