#!/usr/bin/env python3
"""Correctness check and benchmark of the CUDA database search engine.

Run on a machine with an NVIDIA GPU and CuPy, from the repository root:

    PYTHONPATH=src python3 scripts/cuda_search_check.py [--quick] [--json FILE]

1. Correctness: exact scores against a Numba reference (plain Gotoh, 64-bit)
   on random protein databases with lengths 0, 1, 2, ..., 10,000+, on
   identical long sequences (16-bit overflow and 32-bit re-run), for every
   compiled tile shape, for DNA, linear-gap, zero-extension and an asymmetric
   32-letter matrix; the Numba reference itself is checked against a plain
   Python one on small cases.
2. Benchmark: a synthetic database of 100,000 protein sequences (lognormal
   lengths, median ~300, a few up to 13,000; ~36 M residues, background amino
   acid frequencies) against the lengths of the 20 CUDASW++ benchmark queries.
   GCUPS = query length x database residues / seconds; times are CUDA events
   after a warm-up (kernel) and the wall time of the whole call (total, scores
   copied back included). Compile time is reported separately.
3. A summary table, printed last.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import traceback

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "src"))

from swgpu.engines.cuda import _runtime  # noqa: E402
from swgpu.engines.cuda.search import VARIANTS, WIDE_VARIANT, CudaSearchEngine  # noqa: E402

PROTEIN = "ARNDCQEGHILKMFPSTWYVBZX*UO"
# BLOSUM62 over PROTEIN's codes (B, Z, X, *, U, O as swgpu projects them).
BLOSUM62 = np.array([
    [4, -1, -2, -2, 0, -1, -1, 0, -2, -1, -1, -1, -1, -2, -1, 1, 0, -3, -2, 0, -2, -1, 0, -4, 0, -1],
    [-1, 5, 0, -2, -3, 1, 0, -2, 0, -3, -2, 2, -1, -3, -2, -1, -1, -3, -2, -3, -1, 0, -1, -4, -3, 2],
    [-2, 0, 6, 1, -3, 0, 0, 0, 1, -3, -3, 0, -2, -3, -2, 1, 0, -4, -2, -3, 3, 0, -1, -4, -3, 0],
    [-2, -2, 1, 6, -3, 0, 2, -1, -1, -3, -4, -1, -3, -3, -1, 0, -1, -4, -3, -3, 4, 1, -1, -4, -3, -1],
    [0, -3, -3, -3, 9, -3, -4, -3, -3, -1, -1, -3, -1, -2, -3, -1, -1, -2, -2, -1, -3, -3, -2, -4, 9, -3],
    [-1, 1, 0, 0, -3, 5, 2, -2, 0, -3, -2, 1, 0, -3, -1, 0, -1, -2, -1, -2, 0, 3, -1, -4, -3, 1],
    [-1, 0, 0, 2, -4, 2, 5, -2, 0, -3, -3, 1, -2, -3, -1, 0, -1, -3, -2, -2, 1, 4, -1, -4, -4, 1],
    [0, -2, 0, -1, -3, -2, -2, 6, -2, -4, -4, -2, -3, -3, -2, 0, -2, -2, -3, -3, -1, -2, -1, -4, -3, -2],
    [-2, 0, 1, -1, -3, 0, 0, -2, 8, -3, -3, -1, -2, -1, -2, -1, -2, -2, 2, -3, 0, 0, -1, -4, -3, -1],
    [-1, -3, -3, -3, -1, -3, -3, -4, -3, 4, 2, -3, 1, 0, -3, -2, -1, -3, -1, 3, -3, -3, -1, -4, -1, -3],
    [-1, -2, -3, -4, -1, -2, -3, -4, -3, 2, 4, -2, 2, 0, -3, -2, -1, -2, -1, 1, -4, -3, -1, -4, -1, -2],
    [-1, 2, 0, -1, -3, 1, 1, -2, -1, -3, -2, 5, -1, -3, -1, 0, -1, -3, -2, -2, 0, 1, -1, -4, -3, 5],
    [-1, -1, -2, -3, -1, 0, -2, -3, -2, 1, 2, -1, 5, 0, -2, -1, -1, -1, -1, 1, -3, -1, -1, -4, -1, -1],
    [-2, -3, -3, -3, -2, -3, -3, -3, -1, 0, 0, -3, 0, 6, -4, -2, -2, 1, 3, -1, -3, -3, -1, -4, -2, -3],
    [-1, -2, -2, -1, -3, -1, -1, -2, -2, -3, -3, -1, -2, -4, 7, -1, -1, -4, -3, -2, -2, -1, -2, -4, -3, -1],
    [1, -1, 1, 0, -1, 0, 0, 0, -1, -2, -2, 0, -1, -2, -1, 4, 1, -3, -2, -2, 0, 0, 0, -4, -1, 0],
    [0, -1, 0, -1, -1, -1, -1, -2, -2, -1, -1, -1, -1, -2, -1, 1, 5, -2, -2, 0, -1, -1, 0, -4, -1, -1],
    [-3, -3, -4, -4, -2, -2, -3, -2, -2, -3, -2, -3, -1, 1, -4, -3, -2, 11, 2, -3, -4, -3, -2, -4, -2, -3],
    [-2, -2, -2, -3, -2, -1, -2, -3, 2, -1, -1, -2, -1, 3, -3, -2, -2, 2, 7, -1, -3, -2, -1, -4, -2, -2],
    [0, -3, -3, -3, -1, -2, -2, -3, -3, 3, 1, -2, 1, -1, -2, -2, 0, -3, -1, 4, -3, -2, -1, -4, -1, -2],
    [-2, -1, 3, 4, -3, 0, 1, -1, 0, -3, -4, 0, -3, -3, -2, 0, -1, -4, -3, -3, 4, 1, -1, -4, -3, 0],
    [-1, 0, 0, 1, -3, 3, 4, -2, 0, -3, -3, 1, -1, -3, -1, 0, -1, -3, -2, -2, 1, 4, -1, -4, -3, 1],
    [0, -1, -1, -1, -2, -1, -1, -1, -1, -1, -1, -1, -1, -1, -2, 0, 0, -2, -1, -1, -1, -1, -1, -4, -2, -1],
    [-4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, -4, 1, -4, -4],
    [0, -3, -3, -3, 9, -3, -4, -3, -3, -1, -1, -3, -1, -2, -3, -1, -1, -2, -2, -1, -3, -3, -2, -4, 9, -3],
    [-1, 2, 0, -1, -3, 1, 1, -2, -1, -3, -2, 5, -1, -3, -1, 0, -1, -3, -2, -2, 0, 1, -1, -4, -3, 5],
], dtype=np.int32)
# Background frequencies of the 20 standard amino acids (Robinson & Robinson).
BG = np.array([7.805, 5.129, 4.487, 5.364, 1.925, 4.264, 6.295, 7.377, 2.199, 5.142,
               9.019, 5.744, 2.243, 3.856, 5.203, 7.120, 5.841, 1.330, 3.216, 6.441])
BG = BG / BG.sum()
# Lengths of the 20 CUDASW++ benchmark queries (P02232 ... Q9UKN1).
CUDASW_QUERIES = [144, 189, 222, 375, 464, 567, 657, 729, 850, 1000,
                  1500, 2005, 2504, 3005, 3564, 4061, 4548, 4743, 5147, 5478]


def log(*a):
    print(*a, flush=True)


def tiles_str(tiles):
    """'16x32+8x24' for the per-class tile shapes of one query."""
    return "+".join(f"{G}x{R}" for G, R in tiles) if tiles else "-"


# ----------------------------------------------------------------- references
def python_sw(q, t, M, go, ge):
    """Plain Gotoh local alignment score (textbook, Python ints)."""
    NEG = -(10**9)
    best = 0
    Hp = [0] * (len(t) + 1)
    Fp = [NEG] * (len(t) + 1)
    for i in range(1, len(q) + 1):
        H = [0] * (len(t) + 1)
        F = [NEG] * (len(t) + 1)
        e = NEG
        for j in range(1, len(t) + 1):
            e = max(e - ge, H[j - 1] - go)
            F[j] = max(Fp[j] - ge, Hp[j] - go)
            H[j] = max(0, Hp[j - 1] + int(M[q[i - 1], t[j - 1]]), e, F[j])
            best = max(best, H[j])
        Hp, Fp = H, F
    return best


_numba_ref = None


def numba_reference():
    global _numba_ref
    if _numba_ref is None:
        import numba

        @numba.njit(cache=False, nogil=True)
        def sw_one(q, t, M, go, ge):
            n = t.size
            NEG = -(1 << 40)
            H = np.zeros(n + 1, np.int64)
            F = np.full(n + 1, NEG, np.int64)
            best = 0
            for i in range(q.size):
                qi = q[i]
                diag = 0
                e = NEG
                hleft = 0
                for j in range(1, n + 1):
                    up = H[j]
                    e = max(e - ge, hleft - go)
                    f = max(F[j] - ge, up - go)
                    F[j] = f
                    h = diag + M[qi, t[j - 1]]
                    if e > h:
                        h = e
                    if f > h:
                        h = f
                    if h < 0:
                        h = 0
                    diag = up
                    H[j] = h
                    hleft = h
                    if h > best:
                        best = h
            return best

        @numba.njit(parallel=True, cache=False)
        def sw_all(q, res, off, M, go, ge, out):
            for k in numba.prange(off.size - 1):
                out[k] = sw_one(q, res[off[k]:off[k + 1]], M, go, ge)

        _numba_ref = sw_all
    return _numba_ref


def reference_scores(q, res, off, M, go, ge):
    out = np.zeros(off.size - 1, np.int64)
    numba_reference()(q.astype(np.int64), res.astype(np.int64), off.astype(np.int64),
                      M.astype(np.int64), int(go), int(ge), out)
    return out


# ------------------------------------------------------------------ databases
def concat(seqs):
    off = np.zeros(len(seqs) + 1, np.int64)
    off[1:] = np.cumsum([len(s) for s in seqs])
    res = np.concatenate([np.asarray(s, np.uint8) for s in seqs]) if seqs else np.zeros(0, np.uint8)
    return res.astype(np.uint8), off


def random_protein(rng, n):
    return rng.choice(20, size=int(n), p=BG).astype(np.uint8)


def synthetic_db(rng, n=100_000, median=300.0, sigma=0.62, max_len=13_000):
    lengths = np.exp(rng.normal(np.log(median), sigma, size=n)).astype(np.int64)
    lengths = np.clip(lengths, 6, max_len)
    lengths[:5] = [13_000, 11_000, 9_000, 7_500, 6_000]
    rng.shuffle(lengths)
    total = int(lengths.sum())
    res = rng.choice(20, size=total, p=BG).astype(np.uint8)
    off = np.zeros(n + 1, np.int64)
    off[1:] = np.cumsum(lengths)
    return res, off


# --------------------------------------------------------------- correctness
class Checker:
    def __init__(self):
        self.results = []  # (name, ok, detail)

    def record(self, name, ok, detail=""):
        self.results.append((name, bool(ok), detail))
        log(f"  [{'PASS' if ok else 'FAIL'}] {name} {detail}")

    def compare(self, name, eng, queries, res, off, M, go, ge):
        ok_all = True
        nseq = off.size - 1
        for q in queries:
            t0 = time.perf_counter()
            got = eng.scores(q)
            t1 = time.perf_counter()
            exp = reference_scores(q, res, off, M, go, ge)
            bad = np.nonzero(got.astype(np.int64) != exp)[0]
            ok = bad.size == 0 and got.dtype == np.int32 and got.shape == (nseq,)
            ok_all &= ok
            detail = (f"Q={q.size} n={nseq} tiles={eng.last_config.get('tiles')} "
                      f"rerun={eng.last_config.get('rerun_pairs')} max={int(exp.max()) if exp.size else 0} "
                      f"gpu={1e3 * (t1 - t0):.1f}ms")
            if bad.size:
                detail += f" MISMATCH {bad.size}: idx {bad[:5].tolist()} got {got[bad[:5]].tolist()} exp {exp[bad[:5]].tolist()}"
            self.record(name, ok, detail)
        return ok_all


def correctness(ck: Checker, quick: bool):
    rng = np.random.default_rng(12345)
    M = BLOSUM62

    # 0. the Numba reference against plain Python on small cases
    ok = True
    for _ in range(30):
        q = rng.integers(0, 26, size=int(rng.integers(0, 25))).astype(np.uint8)
        seqs = [rng.integers(0, 26, size=int(rng.integers(0, 25))).astype(np.uint8) for _ in range(5)]
        res, off = concat(seqs)
        go, ge = int(rng.integers(1, 12)), int(rng.integers(0, 3))
        ge = min(ge, go)
        exp = [python_sw(q, s, M, go, ge) for s in seqs]
        got = reference_scores(q, res, off, M, go, ge)
        ok &= list(got) == exp
    ck.record("numba reference == python reference", ok)

    # 1. edge lengths, BLOSUM62 11/1
    eng = CudaSearchEngine(M, 11, 1)
    lengths = [0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129,
               10_000, 10_007, 12_345]
    lengths += list(np.clip(np.exp(rng.normal(np.log(300), 0.7, size=300)), 1, 4000).astype(int))
    seqs = [random_protein(rng, L) for L in lengths]
    seqs.append(rng.integers(0, 26, size=500).astype(np.uint8))  # every code, rare ones too
    res, off = concat(seqs)
    eng.load_database(res, off)
    qlens = [1, 2, 3, 17, 48, 144, 500, 1000] if quick else [1, 2, 3, 17, 47, 48, 49, 144, 500, 1000, 2005]
    queries = [random_protein(rng, L) for L in qlens]
    queries.append(seqs[100][:400].copy())  # a real hit
    queries.append(np.zeros(0, np.uint8))
    ck.compare("edge lengths BLOSUM62 11/1", eng, queries, res, off, M, 11, 1)
    # long query (> 10,000) against the same database
    ck.compare("query 10,500 aa", eng, [random_protein(rng, 10_500)], res, off, M, 11, 1)

    # 2. 16-bit overflow: identical long sequences
    q10k = random_protein(rng, 10_000)
    wq = np.full(3_500, PROTEIN.index("W"), np.uint8)
    wq[::7] = PROTEIN.index("C")
    seqs2 = [q10k.copy(), q10k[2_000:9_000].copy(), wq.copy(), wq[:3_000].copy(), random_protein(rng, 3_000)]
    seqs2 += [random_protein(rng, int(L)) for L in rng.integers(1, 2_000, size=60)]
    q3k = random_protein(rng, 3_000)
    seqs2.append(q3k.copy())
    res2, off2 = concat(seqs2)
    eng.load_database(res2, off2)
    ck.compare("overflow: 10,000-aa query vs itself", eng, [q10k], res2, off2, M, 11, 1)
    ck.compare("overflow: W-rich 3,500 / 3,000-aa query vs itself", eng, [wq, q3k], res2, off2, M, 11, 1)

    # 3. every tile shape
    seqs3 = [random_protein(rng, int(L)) for L in np.clip(np.exp(rng.normal(np.log(250), 0.8, size=250)), 1, 3000)]
    seqs3 += [random_protein(rng, 1), random_protein(rng, 2), random_protein(rng, 6_000)]
    res3, off3 = concat(seqs3)
    eng.load_database(res3, off3)
    qs3 = [random_protein(rng, L) for L in (1, 37, 300, 1001)]
    qs3.append(seqs3[7][:200].copy())
    for G, R in VARIANTS:
        eng.config_override = (G, R)
        ck.compare(f"tile G={G} R={R}", eng, qs3, res3, off3, M, 11, 1)
    eng.config_override = None

    # 4. scores_many == scores
    many = eng.scores_many(qs3)
    ok = all(np.array_equal(a, eng.scores(q)) for a, q in zip(many, qs3))
    ck.record("scores_many == scores", ok, f"timing keys {sorted(eng.last_timing)}")

    # 5. other scoring schemes
    dna = np.full((5, 5), -3, np.int32)
    np.fill_diagonal(dna, 2)
    dna[4, :] = -3
    dna[:, 4] = -3
    eng_d = CudaSearchEngine(dna, 5, 2)
    seqs5 = [rng.integers(0, 5, size=int(L)).astype(np.uint8) for L in rng.integers(0, 3000, size=120)]
    res5, off5 = concat(seqs5)
    eng_d.load_database(res5, off5)
    ck.compare("DNA 2/-3 gaps 5/2", eng_d, [rng.integers(0, 5, size=L).astype(np.uint8) for L in (1, 250, 1200)],
               res5, off5, dna, 5, 2)
    eng_l = CudaSearchEngine(M, 4, 4)
    eng_l.load_database(res3, off3)
    ck.compare("linear gaps 4/4", eng_l, qs3[1:4], res3, off3, M, 4, 4)
    eng_z = CudaSearchEngine(M, 7, 0)
    eng_z.load_database(res3, off3)
    ck.compare("gap extend 0 (open 7)", eng_z, qs3[1:3], res3, off3, M, 7, 0)
    A = rng.integers(-9, 10, size=(32, 32)).astype(np.int32)
    eng_a = CudaSearchEngine(A, 10, 2)
    seqs6 = [rng.integers(0, 32, size=int(L)).astype(np.uint8) for L in rng.integers(0, 1500, size=100)]
    res6, off6 = concat(seqs6)
    eng_a.load_database(res6, off6)
    ck.compare("asymmetric 32-letter matrix", eng_a, [rng.integers(0, 32, size=L).astype(np.uint8) for L in (5, 700)],
               res6, off6, A, 10, 2)
    big = np.full((4, 4), -200, np.int32)
    np.fill_diagonal(big, 900)
    eng_b = CudaSearchEngine(big, 300, 50)
    seqs7 = [rng.integers(0, 4, size=int(L)).astype(np.uint8) for L in rng.integers(0, 200, size=40)]
    qb = rng.integers(0, 4, size=150).astype(np.uint8)
    seqs7 += [qb.copy(), qb[10:120].copy()]
    res7, off7 = concat(seqs7)
    eng_b.load_database(res7, off7)
    ck.compare("score 900 per match (early overflow)", eng_b, [qb, qb[:40]], res7, off7, big, 300, 50)

    # 6. tiny databases
    eng_s = CudaSearchEngine(M, 11, 1)
    for seqs_t in ([random_protein(rng, 1)], [random_protein(rng, 20_000)], [np.zeros(0, np.uint8)] * 3):
        r_t, o_t = concat(seqs_t)
        eng_s.load_database(r_t, o_t)
        ck.compare(f"database of {len(seqs_t)} seq(s), lengths {[len(s) for s in seqs_t]}", eng_s,
                   [random_protein(rng, 1), random_protein(rng, 333)], r_t, o_t, M, 11, 1)


# ------------------------------------------------------------------ benchmark
def benchmark(quick: bool, summary: dict):
    rng = np.random.default_rng(2024)
    t0 = time.perf_counter()
    res, off = synthetic_db(rng, n=100_000)
    lengths = np.diff(off)
    log(f"synthetic database: {lengths.size} sequences, {res.size / 1e6:.2f} M residues, "
        f"median {int(np.median(lengths))}, mean {lengths.mean():.0f}, max {lengths.max()} "
        f"({time.perf_counter() - t0:.1f} s to make)")
    eng = CudaSearchEngine(BLOSUM62, 11, 1)
    t0 = time.perf_counter()
    eng.load_database(res, off)
    log(f"load_database: {time.perf_counter() - t0:.2f} s")
    cells_db = int(res.size)

    t0 = time.perf_counter()
    eng.compile(CUDASW_QUERIES)
    compile_s = time.perf_counter() - t0
    summary["compile_s_chosen_variants"] = compile_s
    log(f"compile (variants chosen for the 20 query lengths + helpers + 32-bit): {compile_s:.2f} s")

    queries = {L: random_protein(rng, L) for L in CUDASW_QUERIES}
    reps = 2 if quick else 3
    rows = []
    for L in CUDASW_QUERIES:
        q = queries[L]
        eng.scores(q)  # warm-up
        ks, ts = [], []
        for _ in range(reps):
            eng.scores(q)
            ks.append(eng.last_timing["kernel"])
            ts.append(eng.last_timing["total"])
        k, t = min(ks), min(ts)
        rows.append((L, tiles_str(eng.last_config["tiles"][0]), k, t, L * cells_db / k / 1e9,
                     L * cells_db / t / 1e9, eng.last_timing["d2h"], eng.last_config["rerun_pairs"]))
        log(f"  Q={L:5d} tile={rows[-1][1]} kernel {1e3 * k:8.2f} ms  total {1e3 * t:8.2f} ms  "
            f"GCUPS kernel {rows[-1][4]:7.1f}  total {rows[-1][5]:7.1f}  d2h {1e3 * rows[-1][6]:.2f} ms")
    cells = sum(L for L in CUDASW_QUERIES) * cells_db
    tk = sum(r[2] for r in rows)
    tt = sum(r[3] for r in rows)
    summary["per_query"] = [dict(Q=r[0], tile=r[1], kernel_ms=1e3 * r[2], total_ms=1e3 * r[3],
                                 gcups_kernel=r[4], gcups_total=r[5]) for r in rows]
    summary["aggregate_gcups_kernel"] = cells / tk / 1e9
    summary["aggregate_gcups_total"] = cells / tt / 1e9

    # all 20 queries in one call
    qs = [queries[L] for L in CUDASW_QUERIES]
    eng.scores_many(qs)
    best = None
    for _ in range(2):
        t0 = time.perf_counter()
        eng.scores_many(qs)
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    summary["scores_many_20_gcups"] = cells / best / 1e9
    log(f"scores_many({len(qs)} queries): {best:.3f} s wall -> {cells / best / 1e9:.1f} GCUPS")

    # tile-shape sweep on a few query lengths (kernel time)
    sweep = {}
    for L in ([464, 2005] if quick else [144, 464, 2005, 5478]):
        q = queries[L] if L in queries else random_protein(rng, L)
        for G, R in VARIANTS:
            eng.config_override = (G, R)
            try:
                eng.scores(q)
                ks = []
                for _ in range(2):
                    eng.scores(q)
                    ks.append(eng.last_timing["kernel"])
                g = L * cells_db / min(ks) / 1e9
            except Exception as exc:  # keep the sweep going
                g = float("nan")
                log(f"  sweep {L} {(G, R)} failed: {exc}")
            sweep[f"{L}:{G}x{R}"] = g
        eng.config_override = None
        log("  sweep Q=%d: " % L + "  ".join(f"{G}x{R}={sweep[f'{L}:{G}x{R}']:.0f}" for G, R in VARIANTS))
    summary["sweep_gcups_kernel"] = sweep
    # warps per block, tile chosen by the cost model
    wsweep = {}
    for L in (464, 2005):
        q = queries[L] if L in queries else random_protein(rng, L)
        for nw in (2, 4, 8):
            eng.nwarps = nw
            try:
                eng.scores(q)
                ks = []
                for _ in range(2):
                    eng.scores(q)
                    ks.append(eng.last_timing["kernel"])
                wsweep[f"{L}:nwarps={nw}"] = L * cells_db / min(ks) / 1e9
            except Exception as exc:
                wsweep[f"{L}:nwarps={nw}"] = float("nan")
                log(f"  nwarps {nw} failed: {exc}")
        log("  warps/block Q=%d (default tiles): " % L
            + "  ".join(f"{nw}={wsweep[f'{L}:nwarps={nw}']:.0f}" for nw in (2, 4, 8)))
    eng.nwarps = None
    summary["sweep_nwarps_gcups_kernel"] = wsweep
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer cases and repetitions")
    ap.add_argument("--json", default=None, help="write the results to this file")
    ap.add_argument("--skip-check", action="store_true")
    ap.add_argument("--skip-bench", action="store_true")
    ap.add_argument("--ncu", action="store_true",
                    help="only run a few kernels on a small database (for a profiler wrapped around this)")
    args = ap.parse_args()
    if args.ncu:
        rng = np.random.default_rng(7)
        res, off = synthetic_db(rng, n=20_000)
        eng = CudaSearchEngine(BLOSUM62, 11, 1)
        eng.load_database(res, off)
        q = random_protein(rng, 2005)
        for tile in [(2, 24), (8, 32), (16, 32), (32, 32)]:
            eng.config_override = tile
            eng.compile(variants=[tile])
            eng.scores(q)
            log(f"ncu target {tile}: {2005 * res.size / eng.last_timing['kernel'] / 1e9:.0f} GCUPS")
        return 0
    if not _runtime.available():
        log(f"no CUDA device: {_runtime.why_unavailable()}")
        return 2
    cp = _runtime.cupy()
    props = cp.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    log(f"device: {name}, {props['multiProcessorCount']} SMs, cc {props['major']}.{props['minor']}, "
        f"CuPy {cp.__version__}, CUDA runtime {cp.cuda.runtime.runtimeGetVersion()}")
    summary = {"device": name}

    # compile time of every variant, cold (this process) -- CuPy's disk cache may hold them
    eng0 = CudaSearchEngine(BLOSUM62, 11, 1)
    comp = {}
    t0 = time.perf_counter()
    eng0._helper("swp_build_profile")
    comp["helpers"] = time.perf_counter() - t0
    for G, R in VARIANTS:
        t0 = time.perf_counter()
        eng0._kernel(G, R, False)
        comp[f"{G}x{R}"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    eng0._kernel(*WIDE_VARIANT, True)
    comp["wide %dx%d" % WIDE_VARIANT] = time.perf_counter() - t0
    summary["compile_s"] = comp
    log("compile seconds: " + ", ".join(f"{k} {v:.2f}" for k, v in comp.items()))
    try:
        for key, k in eng0._kernels.items():
            if isinstance(key, tuple):
                log(f"  {key}: regs {k.num_regs}, local {k.local_size_bytes} B, "
                    f"max threads {k.max_threads_per_block}")
    except Exception as exc:
        log(f"  (kernel attributes unavailable: {exc})")

    ck = Checker()
    if not args.skip_check:
        log("== correctness")
        t0 = time.perf_counter()
        try:
            correctness(ck, args.quick)
        except Exception:
            ck.record("correctness suite raised", False, traceback.format_exc()[-2000:])
        log(f"correctness: {time.perf_counter() - t0:.1f} s")
    rows = []
    if not args.skip_bench:
        log("== benchmark")
        try:
            rows = benchmark(args.quick, summary)
        except Exception:
            log(traceback.format_exc())
            summary["benchmark_error"] = traceback.format_exc()[-2000:]

    npass = sum(ok for _, ok, _ in ck.results)
    nfail = len(ck.results) - npass
    summary["checks_passed"] = npass
    summary["checks_failed"] = nfail
    summary["failures"] = [(n, d) for n, ok, d in ck.results if not ok]
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(summary, fh, indent=1, default=str)

    log("")
    log("== summary")
    log(f"device: {summary['device']}")
    log(f"correctness checks: {npass} passed, {nfail} failed")
    for n, d in summary["failures"]:
        log(f"  FAILED {n}: {d[:300]}")
    if rows:
        log(f"{'query':>6} {'tiles (per length class)':>26} {'kernel ms':>10} {'total ms':>9} {'GCUPS(k)':>9} {'GCUPS(tot)':>10}")
        for L, tile, k, t, gk, gt, _, _ in rows:
            log(f"{L:>6} {tile:>26} {1e3 * k:>10.2f} {1e3 * t:>9.2f} {gk:>9.1f} {gt:>10.1f}")
        log(f"aggregate ({len(rows)} queries, one at a time): kernel {summary['aggregate_gcups_kernel']:.1f} GCUPS, "
            f"total {summary['aggregate_gcups_total']:.1f} GCUPS; scores_many: {summary['scores_many_20_gcups']:.1f} GCUPS")
    log(f"{npass} passed, {nfail} failed")
    return 0 if nfail == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
