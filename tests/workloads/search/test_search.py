"""Database search on the CPU engine: every score equals the pairwise kernel, ranking
is deterministic, databases round-trip, DNA works."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu import Scoring, Sequence, read_sequences
from swgpu.cli import main
from swgpu.io.database import Database
from swgpu.engines.cpu import pairwise
from swgpu.engines.cpu.search import CpuSearchEngine
from swgpu.workloads.search.placement import partition_by_residues
from swgpu.workloads.search import Searcher, rank_hits

PROTEIN = "ARNDCQEGHILKMFPSTWYV"

ENGINES = ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)]


def _engine(kind, scoring):
    """The search engine of ``kind`` for ``scoring`` (CUDA tests skip without a GPU)."""
    if kind == "cpu":
        return CpuSearchEngine(scoring.matrix.values, scoring.gap_open, scoring.gap_extend)
    from swgpu.engines.cuda import runtime

    if not runtime.available():
        pytest.skip(f"no CUDA device: {runtime.why_unavailable()}")
    from swgpu.engines.cuda.search import CudaSearchEngine

    return CudaSearchEngine(scoring.matrix.values, scoring.gap_open, scoring.gap_extend)


def _random_protein(rng, n, name):
    return Sequence.from_text(name, "".join(rng.choice(list(PROTEIN), n)), "protein")


@pytest.fixture(scope="module")
def swissprot_db(shared_data):
    seqs = read_sequences(shared_data / "protein" / "uniprot_sprot12071.fasta.gz", "protein")[:3000]
    rng = np.random.default_rng(5)
    long_seq = _random_protein(rng, 10_500, "synthetic_10500")
    huge_self = _random_protein(rng, 7_000, "synthetic_7000")
    q3000 = _random_protein(rng, 3_000, "synthetic_3000")
    extra = [Sequence.from_text("len1_W", "W", "protein"), long_seq, huge_self, q3000]
    return Database.from_sequences(seqs + extra), {"q3000": q3000, "q7000": huge_self, "long": long_seq}


def _pairwise_scores(query, db, scoring):
    m = scoring.matrix.values
    return np.array([pairwise.sw_end(query.codes, db.residues[db.offsets[i]:db.offsets[i + 1]], m,
                                     scoring.gap_open, scoring.gap_extend)[0] for i in range(len(db))], dtype=np.int32)


@pytest.mark.parametrize("kind", ENGINES)
@pytest.mark.parametrize("query_len,matrix,go,ge", [(1, "BLOSUM62", 11, 1), (60, "BLOSUM62", 11, 1),
                                                     (333, "BLOSUM50", 10, 2), (900, "PAM30", 9, 1),
                                                     (10_200, "BLOSUM62", 11, 1)])
def test_search_scores_equal_pairwise(swissprot_db, query_len, matrix, go, ge, kind):
    if query_len > 10_000 and kind == "cpu":
        pytest.skip("the > 10,000-residue query runs in the GPU suite (long for CI's 2 cores)")
    db, _ = swissprot_db
    scoring = Scoring.build("protein", matrix=matrix, gap_open=go, gap_extend=ge)
    query = _random_protein(np.random.default_rng(query_len), query_len, "q")
    eng = _engine(kind, scoring)
    eng.load_database(db.residues, db.offsets)
    np.testing.assert_array_equal(eng.scores(query.codes), _pairwise_scores(query, db, scoring))


@pytest.mark.parametrize("kind", ENGINES)
@pytest.mark.parametrize("which", ["q3000", "q7000", "long"])
def test_search_large_self_scores_are_exact(swissprot_db, which, kind):
    """Self-hits beyond the 16-bit range are re-scored in 32 bits."""
    db, special = swissprot_db
    query = special[which]
    scoring = Scoring.default("protein")
    eng = _engine(kind, scoring)
    eng.load_database(db.residues, db.offsets)
    got = eng.scores(query.codes)
    self_score = int(sum(scoring.matrix.values[c, c] for c in query.codes))
    pos = db.names.index(query.name)
    assert got[pos] == self_score
    # a sample of the rest equals the pairwise kernel
    sample = np.random.default_rng(1).choice(len(db), 40, replace=False)
    m = scoring.matrix.values
    for i in sample:
        assert got[i] == pairwise.sw_end(query.codes, db.residues[db.offsets[i]:db.offsets[i + 1]], m, 11, 1)[0]


def test_rank_hits_orders_ties_by_file_position():
    scores = np.array([5, 9, 9, 0, 7, 9, 3], dtype=np.int32)
    index = np.array([6, 5, 1, 0, 2, 3, 4])
    assert rank_hits(scores, index, 3).tolist() == [2, 5, 1]
    assert rank_hits(scores, index, 10).tolist() == [2, 5, 1, 4, 0, 6]
    assert rank_hits(np.zeros(4, np.int32), index[:4], 3).tolist() == []


def test_partition_by_residues_balances():
    lengths = np.array([100, 90, 80, 70, 60, 50, 40, 30, 20, 10])
    parts = partition_by_residues(lengths, 3)
    loads = [int(lengths[p].sum()) for p in parts]
    assert sorted(np.concatenate(parts).tolist()) == list(range(10))
    assert max(loads) - min(loads) <= 20


def test_search_top_hits_and_traceback(swissprot_db):
    db, _ = swissprot_db
    scoring = Scoring.default("protein")
    query = db.sequence(100)
    result = Searcher(db, scoring, device="cpu").search_one(query, top=10)
    assert result.hits[0].target == query.name and result.hits[0].score == result.scores.max()
    scores = [h.score for h in result.hits]
    assert scores == sorted(scores, reverse=True)
    assert all(h.evalue is not None and h.bitscore is not None for h in result.hits)
    # E-values of the query's own scores grow with the subject's length too: ranked by score, they need not be
    # in order; lambda and K give one search space, so they are
    karlin = Searcher(db, scoring, device="cpu", evalues="karlin").search_one(query, top=10)
    assert [h.score for h in karlin.hits] == scores
    assert all(h.evalue <= karlin.hits[-1].evalue for h in karlin.hits)
    assert [h.evalue for h in karlin.hits] != [h.evalue for h in result.hits]  # (the fit was used)


def test_makedb_roundtrip_and_search_equal(tmp_path, shared_data, capsys):
    fasta = shared_data / "protein" / "queries_brief11.fasta"
    out = tmp_path / "db.swdb"
    assert main(["makedb", str(fasta), str(out)]) == 0
    db = Database.open(out)
    direct = Database.from_fasta(fasta)
    assert db.names == direct.names and np.array_equal(db.residues, direct.residues)
    capsys.readouterr()
    assert main(["search", "-q", str(fasta), "-d", str(out), "--top", "3", "--device", "cpu"]) == 0
    from_db = capsys.readouterr().out
    assert main(["search", "-q", str(fasta), "-d", str(fasta), "--top", "3", "--device", "cpu"]) == 0
    assert capsys.readouterr().out == from_db
    assert len(from_db.splitlines()) == 33


def test_dna_database_search(shared_data):
    seqs = read_sequences(shared_data / "rna" / "rRNA16S_gold.fasta.gz", "dna")[:200]
    db = Database.from_sequences(seqs)
    scoring = Scoring.build("dna", matrix="NUC.4.4", gap_open=10, gap_extend=1)
    query = Sequence.from_text("frag", seqs[7].text[100:400], "dna")
    searcher = Searcher(db, scoring, device="cpu")
    np.testing.assert_array_equal(searcher.scores(query), _pairwise_scores(query, db, scoring))
    assert searcher.search_one(query, top=1).hits[0].target == seqs[7].name


@pytest.mark.parametrize("args,msg", [(["--top", "0"], "--top"), (["--gpus", "x"], "--gpus"),
                                      (["--device", "cpu", "--matrix", "NUC.4.4"], "NUC.4.4"),
                                      (["--gpu-memory", "1G", "--workers", "2"], "--gpu-memory: applies to the GPUs")])
def test_search_bad_options(args, msg, capsys, shared_data):
    fasta = str(shared_data / "protein" / "queries_brief11.fasta")
    assert main(["search", "-q", fasta, "-d", fasta, *args]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and msg in err


def test_damaged_database_file(tmp_path, capsys, shared_data):
    bad = tmp_path / "bad.swdb"
    bad.write_bytes(b"SWGPUDB1" + b"\xff" * 20)
    fasta = str(shared_data / "protein" / "queries_brief11.fasta")
    assert main(["search", "-q", fasta, "-d", str(bad)]) == 2
    assert "makedb" in capsys.readouterr().err


@pytest.mark.gpu
def test_top10_identical_cpu_and_cuda_on_swissprot_100k(shared_data):
    """The 20 CUDASW++ queries against the 100k Swiss-Prot sample, BLOSUM62 11/1:
    identical top-10 lists (names, scores, order) from both engines."""
    from swgpu.engines.cuda import runtime

    if not runtime.available():
        pytest.skip(f"no CUDA device: {runtime.why_unavailable()}")
    db = Database.from_fasta(shared_data / "protein" / "swissprot_2014_01_sample100k.fasta.gz", "protein")
    queries = read_sequences(shared_data / "protein" / "queries_cudasw4_20.fasta", "protein")
    scoring = Scoring.default("protein")
    cpu = Searcher(db, scoring, device="cpu")
    gpu = Searcher(db, scoring, device="cuda")
    together = gpu.scores_many(queries)  # the query-pair kernel, as swgpu search runs it
    for q, c in zip(queries, together):
        a, b = cpu.scores(q), gpu.scores(q)  # b: one query alone, the sequence-pair kernel
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)
        top_a = [(db.names[i], int(a[i])) for i in rank_hits(a, db.index, 10)]
        top_b = [(db.names[i], int(b[i])) for i in rank_hits(b, db.index, 10)]
        assert top_a == top_b
    p02232 = next((q for q in queries if "P02232" in q.name), None)
    if p02232 is not None:  # the reference facts of the data set
        hits = gpu.search_one(p02232, top=2).hits
        assert [(h.target, h.score) for h in hits] == [("P02232", 719), ("P09187", 547)]


@pytest.mark.gpu
def test_multi_gpu_split_equals_one_gpu(swissprot_db):
    from swgpu.engines.cuda import runtime

    if not runtime.available() or runtime.device_count() < 2:
        pytest.skip("needs two GPUs")
    db, special = swissprot_db
    scoring = Scoring.default("protein")
    one = Searcher(db, scoring, device="cuda", gpus=[0])
    many = Searcher(db, scoring, device="cuda")
    qs = [special["q3000"], db.sequence(5)]
    many.compile(qs)  # kernels and chunk tables of every GPU made before any scoring
    for q in qs:
        np.testing.assert_array_equal(one.scores(q), many.scores(q))
    for a, b in zip(one.scores_many(qs), many.scores_many(qs)):
        np.testing.assert_array_equal(a, b)




@pytest.mark.gpu
def test_streamed_database_scores_and_hits_equal_resident(swissprot_db):
    """``gpu_memory`` below the database's size: parts streamed for every
    batch, the same scores and top hits as the resident database."""
    from swgpu.engines.cuda import runtime

    if not runtime.available():
        pytest.skip(f"no CUDA device: {runtime.why_unavailable()}")
    db, special = swissprot_db
    scoring = Scoring.default("protein")
    resident = Searcher(db, scoring, device="cuda", gpus=[0])
    streamed = Searcher(db, scoring, device="cuda", gpus=[0], gpu_memory=1 << 20)
    assert resident.database_parts == [1] and streamed.database_parts[0] >= 4
    qs = [special["q3000"], db.sequence(5), db.sequence(2999)]
    for a, b in zip(resident.scores_many(qs), streamed.scores_many(qs)):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(resident.search(qs, top=5), streamed.search(qs, top=5)):
        assert [(h.target, h.score, h.cigar) for h in a.hits] == [(h.target, h.score, h.cigar) for h in b.hits]


def test_gpu_memory_leaves_the_cpu_engine_as_it_is():
    rng = np.random.default_rng(4)
    db = Database.from_sequences([_random_protein(rng, int(n), f"s{i}") for i, n in enumerate(rng.integers(1, 300, 50))])
    scoring = Scoring.default("protein")
    q = _random_protein(rng, 120, "q")
    plain = Searcher(db, scoring, device="cpu")
    limited = Searcher(db, scoring, device="cpu", gpu_memory=1 << 20)
    assert limited.database_parts == plain.database_parts == [1]
    np.testing.assert_array_equal(plain.scores(q), limited.scores(q))


def test_several_shards_score_like_one():
    """Several shards (one thread each) put their scores into the same arrays
    as one scorer over the whole database."""
    from swgpu.engines.base import get_engine
    from swgpu.workloads.search.placement import Shard

    rng = np.random.default_rng(8)
    db = Database.from_sequences([_random_protein(rng, int(n), f"s{i}") for i, n in enumerate(rng.integers(1, 200, 90))])
    scoring = Scoring.default("protein")
    queries = [_random_protein(rng, 80, "a"), _random_protein(rng, 33, "b")]
    one = Searcher(db, scoring, device="cpu")
    want = one.scores_many(queries)
    engine = get_engine("cpu")
    one._shards = [Shard.load(engine.database_scorer(scoring), db, g) for g in partition_by_residues(db.lengths, 3)]
    got = one.scores_many(queries)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
