"""``scan`` on the CPU: a 256 bp query (both strands) against the E. coli
genome, affine match 1, mismatch -2, open 6, extend 1, beside parasail.

* swgpu: the CPU engine's end points (column maxima of every genome column,
  the end-point rule) on 1 and 2 threads, the column maxima alone (the SIMD
  kernel, one strand a thread), and the whole ``Scanner.scan`` (top 10 with
  alignments);
* swgpu: the end points of a random 50 kbp query along a random 400 kbp
  target on 2 threads (a long pair; GCUPS of its 50 k x 400 k cells);
* parasail ``sw_striped_profile_16`` over windows of the genome (each window
  overlapping the next by the span bound, so no alignment is missed): the best
  score of each window only -- less than a column per end point, the cheapest
  exact peer pass; one thread (parasail holds the GIL).

GCUPS = 2 strands x query length x genome letters / seconds. Compile time is
excluded (one warm-up call); times are medians of ``--repeats`` runs.

    python benchmarks/scan_cpu.py [--out bench-out/scan_cpu] [--repeats 3]
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from _common import machine, shared_data, write_json

import swgpu
from swgpu.align.scan_rule import span_bound
from swgpu.engines import get_engine
from swgpu.engines.cpu.scan_striped import column_maxima_striped
from swgpu.workloads.scan import Scanner

WINDOW = 1 << 16


def _median(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="bench-out/scan_cpu")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    import parasail

    data = shared_data()
    genome = swgpu.read_sequences(data / "dna" / "ecoli_K12_MG1655.fasta.gz", "dna")
    g = genome[0]
    rng = np.random.default_rng(256)
    a = int(rng.integers(0, len(g) - 300))
    query = swgpu.Sequence.from_text("q256", g.text[a:a + 256], "dna")
    scoring = swgpu.Scoring.build("dna", match=1, mismatch=-2, gap_open=6, gap_extend=1)
    cells = 2 * len(query) * len(g)
    codes, bounds = g.codes, np.array([0, len(g)])
    qs = [query.codes, query.reverse_complement().codes]
    rows = []
    for threads in (1, 2):
        scanner = get_engine("cpu", threads=threads).genome_scanner(scoring)
        scanner.candidates([q[:20] for q in qs], codes[:5000], np.array([0, 5000]), 30, 40)  # compile
        s = _median(lambda: scanner.candidates(qs, codes, bounds, 30, 40), args.repeats)
        rows.append({"method": "swgpu end points", "threads": threads, "seconds": s, "gcups": cells / s / 1e9})
    matrix = np.ascontiguousarray(scoring.matrix.values, dtype=np.int32)
    cols = [np.empty(len(g), np.int32) for _ in qs]

    def kernel(k):
        column_maxima_striped(qs[k], matrix, codes, 0, len(g), scoring.gap_open, scoring.gap_extend, cols[k])

    for threads in (1, 2):
        with ThreadPoolExecutor(threads) as pool:
            s = _median(lambda: list(pool.map(kernel, range(len(qs)))), args.repeats)
        rows.append({"method": "swgpu column maxima (SIMD kernel only)", "threads": threads, "seconds": s,
                     "gcups": cells / s / 1e9})
    long_q, long_t = rng.integers(0, 4, 50_000).astype(np.uint8), rng.integers(0, 4, 400_000).astype(np.uint8)
    pair_scanner = get_engine("cpu", threads=2).genome_scanner(scoring)
    pair_scanner.candidates([long_q[:5000]], long_t[:20000], np.array([0, 20000]), 30, 10)
    s = _median(lambda: pair_scanner.candidates([long_q], long_t, np.array([0, long_t.size]), 30, 10), args.repeats)
    rows.append({"method": "swgpu end points, random 50 kbp x 400 kbp pair", "threads": 2, "seconds": s,
                 "gcups": long_q.size * long_t.size / s / 1e9})
    whole = Scanner(scoring, device="cpu", threads=2)
    s = _median(lambda: whole.scan([query], genome, top=10, min_score=30), args.repeats)
    rows.append({"method": "swgpu Scanner.scan top 10 with alignments", "threads": 2, "seconds": s,
                 "gcups": cells / s / 1e9})
    # parasail: best score per overlapping window, both strands
    span = span_bound(len(query), 1, 6, 1)
    pm = parasail.matrix_create("ACGTN", 1, -2)
    text = g.text.upper()
    starts = range(0, len(text), WINDOW)
    windows = [text[max(0, w - span + 1):w + WINDOW] for w in starts]
    texts = [query.text, query.reverse_complement().text]
    profiles = [parasail.profile_create_16(t, pm) for t in texts]

    def peer():
        return [parasail.sw_striped_profile_16(p, w, 6, 1).score for p in profiles for w in windows]

    peer()
    s = _median(peer, args.repeats)
    rows.append({"method": "parasail sw_striped_profile_16 over windows (best per window)", "threads": 1,
                 "seconds": s, "gcups": cells / s / 1e9})
    for r in rows:
        print(f"{r['method']:64s} {r['threads']}t  {r['seconds']:7.3f} s  {r['gcups']:6.2f} GCUPS")
    write_json(f"{args.out}/scan_cpu.json", {"benchmark": "scan_cpu", "machine": machine(), "query": len(query),
                                            "genome": len(g), "scoring": "1/-2/6/1", "rows": rows})


if __name__ == "__main__":
    main()
