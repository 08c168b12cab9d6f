"""Genome-scale ``align`` on 1..N GPUs through Dask (one worker per GPU):
weak scaling (a ``--weak-query-length`` query, 128 letters by default,
``--letters-per-gpu`` random letters per GPU, a copy planted across the middle) and strong scaling (a query slice of
``--query`` against ``--target``), each against one process on one GPU,
end points checked equal. Writes JSON.

    python benchmarks/dask_scaling.py --gpus 2 --query dmel.fa --target ecoli.fa --out scaling.json
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def _timed(aligner, query, target, repeat):
    r = aligner.align(query, target, top=200, alignments=0, strand="plus")
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        aligner.align(query, target, top=200, alignments=0, strand="plus")
        times.append(time.perf_counter() - t0)
    return [e.to_dict() for e in r.end_points], float(np.median(times))


def main(argv=None) -> None:
    from swgpu import Scoring, Sequence, read_sequences
    from swgpu.parallel.dask_executor import DaskExecutor
    from swgpu.workloads.longalign import LongAligner

    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--gpus", type=int, default=2)
    p.add_argument("--letters-per-gpu", type=int, default=2_000_000)
    p.add_argument("--weak-query-length", type=int, default=128,
                   help="the weak-scaling query (default 128, the seed's; 1000000 fills a GPU)")
    p.add_argument("--planted", type=int, default=None,
                   help="letters of the weak query planted in each target (default all; keep it under "
                        "--max-alignment-length, which promises no longer alignment)")
    p.add_argument("--query", required=True)
    p.add_argument("--query-length", type=int, default=1_000_000)
    p.add_argument("--target", required=True)
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--max-alignment-length", type=int, default=None,
                   help="bounds the parts' overlap (default: the score budget, ~1.5 x the query)")
    p.add_argument("--out", default=None)
    a = p.parse_args(argv)
    sc = Scoring.build("dna", match=1, mismatch=-3, gap_open=5, gap_extend=2)
    rng = np.random.default_rng(3)
    rows = []
    one = LongAligner(sc, device="cuda", max_alignment_length=a.max_alignment_length)
    weak_q = "".join(rng.choice(list("ACGT"), a.weak_query_length))
    src = read_sequences(a.query, "dna")[0]
    big_q = Sequence.from_text("q", src.text[100_000:100_000 + a.query_length], "dna")
    big_t = read_sequences(a.target, "dna")
    jobs = {}
    for g in range(1, a.gpus + 1):
        n = a.letters_per_gpu * g
        t = "".join(rng.choice(list("ACGT"), n))
        piece = weak_q[:a.planted] if a.planted else weak_q
        t = t[:n // 2] + piece + t[n // 2 + len(piece):]
        jobs[("weak", g)] = (Sequence.from_text("q", weak_q, "dna"), [Sequence.from_text("t", t, "dna")])
    base = {}
    for (kind, g), (q, t) in jobs.items():
        ends, secs = _timed(one, q, t, a.repeat)
        base[(kind, g)] = ends
        rows.append({"shape": kind, "letters": sum(len(x) for x in t), "gpus": 1, "dask": False, "s": secs,
                     "gcups": len(q) * sum(len(x) for x in t) / secs / 1e9})
        print(json.dumps(rows[-1]), flush=True)
    ends, secs = _timed(one, big_q, big_t, a.repeat)
    base["strong"] = ends
    cells = len(big_q) * sum(len(x) for x in big_t)
    rows.append({"shape": "strong", "gpus": 1, "dask": False, "s": secs, "gcups": cells / secs / 1e9})
    print(json.dumps(rows[-1]), flush=True)
    for g in range(1, a.gpus + 1):
        with DaskExecutor(gpus=list(range(g)), threads_per_worker=4) as ex:
            dist = LongAligner(sc, device="cuda", executor=ex, max_alignment_length=a.max_alignment_length)
            q, t = jobs[("weak", g)]
            ends, secs = _timed(dist, q, t, a.repeat)
            rows.append({"shape": "weak", "letters": sum(len(x) for x in t), "gpus": g, "dask": True, "s": secs,
                         "gcups": len(q) * sum(len(x) for x in t) / secs / 1e9, "equal": ends == base[("weak", g)]})
            print(json.dumps(rows[-1]), flush=True)
            ends, secs = _timed(dist, big_q, big_t, a.repeat)
            rows.append({"shape": "strong", "gpus": g, "dask": True, "s": secs, "gcups": cells / secs / 1e9,
                         "equal": ends == base["strong"]})
            print(json.dumps(rows[-1]), flush=True)
    if a.out:
        with open(a.out, "w") as f:
            json.dump({"rows": rows}, f, indent=1)


if __name__ == "__main__":
    main()
