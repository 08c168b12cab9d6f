"""GPU batched traceback: every alignment equals the CPU engine's, field for
field (``pytest -m gpu``; skipped without CuPy and a GPU)."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu import Scoring, Sequence, read_sequences
from swgpu.engines import cuda_available, get_engine

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not cuda_available(), reason="needs CuPy and a CUDA GPU")]

DNA_SCORINGS = [Scoring.default("dna"), Scoring.build("dna", match=1, mismatch=-1, gap_open=1, gap_extend=1),
                Scoring.build("dna", match=5, mismatch=-4, gap_open=9, gap_extend=1)]


def _same(pairs, scoring, base_cells=None, **kw):
    gpu = get_engine("cuda").tracer(scoring)
    cpu = get_engine("cpu").tracer(scoring)
    if base_cells is not None:  # both engines split the same way
        gpu.base_cells = cpu.base_cells = base_cells
    for k, v in kw.items():
        setattr(gpu, k, v)
    got = gpu.align_many(pairs)
    for (q, t), a in zip(pairs, got):
        b = cpu.align(q, t)
        assert a.to_dict() == b.to_dict(), (q.name, t.name)


def _dna(rng, name, n, text=None):
    return Sequence.from_text(name, text if text is not None else "".join(rng.choice(list("ACGT"), n)), "dna")


@pytest.mark.parametrize("scoring", DNA_SCORINGS, ids=["2/-3/5/2", "1/-1/1/1", "5/-4/9/1"])
def test_random_and_special_dna_pairs(scoring):
    rng = np.random.default_rng(5)
    pairs = []
    for i in range(300):
        q = _dna(rng, f"q{i}", int(rng.integers(1, 200)))
        t = _dna(rng, f"t{i}", int(rng.integers(1, 300)))
        if i % 3 == 0:  # plant a mutated copy
            s = list(q.text)
            for _ in range(len(s) // 10):
                s[int(rng.integers(len(s)))] = "ACGT"[int(rng.integers(4))]
            t = _dna(rng, f"t{i}", 0, t.text[:50] + "".join(s) + t.text[50:])
        pairs.append((q, t))
    pairs += [(_dna(rng, "n", 0, "N" * 40), _dna(rng, "n2", 0, "N" * 40)),
              (_dna(rng, "a", 0, "A"), _dna(rng, "a2", 0, "A")),
              (_dna(rng, "a", 0, "A"), _dna(rng, "c", 0, "C")),
              (_dna(rng, "x", 0, "ACGT" * 30), _dna(rng, "y", 0, "TTTT" + "ACGT" * 10 + "GG" + "ACGT" * 19))]
    _same(pairs, scoring)


def test_identical_sequences_past_16_bits():
    rng = np.random.default_rng(9)
    s = _dna(rng, "s", 1500)
    big = Scoring.build("dna", match=40, mismatch=-60, gap_open=80, gap_extend=10)  # 60,000 > 32767
    _same([(s, s), (s, _dna(rng, "u", 0, s.text[100:1400]))], big)


def _mutated(rng, text, rate):
    s = list(text)
    for _ in range(int(len(s) * rate)):
        k = int(rng.integers(len(s)))
        r = rng.random()
        s[k] = "ACGT"[int(rng.integers(4))] if r < 0.6 else ("" if r < 0.8 else s[k] + "ACGT"[int(rng.integers(4))] * 3)
    return "".join(s)


def test_long_and_odd_pairs():
    rng = np.random.default_rng(2)
    a = _dna(rng, "a", 700)
    pairs = [(a, _dna(rng, "b", 0, a.text[::-1][:50] + a.text + "ACGT")), (a, _dna(rng, "c", 300)),
             (_dna(rng, "s", 40), _dna(rng, "t", 60)), (_dna(rng, "n", 0, "N" * 500), _dna(rng, "n", 0, "N" * 90)),
             (_dna(rng, "one", 0, "A"), _dna(rng, "long", 20_000))]
    _same(pairs, Scoring.default("dna"))


@pytest.mark.parametrize("scoring", DNA_SCORINGS, ids=["2/-3/5/2", "1/-1/1/1", "5/-4/9/1"])
@pytest.mark.parametrize("base_cells", [16, 5_000])
def test_divide_and_conquer_on_the_gpu(scoring, base_cells):
    rng = np.random.default_rng(base_cells)
    pairs = []
    for i in range(40):
        q = _dna(rng, f"q{i}", int(rng.integers(1, 900)))
        t = _dna(rng, f"t{i}", 0, _mutated(rng, q.text, 0.2) if i % 2 else "".join(rng.choice(list("ACGT"), 500)))
        pairs.append((q, t if len(t) else q))
    _same(pairs, scoring, base_cells=base_cells)


def test_20_kbp_pairs():
    rng = np.random.default_rng(20)
    a = _dna(rng, "a", 20_000)
    b = _dna(rng, "b", 0, _mutated(rng, a.text, 0.1)[:20_000])
    _same([(a, b), (a, _dna(rng, "r", 20_000))], Scoring.default("dna"))
    big = Scoring.build("dna", match=40, mismatch=-60, gap_open=80, gap_extend=10)  # past 16 bits
    _same([(a, a), (a, b)], big)


def test_batches_split_by_budget(monkeypatch):
    from swgpu.engines.cuda import traceback_passes

    monkeypatch.setattr(traceback_passes, "ROW_BUDGET", 2_000)
    monkeypatch.setattr(traceback_passes, "DIR_BUDGET", 3_000)
    rng = np.random.default_rng(4)
    pairs = [(_dna(rng, f"q{i}", 120), _dna(rng, f"t{i}", 150)) for i in range(50)]
    _same(pairs, Scoring.default("dna"), base_cells=5_000)


def test_long_proteins(shared_data):
    seqs = read_sequences(shared_data / "protein" / "uniprot_sprot12071.fasta.gz", "protein")
    longest = sorted(seqs, key=len)[-6:]
    pairs = [(x, y) for x in longest for y in longest[:3]]
    _same(pairs, Scoring.default("protein"))
    _same(pairs[:6], Scoring.build("protein", matrix="BLOSUM50", gap_open=10, gap_extend=2), base_cells=50_000)


def test_protein_hits(shared_data):
    seqs = read_sequences(shared_data / "protein" / "uniprot_sprot12071.fasta.gz", "protein")[:120]
    pairs = [(seqs[i], seqs[j]) for i in range(0, 120, 12) for j in range(0, 120, 7)]
    for scoring in (Scoring.default("protein"), Scoring.build("protein", matrix="BLOSUM50", gap_open=10,
                                                               gap_extend=2)):
        _same(pairs, scoring)


def test_gasal2_pairs(shared_data):
    reads = shared_data / "reads"
    qs = read_sequences(reads / "gasal2_pairs_query.fasta.gz", "dna")[:3000]
    ts = read_sequences(reads / "gasal2_pairs_target.fasta.gz", "dna")[:3000]
    _same(list(zip(qs, ts)), Scoring.default("dna"))


@pytest.mark.parametrize("base_cells", [64, 5_000, 1 << 22])
def test_block_per_problem_shape(monkeypatch, base_cells):
    """Every pass with eight warps per problem (the shape of long pairs)."""
    from swgpu.engines.cuda import traceback_passes

    monkeypatch.setattr(traceback_passes, "WIDE_ROWS", 1)
    monkeypatch.setattr(traceback_passes, "WIDE_CELLS", 1)
    rng = np.random.default_rng(base_cells + 1)
    pairs = []
    for i in range(24):
        q = _dna(rng, f"q{i}", int(rng.integers(1, 1500)))
        t = _dna(rng, f"t{i}", 0, _mutated(rng, q.text, 0.15) if i % 2 else "".join(rng.choice(list("ACGT"), 700)))
        pairs.append((q, t if len(t) else q))
    pairs.append((_dna(rng, "a", 0, "A"), _dna(rng, "long", 5_000)))
    for scoring in DNA_SCORINGS:
        _same(pairs, scoring, base_cells=base_cells)


@pytest.mark.parametrize("scoring", DNA_SCORINGS, ids=["2/-3/5/2", "1/-1/1/1", "5/-4/9/1"])
def test_end_at_last_column(scoring):
    from oracle import last_column_alignment, last_column_pairs

    pairs = last_column_pairs()
    gpu = get_engine("cuda").tracer(scoring)
    got = gpu.align_many(pairs, end_at_last=True)
    for (q, t), a in zip(pairs, got):
        want = last_column_alignment(q, t, scoring)
        assert a.to_dict() == want.to_dict(), (q.name, t.name)
        assert a.score == 0 or a.target_end == len(t)


@pytest.mark.parametrize("base_cells,blocks", [(64, None), (1 << 22, None), (5_000, 3), (64, 1)])
def test_tall_shape(monkeypatch, base_cells, blocks):
    """The end, start and half passes in the tall shape (eight rows a lane,
    several problems a launch on blocks by their cells), forced on small
    problems (strips cut short by the last row: 1 to 3,000 rows); also with
    launches of 1 or 3 blocks (one problem a block, several launches); with
    known best scores (the end pass stops early) and ending in the last column."""
    from oracle import last_column_alignment, last_column_pairs
    from swgpu.engines.cuda import traceback_passes

    monkeypatch.setattr(traceback_passes, "TALL_ROWS", 1)
    monkeypatch.setattr(traceback_passes, "TALL_CELLS", 1)
    monkeypatch.setattr(traceback_passes, "TALL_BLOCKS", blocks)
    rng = np.random.default_rng(base_cells + 7)
    pairs = []
    for i in range(10):
        q = _dna(rng, f"q{i}", int(rng.integers(1, 3000)))
        t = _dna(rng, f"t{i}", 0, _mutated(rng, q.text, 0.1) if i % 2 else "".join(rng.choice(list("ACGT"), 900)))
        pairs.append((q, t if len(t) else q))
    pairs.append((_dna(rng, "a", 0, "A"), _dna(rng, "long", 5_000)))
    for scoring in DNA_SCORINGS:
        _same(pairs, scoring, base_cells=base_cells)
        gpu = get_engine("cuda").tracer(scoring)
        cpu = get_engine("cpu").tracer(scoring)
        expected = [cpu.align(q, t).score for q, t in pairs]
        want = [cpu.align(q, t).to_dict() for q, t in pairs]
        assert [a.to_dict() for a in gpu.align_many(pairs, expected=expected)] == want
        # an expected score above the best bounds the end pass's columns too tightly: the whole window then
        too_high = [e + 3 for e in expected]
        assert [a.to_dict() for a in gpu.align_many(pairs, expected=too_high)] == want
    lc = last_column_pairs()[:40]
    got = get_engine("cuda").tracer(DNA_SCORINGS[0]).align_many(lc, end_at_last=True)
    for (q, t), a in zip(lc, got):
        assert a.to_dict() == last_column_alignment(q, t, DNA_SCORINGS[0]).to_dict()


@pytest.mark.parametrize("blocks", [None, 2])
def test_tall_shape_proteins(monkeypatch, blocks):
    """The tall shape with a protein matrix (more letters than fit one shared
    row of eight), rows on both sides of a strip's height."""
    from swgpu.engines.cuda import traceback_passes

    monkeypatch.setattr(traceback_passes, "TALL_ROWS", 1)
    monkeypatch.setattr(traceback_passes, "TALL_CELLS", 1)
    monkeypatch.setattr(traceback_passes, "TALL_BLOCKS", blocks)
    rng = np.random.default_rng(11)
    letters = list("ACDEFGHIKLMNPQRSTVWYX")
    pairs = []
    for i, m in enumerate([1, 7, 255, 256, 257, 511, 513, 1200]):
        q = "".join(rng.choice(letters, m))
        t = "".join(rng.choice(letters, int(rng.integers(1, 900)))) + q[: m // 2] + "".join(rng.choice(letters, 40))
        pairs.append((Sequence.from_text(f"q{i}", q, "protein"), Sequence.from_text(f"t{i}", t, "protein")))
    _same(pairs, Scoring.default("protein"), base_cells=1_000)


def _packed(seqs):
    codes = np.concatenate([s.codes for s in seqs] or [np.zeros(0, np.uint8)])
    lens = np.array([len(s.text) for s in seqs], dtype=np.int64)
    return codes, np.concatenate([[0], np.cumsum(lens)[:-1]]).astype(np.int64), lens


@pytest.mark.parametrize("kind", ["dna", "protein"])
def test_runs_made_on_the_gpu_equal_the_host_pass(kind):
    """The CIGAR runs and counts the GPU makes beside the paths (every path one base
    piece) equal the host pass over the CPU engine's paths: N/X letters, empty
    sequences, pairs without an alignment, identical and all-mismatch pairs."""
    from swgpu.align.runs import path_runs

    rng = np.random.default_rng(11)
    scoring = Scoring.default(kind)
    letters = list("ACGTN") if kind == "dna" else list("ARNDCQEGHILKMFPSTWYVX")

    def seq(name, n, text=None):
        return Sequence.from_text(name, text if text is not None else "".join(rng.choice(letters, n)), kind)

    qs, ts = [], []
    for i in range(500):
        q = seq(f"q{i}", int(rng.integers(0, 120)))
        t = seq(f"t{i}", int(rng.integers(0, 200)))
        if i % 2 and len(q.text) > 4:  # a mutated copy inside the target
            s = list(q.text)
            for _ in range(len(s) // 8):
                s[int(rng.integers(len(s)))] = letters[int(rng.integers(len(letters)))]
            t = seq(f"t{i}", 0, t.text[:30] + "".join(s) + t.text[30:])
        qs.append(q)
        ts.append(t)
    qs += [seq("same", 0, "A" * 90), seq("none", 0, "A" * 20), seq("n", 0, "N" * 30 if kind == "dna" else "X" * 30)]
    ts += [seq("same", 0, "A" * 90), seq("none", 0, "C" * 20), seq("n", 0, "N" * 30 if kind == "dna" else "X" * 30)]
    qc, qstart, qlen = _packed(qs)
    tc, tstart, tlen = _packed(ts)
    gpu = get_engine("cuda").tracer(scoring).trace_packed(qc, qstart, qlen, tc, tstart, tlen)
    cpu = get_engine("cpu").tracer(scoring).trace_packed(qc, qstart, qlen, tc, tstart, tlen)
    assert gpu.runs is not None and gpu.ops.size == 0
    assert gpu.best.tolist() == cpu.best.tolist() and gpu.i0.tolist() == cpu.i0.tolist()
    assert gpu.j0.tolist() == cpu.j0.tolist() and gpu.off.tolist() == cpu.off.tolist()
    want = path_runs(cpu.ops, cpu.off, qc, qstart + cpu.i0, tc, tstart + cpu.j0, scoring.alphabet.unknown_code)
    (gl, gop, goff), gcounts = gpu.runs
    (wl, wop, woff), wcounts = want
    assert gl.tolist() == wl.tolist() and bytes(gop) == bytes(wop) and goff.tolist() == woff.tolist()
    assert [c.tolist() for c in gcounts] == [c.tolist() for c in wcounts]


def test_runs_left_to_the_host_where_a_path_has_pieces():
    """A batch with a box larger than the base piece keeps its paths (the host makes the runs)."""
    rng = np.random.default_rng(3)
    scoring = Scoring.default("dna")
    q = _dna(rng, "q", 400)
    pairs = [(q, _dna(rng, "t", 0, q.text)), (_dna(rng, "a", 50), _dna(rng, "b", 60))]
    tracer = get_engine("cuda").tracer(scoring)
    tracer.base_cells = 1024
    qc, qstart, qlen = _packed([p[0] for p in pairs])
    tc, tstart, tlen = _packed([p[1] for p in pairs])
    got = tracer.trace_packed(qc, qstart, qlen, tc, tstart, tlen)
    assert got.runs is None and got.ops.size == int(got.off[-1]) > 400


def test_each_thread_traces_on_a_stream_of_its_own():
    """The tracer's work runs on a non-blocking stream of the calling thread
    (its memory in that stream's pool, not the null stream's that a scoring
    thread allocates from), and the paths are those of one thread alone."""
    import threading

    from swgpu.engines import get_engine
    from swgpu.engines.cuda import runtime

    rng = np.random.default_rng(5)
    sc = Scoring.default("dna")
    tracer = get_engine("cuda").tracer(sc)
    qs = [rng.integers(0, 4, int(rng.integers(20, 150))).astype(np.uint8) for _ in range(300)]
    ts = [np.concatenate([q[5:], rng.integers(0, 4, 40).astype(np.uint8)]) for q in qs]
    qo, to = np.cumsum([0] + [q.size for q in qs]), np.cumsum([0] + [t.size for t in ts])
    args = (np.concatenate(qs), qo[:-1], np.diff(qo), np.concatenate(ts), to[:-1], np.diff(to))
    want = tracer.trace_packed(*args)
    streams, got = {}, {}

    def run(k):
        with runtime.cupy().cuda.Device(0):
            streams[k] = runtime.thread_stream()
        got[k] = tracer.trace_packed(*args)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len({s.ptr for s in streams.values()}) == 3 and 0 not in {s.ptr for s in streams.values()}
    for paths in got.values():
        np.testing.assert_array_equal(paths.best, want.best)
        np.testing.assert_array_equal(paths.i0, want.i0)
        np.testing.assert_array_equal(paths.ops, want.ops)
        for a, b in zip(*((p.runs or ((),))[0] for p in (paths, want))):
            np.testing.assert_array_equal(a, b)
