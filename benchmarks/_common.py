"""Shared helpers for the benchmark scripts: data location, machine facts, JSON output."""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def shared_data() -> Path:
    """``../shared/data`` beside the checkout, or ``$SWGPU_DATA``."""
    env = os.environ.get("SWGPU_DATA")
    candidates = [Path(env)] if env else []
    candidates += [p / "shared" / "data" for p in [ROOT.parent, ROOT]]
    for c in candidates:
        if c.is_dir():
            return c
    sys.exit("benchmark data not found: set SWGPU_DATA to the folder holding protein/, dna/, reads/")


def machine() -> dict:
    info = {"python": platform.python_version(), "platform": platform.platform(), "cores": os.cpu_count()}
    try:
        model = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
        info["cpu"] = model
    except (OSError, StopIteration):
        info["cpu"] = platform.processor()
    try:
        gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=10).stdout.strip()
        if gpu:
            info["gpu"] = gpu
    except (OSError, subprocess.SubprocessError):
        pass
    return info


def write_json(path: str | os.PathLike, payload: dict) -> None:
    payload = {"date": _dt.date.today().isoformat(), "command": " ".join([sys.executable, *sys.argv]),
               "machine": machine(), **payload}
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(str(path) + ".tmp")
    tmp.write_text(json.dumps(payload, indent=2) + "\n")
    tmp.replace(path)


def mutate(piece, rng, rate: float, indels: int, acgt_only: bool = False) -> str:
    """DNA letters ``piece`` (uint8 array, changed in place) with a fraction
    ``rate`` substituted (by another of A, C, G, T; ``acgt_only``: only where
    the letter is one of them), then ``indels`` deletions and ``indels``
    insertions of 5-40 letters at random places at least 1,000 from the ends."""
    import numpy as np

    acgt = np.frombuffer(b"ACGT", dtype=np.uint8)
    hit = rng.random(piece.size) < rate
    if acgt_only:
        hit &= np.isin(piece, acgt)
    piece[hit] = acgt[(np.searchsorted(acgt, piece[hit]) + rng.integers(1, 4, int(hit.sum()))) % 4]
    text = piece.tobytes().decode()
    for _ in range(indels):  # deletions, then insertions
        at, k = int(rng.integers(1000, len(text) - 1000)), int(rng.integers(5, 41))
        text = text[:at] + text[at + k:]
    for _ in range(indels):
        at, k = int(rng.integers(1000, len(text) - 1000)), int(rng.integers(5, 41))
        text = text[:at] + acgt[rng.integers(0, 4, k)].tobytes().decode() + text[at:]
    return text


def generator_main(make, doc: str, seed: int, argv=None):
    """The command line of a generator of sequence files: ``LETTERS OUTDIR [--seed S]``;
    returns ``make(letters, outdir, seed)`` (the folder made first)."""
    import argparse

    p = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("letters", type=int)
    p.add_argument("outdir")
    p.add_argument("--seed", type=int, default=seed)
    a = p.parse_args(argv)
    out = Path(a.outdir)
    out.mkdir(parents=True, exist_ok=True)
    return make(a.letters, out, a.seed)
