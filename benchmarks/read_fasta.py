"""Reading a FASTA file: swgpu's reader beside dnaio's parser, in one process, alternating.

    python benchmarks/read_fasta.py FILE.fa [--rounds 5]

dnaio (https://github.com/marcelm/dnaio) parses at memory speed in C; its
time is the reference (`dnaio.open(path)` iterated to the end, which makes each
record's name and sequence). swgpu's is `read_sequence_batch` with the DNA
alphabet: names, descriptions, letters and codes as columns. Prints each
round's seconds and MB/s, then the medians and their ratio.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time


def _dnaio(path: str) -> int:
    import dnaio

    n = 0
    with dnaio.open(path) as reader:
        for _ in reader:
            n += 1
    return n


def _swgpu(path: str) -> int:
    from swgpu.io import compiled
    from swgpu.io.readers import read_sequence_batch

    compiled.WITHOUT_BLAS = True
    return len(read_sequence_batch(path, "dna"))


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("path")
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args()
    size = os.path.getsize(args.path) / 1e6
    assert _dnaio(args.path) == _swgpu(args.path)  # (a first read of each: file cached, code loaded)
    times: dict[str, list[float]] = {"dnaio": [], "swgpu": []}
    for r in range(args.rounds):
        for name, fn in (("dnaio", _dnaio), ("swgpu", _swgpu)):
            t0 = time.perf_counter()
            fn(args.path)
            sec = time.perf_counter() - t0
            times[name].append(sec)
            print(f"round {r + 1} {name:6s} {sec:6.3f} s  {size / sec:7.0f} MB/s")
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"median: dnaio {med['dnaio']:.3f} s, swgpu {med['swgpu']:.3f} s, swgpu/dnaio {med['swgpu'] / med['dnaio']:.2f}"
          f" ({size:.0f} MB)")


if __name__ == "__main__":
    main()
