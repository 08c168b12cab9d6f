"""Read/target pairs of the bulk-screening shape, at any count, from a genome.

Each pair is a 150 bp read and the 250 bp window of the genome it came from:
the read starts at a random offset inside the window and carries 4% random
substitutions; 10% of the reads are random sequence instead (pairs that do not
align). Record ``i`` of the query file pairs with record ``i`` of the target
file, as ``swgpu screen -q -t`` and GASAL2's test program read them. The same
seed gives the same files.

    python benchmarks/make_pairs.py GENOME.fa[.gz] OUTDIR [--pairs 1000000] [--seed 7]

writes ``OUTDIR/pairs_query.fa`` and ``OUTDIR/pairs_target.fa`` (one line of
letters per record) and prints their sizes.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np

READ, WINDOW = 150, 250
SUBSTITUTIONS = 0.04
RANDOM_READS = 0.10
_LETTERS = np.frombuffer(b"ACGT", dtype=np.uint8)


def genome_codes(path: str) -> np.ndarray:
    """The genome's letters (ACGT only, upper case) as codes 0-3."""
    import swgpu

    text = "".join(s.text for s in swgpu.read_sequences(path, "dna")).upper()
    raw = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
    table = np.full(256, 255, dtype=np.uint8)
    table[_LETTERS] = np.arange(4)
    codes = table[raw]
    return codes[codes != 255]


#: Pairs made at a time (each slice of its own seed: the first million are the same at any count).
SLICE = 1_000_000


def make(genome: np.ndarray, n: int, seed) -> tuple[np.ndarray, np.ndarray]:
    """``n`` reads (rows of READ codes) and their windows (rows of WINDOW codes)."""
    rng = np.random.default_rng(seed)
    starts = rng.integers(0, genome.size - WINDOW + 1, size=n)
    windows = genome[starts[:, None] + np.arange(WINDOW)]
    offset = rng.integers(0, WINDOW - READ + 1, size=n)
    reads = windows[np.arange(n)[:, None], offset[:, None] + np.arange(READ)]
    hit = rng.random((n, READ)) < SUBSTITUTIONS
    reads = np.where(hit, (reads + rng.integers(1, 4, size=(n, READ))) % 4, reads).astype(np.uint8)
    noise = rng.random(n) < RANDOM_READS
    reads[noise] = rng.integers(0, 4, size=(int(noise.sum()), READ), dtype=np.uint8)
    return reads, windows.astype(np.uint8)


def write_fasta(out, prefix: str, rows: np.ndarray, first: int = 0, chunk: int = 1 << 16) -> None:
    """Records ``>{prefix}{i}`` (from ``i = first``) with one line of letters each, to the binary file ``out``."""
    for a in range(0, rows.shape[0], chunk):
        part = _LETTERS[rows[a:a + chunk]]
        names = [f">{prefix}{i}\n".encode() for i in range(first + a, first + a + part.shape[0])]
        body = np.concatenate([part, np.full((part.shape[0], 1), ord("\n"), np.uint8)], axis=1)
        lines = body.tobytes()
        w = body.shape[1]
        out.write(b"".join(h + lines[k * w:(k + 1) * w] for k, h in enumerate(names)))


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("genome")
    p.add_argument("outdir")
    p.add_argument("--pairs", type=int, default=1_000_000)
    p.add_argument("--seed", type=int, default=7)
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    os.makedirs(args.outdir, exist_ok=True)
    genome = genome_codes(args.genome)
    q, t = os.path.join(args.outdir, "pairs_query.fa"), os.path.join(args.outdir, "pairs_target.fa")
    with open(q, "wb") as qout, open(t, "wb") as tout:
        for k, first in enumerate(range(0, args.pairs, SLICE)):
            reads, windows = make(genome, min(SLICE, args.pairs - first), args.seed if k == 0 else [args.seed, k])
            write_fasta(qout, "r", reads, first)
            write_fasta(tout, "w", windows, first)
    print(f"make_pairs: {args.pairs:,} pairs, {os.path.getsize(q) / 1e6:.1f} + {os.path.getsize(t) / 1e6:.1f} MB "
          f"in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
