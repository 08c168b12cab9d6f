"""A search's hits as columns (:mod:`swgpu.workloads.search.hits`): the
ranking by array passes equals the ranking hit by hit, and the columns hold,
field for field, the alignments the record path makes (each hit a
``PairJob`` traced on its own, its E-values refitted one by one), on both
strands, with and without an E-value cut, and with the search fit or the
parameters."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from swgpu import Scoring, Sequence
from swgpu.io.database import Database
from swgpu.workloads.search import Searcher
from swgpu.workloads.search import hits as hits_module
from swgpu.workloads.search.hits import rank_hits, rank_strand_hits, rank_strands, restat, target_rows

COMP = str.maketrans("ACGT", "TGCA")


def _ranked_one_by_one(scores, index, top):
    """The ranking as a sort of (position, strand) pairs, one by one."""
    found = [(i, k) for k, s in enumerate(scores.values()) for i in range(s.size) if s[i] > 0]
    found.sort(key=lambda c: (-int(list(scores.values())[c[1]][c[0]]), int(index[c[0]]), c[1]))
    return found[:top]


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 40), st.integers(1, 2), st.integers(1, 12), st.integers(0, 2**32 - 1))
def test_ranking_equals_the_sort_hit_by_hit(n, strands, top, seed):
    rng = np.random.default_rng(seed)
    scores = {sign: rng.integers(-1, 6, n).astype(np.int32) for sign in "+-"[:strands]}  # many ties
    index = rng.permutation(n)
    pos, strand = rank_strands(scores, index, top)
    assert list(zip(pos.tolist(), strand.tolist())) == _ranked_one_by_one(scores, index, top)
    signs = list(scores)
    assert rank_strand_hits(scores, index, top) == [(i, signs[k]) for i, k in zip(pos.tolist(), strand.tolist())]


def _rank_hits_before(scores, index, top):
    """The ranking as it was: the positive scores gathered, then partitioned."""
    positive = np.flatnonzero(scores > 0)
    if positive.size == 0 or top <= 0:
        return positive[:0]
    if positive.size > top:
        kth = np.partition(scores[positive], positive.size - top)[positive.size - top]
        positive = positive[scores[positive] >= kth]
    order = np.lexsort((index[positive], -scores[positive].astype(np.int64)))
    return positive[order[:top]]


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 60), st.integers(-3, 70), st.integers(-2, 8), st.integers(0, 2**32 - 1))
def test_rank_hits_equals_the_ranking_before(n, top, high, seed):
    rng = np.random.default_rng(seed)
    scores = rng.integers(-2, max(high, -1) + 1, n).astype(np.int32)  # ties, zeros and negatives
    index = rng.permutation(n)
    assert rank_hits(scores, index, top).tolist() == _rank_hits_before(scores, index, top).tolist()


def test_target_rows_hold_the_database_sequences():
    seqs = [Sequence.from_text(f"t{k}", "ACDEFGHIKLMNPQRSTVWY"[k:] + "BZX", "protein") for k in range(6)]
    seqs[2] = dataclasses.replace(seqs[2], description="third one")
    db = Database.from_sequences(seqs)
    members = np.array([4, 0, 2])
    rows = target_rows(db, members)
    want = [db.sequence(i) for i in members.tolist()]
    assert [(s.name, s.text, s.description, s.codes.tolist()) for s in rows] == \
        [(s.name, s.text, s.description, s.codes.tolist()) for s in want]


def _records(searcher, queries, top, evalue, strand):
    """Each query's hits by the record path: PairJobs traced one by one, refitted."""
    out = []
    for q in queries:
        scores = searcher.strand_scores([q], strand)[0]
        picks, _, fit = searcher._ranked(q, scores, top, evalue)
        jobs = searcher._jobs(q, picks)
        alignments = searcher._traceback.all(jobs)
        restat(fit, alignments, searcher.database)
        out.append(alignments)
    return out


def _fields(alignments):
    return [dataclasses.asdict(a) if dataclasses.is_dataclass(a) else vars(a) for a in alignments]


@pytest.fixture(scope="module")
def dna():
    rng = np.random.default_rng(12)
    genome = "".join(rng.choice(list("ACGT"), 40_000))
    queries, targets = [], []
    for k in range(8):
        a = int(rng.integers(0, len(genome) - 300))
        text = list(genome[a:a + int(rng.integers(1, 250))])
        for i in range(len(text)):
            if rng.random() < 0.06:
                text[i] = str(rng.choice(list("ACGTN")))
        text = "".join(text)
        queries.append(Sequence.from_text(f"q{k}", text.translate(COMP)[::-1] if k % 2 else text, "dna"))
    for k in range(300):
        a = int(rng.integers(0, len(genome) - 1200))
        targets.append(Sequence.from_text(f"t{k}", genome[a:a + int(rng.integers(1, 1200))], "dna"))
    targets.append(Sequence.from_text("copy", queries[3].text, "dna"))
    return Database.from_sequences(targets), queries


@pytest.fixture(scope="module")
def protein():
    rng = np.random.default_rng(13)
    letters = list("ACDEFGHIKLMNPQRSTVWYX")
    base = ["".join(rng.choice(letters, int(rng.integers(1, 400)))) for _ in range(400)]
    queries = [Sequence.from_text(f"p{k}", base[k * 7][:int(rng.integers(1, 120))] or "W", "protein")
               for k in range(10)]
    return Database.from_sequences([Sequence.from_text(f"s{k}", t, "protein") for k, t in enumerate(base)]), queries


@pytest.mark.parametrize("strand", ["both", "plus", "minus"])
@pytest.mark.parametrize("evalue", [None, 1e-3])
@pytest.mark.parametrize("joined", [True, False])
def test_dna_columns_are_the_record_path(dna, strand, evalue, joined, monkeypatch):
    db, queries = dna
    searcher = Searcher(db, Scoring.default("dna"), device="cpu", threads=2)
    want = _records(searcher, queries, 12, evalue, strand)
    if not joined:
        monkeypatch.setattr(hits_module, "TRACE_HITS", 1)
    found = list(searcher.search_columns(queries, top=12, evalue=evalue, strand=strand, batch=3))
    assert [f.first for f in found] == ([0] if joined else [0, 3, 6])  # (few hits: the batches' traced together)
    got = []
    for part in found:
        made = part.hits.alignments(part.queries, part.targets, searcher.scoring)
        bounds = part.query_bounds().tolist()
        got += [made[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
        assert (part.targets.lengths == db.lengths[part.positions]).all()
    assert [_fields(h) for h in got] == [_fields(h) for h in want]
    assert sum(len(h) for h in want) > len(queries)
    assert strand != "both" or {a.strand for h in want for a in h} == {"+", "-"}
    results = list(searcher.search(queries, top=12, evalue=evalue, strand=strand, batch=5))
    assert [_fields(r.hits) for r in results] == [_fields(h) for h in want]


@pytest.mark.parametrize("evalues", ["search", "karlin"])
def test_protein_columns_are_the_record_path(protein, evalues):
    db, queries = protein
    searcher = Searcher(db, Scoring.default("protein"), device="cpu", evalues=evalues)
    want = _records(searcher, queries, 30, None, "both")
    results = list(searcher.search(queries, top=30))
    assert [_fields(r.hits) for r in results] == [_fields(h) for h in want]
    one = searcher.search_one(queries[4], top=30)
    assert _fields(one.hits) == _fields(want[4])


def test_a_batch_without_hits(protein):
    db, _ = protein
    searcher = Searcher(db, Scoring.default("protein"), device="cpu")
    [part] = searcher.search_columns([Sequence.from_text("w", "W", "protein")], top=5, evalue=1e-30)
    assert len(part.hits) == 0 and len(part.queries) == 1 and part.query_bounds().tolist() == [0, 0]


@pytest.mark.gpu
@pytest.mark.parametrize("which", ["dna", "protein"])
def test_gpu_columns_are_the_cpus(dna, protein, which, monkeypatch):
    """The GPU's hits (its scores and its packed traceback) are the CPU's, field for field."""
    from swgpu.engines.cuda import runtime

    monkeypatch.setattr(hits_module, "TRACE_HITS", 20)  # (several groups)
    if not runtime.available():
        pytest.skip(f"no CUDA device: {runtime.why_unavailable()}")
    db, queries = dna if which == "dna" else protein
    scoring = Scoring.default(which)
    cpu, gpu = (list(Searcher(db, scoring, device=d).search_columns(queries, top=15, batch=4)) for d in ("cpu", "cuda"))
    for a, b in zip(cpu, gpu):
        assert a.first == b.first and (a.positions == b.positions).all()
        for f in dataclasses.fields(a.hits):
            np.testing.assert_array_equal(getattr(a.hits, f.name), getattr(b.hits, f.name), err_msg=f.name)
    assert len(cpu) == len(gpu) > 1 and sum(len(p.hits) for p in cpu) > len(queries)


def test_many_queries_against_a_large_database_ask_for_the_compiled_fit(protein, monkeypatch):
    from swgpu.workloads.search import searcher as searcher_module

    db, queries = protein
    monkeypatch.setattr(searcher_module, "FIT_QUERIES", 10)
    monkeypatch.setattr(searcher_module, "FIT_SEQUENCES", len(db))
    searcher = Searcher(db, Scoring.default("protein"), device="cpu")
    assert searcher._fit_many(queries)
    assert not searcher._fit_many(queries[:9]) and not searcher._fit_many(iter(queries))  # (not counted)
    assert not Searcher(db, Scoring.default("protein"), device="cpu", evalues="karlin")._fit_many(queries)
    monkeypatch.setattr(searcher_module, "FIT_SEQUENCES", len(db) + 1)
    assert not searcher._fit_many(queries)
