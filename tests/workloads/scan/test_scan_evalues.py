"""scan with its default E-value cut (10) on the default DNA scoring: no hit
beyond it, every probe taken from the genome found, and the E-values of
random probes' hits calibrated (about one hit with E <= 1 per probe)."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu import Scoring, Sequence, read_sequences
from swgpu.workloads.scan import Scanner


def test_noise_is_cut_and_every_planted_probe_found(shared_data):
    path = shared_data / "dna" / "ecoli_K12_MG1655.fasta.gz"
    if not path.exists():
        pytest.skip(f"{path} is not there")
    genome = read_sequences(path, "dna")[0]
    region = Sequence.from_text("ecoli_part", genome.text[1_000_000:1_060_000], "dna")
    rng = np.random.default_rng(2026)
    starts = sorted(rng.choice(region_starts := len(region) - 256, 20, replace=False).tolist())
    assert region_starts > 0
    planted = [Sequence.from_text(f"p{k}", region.text[a:a + 256], "dna") for k, a in enumerate(starts)]
    noise = [Sequence.from_text(f"r{k}", "".join(rng.choice(list("ACGT"), 256)), "dna") for k in range(30)]
    scanner = Scanner(Scoring.default("dna"), device="cpu")
    assert scanner.statistics.available
    results = scanner.scan(planted + noise, [region], top=10, evalue=10)  # the command's default cut
    for a, r in zip(starts, results[:len(planted)]):
        assert (r.hits[0].target_start, r.hits[0].score) == (a, 512)
    assert all(h.evalue <= 10 for r in results for h in r.hits)
    chance = sum(h.evalue <= 1 for r in results[len(planted):] for h in r.hits)
    assert 12 <= chance <= 60  # 30 random probes: Poisson with mean 30 where the E-values are right
