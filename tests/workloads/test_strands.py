"""Both DNA strands in search, align and screen: reverse-complemented copies
are found with the score of their forward copies, minus-strand hits are
written as BLAST and SAM write them, and the strand parameter is checked."""

from __future__ import annotations

import gzip

import numpy as np
import pytest

from swgpu import Aligner, Scoring, Sequence
from swgpu.exceptions import InputError
from swgpu.io.alphabet import DNA, reverse_complement
from swgpu.io.database import Database
from swgpu.io.writers.blast6 import format_blast6
from swgpu.io.writers.sam import format_sam, sam_header
from swgpu.workloads.align import align_all
from swgpu.workloads.screen import Screener
from swgpu.workloads.search import Searcher, rank_strand_hits

DEVICES = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]
DNA_SCORING = Scoring.default("dna")


def _device(device):
    if device == "cuda":
        from swgpu.engines import cuda_available, gpu_unavailable_reason

        if not cuda_available():
            pytest.skip(f"no CUDA device: {gpu_unavailable_reason()}")
    return device


def _seq(name, codes):
    codes = np.ascontiguousarray(codes, dtype=np.uint8)
    return Sequence(name, DNA.decode(codes), codes, DNA)


def _random_case(seed=11, n=3000):
    """Queries and targets ``fwd`` (random, holding mutated copies of the
    queries) and ``rev`` = its reverse complement, plus random decoys."""
    rng = np.random.default_rng(seed)
    fwd = rng.integers(0, 4, n).astype(np.uint8)
    queries = []
    for k, (at, length) in enumerate([(0.03, 120), (0.45, 300), (0.8, 200)]):
        q = fwd[int(at * n):int(at * n) + length].copy()
        q[rng.random(length) < 0.05] = rng.integers(0, 4)
        queries.append(_seq(f"q{k}", q))
    fwd_seq = _seq("fwd", fwd)
    targets = [fwd_seq, _seq("rev", fwd_seq.reverse_complement().codes)]
    targets += [_seq(f"decoy{i}", rng.integers(0, 4, int(rng.integers(500, 4000)))) for i in range(6)]
    return queries, targets


@pytest.fixture(scope="module")
def ecoli_case(shared_data):
    """A 200 kbp slice of E. coli, the same slice holding the reverse complement
    of a 400 bp query taken from elsewhere in the genome, and the query."""
    with gzip.open(shared_data / "dna" / "ecoli_K12_MG1655.fasta.gz", "rt") as fh:
        genome = "".join(line.strip() for line in fh if not line.startswith(">"))
    query = Sequence.from_text("ecoli_3Mb", genome[3_000_000:3_000_400], "dna")
    window = genome[1_000_000:1_200_000]
    fwd = Sequence.from_text("slice_fwd", window[:90_000] + query.text + window[90_400:], "dna")
    rev = Sequence.from_text("slice_rev", window[:90_000] + reverse_complement(query.text) + window[90_400:], "dna")
    return query, fwd, rev


@pytest.mark.parametrize("device", DEVICES)
def test_search_finds_reverse_copies_with_forward_scores(device):
    queries, targets = _random_case()
    searcher = Searcher(Database.from_sequences(targets), DNA_SCORING, device=_device(device))
    plus = {q.name: searcher.search_one(q, top=40, strand="plus") for q in queries}
    for q in queries:
        both = searcher.search_one(q, top=40)
        hits = {(h.target, h.strand): h.score for h in both.hits}
        fwd_plus = hits[("fwd", "+")]
        assert fwd_plus == hits[("rev", "-")] == max(h.score for h in both.hits)  # rev = revcomp(fwd)
        assert hits[("fwd", "-")] == hits[("rev", "+")]
        assert fwd_plus == {h.target: h.score for h in plus[q.name].hits}["fwd"]
        assert [h.score for h in both.hits] == sorted((h.score for h in both.hits), reverse=True)
        minus_only = searcher.search_one(q, top=40, strand="minus")
        assert {h.strand for h in minus_only.hits} == {"-"}
        assert {h.target: h.score for h in minus_only.hits}["rev"] == fwd_plus
        assert set(both.strand_scores) == {"+", "-"}
        np.testing.assert_array_equal(both.scores, np.maximum(both.strand_scores["+"], both.strand_scores["-"]))


def test_search_ranks_strands_together():
    scores = {"+": np.array([5, 9, 0, 7]), "-": np.array([9, 1, 7, 0])}
    index = np.array([3, 0, 1, 2])  # file positions of the sorted database
    assert rank_strand_hits(scores, index, 4) == [(1, "+"), (0, "-"), (2, "-"), (3, "+")]
    assert rank_strand_hits(scores, index, 1) == [(1, "+")]
    assert rank_strand_hits({"+": scores["+"]}, index, 10) == [(1, "+"), (3, "+"), (0, "+")]


@pytest.mark.parametrize("device", DEVICES)
def test_search_ecoli_reverse_copy(ecoli_case, device):
    query, fwd, rev = ecoli_case
    searcher = Searcher(Database.from_sequences([fwd, rev]), DNA_SCORING, device=_device(device))
    hits = searcher.search_one(query, top=2).hits
    assert [(h.target, h.strand, h.score) for h in hits] == [("slice_fwd", "+", 800), ("slice_rev", "-", 800)]
    minus = hits[1]
    assert (minus.query_start, minus.query_end, minus.target_start, minus.target_end) == (0, 400, 90_000, 90_400)
    cols = format_blast6(minus).split("\t")
    assert cols[6:10] == ["1", "400", "90400", "90001"]  # qstart < qend on the query, sstart > send


@pytest.mark.parametrize("device", DEVICES)
def test_align_reports_the_better_strand(ecoli_case, device):
    query, fwd, rev = ecoli_case
    both = list(align_all([query], [fwd, rev], DNA_SCORING, device=_device(device)))
    assert [(a.strand, a.score) for a in both] == [("+", 800), ("-", 800)]
    plus = list(align_all([query], [fwd, rev], DNA_SCORING, device=device, strand="plus"))
    assert plus[0].score == 800 and plus[1].strand == "+" and plus[1].score < 800
    queries, targets = _random_case(seed=5, n=1500)
    aligner = Aligner(DNA_SCORING, device=device)
    for q in queries:
        a_fwd, a_rev = aligner.align(q, targets[0]), aligner.align(q, targets[1])
        assert a_fwd.score == a_rev.score == aligner.score(q, targets[1])
        assert (a_fwd.strand, a_rev.strand) == ("+", "-")
        assert Aligner(DNA_SCORING, device=device, strand="minus").align(q, targets[1]).score == a_fwd.score


@pytest.mark.parametrize("device", DEVICES)
@pytest.mark.parametrize("kernel", ["auto", "bitwise", "wordwise"])
def test_screen_both_strands_per_pair(device, kernel):
    queries, targets = _random_case(seed=7, n=1200)
    qs, ts = queries + queries, [targets[0]] * 3 + [targets[1]] * 3
    both = Screener(DNA_SCORING, device=_device(device), kernel=kernel, strand="both").screen(qs, ts, threshold=100)
    plus = Screener(DNA_SCORING, device=device, kernel=kernel).scores(qs, ts)
    minus = Screener(DNA_SCORING, device=device, kernel=kernel, strand="minus").scores(qs, ts)
    np.testing.assert_array_equal(both.scores, np.maximum(plus, minus))
    assert both.strands.tolist() == ["+"] * 3 + ["-"] * 3
    np.testing.assert_array_equal(both.scores[:3], both.scores[3:])  # reverse copies score as forward ones
    assert both.selected.tolist() == list(range(6))
    assert [a.strand for a in both.alignments] == both.strands.tolist()
    assert [a.score for a in both.alignments] == both.scores.tolist()


@pytest.mark.parametrize("device", DEVICES)
def test_screen_ecoli_reverse_copy(ecoli_case, device):
    query, fwd, rev = ecoli_case
    result = Screener(DNA_SCORING, device=_device(device), strand="both").screen([query, query], [fwd, rev], 700)
    assert result.scores.tolist() == [800, 800] and result.strands.tolist() == ["+", "-"]
    assert [(a.strand, a.target_start, a.target_end) for a in result.alignments] == [("+", 90_000, 90_400),
                                                                                    ("-", 90_000, 90_400)]
    assert Screener(DNA_SCORING, device=device).scores([query], [rev])[0] < 800  # plus only: the default


# Worked by hand: the query is CCCCC + X (X = ATGCGTACCA, query positions 6..15);
# the subject holds reverse_complement(X) = TGGTACGCAT at subject positions 6..15.
# The query's reverse complement TGGTACGCAT·GGGGG aligns its first 10 letters to
# them: 10 matches, score 20. BLASTN writes this HSP on the minus strand as
# qstart 6, qend 15 (query as given) and sstart 15, send 6: the query's base 6
# (A) pairs with subject base 15 (T), its base 15 (A) with subject base 6 (T).
HAND_QUERY = "CCCCCATGCGTACCA"
HAND_SUBJECT = "TTTTTTGGTACGCATTTTTT"


def test_blast6_minus_strand_by_hand():
    a = Aligner(DNA_SCORING, device="cpu").align(Sequence.from_text("q", HAND_QUERY), Sequence.from_text("s", HAND_SUBJECT))
    assert (a.strand, a.score, a.query_start, a.query_end, a.target_start, a.target_end) == ("-", 20, 0, 10, 5, 15)
    cols = format_blast6(a).split("\t")
    assert cols[:10] == ["q", "s", "100.000", "10", "0", "0", "6", "15", "15", "6"]


def test_sam_minus_strand(tmp_path):
    q, s = Sequence.from_text("q", HAND_QUERY), Sequence.from_text("s", HAND_SUBJECT)
    a = Aligner(DNA_SCORING, device="cpu").align(q, s)
    record = format_sam(a, q)
    fields = record.split("\t")
    # FLAG 16, POS and CIGAR on the forward subject, SEQ the query's reverse complement
    assert fields[1:6] == ["16", "s", "6", "255", "10=5S"]
    assert fields[9] == reverse_complement(HAND_QUERY) == "TGGTACGCATGGGGG"
    pysam = pytest.importorskip("pysam")
    path = tmp_path / "minus.sam"
    path.write_text(sam_header([s]) + record + "\n")
    bam = tmp_path / "minus.bam"
    pysam.view("-b", "-o", str(bam), str(path), catch_stdout=False)
    pysam.quickcheck(str(bam))
    with pysam.AlignmentFile(str(bam)) as fh:
        (rec,) = list(fh)
    assert rec.is_reverse and rec.reference_start == 5 and rec.cigarstring == "10=5S"
    assert rec.query_sequence == reverse_complement(HAND_QUERY)
    assert rec.get_forward_sequence() == HAND_QUERY


def test_strand_parameter_checks():
    protein = Scoring.default("protein")
    db = Database.from_sequences([Sequence.from_text("p", "MKVLAAGIVW")])
    searcher = Searcher(db, protein, device="cpu")
    assert [h.strand for h in searcher.search_one(db.sequence(0), strand="both").hits] == ["+"]  # both = plus
    with pytest.raises(InputError) as err:
        searcher.search_one(db.sequence(0), strand="minus")
    assert err.value.param == "strand"
    for bad in (lambda: Aligner(protein, strand="minus"), lambda: Screener(DNA_SCORING, strand="reverse"),
                lambda: list(searcher.search([db.sequence(0)], strand="up"))):
        with pytest.raises(InputError) as err:
            bad()
        assert err.value.param == "strand"
    assert Aligner(protein, device="cpu").align("MKVLAAGIVW", "MKVLAAGIVW").strand == "+"


def test_reverse_complemented_16s_query_finds_its_whole_hit(shared_data, run_cli, tmp_path):
    # the case, on a slice of the gold set: the reverse complement of a
    # 16S sequence used to find a 34 bp hit; both strands find the whole gene
    from swgpu import read_sequences

    seqs = read_sequences(shared_data / "rna" / "rRNA16S_gold.fasta.gz", "dna")[:150]
    db = tmp_path / "gold150.fa"
    db.write_text("".join(f">{s.name}\n{s.text}\n" for s in seqs))
    q = tmp_path / "rc.fa"
    q.write_text(f">rc\n{reverse_complement(seqs[70].text)}\n")
    code, out, err = run_cli(["search", "-q", q, "-d", db, "--device", "cpu", "--top", "1", "-o", tmp_path / "h.tsv"])
    assert code == 0
    cols = (tmp_path / "h.tsv").read_text().splitlines()[0].split("\t")
    n = len(seqs[70])
    assert cols[1] == seqs[70].name and int(cols[3]) == n and cols[2] == "100.000"
    assert (int(cols[6]), int(cols[7]), int(cols[8]), int(cols[9])) == (1, n, n, 1)  # sstart > send: minus
