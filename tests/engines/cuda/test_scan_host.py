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
from swgpu.engines.cuda import scan_best

FIELDS = cuda_scan.FIELDS


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

    def _points(self, rows, desc, nprob, cols, scores, slots, count, cap):
        for d in np.asarray(desc).reshape(-1, FIELDS)[:int(nprob)]:
            n = int(d[3])
            base = int(d[4]) + 2 * (n + 1) + 1
            c, s = end_points(np.asarray(rows[base:base + n]), 0, n, int(d[7]), int(d[8]), (int(d[5]), int(d[6])))
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
@pytest.mark.parametrize("shape", ["default", "small batches", "long kernel", "rowscan", "wide windows"])
def test_end_points_equal_the_cpu_engine(fake_gpu, monkeypatch, scoring, shape):
    queries, genome, bounds = _case(len(shape))
    gpu, kernels = fake_gpu(scoring, "rowscan" if shape == "rowscan" else "auto")
    if shape == "small batches":  # many batches, end points collected between them
        monkeypatch.setattr(cuda_scan, "ROW_BUDGET", 9_000)
        monkeypatch.setattr(cuda_scan, "OUT_BUDGET", 2_000)
    if shape == "long kernel":
        gpu.long_query = 300
    if shape == "wide windows":
        monkeypatch.setattr(cuda_scan, "WAVES", 0)
    cpu = get_engine("cpu").genome_scanner(scoring)
    total = int(bounds[-1])
    for own, radius, floor, keep in ((None, None, 5, 30), ((2_000, 15_000), 40, 12, 4), ((0, total), None, 1, 1000)):
        a = gpu.candidates(queries, genome, bounds, floor, keep, own=own, radius=radius)
        b = cpu.candidates(queries, genome, bounds, floor, keep, own=own, radius=radius)
        for (ca, sa), (cb, sb) in zip(a, b):
            assert ca.tolist() == cb.tolist() and sa.tolist() == sb.tolist()
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


def test_windows_follow_the_work(fake_gpu):
    gpu, _ = fake_gpu(SCORINGS[1])
    q = [np.zeros(256, np.uint8)]
    assert gpu._short_window(q, 4_000_000) == 1792  # one query, one strand: narrowed to fill the GPU
    assert gpu._short_window(q * 2000, 4_640_000) == cuda_scan.WIDEST * cuda_scan.WINDOW  # many: widened
    gpu.window = 64
    assert gpu._short_window(q, 10_000) == 64  # never wider than asked when narrowing
    gpu.fill = False
    assert gpu._short_window(q * 2000, 4_640_000) == 64


def test_ranked_below_keeps_the_first_of_each_run():
    rng = np.random.default_rng(3)
    for n in (0, 1, 2, 7, 300):
        for keep in (0, 1, 2, 5, 1000):
            slots = np.sort(rng.integers(0, max(1, n // 4), n)).astype(np.int32)
            rank = np.arange(n) - np.searchsorted(slots, slots, side="left")
            assert scan_best._ranked_below(slots, keep).tolist() == np.flatnonzero(rank < keep).tolist()
