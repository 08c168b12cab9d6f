"""Genome-scale ``align`` on one device: a long query (a slice of a genome,
or a mutated copy) against a genome, score pass + top end points, and the
traceback of the best alignment; GCUPS over the whole call (both strands
counted when asked). Writes JSON.

    python benchmarks/long_align.py --query dmel_chr4.fa.gz --query-length 1000000 \
        --target ecoli.fa.gz --device cuda --out results/long.json
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def main(argv=None) -> None:
    from swgpu import Scoring, Sequence, read_sequences
    from swgpu.workloads.longalign import LongAligner

    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--query", help="FASTA of the query (its first record, sliced); default: a copy of the target")
    p.add_argument("--query-length", type=int, default=1_000_000)
    p.add_argument("--mutate", type=float, default=0.0, help="substitution rate applied to the query copy")
    p.add_argument("--target", required=True)
    p.add_argument("--device", default="auto")
    p.add_argument("--strand", default="plus")
    p.add_argument("--top", type=int, default=200)
    p.add_argument("--alignments", type=int, default=0)
    p.add_argument("--max-alignment-length", type=int, default=None)
    p.add_argument("--method", default="auto", choices=["auto", "rowscan"], help="score method")
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--out", default=None)
    a = p.parse_args(argv)
    scoring = Scoring.build("dna", match=1, mismatch=-3, gap_open=5, gap_extend=2)  # MASA-CUDAlign's defaults
    target = read_sequences(a.target, "dna")
    rng = np.random.default_rng(1)
    src = read_sequences(a.query, "dna")[0] if a.query else target[0]
    start = int(rng.integers(0, max(1, len(src) - a.query_length)))
    codes = src.codes[start:start + a.query_length].copy()
    if a.mutate:
        k = rng.integers(0, codes.size, int(codes.size * a.mutate))
        codes[k] = rng.integers(0, 4, k.size)
    text = "".join("ACGTN"[c] if c < 5 else "N" for c in codes.tolist())
    query = Sequence.from_text("query", text, "dna")
    aligner = LongAligner(scoring, device=a.device, max_alignment_length=a.max_alignment_length,
                          method=a.method)
    strands = 2 if a.strand == "both" else 1
    cells = len(query) * sum(len(t) for t in target) * strands
    runs = []
    for _ in range(a.repeat):
        if a.device != "cpu":
            import cupy as cp
            cp.get_default_memory_pool().free_all_blocks()
            cp.cuda.Device().synchronize()
        t0 = time.perf_counter()
        r = aligner.align(query, target, top=a.top, alignments=a.alignments, strand=a.strand)
        wall = time.perf_counter() - t0
        peak = None
        if a.device != "cpu":
            import cupy as cp
            peak = int(cp.get_default_memory_pool().total_bytes())
        runs.append({"wall_s": wall, "setup_s": r.setup_seconds, "score_s": r.score_seconds,
                     "traceback_s": r.traceback_seconds,
                     "score_gcups": cells / r.score_seconds / 1e9, "best": r.best_score,
                     "end_points": len(r.end_points), "pool_bytes_after": peak,
                     "best_alignment": r.alignments[0].to_dict() if r.alignments else None})
        print(json.dumps({k: v for k, v in runs[-1].items() if k != "best_alignment"}), flush=True)
        if r.alignments:
            al = r.alignments[0]
            print(f"  best alignment: {al.score} q {al.query_start}-{al.query_end} t {al.target_start}-"
                  f"{al.target_end}, cigar length {len(al.cigar)}", flush=True)
    out = {"query_length": len(query), "target_letters": sum(len(t) for t in target), "strands": strands,
           "device": aligner.device, "method": a.method, "scoring": "1/-3/5/2", "cells": cells, "runs": runs}
    if a.out:
        with open(a.out, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
