"""A 150 kbp region of a genome, mutated and reverse-complemented, aligned
against two chromosomes (4.3 Mbp): ``swgpu align QUERY TARGET --ends 50
--alignments 1`` on the CPU (every core) and on the GPU, whole commands with
``--timings``; the outputs of the devices compared byte for byte. Writes JSON.

    python benchmarks/region_align.py --devices cpu,cuda --out results/DATE/region_align.json

The data (fixed seed): the target is D. melanogaster chromosome 4 (1.35 Mbp)
and the first 2.95 Mbp of E. coli K-12 MG1655, two records; the query the
150 kbp of chromosome 4 from 400,000 with 2 % random substitutions, five
deletions and five insertions of 5-40 letters, reverse-complemented (so its
alignment is on the minus strand).
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import mutate, shared_data, write_json  # noqa: E402
from traceback_cpu import run  # noqa: E402



def _genome(name: str) -> str:
    with gzip.open(shared_data() / "dna" / name, "rt") as fh:
        return "".join(line.strip() for line in fh if not line.startswith(">")).upper()


def make_data(folder: Path, seed: int = 11, length: int = 150_000) -> tuple[Path, Path]:
    """``(query.fa, target.fa)`` in ``folder``."""
    chr4 = _genome("dmelanogaster_chr4.fasta.gz")
    ecoli = _genome("ecoli_K12_MG1655.fasta.gz")[:2_950_000]
    rng = np.random.default_rng(seed)
    piece = np.frombuffer(chr4[400_000:400_000 + length].encode(), dtype=np.uint8).copy()
    text = mutate(piece, rng, 0.02, 5, acgt_only=True)[::-1].translate(str.maketrans("ACGTN", "TGCAN"))
    q, t = folder / "query.fa", folder / "target.fa"
    q.write_text(">region\n" + text + "\n")
    t.write_text(">chr4\n" + chr4 + "\n>ecoli\n" + ecoli + "\n")
    return q, t


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--swgpu", default=str(Path(sys.executable).with_name("swgpu")))
    p.add_argument("--devices", default="cpu,cuda")
    p.add_argument("--length", type=int, default=150_000)
    p.add_argument("--out", default=None)
    a = p.parse_args(argv)
    runs, digests = [], {}
    with tempfile.TemporaryDirectory() as tmp:
        q, t = make_data(Path(tmp), length=a.length)
        for device in a.devices.split(","):
            out = Path(tmp) / f"{device}.tsv"
            r = run([a.swgpu, "align", str(q), str(t), "--ends", "50", "--alignments", "1", "--device", device,
                     "--timings", "-o", str(out)])
            digests[device] = hashlib.sha256(out.read_bytes()).hexdigest()
            r.update(device=device, sha256=digests[device])
            print(f"{device:5}: {r['phases']}  wall {r['wall_s']} s  output {digests[device][:12]}", flush=True)
            runs.append(r)
    same = len(set(digests.values())) <= 1
    print("outputs identical" if same else "OUTPUTS DIFFER", flush=True)
    if a.out:
        write_json(a.out, {"runs": runs, "identical": same})


if __name__ == "__main__":
    main()
