"""Probes for ``swgpu scan``: a random genome and probes cut from it, each
with a few substitutions (fixed seed), as FASTA.

    python benchmarks/make_scan_probes.py OUTDIR [--genome 300000] [--probes 1000] [--length 256] [--changes 12]

writes ``OUTDIR/genome.fa`` and ``OUTDIR/probes.fa``; then, for example,
``swgpu scan -q OUTDIR/probes.fa -g OUTDIR/genome.fa --top 10 --device cpu --timings``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out")
    p.add_argument("--genome", type=int, default=300_000)
    p.add_argument("--probes", type=int, default=1000)
    p.add_argument("--length", type=int, default=256)
    p.add_argument("--changes", type=int, default=12)
    p.add_argument("--seed", type=int, default=5)
    a = p.parse_args()
    rng = np.random.default_rng(a.seed)
    letters = np.frombuffer(b"ACGT", dtype=np.uint8)
    genome = letters[rng.integers(0, 4, a.genome)]
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "genome.fa").write_text(">genome\n" + genome.tobytes().decode() + "\n")
    with open(out / "probes.fa", "w") as fh:
        for k in range(a.probes):
            at = int(rng.integers(0, a.genome - a.length))
            probe = genome[at:at + a.length].copy()
            probe[rng.integers(0, a.length, a.changes)] = letters[rng.integers(0, 4, a.changes)]
            fh.write(f">p{k}\n{probe.tobytes().decode()}\n")
    print(f"make_scan_probes: {a.probes} probes of {a.length} along {a.genome:,} letters in {out}")


if __name__ == "__main__":
    main()
