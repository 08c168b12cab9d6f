"""``swgpu bench``: reproducible benchmark runs that write JSON and PNG plots.

* ``bench search`` -- queries against a database: load/compile time apart,
  scoring GCUPS per query (cells = query length x database residues over the
  wall time of scoring with scores back on the host, as CUDASW++ reports), and
  the time with the alignments of the top hits.
* ``bench screen`` -- the bulk pair-screening benchmark of the BPBC papers:
  random DNA pairs, query length m, target lengths n, per-phase times and GCUPS
  = pairs x m x n / total, per kernel.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import time
from pathlib import Path

import numpy as np

from ..io.alphabet import PROTEIN
from ..io.database import Database
from ..io.readers import read_sequences
from ..scoring import Scoring
from ..io.sequence import Sequence
from ..engines import describe_devices, get_engine
from ..engines.bulk import PairBatch
from .limits import check_memory
from .search import Searcher

__all__ = ["bench_search", "bench_screen", "screen_bytes", "random_protein_database", "BACKGROUND_AA"]

#: Robinson & Robinson (1991) amino-acid background frequencies (BLAST's), order ARNDCQEGHILKMFPSTWYV.
BACKGROUND_AA = np.array([0.07805, 0.05129, 0.04487, 0.05364, 0.01925, 0.04264, 0.06295, 0.07377, 0.02199, 0.05142,
                          0.09019, 0.05744, 0.02243, 0.03856, 0.05203, 0.07120, 0.05841, 0.01330, 0.03216, 0.06441])


def random_protein_database(count: int, length: int, seed: int = 0) -> Database:
    """``count`` random proteins of ``length`` residues drawn from the background frequencies."""
    rng = np.random.default_rng(seed)
    p = BACKGROUND_AA / BACKGROUND_AA.sum()
    residues = rng.choice(20, size=count * length, p=p).astype(np.uint8)
    offsets = np.arange(count + 1, dtype=np.int64) * length
    names = [f"random{i}" for i in range(count)]
    return Database(PROTEIN, names, offsets, residues, np.arange(count, dtype=np.int64), f"random {count}x{length}")


def _machine() -> dict:
    info = {"python": platform.python_version(), "cores": os.cpu_count(), "platform": platform.platform()}
    gpus = describe_devices()
    if gpus:
        info["gpu"] = gpus[0]["name"]
        info["gpus"] = len(gpus)
    return info


def _save(out: Path, name: str, payload: dict) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    payload = {"date": _dt.datetime.now().isoformat(timespec="seconds"), "machine": _machine(), **payload}
    path = out / f"{name}.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(payload, indent=2) + "\n")
    tmp.replace(path)
    return path


def _plot(path: Path, title: str, xlabel: str, series: dict[str, tuple[list, list]], logx: bool = False) -> Path | None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return None
    fig, ax = plt.subplots(figsize=(7, 4.2))
    for label, (x, y) in series.items():
        ax.plot(x, y, marker="o", label=label)
    if logx:
        ax.set_xscale("log", base=2)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("GCUPS")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _median_seconds(fn, repeats: int) -> float:
    """Median wall time of ``repeats`` calls of ``fn``."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def bench_search(queries_path, db_path=None, *, random_db: tuple[int, int] | None = None, device: str = "auto",
                 matrix: str = "BLOSUM62", gap_open: int = 11, gap_extend: int = 1, top: int = 10,
                 repeats: int = 3, gpus=None, out: str = "bench-out", label: str = "search", log=print,
                 gpu_memory: int | None = None) -> dict:
    """Time database search for each query; returns (and saves) the results."""
    t0 = time.perf_counter()
    db = random_protein_database(*random_db) if random_db else Database.load(db_path, "protein")
    read_s = time.perf_counter() - t0
    queries = read_sequences(queries_path, "protein")
    scoring = Scoring.build("protein", matrix=matrix, gap_open=gap_open, gap_extend=gap_extend)
    t0 = time.perf_counter()
    searcher = Searcher(db, scoring, device=device, gpus=gpus, gpu_memory=gpu_memory)
    searcher.compile(queries)  # kernels compiled (or loaded from the cache) outside the timing
    searcher.scores(Sequence.from_text("warmup", "MKVLAAGIVW" * 3, PROTEIN))
    load_s = time.perf_counter() - t0
    total_cells = sum(len(q) for q in queries) * db.total_residues
    # all queries together (the way the search command scores them), then one by one
    total_s = _median_seconds(lambda: searcher.scores_many(queries), repeats)
    log(f"{len(queries)} queries together: {total_s * 1e3:9.2f} ms  {total_cells / total_s / 1e9:9.1f} GCUPS")
    rows = []
    single_s = 0.0
    for q in queries:
        s = _median_seconds(lambda: searcher.scores(q), repeats)
        cells = len(q) * db.total_residues
        single_s += s
        rows.append({"query": q.name, "length": len(q), "seconds": s, "gcups": cells / s / 1e9})
        log(f"{q.name:>12} {len(q):6d} aa  {s * 1e3:9.2f} ms  {cells / s / 1e9:9.1f} GCUPS (alone)")
    t1 = time.perf_counter()
    hits = sum(len(r.hits) for r in searcher.search(queries, top=top))
    with_aln_s = time.perf_counter() - t1
    result = {
        "benchmark": "search", "label": label, "device": searcher.device, "database": db.source or str(db_path),
        "sequences": len(db), "residues": db.total_residues, "queries": len(queries),
        "scoring": scoring.describe(), "read_seconds": read_s, "load_and_compile_seconds": load_s,
        "scoring_seconds": total_s, "gcups": total_cells / total_s / 1e9,
        "one_by_one_seconds": single_s, "one_by_one_gcups": total_cells / single_s / 1e9,
        "with_alignments_seconds": with_aln_s, "top": top, "hits_aligned": hits, "per_query": rows,
        "database_parts": searcher.database_parts, "gpu_memory": gpu_memory,
    }
    log(f"total: {total_cells / total_s / 1e9:.1f} GCUPS over {len(queries)} queries together ({total_s:.3f} s), "
        f"{total_cells / single_s / 1e9:.1f} one by one; "
        f"with top-{top} alignments {with_aln_s:.2f} s; load+compile {load_s:.2f} s; "
        f"database parts per GPU {searcher.database_parts}")
    outdir = Path(out)
    _save(outdir, f"bench_{label}", result)
    order = sorted(rows, key=lambda r: r["length"])
    _plot(outdir / f"bench_{label}.png", f"swgpu search ({searcher.device}): {scoring.describe()}", "query length (aa)",
          {f"swgpu {searcher.device}, one query at a time": ([r["length"] for r in order], [r["gcups"] for r in order]),
           f"all {len(queries)} queries together": ([order[0]["length"], order[-1]["length"]],
                                                    [total_cells / total_s / 1e9] * 2)})
    return result


def _random_pairs(count: int, m: int, n: int, seed: int) -> tuple[list[np.ndarray], list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    q = rng.integers(0, 4, size=(count, m), dtype=np.uint8)
    t = rng.integers(0, 4, size=(count, n), dtype=np.uint8)
    return list(q), list(t)


#: Host bytes per pair beside its letters: two array views in lists, offsets, scores.
PAIR_BYTES = 256


def screen_bytes(pairs: int, m: int, n: int, scorers=()) -> int:
    """Least host memory of :func:`bench_screen` for one target length ``n``:
    the random pairs and a copy of them end to end (two bytes a letter),
    :data:`PAIR_BYTES` a pair, and the largest working set of the scorers
    (``working_bytes(pairs, m, n)`` of those that tell it)."""
    work = [s.working_bytes(pairs, m, n) for s in scorers if hasattr(s, "working_bytes")]
    return pairs * (2 * (m + n) + PAIR_BYTES) + max(work, default=0)


def bench_screen(pairs: int = 32768, m: int = 128, ns=(1024, 2048, 4096, 8192, 16384, 32768, 65536),
                 scoring: str = "linear", device: str = "auto", kernels=("bitwise", "wordwise"),
                 out: str = "bench-out", log=print, transpose: str = "ballot", repeats: int | None = None) -> dict:
    """The BPBC screening benchmark: per-phase times and GCUPS per kernel and target length.

    ``gcups`` counts the whole call (the median of ``repeats`` calls; default
    5 on the GPU, 1 on the CPU), from the sequences in memory to scores on
    the host (validation, packing, copies, kernels). On the GPU the sequences
    are a :class:`~swgpu.engines.bulk.PairBatch` (codes end to end, as a
    reader produces them); ``gcups_from_lists`` is the same call from a list
    of one array per sequence (put end to end first), and ``gpu_gcups`` counts
    the transfers (with the host copies they overlap) and kernels only (CUDA
    events), beside the per-phase times."""
    match, mismatch, go, ge = (2, -1, 1, 1) if scoring == "linear" else (2, -3, 5, 2)
    engine = get_engine(device)
    repeats = repeats or (5 if engine.accelerator else 1)
    scheme = Scoring.build("dna", match=match, mismatch=mismatch, gap_open=go, gap_extend=ge)
    scorers = {kernel: engine.pair_scorer(scheme, kernel, transpose=transpose) for kernel in kernels}
    check_memory(max(screen_bytes(pairs, m, n, scorers.values()) for n in ns),
                 f"{pairs:,} pairs of {m:,} x {max(ns):,} letters")
    rows = []
    for n in ns:
        qs, ts = _random_pairs(pairs, m, n, seed=n)
        batch = PairBatch.from_lists(qs, ts) if engine.accelerator else None
        cells = pairs * m * n
        for kernel in kernels:
            scorer = scorers[kernel]
            scorer.scores(qs[:64], ts[:64])  # compile
            if batch is not None:
                scorer.scores(PairBatch.from_lists(qs[:64], ts[:64]))
            if batch is not None:
                t0 = time.perf_counter()
                scorer.scores(qs, ts)
                from_lists = time.perf_counter() - t0
            runs = []  # (seconds, per-phase times) of each call; the median call is reported
            for _ in range(repeats):
                t0 = time.perf_counter()
                scorer.scores(batch if batch is not None else qs, None if batch is not None else ts)
                runs.append((time.perf_counter() - t0, scorer.last_timings))
            s, timings = sorted(runs, key=lambda r: r[0])[len(runs) // 2]
            if timings is not None:  # per-phase times of the engine
                row = {"n": n, "kernel": kernel, **timings.as_dict()}
                row["gpu_gcups"] = cells / (row["total_ms"] / 1e3) / 1e9  # copies + kernels (events)
                row["wall_ms"] = s * 1e3
                row["gcups"] = cells / s / 1e9  # the headline: sequences in memory to scores on the host
                if batch is not None:
                    row["from_lists_ms"] = from_lists * 1e3
                    row["gcups_from_lists"] = cells / from_lists / 1e9
            else:
                row = {"n": n, "kernel": kernel, "total_ms": s * 1e3, "gcups": cells / s / 1e9}
            rows.append(row)
            log(" ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()))
    engine = engine.name
    result = {"benchmark": "screen", "device": engine, "pairs": pairs, "m": m, "scoring": scoring, "transpose": transpose,
              "match": match, "mismatch": mismatch, "gap_open": go, "gap_extend": ge, "rows": rows}
    outdir = Path(out)
    name = f"bench_screen_{scoring}_{engine}" + ("" if transpose == "ballot" else f"_{transpose}")
    _save(outdir, name, result)
    series = {k: ([r["n"] for r in rows if r["kernel"] == k], [r["gcups"] for r in rows if r["kernel"] == k])
              for k in kernels}
    _plot(outdir / f"{name}.png", f"swgpu screen ({engine}), {pairs} pairs, m={m}, {scoring}",
          "target length n", series, logx=True)
    return result
