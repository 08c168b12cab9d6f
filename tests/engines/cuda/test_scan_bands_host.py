"""The banded GPU scanner's host logic on the CPU (the stand-ins of
``test_scan_host``): every strip of every problem runs in exactly one band,
the bands' rows lie apart in the shared host memory, only the last band's
GPU applies the end-point rule, and the end points equal the CPU engine's."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu import Scoring
from swgpu.engines import get_engine
from swgpu.engines.cuda import runtime
from swgpu.engines.cuda.scan_plan import FIELDS

from test_scan_host import _case, _Ctx, _fake_cupy, _Kernels


class _Pinned:
    made = 0

    def __init__(self, size, flags=0):
        assert flags == 3, "portable and mapped"
        self.buf = bytearray(size)
        _Pinned.made += 1
        self.ptr = _Pinned.made << 40


class _BandKernels(_Kernels):
    def __init__(self, scoring, log):
        super().__init__(scoring)
        self.log = log

    def _band(self, A, B, desc, nprob, band, band_first, round_first, nrounds, M, K, go, ge, rows, progress, ext_in,
              ext_out, pin, pout):
        d = np.asarray(desc).reshape(-1, FIELDS)
        b = np.asarray(band).reshape(-1, 4)
        bf, rf = np.asarray(band_first), np.asarray(round_first)
        assert rf.size == int(nrounds) + 1 and rf[0] == 0 and rf[-1] == bf[-1] and (np.diff(rf) <= 8 * 8).all()
        assert (np.diff(bf) == b[:, 1] - b[:, 0]).all()
        self.log.append((b.copy(), (int(ext_in), int(ext_out)), int(pin), int(pout)))
        for p in range(int(nprob)):
            own = int(b[p, 1] - b[p, 0])
            self._colmax_into(A, B, d[p], rows, ((own - 1) & 1) * 3 * (int(d[p, 3]) + 1))


@pytest.fixture
def banded(monkeypatch):
    import swgpu.engines.cuda.scan_bands as scan_bands

    log = []
    cp = _fake_cupy()
    cp.cuda.PinnedMemory, cp.cuda.PinnedMemoryPointer = _Pinned, lambda mem, off: memoryview(mem.buf)[off:]
    monkeypatch.setattr(runtime, "cupy", lambda: cp)
    monkeypatch.setattr(_Ctx, "synchronize", lambda self: None, raising=False)
    monkeypatch.setattr(runtime, "resident_blocks", lambda *a, **k: 8)
    kernels = {}

    def module(name, *a, **k):
        return kernels["k"]

    monkeypatch.setattr(runtime, "get_module", module)

    def make(scoring, count):
        kernels["k"] = _BandKernels(scoring, log)
        scanner = scan_bands.BandedGenomeScanner(scoring, list(range(count)))
        for s in scanner.scanners:
            s.long_query = 300
        return scanner, kernels["k"]
    return make, log


@pytest.mark.parametrize("count", [2, 3])
@pytest.mark.parametrize("rows", ["8", "16", ""])
def test_bands_cover_every_strip_once_and_give_the_cpu_end_points(banded, monkeypatch, count, rows):
    monkeypatch.setenv("SWGPU_BAND_ROWS", rows)
    make, log = banded
    scoring = Scoring.default("dna")
    queries, genome, bounds = _case(4)
    queries = [q for q in queries if q.size >= 300 * 2]  # long: a strip of 512 rows and more
    queries = [np.concatenate([q] * 3) for q in queries]  # (at least `count` strips each)
    scanner, kernels = make(scoring, count)
    got = scanner.candidates(queries, genome, bounds, 5, 20)
    assert scanner.last_timings["bands"] == count
    want = get_engine("cpu").genome_scanner(scoring).candidates(queries, genome, bounds, 5, 20)
    for (ca, sa), (cb, sb) in zip(got, want):
        assert ca.tolist() == cb.tolist() and sa.tolist() == sb.tolist()
    assert kernels.launches.get("sc_points") == 1  # the last band's GPU only
    assert len(log) == count
    d = scanner.scanners[-1]._last_plan.batches[0].d
    r = scanner.last_timings["rows_per_lane"]
    assert r in (8, 16) and (not rows or r == int(rows))
    strips = -(-d[:, 1] // (32 * r))
    assert len(scanner.last_timings["band_seconds"]) == count
    lo = np.stack([b[:, 0] for b, *_ in log])
    hi = np.stack([b[:, 1] for b, *_ in log])
    assert (lo[0] == 0).all() and (hi[-1] == strips).all() and (lo[1:] == hi[:-1]).all() and (hi > lo).all()
    ins = np.stack([b[:, 2] for b, *_ in log])
    outs = np.stack([b[:, 3] for b, *_ in log])
    assert (ins[0] == -1).all() and (outs[-1] == -1).all() and (ins[1:] == outs[:-1]).all()
    for row in outs[:-1]:  # each boundary's rows apart
        spans = sorted((int(a), int(a) + 3 * (int(n) + 1)) for a, n in zip(row, d[:, 3]))
        assert all(x[1] <= y[0] for x, y in zip(spans, spans[1:]))
    assert [pin for _, _, pin, _ in log[1:]] == [pout for _, _, _, pout in log[:-1]]  # a boundary's two sides
    assert [e[0] for _, e, _, _ in log[1:]] == [e[1] for _, e, _, _ in log[:-1]]
    assert len({pout for _, _, _, pout in log[:-1]}) == count - 1  # a boundary each


def test_rounds_hold_whole_bands_where_they_fit():
    from swgpu.engines.cuda.scan import _rounds

    assert _rounds([488] * 6, 2112).tolist() == [0, 1952, 2928]
    assert _rounds([5000], 2112).tolist() == [0, 2112, 4224, 5000]
    assert _rounds([10, 3000, 5], 2112).tolist() == [0, 10, 2122, 3015]
    assert _rounds([], 8).tolist() == [0, 0]  # (one empty round)


def test_short_queries_run_on_the_last_gpu(banded):
    make, log = banded
    scoring = Scoring.default("dna")
    queries, genome, bounds = _case(2)
    scanner, kernels = make(scoring, 2)
    scanner.candidates(queries[:3], genome, bounds, 5, 10)
    assert scanner.last_timings["bands"] == 1 and not log


def test_gpus_that_lay_out_other_problems_run_on_the_last_gpu(banded, monkeypatch):
    """Bands need the same problems on every GPU (GPUs of other sizes may cut records otherwise)."""
    make, log = banded
    scoring = Scoring.default("dna")
    queries, genome, bounds = _case(4)
    queries = [np.concatenate([q] * 3) for q in queries if q.size >= 600]
    scanner, kernels = make(scoring, 2)
    real = scanner.scanners[0]._plan

    def other(*a, **k):  # this GPU's plan: its problems' windows one column narrower
        plan = real(*a, **k)
        d = plan.batches[0].d.copy()
        d[:, 3] -= 1
        plan.batches[0].d = d
        return plan
    monkeypatch.setattr(scanner.scanners[0], "_plan", other)
    assert not scanner.takes(queries, bounds, 5)
    got = scanner.candidates(queries, genome, bounds, 5, 20)
    assert scanner.last_timings["bands"] == 1 and not log
    want = get_engine("cpu").genome_scanner(scoring).candidates(queries, genome, bounds, 5, 20)
    for (ca, sa), (cb, sb) in zip(got, want):
        assert ca.tolist() == cb.tolist() and sa.tolist() == sb.tolist()
