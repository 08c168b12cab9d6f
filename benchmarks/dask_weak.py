"""The GPU-cluster seed's weak-scaling shape on one device: a 128-letter
query against 2 M letters per worker (score pass + top-200 end points +
the best alignment), in this process and through a local Dask cluster of
``--workers`` workers sharing the device (each part a task). Output equal
in both (checked). Writes JSON.

    python benchmarks/dask_weak.py --device cuda --workers 2 --out results/weak.json
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np


def main(argv=None) -> None:
    from swgpu import Scoring, Sequence
    from swgpu.parallel.dask_executor import DaskExecutor
    from swgpu.workloads.longalign import LongAligner

    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--device", default="auto")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--query-length", type=int, default=128)
    p.add_argument("--letters-per-worker", type=int, default=2_000_000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--out", default=None)
    a = p.parse_args(argv)
    rng = np.random.default_rng(2)
    scoring = Scoring.build("dna", match=1, mismatch=-3, gap_open=5, gap_extend=2)
    q = "".join(rng.choice(list("ACGT"), a.query_length))
    query = Sequence.from_text("q", q, "dna")
    out = {"device": a.device, "query_length": a.query_length, "runs": []}
    for workers in (1, a.workers):
        n = a.letters_per_worker * workers
        t = "".join(rng.choice(list("ACGT"), n))
        at = n // 2 - a.query_length // 2  # across the middle part boundary
        t = t[:at] + q + t[at + len(q):]
        target = [Sequence.from_text("t", t, "dna")]
        cells = len(q) * n
        local = LongAligner(scoring, device=a.device)
        base = [e.to_dict() for e in local.align(query, target, top=200, alignments=1, strand="plus").end_points]
        times = []
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            local.align(query, target, top=200, alignments=1, strand="plus")
            times.append(time.perf_counter() - t0)
        row = {"letters": n, "workers": 0, "median_s": float(np.median(times)),
               "gcups": cells / float(np.median(times)) / 1e9}
        out["runs"].append(row)
        print(json.dumps(row), flush=True)
        with DaskExecutor(workers=workers, threads_per_worker=4) as ex:
            dist = LongAligner(scoring, device=a.device, executor=ex)
            got = [e.to_dict() for e in dist.align(query, target, top=200, alignments=1, strand="plus").end_points]
            assert got == base, "the cluster's end points differ from one process's"
            times = []
            for _ in range(a.repeat):
                t0 = time.perf_counter()
                dist.align(query, target, top=200, alignments=1, strand="plus")
                times.append(time.perf_counter() - t0)
        row = {"letters": n, "workers": workers, "median_s": float(np.median(times)),
               "gcups": cells / float(np.median(times)) / 1e9, "equal": True}
        out["runs"].append(row)
        print(json.dumps(row), flush=True)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
