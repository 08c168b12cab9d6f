"""``benchmarks/make_chromosomes.py`` (the chromosome-scale run's two related
sequences) at a small size, found and traced in two runs as the run does."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np

from swgpu import read_sequences
from swgpu.cli import main

SCRIPT = Path(__file__).resolve().parents[3] / "benchmarks" / "make_chromosomes.py"


def _generator():
    spec = importlib.util.spec_from_file_location("make_chromosomes", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_rearranged_copy_and_its_two_run_alignment(tmp_path):
    (genome_fa, copy_fa), where = _generator().make(20_000, tmp_path)
    genome, copy = (read_sequences(p, "dna")[0] for p in (genome_fa, copy_fa))
    assert len(genome) == 20_000 and abs(len(copy) - 20_000) <= 10 * 2 * 4
    (tmp_path / "again").mkdir()
    again = _generator().make(20_000, tmp_path / "again")[0]
    assert [p.read_bytes() for p in again] == [p.read_bytes() for p in (genome_fa, copy_fa)]  # a fixed seed
    a, b = where["inverted"]
    inverted = genome.text[a:b][::-1].translate(str.maketrans("ACGT", "TGCA"))
    # the inverted segment is in the copy (its 2% substitutions aside) near where it was
    window = copy.text[a - 200:b + 200]
    best = max(sum(x == y for x, y in zip(inverted, window[k:k + len(inverted)])) for k in range(0, 400, 1))
    assert best >= 0.95 * len(inverted)
    ends = tmp_path / "ends.tsv"
    common = [str(copy_fa), str(genome_fa), "--device", "cpu", "--quiet"]
    assert main(["align", *common, "--ends", "5", "--alignments", "0", "--ends-out", str(ends),
                 "-o", str(tmp_path / "none.txt")]) == 0
    rows = [line.split("\t") for line in ends.read_text().splitlines()[1:]]
    assert rows[0][3] == "+" and "-" in [r[3] for r in rows]  # the inversion on the minus strand
    assert main(["align", *common, "--ends-in", str(ends), "--alignments", "1", "-f", "sam",
                 "-o", str(tmp_path / "best.sam")]) == 0
    record = [line for line in (tmp_path / "best.sam").read_text().splitlines() if not line.startswith("@")][0]
    fields = record.split("\t")
    assert int(fields[3]) <= where["inverted"][0]  # the best alignment starts before the inversion
    assert np.isclose(int(rows[0][5]), int(next(f for f in fields if f.startswith("AS:i:"))[5:]))
