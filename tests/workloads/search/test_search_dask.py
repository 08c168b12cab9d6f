"""``Searcher`` on a Dask cluster (two local worker processes) gives the output of
a search in one process: the same scores, hits, CIGARs, E-values and strands;
also with more parts than workers, after a worker is killed, and with the
parts kept loaded on the workers between batches."""

from __future__ import annotations

import dataclasses
import os
import signal
from importlib import resources

import numpy as np
import pytest

pytest.importorskip("distributed")

from swgpu.align.alignment import Alignment
from swgpu import Scoring, Sequence, read_sequences  # noqa: E402
from swgpu.io.database import Database  # noqa: E402
from swgpu.parallel.dask_executor import DaskExecutor  # noqa: E402
from swgpu.parallel.executors import ThreadExecutor  # noqa: E402
from swgpu.workloads.search import Searcher  # noqa: E402
from swgpu.workloads.search import tasks  # noqa: E402
from swgpu.workloads.search.cluster import ClusterParts  # noqa: E402

EXAMPLES = resources.files("swgpu").joinpath("data/examples")


def _loaded():
    return sorted(k[0] for k in tasks._LOADED)


@pytest.fixture(scope="module")
def ex():
    with DaskExecutor(workers=2, threads_per_worker=1) as executor:
        yield executor


@pytest.fixture(scope="module")
def protein():
    db = Database.from_fasta(EXAMPLES.joinpath("targets.fasta"))
    queries = read_sequences(EXAMPLES.joinpath("queries.fasta"))
    return db, queries, Scoring.default("protein")


@pytest.fixture(scope="module")
def dna():
    """Random DNA with copies of the queries planted on both strands."""
    rng = np.random.default_rng(7)

    def seq(name, n):
        return "".join(rng.choice(list("ACGT"), n))

    queries = [Sequence.from_text(f"q{k}", seq(f"q{k}", int(n)), "dna") for k, n in enumerate([40, 90, 150])]
    targets = []
    for k in range(60):
        text = seq(f"t{k}", int(rng.integers(30, 500)))
        if k % 7 == 0:
            q = queries[k % 3]
            planted = q.text if k % 2 else q.reverse_complement().text
            cut = int(rng.integers(0, len(text)))
            text = text[:cut] + planted + text[cut:]
        targets.append(Sequence.from_text(f"t{k}", text, "dna"))
    return Database.from_sequences(targets), queries, Scoring.default("dna")


def _rows(results):
    return [(r.query.name, [dataclasses.astuple(h) for h in r.hits], r.scores.tolist(),
             {s: v.tolist() for s, v in r.strand_scores.items()}) for r in results]


def _one_process(db, queries, scoring, **kw):
    return _rows(Searcher(db, scoring, device="cpu", threads=2).search(queries, **kw))


@pytest.mark.parametrize("batch", [1, 32])
def test_protein_search_equals_one_process(ex, protein, batch):
    db, queries, scoring = protein
    with Searcher(db, scoring, device="cpu", executor=ex) as searcher:
        assert searcher.device == "cpu"
        got = _rows(searcher.search(queries, top=15, evalue=1e3, batch=batch))
    want = _one_process(db, queries, scoring, top=15, evalue=1e3)
    assert got == want
    assert sum(len(r[1]) for r in got) > 10


@pytest.mark.parametrize("strand", ["both", "minus"])
def test_dna_strands_equal_one_process(ex, dna, strand):
    db, queries, scoring = dna
    with Searcher(db, scoring, device="cpu", executor=ex) as searcher:
        got = _rows(searcher.search(queries, top=12, strand=strand))
        one = searcher.search_one(queries[1], top=3, strand=strand)
    assert got == _one_process(db, queries, scoring, top=12, strand=strand)
    assert _rows([one]) == _one_process(db, queries[1:2], scoring, top=3, strand=strand)
    strand = [f.name for f in dataclasses.fields(Alignment)].index("strand")
    assert any(h[strand] == "-" for r in got for h in r[1])  # planted reverse copies found


def test_further_alignments_equal_one_process(ex, protein):
    db, queries, scoring = protein
    with Searcher(db, scoring, device="cpu", executor=ex) as searcher:
        got = _rows(searcher.search(queries, top=5, evalue=1e3, max_hsps=3))
    assert got == _one_process(db, queries, scoring, top=5, evalue=1e3, max_hsps=3)


def test_more_parts_than_workers(ex, dna):
    db, queries, scoring = dna
    searcher = Searcher(db, scoring, device="cpu")
    parts = ClusterParts(ex, db, scoring, "cpu", searcher.statistics, parts=5)
    try:
        assert parts.parts == 5
        codes = [q.codes for q in queries]
        assert [s.tolist() for s in parts.scores_many(codes)] == [s.tolist() for s in searcher.scores_many(queries)]
    finally:
        parts.close()


def test_parts_stay_loaded_between_batches(ex, protein):
    db, queries, scoring = protein
    searcher = Searcher(db, scoring, device="cpu", executor=ex)
    token = searcher._cluster.token
    for _ in range(3):
        list(searcher.search(queries, top=2, batch=1))
    loaded = [k for keys in ex.run(_loaded).values() for k in keys if k.startswith(token)]
    assert sorted(loaded) == [f"{token}-0", f"{token}-1"]  # each part loaded once, on one worker
    searcher.close()
    assert not [k for keys in ex.run(_loaded).values() for k in keys if k.startswith(token)]


def test_worker_killed_between_batches(ex, protein):
    """The worker holding a part dies: the scheduler rebuilds the part's data on
    a worker (from the task that holds it), which loads it again."""
    db, queries, scoring = protein
    want = _one_process(db, queries, scoring, top=5)
    with Searcher(db, scoring, device="cpu", executor=ex) as searcher:
        assert _rows(searcher.search(queries, top=5)) == want
        holder = ex.holders(searcher._cluster._data)[0]
        victim = ex.run(os.getpid)[holder]
        os.kill(victim, signal.SIGKILL)
        assert _rows(searcher.search(queries, top=5)) == want
        assert ex.holders(searcher._cluster._data)[0] not in (None, holder)  # rebuilt elsewhere
    ex.client.wait_for_workers(2, timeout=60)
    assert victim not in ex.run(os.getpid).values()


def test_other_executor_traces_the_hits(protein):
    db, queries, scoring = protein
    searcher = Searcher(db, scoring, device="cpu", executor=ThreadExecutor(2))
    assert _rows(searcher.search(queries, top=4)) == _one_process(db, queries, scoring, top=4)
