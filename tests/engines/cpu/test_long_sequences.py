"""Long database sequences: the CPU search engine scores them on overlapping
windows read in place (exact, bounded memory), and the workloads trace hits
on them on windows too (the same alignment as on the whole target)."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest

from swgpu import Scoring, Sequence
from swgpu.engines import get_engine
from swgpu.engines.cpu import pairwise
from swgpu.engines.cpu.search import LANES, CpuSearchEngine, split_windows
from swgpu.io.alphabet import DNA
from swgpu.io.database import Database
from swgpu.parallel.executors import ThreadExecutor
from swgpu.scoring import Statistics
from swgpu.workloads.search import Searcher
from swgpu.workloads.tracing import PairJob, Traceback

DNA_SCORING = Scoring.default("dna")


def _reference(query, target, scoring):
    """Best local score, with the query along the columns (O(query) memory on long targets)."""
    matrix = np.ascontiguousarray(scoring.matrix.values.T)
    return int(pairwise.sw_end(target, query, matrix, scoring.gap_open, scoring.gap_extend)[0])


def _database(seqs):
    offsets = np.zeros(len(seqs) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(s) for s in seqs])
    return np.concatenate(seqs), offsets


@pytest.fixture(scope="module")
def chromosome():
    """A random 5 Mbp sequence holding a 100 bp query (3 substitutions) across a window edge."""
    rng = np.random.default_rng(42)
    seq = rng.integers(0, 4, 5_000_000).astype(np.uint8)
    query = rng.integers(0, 4, 100).astype(np.uint8)
    at = 3 * 65_536 - 40
    seq[at:at + 100] = query
    seq[at + np.array([10, 50, 90])] = (query[[10, 50, 90]] + 1) % 4
    return seq, query, at


def test_five_mbp_sequence_in_bounded_memory(chromosome):
    seq, query, at = chromosome
    rng = np.random.default_rng(1)
    shorts = [rng.integers(0, 4, int(n)).astype(np.uint8) for n in rng.integers(50, 3000, 100)]
    residues, offsets = _database(shorts + [seq])
    engine = CpuSearchEngine(DNA_SCORING.matrix.values, DNA_SCORING.gap_open, DNA_SCORING.gap_extend)
    engine.load_database(*_database(shorts[:3]))
    engine.scores(query)  # kernels loaded before memory is traced
    tracemalloc.start()
    engine.load_database(residues, offsets)
    scores = engine.scores(query)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # packing 32 lanes x the longest sequence took 32 x 5 MB; windows take bytes per window
    assert peak < 1_000_000, peak
    long_windows = engine.layouts(len(query))[1]
    assert long_windows.columns < 1.1 * len(seq) / LANES + 2 * 65_536
    assert scores[-1] == _reference(query, seq, DNA_SCORING) == 2 * 97 - 3 * 3
    assert scores[:5].tolist() == [_reference(query, s, DNA_SCORING) for s in shorts[:5]]


@pytest.mark.parametrize("scoring", [
    DNA_SCORING,
    Scoring.default("protein"),
    Scoring.build("dna", match=1000, mismatch=-1000, gap_open=900, gap_extend=300),  # past 16 bits: re-scored
    Scoring.build("dna", gap_open=3, gap_extend=0),  # free extension: long sequences stay whole
], ids=["dna", "protein", "rescored", "extend0"])
def test_windows_score_exactly(scoring):
    rng = np.random.default_rng(3)
    letters = 4 if scoring.alphabet is DNA else 20
    lengths = np.concatenate([[20_000, 15_000, 9_000, 5_001, 40_000], rng.integers(1, 3000, 30)])
    seqs = [rng.integers(0, letters, int(n)).astype(np.uint8) for n in lengths]
    query = rng.integers(0, letters, 120).astype(np.uint8)
    for s, at in ((0, 4090), (1, 8150), (4, 30_000), (4, 31_000)):
        seqs[s][at:at + 120] = query
        seqs[s][at + 60] = (query[60] + 1) % letters
    engine = CpuSearchEngine(scoring.matrix.values, scoring.gap_open, scoring.gap_extend, long_length=4096, stride=1024)
    engine.load_database(*_database(seqs))
    got = engine.scores(query)
    assert got.tolist() == [_reference(query, s, scoring) for s in seqs]
    if scoring.gap_extend > 0:
        assert (engine.layouts(len(query))[1].seq >= 0).sum() > 5  # the 5 long ones were cut
    if scoring.matrix.max_score == 1000:
        assert engine.last_timing["rescored"] > 0


def test_windows_hold_every_alignment_span():
    rng = np.random.default_rng(4)
    lengths = rng.integers(1, 5000, 200)
    offsets = np.zeros(lengths.size + 1, dtype=np.int64)
    offsets[1:] = np.cumsum(lengths)
    for span, stride in ((7, 16), (100, 64), (333, 2000)):
        w = split_windows(offsets, np.arange(lengths.size), span, stride)
        used = w.seq >= 0
        seq, start, length = w.seq[used], w.start[used] - offsets[w.seq[used]], w.length[used]
        for s, n in enumerate(lengths.tolist()):
            mine = seq == s
            a, b = start[mine], start[mine] + length[mine]
            assert a.min() == 0 and b.max() == n and (b <= n).all()
            for p in range(0, n, max(1, n // 50)):  # an alignment [p, p + span) clipped to the sequence
                assert ((a <= p) & (b >= min(n, p + span))).any(), (s, p)


def _trace_both_ways(query, target, scoring, long_target=2_000, window=512):
    tracer = get_engine("cpu").tracer(scoring)
    windowed = Traceback(tracer, Statistics(None), ThreadExecutor(2), scoring=scoring)
    windowed.long_target, windowed.window = long_target, window
    whole = Traceback(tracer, Statistics(None), ThreadExecutor(2))
    job = PairJob(query, target, None, (len(query), len(target), 1))
    return windowed.one(job), whole.one(job), windowed


@pytest.mark.parametrize("scoring", [DNA_SCORING, Scoring.build("dna", match=1, mismatch=-1, gap_open=2,
                                                                gap_extend=1)], ids=["default", "1/-1/2/1"])
def test_windowed_traceback_is_the_whole_targets_alignment(scoring):
    rng = np.random.default_rng(5)
    for trial in range(6):
        q = rng.integers(0, 4, 60).astype(np.uint8)
        t = rng.integers(0, 4, 20_000).astype(np.uint8)
        for at in rng.integers(0, 19_900, 3):  # equal copies: the first end in row-major order wins
            t[at:at + 60] = q
            t[at + 30 + trial] = (q[30 + trial] + 1) % 4
        query, target = Sequence("q", DNA.decode(q), q, DNA), Sequence("t", DNA.decode(t), t, DNA)
        a, b, windowed = _trace_both_ways(query, target, scoring)
        assert windowed._windows(query, target) is not None
        assert a.to_dict() == b.to_dict()
        assert windowed.score(query, target) == b.score


def test_search_hit_on_a_long_sequence(chromosome):
    seq, query, at = chromosome
    db = Database.from_sequences([Sequence("chr", DNA.decode(seq), seq, DNA)])
    q = Sequence("q", DNA.decode(query), query, DNA)
    hit = Searcher(db, DNA_SCORING, device="cpu").search_one(q, top=1, strand="plus").hits[0]
    assert (hit.score, hit.target_start, hit.target_end, hit.target_length) == (185, at, at + 100, len(seq))
