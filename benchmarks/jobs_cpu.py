"""The four CPU jobs of the CPU engine against its SIMD peers, in one process.

* search: 144-, 375- and 553-aa queries against the 12,071-sequence
  Swiss-Prot set, BLOSUM62 11/1; swgpu on 1 and 2 threads against
  ``pyopal.align`` on 1 and 2 threads (database in file order; also in
  swgpu's length order, which splits unevenly over pyopal's static halves);
* screen: the 20,000 GASAL2 read pairs, 2/-3/5/2; swgpu ``auto`` on 1 and 2
  threads (from lists of code arrays, as ``Screener`` passes them, and from a
  ``PairBatch``) against parasail ``sw_striped_16`` and SSW, one pair at a time;
* pair: one 20 kbp x 20 kbp E. coli pair, score only; swgpu (one thread)
  against parasail ``sw_striped_16`` and ``sw_scan_16``;
* trace: the same pair with traceback; swgpu against parasail
  ``sw_trace_striped_16``, with each one's peak memory (the growth of the
  resident size in a child process; Linux) -- times in this process.

Compile time is excluded (one warm-up call each); every method's scores are
checked against swgpu's. Times are medians of ``--repeats`` interleaved
runs. Writes JSON.

    python benchmarks/jobs_cpu.py [--out bench-out/jobs_cpu] [--jobs search,screen,pair,trace]
"""

from __future__ import annotations

import argparse
import multiprocessing
import time

import numpy as np
from _common import shared_data, write_json

import swgpu
from swgpu.engines import get_engine
from swgpu.engines.bulk import PairBatch
from swgpu.io.database import Database
from swgpu.workloads.search import Searcher

PAIRS = [(0, 10_000), (1_000_000, 1_005_000)]  # E. coli offsets of the two 20 kbp sequences


def interleaved(runs: dict, repeats: int) -> dict:
    """``{name: (median, min, last result)}`` of the callables in ``runs``, one warm-up call each."""
    out = {name: fn() for name, fn in runs.items()}
    times = {name: [] for name in runs}
    for _ in range(repeats):
        for name, fn in runs.items():
            t0 = time.perf_counter()
            out[name] = fn()
            times[name].append(time.perf_counter() - t0)
    return {name: (float(np.median(t)), float(min(t)), out[name]) for name, t in times.items()}


def parasail_matrix(scoring):
    import parasail

    letters = scoring.alphabet.letters
    pm = parasail.matrix_create(letters, 0, 0)
    for a in range(len(letters)):
        for b in range(len(letters)):
            pm.set_value(a, b, int(scoring.matrix.values[a, b]))
    return pm


def search_job(data, repeats, rows):
    import pyopal
    from multiprocessing.pool import ThreadPool

    from scoring_matrices import ScoringMatrix

    seqs = swgpu.read_sequences(data / "protein" / "uniprot_sprot12071.fasta.gz", "protein")
    db = Database.from_sequences(seqs)
    scoring = swgpu.Scoring.default("protein")
    letters = scoring.alphabet.letters
    matrix = ScoringMatrix(scoring.matrix.values.tolist(), alphabet=letters)  # U, O, * score as in swgpu
    alphabet = pyopal.Alphabet(letters)
    file_db = pyopal.Database([s.text for s in seqs], alphabet)
    sorted_db = pyopal.Database([letters_of(db, i, scoring) for i in range(len(db))], alphabet)
    queries = {len(q): q for q in swgpu.read_sequences(data / "protein" / "queries_brief11.fasta", "protein")}
    pools = {1: None, 2: ThreadPool(2)}
    searchers = {t: Searcher(db, scoring, device="cpu", threads=t) for t in (1, 2)}
    for length in (144, 375, 553):
        q = queries[length]
        cells = length * db.total_residues

        def opal(pdb, threads, order):
            res = pyopal.align(q.text, pdb, matrix, gap_open=scoring.gap_open, gap_extend=scoring.gap_extend,
                               threads=threads, pool=pools[threads], ordered=True)
            scores = np.fromiter((r.score for r in res), dtype=np.int32, count=len(pdb))
            return scores[order]

        runs = {}
        for t in (1, 2):
            runs[("swgpu", t)] = lambda t=t: searchers[t].scores(q)
            runs[("pyopal", t)] = lambda t=t: opal(file_db, t, db.index)
        runs[("pyopal (length-sorted database)", 2)] = lambda: opal(sorted_db, 2, np.arange(len(db)))
        got = interleaved(runs, repeats)
        ours = got[("swgpu", 1)][2]
        for (method, t), (med, best, res) in got.items():
            peer = got[("pyopal", t)][0] if method == "swgpu" else None
            rows.append({"job": "search", "case": f"{q.name} ({length} aa) vs 12,071 Swiss-Prot",
                         "method": method, "threads": t, "seconds": med, "min_seconds": best,
                         "gcups": cells / med / 1e9, "identical": bool(np.array_equal(res, ours)),
                         **({"vs_peer": peer / med} if peer else {})})
    for row in rows:
        if row["job"] == "search" and row["method"] == "swgpu" and row["threads"] == 2:
            one = next(r for r in rows if r["job"] == "search" and r["case"] == row["case"]
                       and r["method"] == "swgpu" and r["threads"] == 1)
            row["speedup_2_threads"] = one["seconds"] / row["seconds"]


def letters_of(db, i, scoring):
    return scoring.alphabet.decode(db.residues[db.offsets[i]:db.offsets[i + 1]])


def screen_job(data, repeats, rows):
    import parasail

    reads = data / "reads"
    qs = swgpu.read_sequences(reads / "gasal2_pairs_query.fasta.gz", "dna")
    ts = swgpu.read_sequences(reads / "gasal2_pairs_target.fasta.gz", "dna")
    scoring = swgpu.Scoring.default("dna")
    qc, tc = [q.codes for q in qs], [t.codes for t in ts]
    cells = sum(len(q) * len(t) for q, t in zip(qs, ts))
    pm = parasail_matrix(scoring)
    go, ge = scoring.gap_open, scoring.gap_extend
    scorers = {t: get_engine("cpu", threads=t).pair_scorer(scoring, "auto") for t in (1, 2)}
    batch = PairBatch.from_lists(qc, tc)  # codes end to end, as a reader produces them
    runs = {("swgpu auto", 1): lambda: scorers[1].scores(qc, tc),
            ("swgpu auto", 2): lambda: scorers[2].scores(qc, tc),
            ("swgpu auto (PairBatch)", 1): lambda: scorers[1].scores(batch),
            ("swgpu auto (PairBatch)", 2): lambda: scorers[2].scores(batch),
            ("parasail sw_striped_16", 1): lambda: np.array(
                [parasail.sw_striped_16(q.text, t.text, go, ge, pm).score for q, t in zip(qs, ts)], dtype=np.int32),
            ("parasail ssw (SSW)", 1): lambda: np.array(
                [parasail.ssw(q.text, t.text, go, ge, pm).score1 for q, t in zip(qs, ts)], dtype=np.int32)}
    got = interleaved(runs, max(1, repeats // 2))
    ours = got[("swgpu auto", 1)][2]
    peer = got[("parasail sw_striped_16", 1)][0]
    for (method, t), (med, best, res) in got.items():
        row = {"job": "screen", "case": "20,000 GASAL2 pairs (150 x ~250), 2/-3/5/2", "method": method, "threads": t,
               "seconds": med, "min_seconds": best, "gcups": cells / med / 1e9,
               "identical": bool(np.array_equal(res, ours))}
        if method.startswith("swgpu"):
            row["vs_peer"] = peer / med
            if t == 2:
                row["speedup_2_threads"] = got[(method, 1)][0] / med
        rows.append(row)


def _pairs(data):
    genome = next(swgpu.iter_sequences(data / "dna" / "ecoli_K12_MG1655.fasta.gz", "dna")).text
    return [(swgpu.Sequence.from_text(f"ecoli_{a}", genome[a:a + 20_000], "dna"),
             swgpu.Sequence.from_text(f"ecoli_{b}", genome[b:b + 20_000], "dna")) for a, b in PAIRS]


def pair_job(data, repeats, rows):
    import parasail

    scoring = swgpu.Scoring.default("dna")
    pm = parasail_matrix(scoring)
    go, ge = scoring.gap_open, scoring.gap_extend
    aligner = swgpu.Aligner(scoring, device="cpu", strand="plus")
    for q, t in _pairs(data):
        runs = {"swgpu score": lambda: aligner.score(q, t),
                "parasail sw_striped_16": lambda: parasail.sw_striped_16(q.text, t.text, go, ge, pm).score,
                "parasail sw_scan_16": lambda: parasail.sw_scan_16(q.text, t.text, go, ge, pm).score}
        got = interleaved(runs, repeats)
        peer = got["parasail sw_striped_16"][0]
        for method, (med, best, res) in got.items():
            rows.append({"job": "pair", "case": f"{q.name} x {t.name} (20 kbp each), score only", "method": method,
                         "threads": 1, "seconds": med, "min_seconds": best, "gcups": 4e8 / med / 1e9,
                         "identical": int(res) == int(got["swgpu score"][2]),
                         **({"vs_peer": peer / med} if method.startswith("swgpu") else {})})


def _peak_child(which: str, data, conn):
    """In a child process: run one traceback, send (seconds, peak RSS growth in MiB, score)."""
    import parasail

    scoring = swgpu.Scoring.default("dna")
    q, t = _pairs(data)[0]
    if which == "swgpu":
        aligner = swgpu.Aligner(scoring, device="cpu", strand="plus")
        small = [swgpu.Sequence.from_text(s.name, s.text[:2000], "dna") for s in (q, t)]
        aligner.align(*small)  # kernels loaded
        fn = lambda: aligner.align(q, t).score
    else:
        pm = parasail_matrix(scoring)
        parasail.sw_trace_striped_16(q.text[:100], t.text[:100], 5, 2, pm).cigar  # library loaded
        fn = lambda: parasail.sw_trace_striped_16(q.text, t.text, scoring.gap_open, scoring.gap_extend, pm).score
    base = _rss_reset()
    t0 = time.perf_counter()
    score = fn()
    seconds = time.perf_counter() - t0
    conn.send((seconds, (_status("VmHWM") - base) / 1024, int(score)))


def _status(key: str) -> int:
    """A ``/proc/self/status`` size in KiB."""
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) for line in f if line.startswith(key + ":"))


def _rss_reset() -> int:
    """Reset the peak resident size to the current one (Linux); returns it in KiB."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass
    return _status("VmRSS")


def trace_job(data, repeats, rows):
    import parasail

    scoring = swgpu.Scoring.default("dna")
    pm = parasail_matrix(scoring)
    aligner = swgpu.Aligner(scoring, device="cpu", strand="plus")
    q, t = _pairs(data)[0]

    def peer():
        r = parasail.sw_trace_striped_16(q.text, t.text, scoring.gap_open, scoring.gap_extend, pm)
        r.cigar  # the traceback itself
        return r.score

    got = interleaved({"swgpu align": lambda: aligner.align(q, t).score, "parasail sw_trace_striped_16": peer},
                      max(1, repeats // 2))
    ctx = multiprocessing.get_context("spawn")
    for method, which in (("swgpu align", "swgpu"), ("parasail sw_trace_striped_16", "parasail")):
        a, b = ctx.Pipe()
        p = ctx.Process(target=_peak_child, args=(which, data, b))
        p.start()
        seconds, mib, score = a.recv()
        p.join()
        med, best, res = got[method]
        rows.append({"job": "trace", "case": f"{q.name} x {t.name} (20 kbp each), with traceback", "method": method,
                     "threads": 1, "seconds": med, "min_seconds": best, "peak_mib": mib,
                     "identical": score == got["swgpu align"][2],
                     **({"vs_peer": got["parasail sw_trace_striped_16"][0] / med} if which == "swgpu" else {})})


JOBS = {"search": search_job, "screen": screen_job, "pair": pair_job, "trace": trace_job}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="bench-out/jobs_cpu")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--jobs", default=",".join(JOBS))
    args = ap.parse_args()
    data = shared_data()
    rows: list[dict] = []
    for job in args.jobs.split(","):
        start = len(rows)
        JOBS[job](data, args.repeats, rows)
        for r in rows[start:]:
            extra = "".join(f"  {k} {r[k]:.2f}" for k in ("vs_peer", "speedup_2_threads", "peak_mib") if k in r)
            print(f"{r['job']:6s} {r['case'][:44]:44s} {r['method'][:34]:34s} {r['threads']}t {r['seconds']:8.3f} s"
                  f"{'  %6.2f GCUPS' % r['gcups'] if 'gcups' in r else ''}  same {r['identical']}{extra}", flush=True)
    write_json(args.out + ".json", {"benchmark": "jobs_cpu", "repeats": args.repeats, "rows": rows})


if __name__ == "__main__":
    main()
