#!/usr/bin/env python3
"""GPU check and seed benchmark of the bulk screening kernels (kernels/bpbc.cu).

1. Device, CuPy, NVRTC versions; registers and local memory of each kernel.
2. Correctness: bit-sliced (ballot and swap transposes, and forced rows per
   lane) and word-wise kernels against the CPU scalar reference, on pairs of
   mixed lengths (empty, length 1, all N, identical, query longer than target,
   long queries that need several strips, scores past 16 bits).
3. Seed benchmark: 32,768 random DNA pairs, m = 128, n = 1,024 ... 65,536
   (doubling while the time budget allows), linear gap (2, -1, 1) and affine
   (2, -3, open 5, extend 2); bitwise and wordwise. Per-phase times come from
   CUDA events; GCUPS = pairs * m * n / total. Bitwise and wordwise scores are
   compared on every pair, and a subset against the CPU scalar kernel.
A summary table is printed last.

Run: PYTHONPATH=src python3 scripts/cuda_screen_check.py [--json results.json]
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

LINEAR = (2, -1, 1, 1)
AFFINE = (2, -3, 5, 2)


def log(*a):
    print(*a, flush=True)


def random_pairs(rng, count, m_range, n_range, n_frac=0.03):
    qs, ts = [], []
    for i in range(count):
        m = int(rng.integers(m_range[0], m_range[1] + 1))
        n = int(rng.integers(n_range[0], n_range[1] + 1))
        q = rng.integers(0, 4, m).astype(np.uint8)
        t = rng.integers(0, 4, n).astype(np.uint8)
        q[rng.random(m) < n_frac] = 4
        t[rng.random(n) < n_frac] = 4
        if i % 4 == 0 and min(m, n) > 4:  # a shared stretch: high scores
            k = min(m, n) // 2
            a = int(rng.integers(0, min(m, n) - k + 1))
            t[a : a + k] = q[:k]
        qs.append(q)
        ts.append(t)
    return qs, ts


def special_pairs():
    u8 = np.uint8
    return [
        (np.array([0, 1, 2, 3] * 32, u8), np.array([0, 1, 2, 3] * 32, u8)),
        (np.full(128, 2, u8), np.full(1024, 2, u8)),
        (np.full(50, 4, u8), np.full(50, 4, u8)),
        (np.array([1], u8), np.array([1], u8)),
        (np.array([1], u8), np.array([3], u8)),
        (np.array([], u8), np.array([0, 1, 2], u8)),
        (np.array([0, 1, 2], u8), np.array([], u8)),
        (np.tile(np.arange(4, dtype=u8), 100), np.tile(np.arange(4, dtype=u8), 60)),
    ]


def device_info(cp):
    dev = cp.cuda.Device()
    props = cp.cuda.runtime.getDeviceProperties(dev.id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    try:
        nvrtc = ".".join(map(str, cp.cuda.nvrtc.getVersion()))
    except Exception:  # pragma: no cover
        nvrtc = "?"
    return {
        "device": name,
        "cc": dev.compute_capability,
        "sms": props["multiProcessorCount"],
        "cupy": cp.__version__,
        "cuda_runtime": cp.cuda.runtime.runtimeGetVersion(),
        "cuda_driver": cp.cuda.runtime.driverGetVersion(),
        "nvrtc": nvrtc,
    }


def kernel_resources(names):
    from swgpu.engines.cuda import _runtime

    out = {}
    for name in names:
        mod = _runtime.get_module("bpbc.cu", (), (name,))
        for fn in (name, "bpbc_transpose_ballot", "bpbc_transpose_swap", "bpbc_untranspose_ballot", "bpbc_untranspose_swap"):
            if fn in out:
                continue
            k = mod.get_function(fn)
            a = k.attributes
            out[fn] = {"regs": a.get("num_regs"), "local_bytes": a.get("local_size_bytes")}
    return out


def check_correctness(results):
    from swgpu.engines.cpu.bitsliced import screen_scores_bitsliced, screen_scores_scalar
    from swgpu.engines.cuda.screen import screen_scores_cuda, screen_scores_cuda_timed

    rng = np.random.default_rng(12345)
    sets = {}
    qs, ts = random_pairs(rng, 700, (0, 64), (0, 400))
    for q, t in special_pairs():
        qs.append(q)
        ts.append(t)
    sets["mixed"] = (qs, ts)
    sets["long-query"] = random_pairs(rng, 120, (129, 420), (300, 500))
    sets["wide"] = random_pairs(rng, 150, (40, 60), (60, 200))
    plan = [
        ("mixed", LINEAR), ("mixed", AFFINE), ("mixed", (1, -2, 1, 3)), ("mixed", (3, 0, 0, 0)),
        ("long-query", LINEAR), ("long-query", AFFINE),
        ("wide", (1000, -1500, 2000, 300)), ("wide", (700, -900, 800, 800)),
    ]
    all_ok = True
    rows = []
    for set_name, params in plan:
        qs, ts = sets[set_name]
        t0 = time.perf_counter()
        ref = screen_scores_scalar(qs, ts, *params)
        t_ref = time.perf_counter() - t0
        variants = [("bitwise", "ballot", None), ("bitwise", "swap", None), ("wordwise", "ballot", None)]
        if set_name != "wide":
            variants += [("bitwise", "ballot", 1), ("bitwise", "ballot", 2)]
        for kernel, tr, rpl in variants:
            t0 = time.perf_counter()
            if rpl is None:
                got = screen_scores_cuda(qs, ts, *params, kernel=kernel, transpose=tr)
            else:
                got = screen_scores_cuda_timed(qs, ts, *params, kernel=kernel, transpose=tr, rows_per_lane=rpl)[0]
            dt = time.perf_counter() - t0
            bad = int((got != ref).sum())
            all_ok &= bad == 0
            label = f"{kernel}/{tr}" + (f"/R={rpl}" if rpl else "") if kernel == "bitwise" else kernel
            rows.append({"set": set_name, "params": params, "variant": label, "pairs": len(qs), "mismatches": bad})
            log(f"  {set_name:10s} {str(params):24s} {label:20s} pairs {len(qs):5d}  "
                f"{'OK' if bad == 0 else f'FAIL ({bad} differ)'}  ({dt:.1f}s incl. compile; cpu ref {t_ref:.1f}s)")
            if bad:
                i = np.flatnonzero(got != ref)[:5]
                log("     first differences: idx", i.tolist(), "got", got[i].tolist(), "want", ref[i].tolist(),
                    "lens", [(len(qs[j]), len(ts[j])) for j in i])
    # the CPU bit-sliced kernel on the mixed set too
    qs, ts = sets["mixed"]
    for params in (LINEAR, AFFINE):
        bad = int((screen_scores_bitsliced(qs, ts, *params) != screen_scores_scalar(qs, ts, *params)).sum())
        all_ok &= bad == 0
        log(f"  cpu bit-sliced vs cpu scalar {params}: {'OK' if bad == 0 else f'FAIL ({bad})'}")
    results["correctness"] = rows
    results["correctness_ok"] = bool(all_ok)
    return all_ok


def benchmark(args, results):
    from swgpu.engines.cpu.bitsliced import screen_scores_scalar
    from swgpu.engines.cuda.screen import screen_scores_cuda_timed

    P, m = args.pairs, args.m
    n_list = []
    n = args.n_min
    while n <= args.n_max:
        n_list.append(n)
        n *= 2
    rng = np.random.default_rng(2024)
    t0 = time.perf_counter()
    Q = (np.frombuffer(rng.bytes(P * m), dtype=np.uint8) & 3).reshape(P, m)
    T = (np.frombuffer(rng.bytes(P * n_list[-1]), dtype=np.uint8) & 3).reshape(P, n_list[-1])
    log(f"  random data: {P} x {m} queries, {P} x {n_list[-1]} targets ({time.perf_counter() - t0:.1f}s)")
    queries = list(Q)
    configs = [
        ("linear", LINEAR, "bitwise", "ballot", None),
        ("linear", LINEAR, "wordwise", "ballot", None),
        ("affine", AFFINE, "bitwise", "ballot", None),
        ("affine", AFFINE, "wordwise", "ballot", None),
    ]
    extra = [  # side measurements at a few n: swap transpose; affine with 2 rows per lane
        ("linear", LINEAR, "bitwise", "swap", None),
        ("affine", AFFINE, "bitwise", "ballot", 2),
    ]
    # compile + warm up every configuration on a small slice
    for _, params, kernel, tr, rpl in configs + extra:
        w = min(64, P)
        screen_scores_cuda_timed(queries[:w], [T[i, : n_list[0]] for i in range(w)], *params, kernel=kernel,
                                 transpose=tr, rows_per_lane=rpl)
    runs = []
    start = time.perf_counter()
    for n in n_list:
        if time.perf_counter() - start > args.budget:
            log(f"  time budget of {args.budget:.0f}s used: stopping before n = {n}")
            break
        targets = [T[i, :n] for i in range(P)]
        scores = {}
        todo = configs + (extra if n in (n_list[0], 8192, n_list[-1]) else [])
        for gap, params, kernel, tr, rpl in todo:
            reps = 3 if n <= 4096 else 1
            best = None
            for _ in range(reps):
                sc, tm = screen_scores_cuda_timed(queries, targets, *params, kernel=kernel, transpose=tr, rows_per_lane=rpl)
                if best is None or tm.total_ms < best[1].total_ms:
                    best = (sc, tm)
            sc, tm = best
            label = kernel if kernel == "wordwise" else f"bitwise/{tr}" + (f"/R={rpl}" if rpl else "")
            scores[(gap, label)] = sc
            gcups = P * m * n / (max(tm.total_ms, 1e-6) * 1e6)
            row = {"n": n, "gap": gap, "variant": label, "h2d_ms": tm.h2d_ms, "transpose_ms": tm.transpose_ms,
                   "sw_ms": tm.sw_ms, "untranspose_ms": tm.untranspose_ms, "d2h_ms": tm.d2h_ms,
                   "total_ms": tm.total_ms, "host_pack_ms": tm.host_ms, "gcups": gcups,
                   "sw_gcups": P * m * n / (max(tm.sw_ms, 1e-6) * 1e6), "reps": reps,
                   "kernel_name": tm.batches[0].get("kernel") if tm.batches else ""}
            runs.append(row)
            log(f"  n={n:6d} {gap:6s} {label:20s} h2d {tm.h2d_ms:8.2f}  transpose {tm.transpose_ms:7.2f}  "
                f"sw {tm.sw_ms:9.2f}  untranspose {tm.untranspose_ms:6.3f}  d2h {tm.d2h_ms:6.3f}  "
                f"total {tm.total_ms:9.2f} ms  {gcups:8.1f} GCUPS (sw only {row['sw_gcups']:8.1f})  "
                f"[host pack {tm.host_ms:.0f} ms]")
        # every pair: all variants agree
        for gap in ("linear", "affine"):
            ref = scores[(gap, "wordwise")]
            for (g, label), sc in scores.items():
                if g == gap and label != "wordwise":
                    bad = int((sc != ref).sum())
                    results.setdefault("bench_agree", []).append({"n": n, "gap": gap, "variant": label, "mismatches": bad})
                    if bad:
                        log(f"  !! n={n} {gap}: {label} differs from wordwise on {bad} pairs")
        # a subset against the CPU scalar kernel
        k = 64 if n <= 4096 else 16
        for gap, params in (("linear", LINEAR), ("affine", AFFINE)):
            ref = screen_scores_scalar(queries[:k], targets[:k], *params)
            bad = int((scores[(gap, "bitwise/ballot")][:k] != ref).sum() + (scores[(gap, "wordwise")][:k] != ref).sum())
            results.setdefault("bench_vs_cpu", []).append({"n": n, "gap": gap, "pairs": k, "mismatches": bad})
            log(f"  n={n:6d} {gap:6s} first {k} pairs vs CPU scalar: {'OK' if bad == 0 else f'FAIL ({bad})'}"
                f"   (score range {int(ref.min())}..{int(ref.max())})")
    results["bench"] = runs
    return runs


def summary(runs):
    log("\n=== per-phase ms (CUDA events), 32,768 pairs, m = 128 ===")
    log(f"{'gap':6} | {'variant':20} | {'n':>6} | {'H2D':>8} | {'transp.':>7} | {'SW':>9} | {'untr.':>6} | "
        f"{'D2H':>6} | {'total':>9} | {'GCUPS':>7} | {'SW-only':>7}")
    for r in sorted(runs, key=lambda r: (r["gap"], r["variant"], r["n"])):
        log(f"{r['gap']:6} | {r['variant']:20} | {r['n']:6d} | {r['h2d_ms']:8.2f} | {r['transpose_ms']:7.2f} | "
            f"{r['sw_ms']:9.2f} | {r['untranspose_ms']:6.3f} | {r['d2h_ms']:6.3f} | {r['total_ms']:9.2f} | "
            f"{r['gcups']:7.1f} | {r['sw_gcups']:7.1f}")
    cols = [("linear", "bitwise/ballot"), ("linear", "wordwise"), ("affine", "bitwise/ballot"), ("affine", "wordwise")]
    ns = sorted({r["n"] for r in runs})
    get = {(r["gap"], r["variant"], r["n"]): r for r in runs}
    log("\n=== GCUPS = pairs*m*n / total ms (H2D + transpose + SW + untranspose + D2H); [SW kernel only] ===")
    log(f"{'n':>6} | " + " | ".join(f"{g + ' ' + v.split('/')[0]:>22}" for g, v in cols))
    for n in ns:
        cells = []
        for g, v in cols:
            r = get.get((g, v, n))
            cells.append(f"{r['gcups']:8.1f} [{r['sw_gcups']:8.1f}]" if r else f"{'-':>19}")
        log(f"{n:6d} | " + " | ".join(f"{c:>22}" for c in cells))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=32768)
    ap.add_argument("--m", type=int, default=128)
    ap.add_argument("--n-min", type=int, default=1024)
    ap.add_argument("--n-max", type=int, default=65536)
    ap.add_argument("--budget", type=float, default=150.0, help="seconds of benchmark before no larger n is started")
    ap.add_argument("--skip-check", action="store_true", help="benchmark only")
    ap.add_argument("--json", help="write all results to this file")
    args = ap.parse_args(argv)

    from swgpu.engines.cuda import _runtime

    if not _runtime.available():
        log(f"no usable GPU: {_runtime.why_unavailable()}")
        return 2
    cp = _runtime.cupy()
    results = {"device": device_info(cp)}
    log("device:", json.dumps(results["device"]))
    t0 = time.perf_counter()
    names = ["bpbc_sw<9,4,2,-1,1,1,0>", "bpbc_sw<9,4,2,-3,5,2,1>", "bpbc_sw<9,2,2,-3,5,2,1>",
             "ww_sw<64,1,0,2,-1,1,1>", "ww_sw<64,1,1,2,-3,5,2>"]
    res = kernel_resources(names)
    results["kernels"] = res
    log(f"kernels compiled in {time.perf_counter() - t0:.1f}s (registers / local memory bytes per thread):")
    for k, v in res.items():
        log(f"  {k:32s} regs {v['regs']:4}  local {v['local_bytes']}")
    ok = True
    if not args.skip_check:
        log("\n=== correctness against the CPU scalar kernel ===")
        t0 = time.perf_counter()
        ok = check_correctness(results)
        log(f"  correctness {'PASSED' if ok else 'FAILED'} ({time.perf_counter() - t0:.0f}s)")
    log("\n=== benchmark ===")
    runs = benchmark(args, results)
    bench_ok = all(r["mismatches"] == 0 for r in results.get("bench_agree", []) + results.get("bench_vs_cpu", []))
    results["bench_ok"] = bench_ok
    summary(runs)
    log(f"\ncorrectness: {'PASSED' if ok else 'FAILED'}; benchmark scores consistent: {'yes' if bench_ok else 'NO'}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1, default=str)
    return 0 if ok and bench_ok else 1


if __name__ == "__main__":
    sys.exit(main())
