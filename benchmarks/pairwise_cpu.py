"""CPU pairwise benchmark: GCUPS of swgpu's CPU engine and parasail on the same pairs.

Score-only and with traceback, one thread each (parasail is single-threaded),
one pair at a time, on real DNA read pairs, Swiss-Prot protein pairs and long
DNA pairs. Writes a JSON file and, with matplotlib installed, a PNG bar chart.
(Bulk screening of many pairs, with all threads: ``benchmarks/jobs_cpu.py``.)

    python benchmarks/pairwise_cpu.py [--out bench-out/pairwise_cpu]
"""

from __future__ import annotations

import argparse
import random
import time

from _common import shared_data, write_json

import swgpu
from swgpu import Scoring


def _sets(data):
    reads = data / "reads"
    q = swgpu.read_sequences(reads / "gasal2_pairs_query.fasta.gz", "dna")[:2000]
    t = swgpu.read_sequences(reads / "gasal2_pairs_target.fasta.gz", "dna")[:2000]
    prot = swgpu.read_sequences(data / "protein" / "uniprot_sprot12071.fasta.gz", "protein")
    rng = random.Random(1)
    query300 = min(prot, key=lambda s: abs(len(s) - 300))
    genome = next(swgpu.iter_sequences(data / "dna" / "ecoli_K12_MG1655.fasta.gz", "dna"))
    g = genome.text
    long_pairs = [(swgpu.Sequence.from_text(f"ecoli_{a}", g[a:a + 20000], "dna"),
                   swgpu.Sequence.from_text(f"ecoli_{b}", g[b:b + 20000], "dna")) for a, b in [(0, 10000), (1_000_000, 1_005_000)]]
    return [
        ("DNA read pairs (GASAL2, 150 x ~250)", list(zip(q, t)), Scoring.default("dna")),
        ("protein 300 aa vs 1,000 Swiss-Prot", [(query300, s) for s in rng.sample(prot, 1000)], Scoring.default("protein")),
        ("DNA 20 kbp x 20 kbp (E. coli)", long_pairs, Scoring.default("dna")),
    ]


def _time(fn, pairs):
    t0 = time.perf_counter()
    for q, t in pairs:
        fn(q, t)
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="bench-out/pairwise_cpu")
    args = ap.parse_args()
    import parasail

    rows = []
    for label, pairs, scoring in _sets(shared_data()):
        cells = sum(len(q) * len(t) for q, t in pairs)
        aligner = swgpu.Aligner(scoring, device="cpu", strand="plus")
        aligner.align(*pairs[0])  # compile outside the timing
        letters = scoring.alphabet.letters
        pm = parasail.matrix_create(letters, 0, 0)
        for a in range(len(letters)):
            for b in range(len(letters)):
                pm.set_value(a, b, int(scoring.matrix.values[a, b]))
        go, ge = scoring.gap_open, scoring.gap_extend
        dec = {id(s): scoring.alphabet.decode(s.codes) for pair in pairs for s in pair}
        runs = {
            "swgpu score (SIMD)": lambda q, t: aligner.score(q, t),
            "swgpu align (traceback)": lambda q, t: aligner.align(q, t),
            "parasail sw_striped_16 score": lambda q, t: parasail.sw_striped_16(dec[id(q)], dec[id(t)], go, ge, pm),
            "parasail sw_scan_32 score": lambda q, t: parasail.sw_scan_32(dec[id(q)], dec[id(t)], go, ge, pm),
        }
        if cells <= 5e8:
            runs["parasail sw_trace_striped_32 (traceback)"] = lambda q, t: parasail.sw_trace_striped_32(
                dec[id(q)], dec[id(t)], go, ge, pm).cigar
        for name, fn in runs.items():
            seconds = _time(fn, pairs)
            rows.append({"set": label, "method": name, "pairs": len(pairs), "cells": cells, "seconds": seconds,
                         "gcups": cells / seconds / 1e9})
            print(f"{label:40s} {name:42s} {seconds:8.2f} s {cells / seconds / 1e9:7.3f} GCUPS", flush=True)
    write_json(args.out + ".json", {"benchmark": "pairwise_cpu", "threads": 1, "rows": rows})
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return
    sets = list(dict.fromkeys(r["set"] for r in rows))
    methods = list(dict.fromkeys(r["method"] for r in rows))
    fig, ax = plt.subplots(figsize=(10, 4.5))
    width = 0.8 / len(methods)
    for k, m in enumerate(methods):
        vals = [next((r["gcups"] for r in rows if r["set"] == s and r["method"] == m), 0) for s in sets]
        ax.bar([i + k * width for i in range(len(sets))], vals, width, label=m)
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(sets))], sets, fontsize=8)
    ax.set_ylabel("GCUPS (one thread)")
    ax.set_title("Pairwise Smith-Waterman on the CPU")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(args.out + ".png", dpi=120)


if __name__ == "__main__":
    main()
