"""The CPU engine on real sequences, against parasail (an independent peer)."""

from __future__ import annotations

import itertools
import random

import pytest

from swgpu import Aligner, Scoring, read_sequences
from swgpu.align.alignment import cigar_to_ops, score_ops

from oracle import parasail, parasail_score

pytestmark = pytest.mark.skipif(parasail is None, reason="parasail is not installed (pip install 'swgpu[dev]')")


def _check_pairs(pairs, scoring):
    aligner = Aligner(scoring, device="cpu", strand="plus")  # parasail scores the plus strand
    for q, t in pairs:
        aln = aligner.align(q, t)
        assert aln.score == parasail_score(q.codes, t.codes, scoring), (q.name, t.name)
        ops = cigar_to_ops(aln.cigar)
        assert score_ops(q.codes, t.codes, aln.query_start, aln.target_start, ops, scoring) == aln.score


def test_gasal2_read_pairs_dna(shared_data):
    reads = shared_data / "reads"
    queries = read_sequences(reads / "gasal2_pairs_query.fasta.gz", "dna")[:1000]
    targets = read_sequences(reads / "gasal2_pairs_target.fasta.gz", "dna")[:1000]
    assert len(queries) == len(targets) == 1000
    _check_pairs(zip(queries, targets), Scoring.default("dna"))


def test_ecoli_read_pairs_linear_gap(shared_data):
    reads = shared_data / "reads"
    queries = read_sequences(reads / "ecoli_read_pairs_query.fasta.gz", "dna")[:300]
    targets = read_sequences(reads / "ecoli_read_pairs_target.fasta.gz", "dna")[:300]
    _check_pairs(zip(queries, targets), Scoring.build("dna", match=2, mismatch=-1, gap_open=1, gap_extend=1))


@pytest.mark.parametrize("matrix,go,ge", [("BLOSUM62", 11, 1), ("BLOSUM50", 10, 2)])
def test_swissprot_protein_pairs(shared_data, matrix, go, ge):
    proteins = read_sequences(shared_data / "protein" / "uniprot_sprot12071.fasta.gz", "protein")
    rng = random.Random(2014)
    pairs = [(rng.choice(proteins), rng.choice(proteins)) for _ in range(200 if matrix == "BLOSUM62" else 50)]
    _check_pairs(pairs, Scoring.build("protein", matrix=matrix, gap_open=go, gap_extend=ge))


def test_known_value_p02232_self_719(shared_data):
    """BLOSUM62 11/1: P02232 against its own entry scores 719."""
    from swgpu.io.readers import iter_sequences

    path = shared_data / "protein" / "swissprot_2014_01_sample100k.fasta.gz"
    p02232 = next(s for s in itertools.islice(iter_sequences(path, "protein"), 200_000) if s.name == "P02232")
    aln = Aligner(Scoring.default("protein")).align(p02232, p02232)
    assert aln.score == 719 and aln.cigar == "144="
