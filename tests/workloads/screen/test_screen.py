"""Bulk pair screening on the CPU: every kernel equals the pairwise engine on the
real read-pair sets; the workload, pair files and CLI."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu import Scoring, Sequence, read_sequences
from swgpu.cli import main
from swgpu.engines.cpu import pairwise
from swgpu.exceptions import InputError, ScoringError
from swgpu.io.pairs import read_pairs
from swgpu.workloads.screen import Screener

SCORINGS = {
    "linear 2/-1/1 (seed)": Scoring.build("dna", match=2, mismatch=-1, gap_open=1, gap_extend=1),
    "affine 2/-3/5/2": Scoring.default("dna"),
}


def _pairwise(queries, targets, scoring):
    m = scoring.matrix.values
    return np.array([pairwise.sw_end(q.codes, t.codes, m, scoring.gap_open, scoring.gap_extend)[0]
                     for q, t in zip(queries, targets)], dtype=np.int32)


@pytest.fixture(scope="module")
def read_pair_sets(shared_data):
    reads = shared_data / "reads"
    out = {}
    for name in ("gasal2_pairs", "ecoli_read_pairs"):
        q = read_sequences(reads / f"{name}_query.fasta.gz", "dna")
        t = read_sequences(reads / f"{name}_target.fasta.gz", "dna")
        out[name] = (q, t)
    assert len(out["gasal2_pairs"][0]) == 20_000 and len(out["ecoli_read_pairs"][0]) == 56_320
    return out


@pytest.mark.parametrize("label", list(SCORINGS))
@pytest.mark.parametrize("dataset", ["gasal2_pairs", "ecoli_read_pairs"])
def test_bitsliced_equals_pairwise_on_real_pairs(read_pair_sets, dataset, label):
    queries, targets = read_pair_sets[dataset]
    scoring = SCORINGS[label]
    got = Screener(scoring, device="cpu", kernel="bitwise").scores(queries, targets)
    np.testing.assert_array_equal(got, _pairwise(queries, targets, scoring))


def test_wordwise_equals_bitwise_sample(read_pair_sets):
    queries, targets = (x[:3000] for x in read_pair_sets["gasal2_pairs"])
    scoring = Scoring.default("dna")
    a = Screener(scoring, device="cpu", kernel="bitwise").scores(queries, targets)
    b = Screener(scoring, device="cpu", kernel="wordwise").scores(queries, targets)
    np.testing.assert_array_equal(a, b)


def test_threshold_selects_and_aligns():
    rng = np.random.default_rng(3)
    qs, ts = [], []
    for i in range(200):
        q = "".join(rng.choice(list("ACGT"), int(rng.integers(1, 120))))
        t = q[: len(q) // 2] + "".join(rng.choice(list("ACGTN"), int(rng.integers(0, 60)))) if i % 2 else \
            "".join(rng.choice(list("ACGT"), int(rng.integers(1, 150))))
        qs.append(Sequence.from_text(f"q{i}", q, "dna"))
        ts.append(Sequence.from_text(f"t{i}", t or "A", "dna"))
    scoring = Scoring.default("dna")
    result = Screener(scoring, device="cpu").screen(qs, ts, threshold=20)
    expected = _pairwise(qs, ts, scoring)
    np.testing.assert_array_equal(result.scores, expected)
    assert result.selected.tolist() == np.flatnonzero(expected >= 20).tolist()
    assert [a.score for a in result.alignments] == expected[result.selected].tolist()


def test_matrix_scoring_is_refused():
    with pytest.raises(ScoringError):
        Scoring.build("dna", matrix="NUC.4.4").match_mismatch()
    with pytest.raises(ScoringError):
        Screener(Scoring.default("protein"))


def test_read_pairs_formats(tmp_path):
    p = tmp_path / "pairs.tsv"
    p.write_text("# header\nACGT\tACGA\nr2\tAAAA\tw2\tAAAT\n\n")
    q, t = read_pairs(p)
    assert [s.name for s in q] == ["pair1_q", "r2"] and [s.name for s in t] == ["pair1_t", "w2"]
    p.write_text("ACGT\tAC\tGT\n")
    with pytest.raises(InputError, match="line 1"):
        read_pairs(p)
    p.write_text("AC1T\tACGT\n")
    with pytest.raises(InputError, match="line 1"):
        read_pairs(p)


def test_cli_screen_table_and_threshold(tmp_path, capsys):
    pairs = tmp_path / "p.tsv"
    pairs.write_text("a\tACGTACGTACGT\tb\tACGTACGTACGT\nc\tAAAAAAAA\td\tCCCCCCCC\n")
    out = tmp_path / "scores.tsv"
    assert main(["screen", "--pairs", str(pairs), "-o", str(out), "--device", "cpu"]) == 0
    assert out.read_text() == "query\ttarget\tscore\na\tb\t24\nc\td\t0\n"
    assert main(["screen", "--pairs", str(pairs), "--threshold", "10", "--format", "json", "--device", "cpu"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 1 and '"cigar":"12="' in lines[0]


def test_cli_screen_unequal_record_counts(tmp_path, capsys):
    q = tmp_path / "q.fa"
    t = tmp_path / "t.fa"
    q.write_text(">a\nACGT\n>b\nACGT\n")
    t.write_text(">a\nACGT\n")
    assert main(["screen", "-q", str(q), "-t", str(t), "-o", str(tmp_path / "o.tsv")]) == 2
    err = capsys.readouterr().err
    assert "record i" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "o.tsv").exists()


@pytest.mark.gpu
@pytest.mark.parametrize("kernel", ["bitwise", "wordwise", "group"])
@pytest.mark.parametrize("label", list(SCORINGS))
def test_cuda_kernels_equal_pairwise_on_real_pairs(read_pair_sets, kernel, label):
    from swgpu.engines.cuda import runtime

    if not runtime.available():
        pytest.skip(f"no CUDA device: {runtime.why_unavailable()}")
    scoring = SCORINGS[label]
    for queries, targets in read_pair_sets.values():
        got = Screener(scoring, device="cuda", kernel=kernel).scores(queries, targets)
        np.testing.assert_array_equal(got, _pairwise(queries, targets, scoring))


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=pytest.mark.gpu)])
@pytest.mark.parametrize("strand", ["plus", "both", "minus"])
def test_a_sequence_batch_screens_as_its_list(strand, device):
    """Batches (codes end to end, as read_pair_files gives them) score and align
    as the same records in lists, on every strand."""
    from swgpu.io.sequence_batch import SequenceBatch
    from swgpu.workloads.screen import pair_cells

    if device == "cuda":
        from swgpu.engines.cuda import runtime

        if not runtime.available():
            pytest.skip(f"no CUDA device: {runtime.why_unavailable()}")

    rng = np.random.default_rng(4)
    qs = [Sequence.from_text(f"q{k}", "".join(rng.choice(list("ACGTN"), rng.integers(1, 60)))) for k in range(150)]
    ts = [Sequence.from_text(f"t{k}", "".join(rng.choice(list("ACGTN"), rng.integers(1, 200)))) for k in range(150)]
    ts[7] = Sequence.from_text("t7", qs[7].text)  # an identical pair
    screener = Screener(Scoring.default("dna"), device=device, strand=strand)
    want = screener.screen(qs, ts, threshold=8)
    qb, tb = SequenceBatch.from_sequences(qs), SequenceBatch.from_sequences(ts)
    got = screener.screen(qb, tb, threshold=8)
    np.testing.assert_array_equal(got.scores, want.scores)
    np.testing.assert_array_equal(got.strands, want.strands)
    assert [a.cigar for a in got.alignments] == [a.cigar for a in want.alignments]
    assert pair_cells(qb, tb) == pair_cells(qs, ts) == sum(len(q) * len(t) for q, t in zip(qs, ts))
    with pytest.raises(InputError, match="150 queries but 149 targets"):
        pair_cells(qb, ts[1:])


def test_traced_batches_stop_when_the_caller_stops(monkeypatch):
    """Closing :meth:`Screener.traced` early (an error or an interrupt while writing)
    traces no further batch and does not wait for the one being traced."""
    import threading
    import time

    from swgpu.workloads import tracing

    calls = []
    real = tracing.Traceback.columns

    def slow(self, *args, **kwargs):
        calls.append(threading.get_ident())
        time.sleep(0.3)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(tracing.Traceback, "columns", slow)
    qs = [Sequence.from_text(f"q{k}", "ACGTACGTAC") for k in range(6)]
    ts = [Sequence.from_text(f"t{k}", "TTACGTACGTAA") for k in range(6)]
    screener = Screener(Scoring.default("dna"), device="cpu")
    screener.chunk = 1
    batches = screener.traced(screener.scored(qs, ts, 10))
    next(batches)
    t0 = time.perf_counter()
    batches.close()
    assert time.perf_counter() - t0 < 0.2
    time.sleep(0.5)
    assert len(calls) == 2  # the first batch, and the next one traced meanwhile: no more


def test_a_concurrent_tracer_gets_two_batches_of_a_part_at_once(monkeypatch):
    """A tracer that traces on several threads at once (a GPU's) gets a part as
    two batches traced together; the alignments are those of one batch."""
    import time

    from swgpu.engines.cpu.tracer import CpuTracer
    from swgpu.workloads import tracing

    rng = np.random.default_rng(9)
    qs = [Sequence.from_text(f"q{k}", "".join(rng.choice(list("ACGT"), rng.integers(20, 60)))) for k in range(120)]
    ts = [Sequence.from_text(f"t{k}", q.text[5:] + "".join(rng.choice(list("ACGT"), 30))) for k, q in enumerate(qs)]
    screener = Screener(Scoring.default("dna"), device="cpu")
    want = screener.screen(qs, ts, threshold=10)
    busy, overlap = [0], [False]
    real = tracing.Traceback.columns

    def columns(self, *args, **kwargs):
        busy[0] += 1
        overlap[0] |= busy[0] > 1
        time.sleep(0.05)
        try:
            return real(self, *args, **kwargs)
        finally:
            busy[0] -= 1

    monkeypatch.setattr(CpuTracer, "concurrent", True, raising=False)
    monkeypatch.setattr(tracing.Traceback, "columns", columns)
    screener.chunk = 64  # (at most 64 pairs a batch, at least 8: two batches of 60)
    got = screener.screen(qs, ts, threshold=10)
    assert overlap[0]  # (the two batches were traced at the same time)
    assert len(want.alignments) == len(got.alignments) == 120
    assert [(a.query, a.target, a.cigar, a.score) for a in got.alignments] == \
        [(a.query, a.target, a.cigar, a.score) for a in want.alignments]


def test_one_cpu_thread_scores_and_traces_the_parts_one_after_the_other():
    """``threads=1`` on the CPU: a part's tracing runs on the scoring's one thread (no second
    worker beside it), and the parts' alignments are those of two threads."""
    import threading

    from swgpu.io.sequence_batch import SequenceBatch

    rng = np.random.default_rng(2)
    scoring = Scoring.default("dna")

    def part(k):
        qs = [Sequence.from_text(f"q{k}_{i}", "".join(rng.choice(list("ACGT"), 40)), "dna") for i in range(30)]
        ts = [Sequence.from_text(f"t{k}_{i}", "AC" + q.text[3:] + "GT", "dna") for i, q in enumerate(qs)]
        return SequenceBatch.from_sequences(qs), SequenceBatch.from_sequences(ts)

    parts = [part(k) for k in range(4)]
    seen = []

    def cigars(threads):
        got = []
        for p in Screener(scoring, device="cpu", threads=threads).stream(iter(parts), 10):
            seen.append({t.name.split("_")[0] for t in threading.enumerate()})
            got.append((p.first, p.batch.cigars(), p.result.scores.tolist()))
        return got

    one = cigars(1)
    assert not any("swgpu-part" in names for names in seen)
    seen.clear()
    assert one == cigars(2)
    assert any("swgpu-part" in names for names in seen)  # (two threads: the tracing beside the scoring)
