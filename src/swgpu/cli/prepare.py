"""The CPU kernels compiled ahead of the first command.

Numba compiles a kernel the first time a process calls it and keeps the
machine code in ``__pycache__`` beside its module, keyed by the source's
content, the CPU and Numba's version. :func:`prepare` runs every workload
once on the CPU, on small inputs made here, in each output format, so that
every kernel a command calls is compiled with the types that command
passes. An install from source calls it (``setup.py``) on the built
package, so the first command on that machine loads its kernels instead of
compiling them; ``python -m swgpu.cli.prepare`` does the same for an
installed package (the cache written where Numba puts it: beside the
modules, ``$NUMBA_CACHE_DIR`` or the user's cache folder).

>>> [argv[0] for argv in commands("/tmp/x")][:3]
['search', 'search', 'search']
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import tempfile
import time

__all__ = ["commands", "prepare", "write_inputs"]

_DNA = b"ACGT"
_NAMES = ("genome", "reads", "windows", "probes", "region", "proteins", "many_reads", "many_windows", "long_region",
          "long_genome")
#: Copies of the reads and windows in ``many_*``: their alignments take more than
#: :data:`~swgpu.align.runs.ARRAY_COLUMNS` columns (the compiled CIGAR runs).
_COPIES = 1000


def write_inputs(folder: str) -> dict[str, str]:
    """Small inputs in ``folder``: a genome of two chromosomes, 24 reads cut
    from it with substitutions and small gaps (some reverse-complemented),
    the windows they came from (and 1,000 copies of both), probes, a region, a
    10 kbp region of a 40 kbp sequence; and 60 random proteins
    (their 3,600 pairs take the compiled statistics, from
    :data:`~swgpu.scoring.length_adjust.COMPILED_FROM` lengths). Returns their paths by name."""
    import numpy as np

    rng = np.random.default_rng(7)
    genome = [rng.integers(0, 4, 3000), rng.integers(0, 4, 2000)]
    paths = {name: os.path.join(folder, f"{name}.fa") for name in _NAMES}
    with open(paths["genome"], "wb") as f:
        for i, g in enumerate(genome):
            f.write(b">chr%d\n%s\n" % (i + 1, bytes(np.frombuffer(_DNA, np.uint8)[g])))
    reads, windows = [], []
    for k in range(24):
        at = int(rng.integers(0, 2800))
        window = genome[0][at:at + 160].copy()
        read = window[5:155].copy()
        flip = rng.random(read.size) < 0.04
        read[flip] = (read[flip] + rng.integers(1, 4, int(flip.sum()))) % 4
        if k % 5 == 1:
            read = np.delete(read, range(40, 43))
        if k % 5 == 2:
            read = np.insert(read, 60, [0, 1, 2])
        if k % 7 == 3:
            read = rng.integers(0, 4, 150)
        letters = bytes(np.frombuffer(_DNA, np.uint8)[read])
        if k % 4 == 0:
            letters = letters[::-1].translate(bytes.maketrans(b"ACGT", b"TGCA"))
        reads.append(b">r%d\n%s\n" % (k, letters))
        windows.append(b">w%d\n%s\n" % (k, bytes(np.frombuffer(_DNA, np.uint8)[window])))
    with open(paths["reads"], "wb") as f:
        f.write(b"".join(reads))
    with open(paths["windows"], "wb") as f:
        f.write(b"".join(windows))
    with open(paths["many_reads"], "wb") as f:
        f.write(b"".join(reads) * _COPIES)
    with open(paths["many_windows"], "wb") as f:
        f.write(b"".join(windows) * _COPIES)
    with open(paths["probes"], "wb") as f:
        f.write(b"".join(reads[:8]))
    with open(paths["region"], "wb") as f:
        f.write(b">region\n%s\n" % bytes(np.frombuffer(_DNA, np.uint8)[genome[1][200:1400]]))
    # a 10 kbp region with 1% substitutions and a small gap against the 40 kbp it came from (the long-pair
    # kernels: striped passes in 8, 16 and 32 bits, Myers-Miller's halves)
    far = rng.integers(0, 4, 40000)
    piece = far[12000:22000].copy()
    flip = rng.random(piece.size) < 0.01
    piece[flip] = (piece[flip] + rng.integers(1, 4, int(flip.sum()))) % 4
    piece = np.delete(piece, range(5000, 5004))
    for name, seq in (("long_region", piece), ("long_genome", far)):
        with open(paths[name], "wb") as f:
            f.write(b">%s\n%s\n" % (name.encode(), bytes(np.frombuffer(_DNA, np.uint8)[seq])))
    amino = np.frombuffer(b"ACDEFGHIKLMNPQRSTVWY", np.uint8)
    with open(paths["proteins"], "wb") as f:
        for k in range(60):
            f.write(b">p%d\n%s\n" % (k, bytes(amino[rng.integers(0, 20, int(rng.integers(40, 200)))])))
    return paths


def commands(folder: str) -> list[list[str]]:
    """The command lines :func:`prepare` runs, on the inputs of
    :func:`write_inputs` and the shipped example proteins, writing into ``folder``."""
    from .info import example_path

    q, t = example_path("queries.fasta"), example_path("targets.fasta")
    d = {name: os.path.join(folder, f"{name}.fa") for name in _NAMES}
    db = os.path.join(folder, "targets.swdb")
    out = os.path.join(folder, "out")
    runs = []
    for fmt in ("blast6", "pairwise", "sam", "json", "blast7"):
        runs.append(["search", "-q", q, "-d", t, "--top", "3", "-f", fmt])
    runs += [
        ["search", "-q", q, "-d", t, "--top", "3", "--max-hsps", "2", "--evalue", "1e9",  # (further alignments searched)
         "--outfmt", "6 qseqid sseqid evalue bitscore qcovs btop"],
        ["search", "-q", q, "-d", t, "--top", "3", "--outfmt", "6 qseqid sseqid qseq sseq btop"],
        ["makedb", t, db],
        ["search", "-q", q, "-d", db, "--top", "3"],
        ["search", "-q", d["probes"], "-d", d["genome"], "--top", "3"],
    ]
    for fmt in ("pairwise", "blast6", "sam", "json"):
        runs.append(["align", q, t, "--min-score", "40", "-f", fmt])
    runs += [
        ["align", d["proteins"], d["proteins"], "-f", "blast6"],
        ["align", d["reads"], d["windows"], "--match", "2", "--mismatch", "-3", "--gap-open", "5", "--gap-extend", "2",
         "-f", "sam"],
        ["align", d["region"], d["genome"], "--ends", "5", "--alignments", "2", "-f", "sam"],
        ["align", d["long_region"], d["long_genome"], "--ends", "10", "--alignments", "2", "-f", "sam"],
        ["screen", "-q", d["reads"], "-t", d["windows"]],
    ]
    for fmt in ("sam", "blast6", "json", "pairwise"):
        runs.append(["screen", "-q", d["reads"], "-t", d["windows"], "--threshold", "0", "-f", fmt])
    runs.append(["screen", "-q", d["reads"], "-t", d["windows"], "--threshold", "0", "-f", "sam", "--strand", "both"])
    runs.append(["screen", "-q", d["many_reads"], "-t", d["many_windows"], "--threshold", "0", "-f", "sam"])
    for fmt in ("blast6", "sam"):
        runs.append(["scan", "-q", d["probes"], "-g", d["genome"], "--top", "3", "-f", fmt])
    return [argv if argv[0] == "makedb" else argv + ["--device", "cpu", "--quiet", "-o", out] for argv in runs]


def _simulation() -> None:
    """The kernel that estimates the statistics of a scoring without BLAST's
    published parameters (:mod:`swgpu.scoring.simulation`), run on one short
    pair of the types it passes: a search compiles it the first time it meets
    such a scoring."""
    import numpy as np

    from ..scoring import island_kernel

    codes = (np.arange(64) % 20).astype(np.int8)  # (letters as the simulation draws them: int8 codes)
    island_kernel.run(codes, codes[::-1].copy(), np.eye(20, dtype=np.int32) * 5 - 1, 11, 1, 1, 1 << 10)


def prepare(verbose: bool = False) -> float:
    """Run :func:`commands` in this process (their outputs in a temporary
    folder, discarded); returns the seconds taken. A command that fails is
    reported on standard error and the others still run."""
    from .main import main

    from ..io import compiled
    from ..scoring import fit_kernel

    start = time.perf_counter()
    compiled.load_scan()  # (the compiled FASTA scan of inputs from COMPILED_BYTES)
    fit_kernel.load()  # (a search's fit, loaded by its commands on a thread that may not finish before they do)
    _simulation()
    with tempfile.TemporaryDirectory(prefix="swgpu-prepare-") as folder:
        write_inputs(folder)
        for argv in commands(folder):
            began = time.perf_counter()
            sink = io.StringIO()
            with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
                status = main(argv)
            if status != 0:
                print(f"swgpu prepare: `swgpu {' '.join(argv[:1])}` ended with status {status}: "
                      f"{sink.getvalue().strip()[-300:]}", file=sys.stderr)
            elif verbose:
                print(f"{time.perf_counter() - began:6.2f} s  swgpu {' '.join(argv)}", file=sys.stderr)
    return time.perf_counter() - start


if __name__ == "__main__":  # pragma: no cover
    seconds = prepare(verbose="-v" in sys.argv[1:])
    print(f"swgpu: the CPU kernels are compiled for this machine ({seconds:.1f} s)", file=sys.stderr)
