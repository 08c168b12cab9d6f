"""CPU traceback of one long alignment against its score pass: ``swgpu align
--ends`` and ``swgpu scan`` of a 40 kbp mutated piece of E. coli against a
1 Mbp region of it, with 1 and 2 threads; each command's ``--timings``
(score and traceback phases) parsed and written as JSON.

    python benchmarks/traceback_cpu.py --out benchmarks/results/DATE/traceback_cpu/after.json

The data (fixed seed): the target is E. coli K-12 MG1655 from 1,000,000 for
1 Mbp; the query the 40 kbp from 300,000 of that region with 5 % random
substitutions, three deletions and three insertions of 5-40 letters.
"""

from __future__ import annotations

import argparse
import gzip
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import mutate, shared_data, write_json  # noqa: E402



def make_data(folder: Path, seed: int = 7) -> tuple[Path, Path]:
    """``(query.fa, target.fa)`` in ``folder``."""
    with gzip.open(shared_data() / "dna" / "ecoli_K12_MG1655.fasta.gz", "rt") as fh:
        genome = "".join(line.strip() for line in fh if not line.startswith(">")).upper()
    target = genome[1_000_000:2_000_000]
    rng = np.random.default_rng(seed)
    piece = np.frombuffer(target[300_000:340_000].encode(), dtype=np.uint8).copy()
    text = mutate(piece, rng, 0.05, 3)
    q, t = folder / "query.fa", folder / "target.fa"
    q.write_text(">query\n" + text + "\n")
    t.write_text(">target\n" + target + "\n")
    return q, t


def phases(stderr: str) -> dict:
    """Seconds of each phase named in a ``--timings`` report."""
    out = {}
    for name, secs in re.findall(r"([A-Za-z][\w -]*?)[:=]?\s+([0-9]+\.[0-9]+)\s*s\b", stderr):
        out[name.strip().lower()] = float(secs)
    return out


def run(cmd: list[str]) -> dict:
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode:
        sys.exit(f"{' '.join(cmd)} failed:\n{p.stderr}")
    return {"cmd": " ".join(cmd[1:]), "wall_s": round(wall, 2), "phases": phases(p.stderr),
            "timings": p.stderr.strip().splitlines()[-8:], "output": p.stdout.strip().splitlines()[:3]}


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--swgpu", default=str(Path(sys.executable).with_name("swgpu")))
    p.add_argument("--threads", default="1,2")
    p.add_argument("--workloads", default="align,scan")
    p.add_argument("--out", default=None)
    a = p.parse_args(argv)
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        q, t = make_data(Path(tmp))
        subprocess.run([a.swgpu, "align", str(q), str(t), "--ends", "5", "--alignments", "1", "--device", "cpu"],
                       capture_output=True)  # warm-up: kernels compiled and cached
        for threads in [int(x) for x in a.threads.split(",")]:
            for w in a.workloads.split(","):
                if w == "align":
                    cmd = [a.swgpu, "align", str(q), str(t), "--ends", "5", "--alignments", "1"]
                else:
                    cmd = [a.swgpu, "scan", "-q", str(q), "-g", str(t), "--top", "1"]
                r = run(cmd + ["--device", "cpu", "--timings", "--threads", str(threads)])
                r.update(workload=w, threads=threads)
                print(f"{w:5} threads={threads}: {r['phases']}  wall {r['wall_s']} s", flush=True)
                runs.append(r)
    if a.out:
        write_json(a.out, {"runs": runs})


if __name__ == "__main__":
    main()
