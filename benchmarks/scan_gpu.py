"""``scan`` end points on the GPU: 256 bp queries cut from the E. coli genome
(12 random substitutions each), each with its reverse complement as the scan
workload runs them (both strands), affine match 1, mismatch -2, open 6,
extend 1, threshold 30, the best 20 end points kept per query and strand.

Times ``GenomeScanner.candidates`` from code arrays in memory to each query's
chosen end points on the host (host preparation, copies and kernels
included), best of ``--repeats`` after one warm-up call; ``gpu_span_s`` is the
GPU's own time from the first copy to the last kernel (events). The genome
is read-only, as the ``scan`` workload holds it, so it goes to the GPU in
the warm-up call and stays there, as a search's database does; the
``upload_*`` figures pass a writable copy instead, which goes up in every
call (4.6 MB from pageable memory).
GCUPS = 2 strands x 256 x genome letters x queries / seconds. ``--write-queries``
saves the queries as FASTA for timing the whole ``swgpu scan`` command.

    python benchmarks/scan_gpu.py --queries 1,100,1000 [--method auto|rowscan [--words mixed|32]] [--out DIR]
    python benchmarks/scan_gpu.py --genome dmelanogaster_chr4.fasta.gz --copies 8 --label dmel4x8 --queries 1
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _common import shared_data, write_json

import swgpu
from swgpu.engines import get_engine


def queries_from(genome: np.ndarray, count: int, length: int = 256, seed: int = 5) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        a = int(rng.integers(0, genome.size - length))
        q = genome[a:a + length].copy()
        q[rng.integers(0, length, 12)] = rng.integers(0, 4, 12)
        out.append(q)
    return out


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--genome", default=None, help="FASTA (default: E. coli K-12 of the shared data)")
    p.add_argument("--queries", default="1,100,1000")
    p.add_argument("--method", default="auto", choices=["auto", "rowscan"])
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--words", default="mixed", choices=["mixed", "32"],
                   help="rowscan: the seed's mixed 8/32-bit rows, or every row in 32-bit cells")
    p.add_argument("--copies", type=int, default=1, help="the genome's first record this many times end to end "
                   "(one record; the issue's D. melanogaster chr4 x 8)")
    p.add_argument("--label", default="", help="added to the output file's name")
    p.add_argument("--write-queries", default=None, metavar="PREFIX", help="write PREFIX<N>.fa for each count")
    p.add_argument("--out", default="bench-out")
    a = p.parse_args(argv)
    path = a.genome or shared_data() / "dna" / "ecoli_K12_MG1655.fasta.gz"
    genome = swgpu.read_sequences(path, "dna")[0].codes
    if a.copies > 1:
        genome = np.tile(genome, a.copies)
        genome.flags.writeable = False  # as the scan workload holds it
    scoring = swgpu.Scoring.build("dna", match=1, mismatch=-2, gap_open=6, gap_extend=1)
    scanner = get_engine("cuda").genome_scanner(scoring, a.method)
    scanner.byte_rows = a.words == "mixed"
    bounds = np.array([0, genome.size], dtype=np.int64)
    rows = []
    for count in [int(x) for x in a.queries.split(",")]:
        qs = queries_from(genome, count)
        if a.write_queries:
            with open(f"{a.write_queries}{count}.fa", "w") as f:
                for k, q in enumerate(qs):
                    f.write(f">q{k}\n" + "".join("ACGT"[c] for c in q.tolist()) + "\n")
        both = [x for q in qs for x in (q, (3 - q[::-1]).astype(np.uint8))]
        scanner.candidates(both[:2], genome, bounds, 30, 20)
        walls = []
        scanner.row_words = [0, 0]
        for _ in range(a.repeats):
            t0 = time.perf_counter()
            scanner.candidates(both, genome, bounds, 30, 20)
            walls.append(time.perf_counter() - t0)
        cells = 2 * count * 256 * genome.size
        gpu = scanner.last_timings["kernel"]
        row = {"queries": count, "walls_s": walls, "gcups": cells / min(walls) / 1e9, "gpu_span_s": gpu,
               "gpu_gcups": cells / gpu / 1e9, "problems": scanner.last_timings["problems"]}
        if count <= 100:  # the genome copied in every call
            writable = genome.copy()
            upload = []
            for _ in range(a.repeats):
                t0 = time.perf_counter()
                scanner.candidates(both, writable, bounds, 30, 20)
                upload.append(time.perf_counter() - t0)
            row.update(upload_walls_s=upload, upload_gcups=cells / min(upload) / 1e9)
        eight, total = scanner.row_words
        words = f"; {eight / total:.1%} of rows in 8-bit cells" if total else ""
        if total:
            row["rows_8bit_fraction"] = eight / total
        print(f"{count:6d} queries: {row['gcups']:8.1f} GCUPS ({min(walls) * 1e3:.1f} ms; GPU span "
              f"{gpu * 1e3:.1f} ms, {row['gpu_gcups']:.1f} GCUPS; {row['problems']} problems{words})", flush=True)
        if "upload_gcups" in row:
            print(f"{'':6s}   genome copied in each call: {row['upload_gcups']:8.1f} GCUPS "
                  f"({min(row['upload_walls_s']) * 1e3:.1f} ms)", flush=True)
        rows.append(row)
    name = a.method + ("" if a.method == "auto" or a.words == "mixed" else "_32bit") + (f"_{a.label}" if a.label else "")
    write_json(f"{a.out}/bench_scan_gpu_{name}.json", {"method": a.method, "words": a.words, "label": a.label,
                                                            "genome_letters": int(genome.size), "rows": rows})


if __name__ == "__main__":
    main()
