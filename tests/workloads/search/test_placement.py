"""``swgpu.workloads.search.placement``: splitting a database by residues, loading
shards (no copy for a whole database), and gathering shard scores back into
database order."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu import Sequence
from swgpu.engines.base import get_engine
from swgpu.io.database import Database
from swgpu.workloads.search.placement import Shard, gather_scores, partition_by_residues


class _RecordingScorer:
    """A DatabaseScorer stand-in that keeps what ``load_database`` got."""

    def __init__(self):
        self.loaded = None
        self.last_timing = {}

    def load_database(self, residues, offsets):
        self.loaded = (residues, offsets)

    def compile(self, query_lengths=()):
        return 0.0

    def scores_many(self, queries):  # pragma: no cover - not used
        raise NotImplementedError


def _db(seed=3, n=23, alphabet="dna"):
    rng = np.random.default_rng(seed)
    letters = list("ACGT")
    seqs = [Sequence.from_text(f"s{i}", "".join(rng.choice(letters, int(rng.integers(1, 80)))), alphabet)
            for i in range(n)]
    return Database.from_sequences(seqs)


def _sequences(residues, offsets):
    return [residues[offsets[i]:offsets[i + 1]].tolist() for i in range(len(offsets) - 1)]


@pytest.mark.parametrize("parts", [1, 2, 3, 5, 8])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_partition_by_residues(parts, seed):
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 1000, size=57)
    groups = partition_by_residues(lengths, parts)
    assert len(groups) == parts
    flat = np.concatenate(groups)
    assert sorted(flat.tolist()) == list(range(lengths.size))  # every index exactly once
    for g in groups:
        assert g.dtype == np.int64
        assert np.all(np.diff(g) > 0)  # sorted
    loads = [int(lengths[g].sum()) for g in groups]
    assert max(loads) - min(loads) <= int(lengths.max())
    assert sum(loads) == int(lengths.sum())


def test_partition_more_parts_than_sequences():
    groups = partition_by_residues(np.array([4, 9, 2]), 5)
    assert sorted(np.concatenate(groups).tolist()) == [0, 1, 2]
    assert sum(1 for g in groups if g.size == 0) == 2


def test_partition_docstring_example():
    assert [g.tolist() for g in partition_by_residues(np.array([5, 1, 4, 2]), 2)] == [[0, 1], [2, 3]]


@pytest.mark.parametrize("members", [None, "all"])
def test_shard_load_whole_database_without_copy(members):
    db = _db()
    scorer = _RecordingScorer()
    shard = Shard.load(scorer, db, None if members is None else np.arange(len(db), dtype=np.int64))
    residues, offsets = scorer.loaded
    assert residues is db.residues
    assert offsets is db.offsets
    assert shard.scorer is scorer
    assert shard.members.tolist() == list(range(len(db)))


def test_shard_load_subset():
    db = _db()
    members = np.array([1, 4, 5, 11, 20], dtype=np.int64)
    scorer = _RecordingScorer()
    shard = Shard.load(scorer, db, members)
    residues, offsets = scorer.loaded
    want_res, want_off = db.select(members)
    np.testing.assert_array_equal(residues, want_res)
    np.testing.assert_array_equal(offsets, want_off)
    assert _sequences(residues, offsets) == [db.sequence(int(i)).codes.tolist() for i in members]
    assert shard.members.tolist() == members.tolist()


def test_gather_scores_one_whole_shard():
    n = 6
    shard = Shard(_RecordingScorer(), np.arange(n, dtype=np.int64))
    per_query = [np.arange(n, dtype=np.int64) * 3, np.arange(n, dtype=np.int16)[::-1]]
    out = gather_scores(n, 2, [(shard, per_query)])
    assert len(out) == 2
    for o, want in zip(out, per_query):
        assert o.dtype == np.int32
        assert o.tolist() == want.tolist()


def test_gather_scores_two_shards():
    n = 9
    lengths = np.array([7, 3, 9, 1, 4, 4, 8, 2, 6])
    a, b = partition_by_residues(lengths, 2)
    sa, sb = Shard(_RecordingScorer(), a), Shard(_RecordingScorer(), b)
    full = [np.arange(n, dtype=np.int32) * 10 + q for q in range(3)]  # score of sequence i for query q
    out = gather_scores(n, 3, [(sa, [f[a] for f in full]), (sb, [f[b] for f in full])])
    assert len(out) == 3
    for o, want in zip(out, full):
        assert o.dtype == np.int32
        assert o.tolist() == want.tolist()
    # the order of the shards does not matter
    out2 = gather_scores(n, 3, [(sb, [f[b] for f in full]), (sa, [f[a] for f in full])])
    assert [o.tolist() for o in out2] == [o.tolist() for o in out]


def test_shards_score_like_the_whole_database():
    """Two CPU shards, gathered, score as one scorer over the whole database."""
    from swgpu import Scoring

    db = _db(seed=9, n=40)
    scoring = Scoring.default("dna")
    engine = get_engine("cpu")
    queries = [db.sequence(3).codes, db.sequence(17).codes]
    whole = Shard.load(engine.database_scorer(scoring), db)
    want = whole.scorer.scores_many(queries)
    shards = [Shard.load(engine.database_scorer(scoring), db, g) for g in partition_by_residues(db.lengths, 2)]
    got = gather_scores(len(db), len(queries), [(s, s.scorer.scores_many(queries)) for s in shards])
    for g, w in zip(got, want):
        assert g.tolist() == w.tolist()



@pytest.mark.parametrize("parts", [2, 3, 4])
def test_a_large_database_is_dealt_in_blocks_and_gathered_back(parts):
    rng = np.random.default_rng(parts)
    block = 64  # (runs of 64 and more: the slices)
    lengths = rng.integers(1, 600, size=16 * parts * block + 5)
    groups = partition_by_residues(lengths, parts, block=block)
    flat = np.concatenate(groups)
    assert sorted(flat.tolist()) == list(range(lengths.size))
    for g in groups:  # whole blocks of consecutive sequences (the last block may be short)
        assert np.all(np.diff(g) > 0)
        firsts = g[np.concatenate([[True], np.diff(g) != 1])]
        assert np.all(firsts % block == 0)
    loads = [int(lengths[g].sum()) for g in groups]
    top_block = int(np.add.reduceat(lengths, np.arange(0, lengths.size, block)).max())
    assert max(loads) - min(loads) <= top_block
    # scores come back in database order: a part of long runs by slices, one of short runs one by one
    snake = partition_by_residues(lengths, parts, block=1)
    scores = [[rng.integers(-5, 99, g.size).astype(np.int32) for _ in range(3)] for g in groups]
    want = [np.zeros(lengths.size, np.int32) for _ in range(3)]
    for g, per_query in zip(groups, scores):
        for w, sc in zip(want, per_query):
            w[g] = sc
    full = gather_scores(lengths.size, 3, [(Shard(None, g), sc) for g, sc in zip(groups, scores)])
    assert all((a == b).all() for a, b in zip(full, want))
    one_by_one = gather_scores(lengths.size, 3, [(Shard(None, g), [np.full(g.size, 7, np.int32)] * 3)
                                                 for g in snake])
    assert all((a == 7).all() for a in one_by_one)
    part = gather_scores(lengths.size, 3, [(Shard(None, g), sc) for g, sc in zip(groups[1:], scores[1:])])
    missing = groups[0]
    for a, b in zip(part, want):  # positions of a part not given are 0 (not uninitialised memory)
        assert (a[missing] == 0).all()
        rest = np.setdiff1d(np.arange(lengths.size), missing)
        assert (a[rest] == b[rest]).all()


@pytest.mark.parametrize("n", [16 * 2 * 1024, 16 * 2 * 1024 + 1, 16 * 3 * 1024 + 777, 70_001])
@pytest.mark.parametrize("parts", [2, 3])
def test_parts_of_whole_blocks_placed_as_rows(n, parts):
    """Parts dealt in blocks (the last block of the database shorter) go back
    as rows of blocks; the same arrays as one by one, in any order of parts."""
    from swgpu.workloads.search.placement import BLOCK, new_scores

    rng = np.random.default_rng(n + parts)
    lengths = rng.integers(20, 900, n)
    groups = partition_by_residues(lengths, parts)
    shards = [Shard(None, g) for g in groups]
    if n >= 16 * parts * BLOCK:
        assert all(s.layout(n)[0] == "blocks" for s in shards)
        assert sum(s.layout(n)[3] for s in shards) == n % BLOCK  # the short last block: in one part
    scores = [[rng.integers(-5, 9999, g.size).astype(np.int32) for _ in range(2)] for g in groups]
    want = [np.zeros(n, np.int32) for _ in range(2)]
    for g, per_query in zip(groups, scores):
        for w, sc in zip(want, per_query):
            w[g] = sc
    out = new_scores(n, 2, shards)
    for k in reversed(range(parts)):
        shards[k].place(out, scores[k])
    assert all((a == b).all() for a, b in zip(out, want))


def test_layouts_of_other_parts():
    """A part of every sequence, of long runs that are not blocks, and of scattered ones."""
    n = 5000
    whole, runs = Shard(None, np.arange(n)), Shard(None, np.arange(100, 4100))
    scattered = Shard(None, np.arange(0, n, 3))
    assert whole.layout(n) == ("all",) and runs.layout(n)[0] == "runs" and scattered.layout(n) == ("scatter",)
    for shard in (whole, runs, scattered):
        m = shard.members
        sc = [np.arange(m.size, dtype=np.int32) * 3, -np.arange(m.size, dtype=np.int32)]
        out = [np.zeros(n, np.int32), np.zeros(n, np.int32)]
        shard.place(out, sc)
        for o, s in zip(out, sc):
            ref = np.zeros(n, np.int32)
            ref[m] = s
            assert (o == ref).all()
    assert whole.layout(n + 1)[0] == "runs"  # worked out again for another size
