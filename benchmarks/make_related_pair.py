"""A random genome of N letters and a related copy, as two FASTA files: the
copy has N/50 random substitutions (some to the same letter, so about 1.5%
change), N/2000 one-letter deletions and N/2000 one-letter insertions.
The 10 Mbp × 10 Mbp pair of #31's traceback bar (fixed seed 3):

    python benchmarks/make_related_pair.py 10000000 OUTDIR      # OUTDIR/query.fa, OUTDIR/target.fa
    python benchmarks/long_align.py --query OUTDIR/query.fa --query-length 20000000 \\
        --target OUTDIR/target.fa --alignments 1 --top 1 --device cuda
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


def make(n: int, out: Path, seed: int = 3) -> tuple[Path, Path]:
    """``(query.fa, target.fa)`` in ``out``."""
    rng = np.random.default_rng(seed)
    t = rng.integers(0, 4, n).astype(np.uint8)
    q = t.copy()
    k = rng.integers(0, n, n // 50)
    q[k] = rng.integers(0, 4, k.size)
    keep = np.ones(n, bool)
    keep[rng.integers(0, n, n // 2000)] = False  # small deletions
    q = q[keep]
    ins = np.sort(rng.integers(0, q.size, n // 2000))
    q = np.insert(q, ins, rng.integers(0, 4, ins.size).astype(np.uint8))
    letters = np.frombuffer(b"ACGT", np.uint8)
    paths = out / "query.fa", out / "target.fa"
    for path, s in zip(paths, (q, t)):
        with open(path, "wb") as f:
            f.write(b">" + path.stem.encode() + b"\n")
            body = letters[s]
            for i in range(0, body.size, 80):
                f.write(body[i:i + 80].tobytes() + b"\n")
    return paths


def main(argv=None) -> None:
    from _common import generator_main

    print(*generator_main(make, __doc__, 3, argv))


if __name__ == "__main__":
    main()
