"""The SIMD building blocks and the cases random tests rarely reach: scores
past 8 and 16 bits (re-run in wider lanes, exactly), the table lookup
without AVX-512, thread scheduling, and the one-time compile notice."""

from __future__ import annotations

import numba as nb
import numpy as np
import pytest

from swgpu import Scoring, Sequence
from swgpu.engines import get_engine
from swgpu.engines.cpu import jit, pairwise, simd, striped
from swgpu.engines.cpu.screen import screen_scores_simd
from swgpu.engines.cpu.search import CpuSearchEngine
from swgpu.engines.cpu.threads import run_shared

from oracle import gotoh_scores

DNA = Scoring.default("dna")
BIG = Scoring.build("dna", match=25, mismatch=-20, gap_open=30, gap_extend=5)  # 3,000 matches: 75,000


def test_carry_scan_and_shift():
    @nb.njit
    def run(a, d, fill):
        out = np.empty_like(a)
        simd.vstore(out, 0, simd.carry_scan(simd.vload(a, 0), d))
        sh = np.empty_like(a)
        simd.vstore(sh, 0, simd.shift_in(simd.vload(a, 0), simd.vfill(a, fill)))
        return out, sh, simd.vlast(simd.vload(a, 0))

    a = np.random.default_rng(0).integers(0, 60000, 32).astype(np.uint16)
    out, sh, last = run(a, 700, 9)
    want = [max([0] + [max(0, int(a[k]) - (lane - 1 - k) * 700) for k in range(lane)]) for lane in range(32)]
    assert out.tolist() == want
    assert sh.tolist() == [9] + a[:-1].tolist() and last == a[-1]


def test_table_lookup_without_avx512(monkeypatch):
    """The permute instruction where the CPU has one, one load per lane elsewhere: same lanes."""
    monkeypatch.setattr(simd, "_target_features", lambda context: set())

    @nb.njit(cache=False)
    def lookup(table, idx):
        out = np.empty_like(idx)
        simd.vstore(out, 0, simd.vlookup(table, 64, simd.vload(idx, 0)))
        return out

    table = np.arange(200, dtype=np.uint8)[::-1].copy()
    idx = np.random.default_rng(1).integers(0, 64, 64).astype(np.uint8)
    assert lookup(table, idx).tolist() == table[64 + idx].tolist()


def test_scores_past_16_bits_are_rerun_exactly():
    rng = np.random.default_rng(2)
    q = rng.integers(0, 4, 3000).astype(np.uint8)
    t = np.concatenate([rng.integers(0, 4, 50), q, rng.integers(0, 4, 70)]).astype(np.uint8)
    want = pairwise.sw_end(q, t, BIG.matrix.values, BIG.gap_open, BIG.gap_extend)
    assert want[0] == 75_000
    assert striped.sw_end_striped(q, t, BIG.matrix.values, BIG.gap_open, BIG.gap_extend) == tuple(map(int, want))
    seqs = [t, q[:100], rng.integers(0, 4, 200).astype(np.uint8), q[::-1].copy()]
    offsets = np.concatenate([[0], np.cumsum([s.size for s in seqs])])
    engine = CpuSearchEngine(BIG.matrix.values, BIG.gap_open, BIG.gap_extend, threads=2)
    engine.load_database(np.concatenate(seqs), offsets)
    got = engine.scores(q)
    assert got.tolist() == [int(pairwise.sw_end(q, s, BIG.matrix.values, 30, 5)[0]) for s in seqs]
    passes = engine.last_timing["windows"]
    assert passes["uint8"] == 4 and passes["uint32"] == 1  # only the 75,000 reaches 32 bits
    scores, _ = screen_scores_simd([q, q[:9]], [t, q[:9]], 25, -20, 30, 5)
    assert scores.tolist() == [75_000, 225]


def test_eight_bit_pass_hands_saturated_windows_to_sixteen_bits():
    rng = np.random.default_rng(3)
    q = rng.integers(0, 4, 400).astype(np.uint8)
    seqs = [q.copy(), rng.integers(0, 4, 500).astype(np.uint8), np.zeros(0, np.uint8)]
    offsets = np.concatenate([[0], np.cumsum([s.size for s in seqs])])
    engine = CpuSearchEngine(DNA.matrix.values, DNA.gap_open, DNA.gap_extend)
    engine.load_database(np.concatenate(seqs), offsets)
    assert engine.scores(q).tolist() == [800, int(pairwise.sw_end(q, seqs[1], DNA.matrix.values, 5, 2)[0]), 0]
    assert engine.last_timing["windows"] == {"uint8": 3, "uint16": 1} and engine.last_timing["rescored"] == 1


@pytest.mark.parametrize("threads", [1, 2, 5])
def test_shared_queue_runs_every_item_once(threads):
    @nb.njit(nogil=True)
    def take(counter, seen):
        while True:
            i = simd.atomic_next(counter)
            if i >= seen.size:
                return
            seen[i] += 1

    seen = np.zeros(10_000, dtype=np.int64)
    run_shared(take, lambda counter: (counter, seen), threads, seen.size)
    assert (seen == 1).all()


def test_engine_passes_its_threads_and_tracer_uses_simd_kernels():
    engine = get_engine("cpu", threads=2)
    assert engine.database_scorer(DNA).threads == 2 and engine.pair_scorer(DNA).threads == 2
    tracer = engine.tracer(DNA)
    q = Sequence.from_text("q", "ACGTACGTTTGACCA" * 30)
    t = Sequence.from_text("t", "GG" + "ACGTACGTTTGACCA" * 30 + "TT")
    aln = tracer.align(q, t)
    assert (aln.score, aln.target_start, aln.cigar) == (900, 2, "450=") and tracer.score(q, t) == 900


def test_screen_lanes_with_n_and_empty_pairs():
    qs = [np.array([0, 4, 1], np.uint8), np.array([4, 4], np.uint8), np.zeros(0, np.uint8), np.array([2], np.uint8)]
    ts = [np.array([0, 4, 1], np.uint8), np.array([4, 4], np.uint8), np.array([1], np.uint8), np.zeros(0, np.uint8)]
    got, _ = screen_scores_simd(qs, ts, 2, -3, 5, 2)
    np.testing.assert_array_equal(got, gotoh_scores(qs, ts, (2, -3, 5, 2)))
    assert got.tolist() == [2, 0, 0, 0]


def test_compile_notice_once_at_a_terminal(monkeypatch, capsys):
    from swgpu.io import compiled as jit  # (engines.cpu.jit's functions are these)

    monkeypatch.setattr(jit, "_announced", False)
    monkeypatch.setattr(jit, "_checked", set())
    monkeypatch.setattr(jit, "will_compile", lambda d: True)
    kernels = [object() for _ in range(3)]
    monkeypatch.setattr(jit, "_terminal", lambda: False)
    jit.announce_compile(kernels[0])
    assert capsys.readouterr().err == ""  # a file or a pipe: nothing added
    monkeypatch.setattr(jit, "_terminal", lambda: True)
    jit.announce_compile(kernels[1])
    jit.announce_compile(kernels[2])
    assert capsys.readouterr().err.count("compiling the kernels") == 1


def test_align_many_largest_first_with_hints():
    """Results in input order whatever the order of work; a known score only picks the first lanes."""
    from swgpu.parallel.executors import ThreadExecutor

    rng = np.random.default_rng(5)
    pairs, hints = [], []
    for n in (30, 900, 200, 3000, 5):
        q = rng.integers(0, 4, n).astype(np.uint8)
        t = np.concatenate([rng.integers(0, 4, 20), q, rng.integers(0, 4, 7)]).astype(np.uint8)
        pairs.append((Sequence("q", DNA.alphabet.decode(q), q, DNA.alphabet),
                      Sequence("t", DNA.alphabet.decode(t), t, DNA.alphabet)))
        hints.append(2 * n)
    tracer = get_engine("cpu").tracer(DNA)
    plain = [tracer.align(q, t) for q, t in pairs]
    for ex in (None, ThreadExecutor(2)):
        for expected in (None, hints, [None, 1, 10**6, None, 0]):
            got = tracer.align_many(pairs, ex, expected)
            assert [a.to_dict() for a in got] == [a.to_dict() for a in plain]
    assert [a.score for a in plain] == hints


def test_row_kernels_take_over_past_the_profile_limit(monkeypatch):
    from swgpu.engines.cpu import global_kernel

    rng = np.random.default_rng(6)
    q = rng.integers(0, 4, 700).astype(np.uint8)
    t = np.concatenate([rng.integers(0, 4, 300), q[50:650], rng.integers(0, 4, 90)]).astype(np.uint8)
    t[500] = (t[500] + 1) % 4
    pair = [Sequence(n, DNA.alphabet.decode(c), c, DNA.alphabet) for n, c in (("q", q), ("t", t))]
    want = get_engine("cpu").tracer(DNA).align(*pair).to_dict()
    monkeypatch.setattr(striped, "PROFILE_BYTES", 100)
    monkeypatch.setattr(global_kernel, "PROFILE_BYTES", 100)
    assert striped.sw_end_striped(q, t, DNA.matrix.values, 5, 2) is None
    assert get_engine("cpu").tracer(DNA).align(*pair).to_dict() == want
