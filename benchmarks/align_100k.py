"""100 kbp x 100 kbp DNA pair with full traceback on the CPU: time and peak memory.

Two 100 kbp slices of the E. coli K-12 genome that overlap by 80 kbp, the
second mutated like a related strain (seeded: 4% substitutions, 0.5% short
insertions and deletions), so the optimal local alignment is ~80 kbp long with
thousands of gaps and the traceback is real work. Aligned by `swgpu.Aligner` on
the CPU engine. Peak memory is the process's maximum resident
set size (``ru_maxrss``), which includes the Python interpreter, NumPy and Numba.

    python benchmarks/align_100k.py [--length 100000] [--out bench-out/align_100k]
"""

from __future__ import annotations

import argparse
import random
import resource
import time

from _common import shared_data, write_json

import swgpu


def _mutate(text: str, seed: int = 42) -> str:
    rng = random.Random(seed)
    out = []
    for c in text:
        r = rng.random()
        if r < 0.04:
            out.append(rng.choice("ACGT".replace(c, "")))
        elif r < 0.0425:
            continue  # deletion
        elif r < 0.045:
            out.append(c + "".join(rng.choice("ACGT") for _ in range(rng.randint(1, 6))))  # insertion
        else:
            out.append(c)
    return "".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--length", type=int, default=100_000)
    ap.add_argument("--out", default="bench-out/align_100k")
    args = ap.parse_args()
    n = args.length
    genome = next(swgpu.iter_sequences(shared_data() / "dna" / "ecoli_K12_MG1655.fasta.gz", "dna")).text
    a = swgpu.Sequence.from_text("ecoli_2000000", genome[2_000_000:2_000_000 + n], "dna")
    b = swgpu.Sequence.from_text("ecoli_2020000_mutated", _mutate(genome[2_000_000 + n // 5:2_000_000 + n // 5 + n]), "dna")
    aligner = swgpu.Aligner(swgpu.Scoring.default("dna"), device="cpu", strand="plus")
    aligner.align(swgpu.Sequence.from_text("w", "ACGTACGT"), swgpu.Sequence.from_text("w", "ACGTTACGT"))  # compile
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t0 = time.perf_counter()
    aln = aligner.align(a, b)
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{n:,} x {n:,} bp: score {aln.score}, query {aln.query_start + 1}-{aln.query_end}, "
          f"target {aln.target_start + 1}-{aln.target_end}, {aln.length:,} columns, identity {aln.identity:.1%}")
    print(f"time {seconds:.1f} s, peak RSS {peak:.0f} MiB (before the alignment: {before:.0f} MiB)")
    write_json(args.out + ".json", {"benchmark": "align_100k", "length": n, "score": aln.score, "seconds": seconds,
                                    "peak_rss_mib": peak, "rss_before_mib": before, "columns": aln.length,
                                    "cigar_ops": len(aln.cigar)})
    if peak > 2048:
        raise SystemExit(f"peak memory {peak:.0f} MiB exceeds 2 GB")


if __name__ == "__main__":
    main()
