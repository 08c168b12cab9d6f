"""swgpu's CPU screen beside parasail on the same read pairs, whole processes.

    python benchmarks/screen_vs_parasail.py PAIRS_DIR [--threads 1,2] [--check 20000]

PAIRS_DIR holds ``pairs_query.fa`` and ``pairs_target.fa`` (``benchmarks/make_pairs.py``). Runs, one after the
other: ``swgpu screen --device cpu --threshold 0 -f sam`` for each ``--threads`` value (scoring
``--match 2 --mismatch -3 --gap-open 7 --gap-extend 2``), then parasail 1.3's ``sw_trace_scan_16`` (its
striped traceback misscores ``open == extend``; not the case here) in a process of its own: every pair's score and
CIGAR, one thread, no SAM written. Prints each one's wall seconds and whole-command GCUPS, and checks that
parasail's scores of the first ``--check`` pairs equal swgpu's SAM ``AS:i`` fields.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

_PARASAIL = r"""
import sys, time, parasail
qf, tf = sys.argv[1], sys.argv[2]
def seqs(path):
    names, out, cur = [], [], None
    with open(path) as fh:
        for line in fh:
            if line.startswith(">"):
                if cur is not None: out.append("".join(cur))
                names.append(line[1:].split()[0]); cur = []
            else: cur.append(line.strip())
    if cur is not None: out.append("".join(cur))
    return names, out
matrix = parasail.matrix_create("ACGTN", 2, -3)
names, qs = seqs(qf)
scores = []
for q, t in zip(qs, seqs(tf)[1]):
    r = parasail.sw_trace_scan_16(q, t, 7, 2, matrix)  # (parasail: open 7 = the first gap letter's cost)
    r.cigar  # (the traceback's CIGAR, decoded)
    scores.append(r.score)
k = int(sys.argv[3])
print(" ".join(f"{n}={s}" for n, s in zip(names[:k], scores[:k])))
"""


def _cells(qf: str, tf: str) -> int:
    def lengths(path):
        out, n = [], 0
        with open(path) as fh:
            for line in fh:
                if line.startswith(">"):
                    if n:
                        out.append(n)
                    n = 0
                else:
                    n += len(line.strip())
        return out + ([n] if n else [])

    return sum(a * b for a, b in zip(lengths(qf), lengths(tf)))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pairs")
    ap.add_argument("--threads", default="2,1")
    ap.add_argument("--check", type=int, default=20000)
    args = ap.parse_args(argv)
    qf, tf = (os.path.join(args.pairs, f"pairs_{s}.fa") for s in ("query", "target"))
    cells = _cells(qf, tf)
    out = tempfile.mkdtemp(prefix="swgpu-vs-parasail-")
    sam = None
    for threads in args.threads.split(","):
        sam = os.path.join(out, f"t{threads}.sam")
        cmd = [sys.executable, "-m", "swgpu", "screen", "-q", qf, "-t", tf, "--device", "cpu", "--match", "2",
               "--mismatch", "-3", "--gap-open", "7", "--gap-extend", "2", "--threshold", "0", "-f", "sam",
               "--threads", threads, "-o", sam, "--quiet"]
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True)
        wall = time.perf_counter() - t0
        print(f"swgpu --threads {threads:2s} {wall:8.2f} s {cells / wall / 1e9:6.2f} GCUPS", flush=True)
    t0 = time.perf_counter()
    got = subprocess.run([sys.executable, "-c", _PARASAIL, qf, tf, str(args.check)], check=True,
                         capture_output=True, text=True).stdout.split()
    wall = time.perf_counter() - t0
    print(f"parasail sw_trace_scan_16 {wall:8.2f} s {cells / wall / 1e9:6.2f} GCUPS (one thread)", flush=True)
    want = dict(x.split("=") for x in got)  # (pair name = parasail's score)
    ours = {}
    with open(sam) as fh:
        for line in fh:
            fields = line.split("\t")
            if not line.startswith("@") and fields[0] in want:
                ours[fields[0]] = next(f[5:].strip() for f in fields if f.startswith("AS:i:"))
    # (a pair scoring 0 has no SAM record)
    same = sum(ours.get(name, "0") == score for name, score in want.items())
    print(f"scores: {same:,} of the first {len(want):,} pairs equal", flush=True)
    return 0 if same == len(want) else 1


if __name__ == "__main__":
    sys.exit(main())
