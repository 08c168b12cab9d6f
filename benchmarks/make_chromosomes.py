"""Two related chromosomes for the chromosome-scale run: a random genome of N
letters and a rearranged copy of it, as two FASTA files (fixed seed).

The copy (``copy.fa``) is the genome (``genome.fa``) with, in this order:

* a **translocation**: the segment at 60-63% of the genome moved to 85%;
* an **inversion**: the segment at 30-34% reverse-complemented in place;
* **small indels**: N/5000 deletions and N/5000 insertions of 1-10 letters;
* **substitutions**: N/50 random letters (some to the same letter: about 1.5%
  change).

The best local alignment of the two is the longest collinear stretch (the
first 30%, bridged across the inversion where that pays), and the inverted
segment aligns on the minus strand. Both files are about N letters.

    python benchmarks/make_chromosomes.py 50000000 OUTDIR    # OUTDIR/genome.fa, OUTDIR/copy.fa
    # end points on four GPUs (the score pass), then the best alignment traced from the table:
    swgpu align OUTDIR/copy.fa OUTDIR/genome.fa --ends 10 --alignments 0 --ends-out OUTDIR/ends.tsv \\
        --strand plus --device cuda --gpus 0,1,2,3 --timings -o OUTDIR/none.txt
    swgpu align OUTDIR/copy.fa OUTDIR/genome.fa --ends-in OUTDIR/ends.tsv --alignments 1 \\
        --device cuda --gpus 0 --timings -f sam -o OUTDIR/best.sam

It prints the two paths and where each rearrangement lies (0-based, half-open).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

LETTERS = np.frombuffer(b"ACGT", np.uint8)


def _indels(rng, s: np.ndarray, count: int) -> np.ndarray:
    """``s`` with ``count`` deletions, then ``count`` insertions, of 1-10 letters each."""
    keep = np.ones(s.size, bool)
    starts = rng.integers(0, s.size, count)
    lengths = rng.integers(1, 11, count)
    cut = np.repeat(starts, lengths) + (np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths))
    keep[cut[cut < s.size]] = False
    s = s[keep]
    at = np.sort(rng.integers(0, s.size + 1, count))
    lengths = rng.integers(1, 11, count)
    return np.insert(s, np.repeat(at, lengths), rng.integers(0, 4, int(lengths.sum())).astype(np.uint8))


def make(n: int, out: Path, seed: int = 7) -> tuple[tuple[Path, Path], dict]:
    """``((genome.fa, copy.fa), rearrangements)`` in ``out``."""
    if n < 1000:
        raise ValueError("a genome of at least 1,000 letters")
    rng = np.random.default_rng(seed)
    genome = rng.integers(0, 4, n).astype(np.uint8)
    moved = (int(0.60 * n), int(0.63 * n))
    to = int(0.85 * n)
    copy = np.concatenate([genome[:moved[0]], genome[moved[1]:to], genome[moved[0]:moved[1]], genome[to:]])
    inverted = (int(0.30 * n), int(0.34 * n))
    copy[inverted[0]:inverted[1]] = 3 - copy[inverted[0]:inverted[1]][::-1]  # (A C G T: 3 - code complements)
    copy = _indels(rng, copy, max(1, n // 5000))
    at = rng.integers(0, copy.size, n // 50)
    copy[at] = rng.integers(0, 4, at.size)
    paths = out / "genome.fa", out / "copy.fa"
    for path, s in zip(paths, (genome, copy)):
        with open(path, "wb") as f:
            f.write(b">" + path.stem.encode() + b"\n")
            body = LETTERS[s]
            for i in range(0, body.size, 80 << 18):  # 80 letters a line, in blocks of whole lines
                block = body[i:i + (80 << 18)]
                full = block.size // 80 * 80
                lines = np.hstack([block[:full].reshape(-1, 80), np.full((full // 80, 1), 10, np.uint8)])
                f.write(lines.tobytes())
                if full < block.size:
                    f.write(block[full:].tobytes() + b"\n")
    return paths, {"translocated": moved, "to": to, "inverted": inverted}


def main(argv=None) -> None:
    from _common import generator_main

    paths, where = generator_main(make, __doc__, 7, argv)
    print(*paths)
    print(where)


if __name__ == "__main__":
    main()
