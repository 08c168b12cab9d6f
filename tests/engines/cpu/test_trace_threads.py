"""The CPU traceback of long pairs on SIMD passes and threads (the end and
start passes with a bonus pair, :mod:`swgpu.engines.cpu.anchored`; the
pipelined striped pass, :mod:`~swgpu.engines.cpu.striped_threads`; the
Myers-Miller levels on threads, :mod:`~swgpu.engines.cpu.levels`) give the
alignments of the previous implementation, kept here as the oracle: the
scalar row kernels of :mod:`swgpu.engines.cpu.pairwise` for every pass, one
piece after another (:func:`swgpu.align.traceback.local_align`)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from oracle import last_column_alignment

from swgpu import Scoring, Sequence
from swgpu.align import reference
from swgpu.align.traceback import BASE_CELLS, global_ops, local_align
from swgpu.engines.cpu import anchored, pairwise, striped_threads
from swgpu.engines.cpu.levels import global_ops_threads
from swgpu.engines.cpu.striped import sw_end_striped
from swgpu.engines.cpu.striped_threads import sw_end_threads
from swgpu.engines.cpu.tracer import CpuTracer, SimdKernels

SCORINGS = {"2/-3/5/2": Scoring.default("dna"), "1/-1/1/1": Scoring.build("dna", match=1, mismatch=-1, gap_open=1, gap_extend=1),
            "5/-4/9/1": Scoring.build("dna", match=5, mismatch=-4, gap_open=9, gap_extend=1)}


class ScalarKernels:
    """The previous traceback: every pass on the scalar row kernels."""

    @staticmethod
    def sw_end(q, t, matrix, go, ge):
        return tuple(int(x) for x in pairwise.sw_end(q, t, matrix, go, ge))

    @staticmethod
    def sw_end_last(q, t, matrix, go, ge):
        return tuple(int(x) for x in pairwise.sw_end_last(q, t, matrix, go, ge))

    @staticmethod
    def sw_start(rq, rt, matrix, go, ge, best):
        return tuple(int(x) for x in pairwise.sw_start(rq, rt, matrix, go, ge, best))

    nw_last_row = staticmethod(pairwise.nw_last_row)
    nw_path = staticmethod(pairwise.nw_path)


def _tracer(scoring, threads, base_cells=BASE_CELLS):
    tracer = CpuTracer(SimdKernels(), scoring, base_cells)
    tracer.threads = threads
    return tracer


def _dna(name, codes):
    return Sequence.from_text(name, "".join("ACGTN"[c] for c in np.asarray(codes).tolist()), "dna")


def _mutate(rng, codes, rate=0.05, indels=3, longest=40):
    out = codes.copy()
    hit = rng.random(out.size) < rate
    out[hit] = (out[hit] + rng.integers(1, 4, int(hit.sum()))) % 4
    for _ in range(indels):
        at, k = int(rng.integers(1, out.size - 1)), int(rng.integers(1, longest))
        out = np.delete(out, np.s_[at:at + k]) if rng.random() < 0.5 else np.insert(out, at, rng.integers(0, 4, k))
    return out.astype(np.uint8)


def _cases(n, seed=11):
    """Adversarial long pairs ``(name, query codes, target codes)`` of about ``n`` letters."""
    rng = np.random.default_rng(seed)
    base = rng.integers(0, 4, n).astype(np.uint8)
    flank = (base[: n // 8] + 1) % 4  # every letter a mismatch against the target there
    gap = np.concatenate([base[: n // 3], base[n // 3 + n // 10:]])
    nrun = base.copy()
    nrun[n // 4: n // 4 + n // 20] = 4
    tn = base.copy()
    tn[n // 2: n // 2 + 500] = 4
    rc = (3 - _mutate(rng, base)[::-1]).astype(np.uint8)
    return [("identical", base, base),
            ("mutated", _mutate(rng, base), base),
            ("mismatch-flanks", np.concatenate([flank, _mutate(rng, base), flank]), base),
            ("long-gap", gap, _mutate(rng, base, indels=1, longest=n // 20)),
            ("n-runs", nrun, tn),
            ("minus-strand", rc, base)]


def _check(cases, scoring, threads, base_cells, end_at_last, window=None):
    tracer = _tracer(scoring, threads, base_cells)
    for name, q, t in cases:
        if end_at_last and window:
            t = t[: window]
        qs, ts = _dna("q", q), _dna("t", t)
        want = local_align(ScalarKernels(), qs, ts, scoring, base_cells, end_at_last)
        got = tracer.align_many([(qs, ts)], None, [want.score], end_at_last=end_at_last)[0]
        assert got.to_dict() == want.to_dict(), name


@pytest.mark.parametrize("end_at_last", [False, True], ids=["local", "end-at-last"])
def test_long_pairs_small_pieces(end_at_last):
    """6 kbp pairs, pieces of 2**14 cells: many Myers-Miller levels on two threads."""
    _check(_cases(6000), SCORINGS["2/-3/5/2"], 2, 1 << 14, end_at_last, window=5000)


@pytest.mark.parametrize("label", ["1/-1/1/1", "5/-4/9/1"])
def test_long_pairs_other_scorings(label):
    _check(_cases(3000, seed=5)[1:4], SCORINGS[label], 2, 1 << 12, True, window=2600)


class PreviousKernels(SimdKernels):
    """The previous implementation at full size: striped end pass and half
    passes on one thread, the scalar end and start passes of ``end_at_last``."""

    sw_end_last = staticmethod(ScalarKernels.sw_end_last)


_BIG = {name: (q, t) for name, q, t in _cases(50_000, seed=3)}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(_BIG))
def test_50kbp_pairs(name):
    """50 kbp pairs with the shared piece size, on two threads, against the
    previous implementation (one thread; scalar passes where it had them)."""
    scoring = SCORINGS["2/-3/5/2"]
    q, t = _BIG[name]
    qs, ts = _dna("q", q), _dna("t", t)
    tracer = _tracer(scoring, 2)
    want = local_align(PreviousKernels(), qs, ts, scoring, BASE_CELLS)
    assert tracer.align_many([(qs, ts)], None, [want.score])[0].to_dict() == want.to_dict()
    if name == "minus-strand":  # (the scalar passes take ~10 s a pair here; the other cases at 6 kbp above)
        tw = _dna("t", t[:47_000])
        old = PreviousKernels()
        old.sw_start = ScalarKernels.sw_start
        want = local_align(old, qs, tw, scoring, BASE_CELLS, True)
        assert tracer.align_many([(qs, tw)], None, [want.score], end_at_last=True)[0].to_dict() == want.to_dict()


def test_threaded_pass_is_the_one_thread_pass(monkeypatch):
    """The pipelined end pass on 2 and 3 threads (whatever the cores here), 8- to 32-bit lanes."""
    monkeypatch.setattr(striped_threads, "_cores", lambda: 8)
    rng = np.random.default_rng(2)
    m = np.where(np.eye(5, dtype=bool), 2, -3).astype(np.int32)
    m[4, :] = m[:, 4] = -3
    t = rng.integers(0, 4, 30_000).astype(np.uint8)
    for q in [t[1000:1100].copy(), t[5000:5400].copy(), _mutate(rng, t[2000:9000]), rng.integers(0, 4, 700)]:
        q = q.astype(np.uint8)
        want = sw_end_striped(q, t, m, 5, 2)
        for threads in (2, 3):
            assert sw_end_threads(q, t, m, 5, 2, None, threads) == want


def test_levels_match_the_recursion():
    rng = np.random.default_rng(4)
    m = np.where(np.eye(5, dtype=bool), 2, -3).astype(np.int32)
    a = rng.integers(0, 4, 2500).astype(np.uint8)
    b = np.concatenate([a[:900], a[1300:], rng.integers(0, 4, 50)]).astype(np.uint8)
    for base_cells in (1 << 10, 1 << 14):
        want = global_ops(SimdKernels(), a, b, m, 5, 2, base_cells)
        assert np.array_equal(global_ops_threads(SimdKernels(), a, b, m, 5, 2, base_cells, 2), want)


@pytest.mark.parametrize("threads", [4, 8])
def test_first_levels_half_passes_on_threads(monkeypatch, threads):
    """More threads than a level's half passes: each pass runs on several
    (:mod:`swgpu.engines.cpu.global_threads`); the same path, op for op."""
    from swgpu.engines.cpu import global_threads

    calls = []
    real = global_threads.nw_last_row_threads

    def spy(*args):
        calls.append(args[-1])
        return real(*args)

    monkeypatch.setattr(global_threads, "nw_last_row_threads", spy)
    monkeypatch.setattr(global_threads, "_cores", lambda: 4)
    rng = np.random.default_rng(6)
    m = np.where(np.eye(5, dtype=bool), 2, -3).astype(np.int32)
    a = rng.integers(0, 4, 3000).astype(np.uint8)
    b = np.concatenate([rng.integers(0, 4, 9000), a[:1100], a[1400:], rng.integers(0, 4, 9000)]).astype(np.uint8)
    want = global_ops(SimdKernels(), a, b, m, 5, 2, 1 << 16)
    assert np.array_equal(global_ops_threads(SimdKernels(), a, b, m, 5, 2, 1 << 16, threads), want)
    assert calls and max(calls) == threads // 2


_letters = st.sampled_from("ACGTN")


@st.composite
def _pairs(draw):
    core = draw(st.text(alphabet="ACGT", min_size=1, max_size=90))
    q = draw(st.text(_letters, max_size=30)) + core + draw(st.text(_letters, max_size=30))
    edits = draw(st.lists(st.tuples(st.integers(0, 200), st.text(_letters, max_size=12), st.integers(0, 12)),
                          max_size=4))
    t = core
    for at, ins, cut in edits:
        at %= len(t) + 1
        t = t[:at] + ins + t[at + cut:]
    t = draw(st.text(_letters, max_size=40)) + t
    return q, t or "A"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pair=_pairs(), label=st.sampled_from(sorted(SCORINGS)))
def test_bonus_passes_against_the_reference(pair, label):
    """The bonus end and start passes (forced on pairs of any size) against
    the full-matrix oracle of ``end_at_last`` and the scalar passes."""
    scoring = SCORINGS[label]
    qs, ts = Sequence.from_text("q", pair[0], "dna"), Sequence.from_text("t", pair[1], "dna")
    mat, go, ge = scoring.matrix.values, scoring.gap_open, scoring.gap_extend
    q, t = qs.codes, ts.codes
    want = tuple(int(x) for x in pairwise.sw_end_last(q, t, mat, go, ge))
    assert anchored.sw_end_last(q, t, mat, go, ge) == want
    best, ie, je = want
    if best > 0:
        rq, rt = q[:ie][::-1].copy(), t[:je][::-1].copy()
        start = tuple(int(x) for x in pairwise.sw_start(rq, rt, mat, go, ge, best))
        assert anchored.sw_start(rq, rt, mat, go, ge, best, threads=2) == start
    assert _tracer(scoring, 2).align_many([(qs, ts)], end_at_last=True)[0].to_dict() == \
        last_column_alignment(qs, ts, scoring).to_dict()
    assert _tracer(scoring, 2).align(qs, ts).to_dict() == reference.align(qs, ts, scoring).to_dict()
    # small pieces (the path depends on their size): many levels on threads, as the scalar passes split them
    for end_at_last in (False, True):
        got = _tracer(scoring, 2, 64).align_many([(qs, ts)], end_at_last=end_at_last)[0]
        assert got.to_dict() == local_align(ScalarKernels(), qs, ts, scoring, 64, end_at_last).to_dict()


def test_many_windows_one_large():
    """Windows of one large and several small pairs (the large one traced
    first on most threads, the rest one thread each): each as traced alone."""
    scoring = SCORINGS["2/-3/5/2"]
    cases = _cases(6000, seed=8)
    rng = np.random.default_rng(4)
    pairs = [(_dna("q", q), _dna("t", t)) for _, q, t in cases[:2]]
    pairs += [(_dna("q", q[:300]), _dna("t", t[int(rng.integers(0, 200)):][:400])) for _, q, t in cases[2:]]
    want = [local_align(ScalarKernels(), q, t, scoring, 1 << 14, True) for q, t in pairs]
    from swgpu.parallel.executors import ThreadExecutor

    tracer = _tracer(scoring, 4, 1 << 14)
    got = tracer.align_many(pairs, ThreadExecutor(4), [w.score for w in want], end_at_last=True)
    assert [g.to_dict() for g in got] == [w.to_dict() for w in want]


_NESTED = """
import sys, threading
import numpy as np
from swgpu.align.traceback import global_ops
from swgpu.engines.cpu import global_threads
from swgpu.engines.cpu.levels import global_ops_threads
from swgpu.engines.cpu.tracer import SimdKernels
global_threads._cores = lambda: 8
where, threads = sys.argv[1], int(sys.argv[2])
m = np.where(np.eye(4, dtype=bool), 2, -3).astype(np.int32)
rng = np.random.default_rng(3)
a = rng.integers(0, 4, 400).astype(np.uint8)
b = rng.integers(0, 4, 40_000).astype(np.uint8)
b[19_800:20_200] = a
out = {}
def go():
    out["got"] = global_ops_threads(SimdKernels(), a, b, m, 5, 2, base_cells=2000, threads=threads)
if where == "thread":
    t = threading.Thread(target=go, daemon=True)
    t.start()
    t.join()
else:
    go()
print(np.array_equal(out["got"], global_ops(SimdKernels(), a, b, m, 5, 2, base_cells=2000)))
"""


@pytest.mark.parametrize("where, threads", [("thread", 4), ("main", 8)])
def test_half_passes_on_threads_from_any_thread_end(where, threads):
    """A level's half passes each on several threads, called from a worker
    thread or from the main thread with more threads than the shared pool
    has: the parts queued behind the levels' tasks still run (a fresh
    process, so the shared pool starts empty)."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _NESTED, where, str(threads)], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "True"
