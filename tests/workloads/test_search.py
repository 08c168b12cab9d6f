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
from swgpu.workloads.search import Searcher, partition_by_residues, rank_hits

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
    assert all(h.evalue <= result.hits[-1].evalue for h in result.hits)


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
                                      (["--device", "cpu", "--matrix", "NUC.4.4"], "NUC.4.4")])
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


def test_query_schedule_balances_the_halves():
    from swgpu.engines.cuda.search import query_schedule

    lengths = [144, 189, 222, 375, 464, 567, 657, 729, 850, 1000, 1500, 2005, 2504, 3005, 3564, 4061, 4548,
               4743, 5147, 5478]
    for G, R in ((16, 32), (32, 32), (8, 16)):
        P, halves = query_schedule(lengths, G, R)
        seen = sorted(i for h in halves for i, _, _ in h)
        assert seen == list(range(len(lengths)))
        for h in halves:
            pos = 0
            for i, s0, n in h:  # consecutive segments, each query whole
                assert s0 == pos and n * R >= lengths[i] > (n - 1) * R
                pos += n
            assert pos <= P * G
        used = [sum(n for _, _, n in h) for h in halves]
        assert abs(used[0] - used[1]) <= max(n for h in halves for _, _, n in h)
        # padding: whole segments per query and at most one partial pass
        assert P * G * R * 2 - sum(lengths) <= len(lengths) * R + 2 * G * R
    assert query_schedule([5], 16, 32) == (1, [[(0, 0, 1)], []])


def test_query_pair_profile_layout():
    # letters x rows, C order, query a in the low and query b in the high 16 bits
    import types

    from swgpu.engines.cuda.search import CudaSearchEngine

    rng = np.random.default_rng(3)
    K = 6
    mx = np.full((K + 1, K + 1), -16384, np.int32)
    mx[:K, :K] = rng.integers(-5, 6, size=(K, K))
    stub = types.SimpleNamespace(K=K, _mx=mx)
    qs = [rng.integers(0, K, size=L).astype(np.uint8) for L in (40, 9, 17)]
    P, prof, info, sq = CudaSearchEngine._query_pair_profile(stub, qs, 8, 16)
    assert prof.flags["C_CONTIGUOUS"] and prof.dtype == np.uint32 and prof.shape == (K + 3, P * 128)
    lo = (prof & 0xFFFF).astype(np.uint16).view(np.int16)
    hi = (prof >> 16).astype(np.uint16).view(np.int16)
    # longest (40) first on half a from row 0; 17 on half b from row 0, then 9 after it (segment 2)
    np.testing.assert_array_equal(lo[:K, :40], mx[qs[0], :K].T)
    np.testing.assert_array_equal(hi[:K, :17], mx[qs[2], :K].T)
    np.testing.assert_array_equal(hi[:K, 32:41], mx[qs[1], :K].T)
    assert (lo[K] == -16384).all() and (lo[:, 40:] == -16384).all() and (hi[:, 17:32] == -16384).all()
    np.testing.assert_array_equal(prof[K + 1], prof[K])  # the closing letters score as the pad
    np.testing.assert_array_equal(prof[K + 2], prof[K])
    assert info[0] & 3 == 3 and info[2] & 2 and sq[2 * 2 + 1] == 1 and sq[0] == 0


def test_host_unit_codes_match_the_layout():
    # the host builder of streamed database parts writes what the GPU builder writes
    from swgpu.engines.cuda.search import host_unit_codes, unit_layout

    rng = np.random.default_rng(0)
    lengths = np.concatenate([rng.integers(0, 300, size=300), [5000, 0, 1, 2, 3, 4096, 4095]])
    off = np.concatenate([[0], np.cumsum(lengths)])
    res = rng.integers(0, 20, int(off[-1])).astype(np.uint8)
    units = unit_layout(off)
    out = host_unit_codes(res, units, 20, np.empty(units["total_cols"], np.uint8))
    ref = np.empty_like(out)
    for k in range(units["n"]):
        a, UL, L, s = units["uoff"][k], units["ulen"][k], units["length"][k], units["src"][k]
        assert UL == (0 if L == 0 else (L + 5) // 4 * 4)
        for j in range(UL):
            c = int(res[s + j]) if j < L else 20
            c = 21 if j >= UL - 2 else c
            c = 22 if j == UL - 1 else c
            ref[a + j] = c
    np.testing.assert_array_equal(out, ref)


def test_gpu_batch_size_bounded_by_memory():
    from swgpu.engines.cuda.search import CudaSearchEngine

    eng = object.__new__(CudaSearchEngine)  # the host-side rule only, no GPU
    eng.memory_limit, eng._limit_at_load = None, 40 << 30
    eng.n = 1_000_000
    assert eng._batch_size() == 64
    eng.n = 200_000_000  # 64 score arrays would take 51 GB: 13 of 0.8 GB fit in 10 GiB
    assert eng._batch_size() == 13
    eng.memory_limit = 1 << 20
    assert eng._batch_size() == 1


def test_batch_tile_charges_chunks_run_in_lockstep():
    # chunks of unequal columns cost more on tiles whose warps hold several
    # groups (G < 32) or share one profile per block (barrier every pass)
    from swgpu.engines.cuda.search import _lockstep_columns, choose_batch_tile

    assert _lockstep_columns([5, 1, 1, 1, 2], 2) == (5 + 1 + 2) * 2
    assert _lockstep_columns([3, 3, 3], 1) == 9
    assert _lockstep_columns([], 4) == 0
    lengths = [2000] * 20
    even = np.full(4096, 1000)
    cost_even, tile_even = choose_batch_tile(lengths, int(even.sum()), 10**5, even)
    assert (cost_even, tile_even) == choose_batch_tile(lengths, int(even.sum()), 10**5)
    assert tile_even == (16, 32)
    # 16 long chunks, then 16 short: the 16 warps of a block (G = 32) see equal
    # chunks, but 32 groups in lockstep (G = 16) always include a long one
    uneven = np.tile([1900] * 16 + [100] * 16, 128)
    cost, tile = choose_batch_tile(lengths, int(uneven.sum()), 10**5, uneven)
    assert tile == (32, 32) and cost > cost_even
