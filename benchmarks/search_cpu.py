"""CPU database search: swgpu's engine beside pyopal and parasail, same query, same database, same run.

A ~300-aa query against the 12,071-sequence Swiss-Prot set, BLOSUM62 11/1, all
cores for swgpu and pyopal (parasail runs one sequence at a time, one thread).
The peers get swgpu's matrix (so U, O and * score as in swgpu) and the
database in file order. Scores are checked to agree. Writes JSON.
``benchmarks/jobs_cpu.py`` runs the three benchmark queries on 1 and 2 threads.

    python benchmarks/search_cpu.py [--out bench-out/search_cpu]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from _common import shared_data, write_json

import swgpu
from swgpu.io.database import Database
from swgpu.workloads.search import Searcher


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default="bench-out/search_cpu")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    path = shared_data() / "protein" / "uniprot_sprot12071.fasta.gz"
    seqs = swgpu.read_sequences(path, "protein")
    query = min(seqs, key=lambda s: abs(len(s) - 300))
    db = Database.from_sequences(seqs)
    cells = len(query) * db.total_residues
    scoring = swgpu.Scoring.default("protein")
    rows = []

    def record(name, fn):
        fn()
        times = []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            out = fn()
            times.append(time.perf_counter() - t0)
        s = float(np.median(times))
        rows.append({"method": name, "seconds": s, "gcups": cells / s / 1e9})
        print(f"{name:38s} {s:8.3f} s {cells / s / 1e9:7.2f} GCUPS", flush=True)
        return out

    searcher = Searcher(db, scoring, device="cpu")
    searcher.compile([query])
    ours = record("swgpu cpu (SIMD, all cores)", lambda: searcher.scores(query))
    texts = [s.text for s in seqs]  # file order; db.index maps swgpu's order to it
    qtext = query.text
    letters = scoring.alphabet.letters
    try:
        import pyopal
        from scoring_matrices import ScoringMatrix

        matrix = ScoringMatrix(scoring.matrix.values.tolist(), alphabet=letters)
        pdb = pyopal.Database(texts, pyopal.Alphabet(letters))
        theirs = record("pyopal 0.7 (SIMD, all cores)", lambda: np.array(
            [r.score for r in pyopal.align(qtext, pdb, matrix, gap_open=11, gap_extend=1, ordered=True)])[db.index])
        rows[-1]["agree"] = int((theirs == ours).sum())
    except ImportError:
        print("pyopal not installed")
    try:
        import parasail

        pm = parasail.matrix_create(letters, 0, 0)
        for a in range(len(letters)):
            for b in range(len(letters)):
                pm.set_value(a, b, int(scoring.matrix.values[a, b]))
        prof = parasail.profile_create_16(qtext, pm)
        theirs = record("parasail sw_striped_profile_16 (1 thread)", lambda: np.array(
            [parasail.sw_striped_profile_16(prof, t, 11, 1).score for t in texts])[db.index])
        rows[-1]["agree"] = int((theirs == ours).sum())
    except ImportError:
        print("parasail not installed")
    write_json(args.out + ".json", {"benchmark": "search_cpu", "query": query.name, "query_length": len(query),
                                    "sequences": len(db), "residues": db.total_residues, "rows": rows})


if __name__ == "__main__":
    main()
