"""``scan``: the end-point rule, the CPU engine's column maxima and end points
against brute force, and whole hit lists against the brute-force scan on
genomes with planted copies of the queries on both strands."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from swgpu import Scoring, Sequence, read_sequences
from swgpu.align.scan_rule import end_points, sliding_max, span_bound
from swgpu.engines import get_engine
from swgpu.engines.cpu.scan_kernels import column_maxima, query_profile
from swgpu.exceptions import InputError
from swgpu.workloads.scan import Scanner

import scan_oracle as oracle

SCORINGS = [Scoring.default("dna"), Scoring.build("dna", match=1, mismatch=-2, gap_open=6, gap_extend=1),
            Scoring.build("dna", match=1, mismatch=-1, gap_open=1, gap_extend=1)]
COMP = str.maketrans("ACGTNacgtn", "TGCANtgcan")


def _rc(text: str) -> str:
    return text.translate(COMP)[::-1]


def _mutated(rng, text: str, rate: float) -> str:
    s = list(text)
    for _ in range(int(len(s) * rate)):
        k = int(rng.integers(len(s)))
        r = rng.random()
        s[k] = "ACGT"[int(rng.integers(4))] if r < 0.6 else ("" if r < 0.8 else s[k] + "ACGT"[int(rng.integers(2))])
    return "".join(s)


@given(st.lists(st.integers(-5, 40), min_size=0, max_size=60), st.integers(1, 9))
@settings(max_examples=300, deadline=None)
def test_sliding_max_and_end_points_follow_the_rule(values, radius):
    x = np.array(values, dtype=np.int64)
    if x.size >= radius:
        want = [max(values[j:j + radius]) for j in range(len(values) - radius + 1)]
        assert sliding_max(x, radius).tolist() == want
    cols, scores = end_points(x, 0, x.size, radius, 3)
    assert cols.tolist() == oracle.end_points(x, radius, 3)
    assert scores.tolist() == [values[j] for j in cols.tolist()]


def test_span_bound():
    # 10 letters x match 2 = 20; gaps of 5 + 2 (k - 1) < 20 hold at most 8 letters
    assert span_bound(10, 2, 5, 2) == 18
    assert span_bound(10, 2, 25, 2) == 10  # no gap can pay for itself
    assert span_bound(10, 2, 5, 0) is None


dna = st.text("ACGTN", min_size=0, max_size=120)


@given(st.text("ACGTN", min_size=1, max_size=25), dna, st.sampled_from(SCORINGS))
@settings(max_examples=200, deadline=None)
def test_cpu_column_maxima_equal_the_full_matrix(q, t, scoring):
    qs, ts = Sequence.from_text("q", q, "dna"), Sequence.from_text("t", t, "dna")
    out = np.empty(len(t), np.int32)
    prof = query_profile(qs.codes.astype(np.intp), scoring.matrix.values.astype(np.int32))
    column_maxima(prof, ts.codes, 0, len(t), scoring.gap_open, scoring.gap_extend, out)
    assert out.tolist() == oracle.column_maxima(qs.codes, ts.codes, scoring).tolist()


@given(st.lists(st.text("ACGTN", min_size=0, max_size=90), min_size=1, max_size=3),
       st.text("ACGT", min_size=1, max_size=20), st.sampled_from(SCORINGS), st.integers(1, 40))
@settings(max_examples=120, deadline=None)
def test_cpu_end_points_across_chunks_and_records(records, q, scoring, chunk):
    genome = [Sequence.from_text(f"r{k}", r or "A", "dna") for k, r in enumerate(records)]
    query = Sequence.from_text("q", q, "dna")
    scanner = get_engine("cpu").genome_scanner(scoring)
    scanner.chunk = chunk  # many chunks: the edges must not change anything
    codes = np.concatenate([r.codes for r in genome])
    bounds = np.cumsum([0] + [len(r) for r in genome])
    [(cols, scores)] = scanner.candidates([query.codes], codes, bounds, 2, 1000)
    want = []
    for r, rec in zip(bounds[:-1].tolist(), genome):
        colmax = oracle.column_maxima(query.codes, rec.codes, scoring)
        want += [(int(colmax[j]), r + j) for j in oracle.end_points(colmax, len(query), 2)]
    want.sort(key=lambda x: (-x[0], x[1]))
    assert list(zip(scores.tolist(), cols.tolist())) == want


@given(st.lists(st.text("ACGTN", min_size=0, max_size=90), min_size=1, max_size=3),
       st.text("ACGT", min_size=1, max_size=20), st.sampled_from(SCORINGS), st.integers(1, 6),
       st.integers(1, 30), st.data())
@settings(max_examples=80, deadline=None)
def test_cpu_end_points_of_parts_and_radius(records, q, scoring, radius, chunk, data):
    """End points of own ranges (parts of the genome) merged equal those of
    the whole genome, with any neighbourhood radius."""
    genome = [Sequence.from_text(f"r{k}", r or "A", "dna") for k, r in enumerate(records)]
    query = Sequence.from_text("q", q, "dna")
    scanner = get_engine("cpu").genome_scanner(scoring)
    scanner.chunk = chunk
    codes = np.concatenate([r.codes for r in genome])
    bounds = np.cumsum([0] + [len(r) for r in genome])
    total = int(bounds[-1])
    cuts = sorted(set(data.draw(st.lists(st.integers(0, total), max_size=4)) + [0, total]))
    got_c, got_s = [], []
    for a, b in zip(cuts[:-1], cuts[1:]):
        [(c, s)] = scanner.candidates([query.codes], codes, bounds, 2, 1000, own=(a, b), radius=radius)
        assert ((c >= a) & (c < b)).all()
        got_c.append(c)
        got_s.append(s)
    want = []
    for r, rec in zip(bounds[:-1].tolist(), genome):
        colmax = oracle.column_maxima(query.codes, rec.codes, scoring)
        want += [(int(colmax[j]), r + j) for j in oracle.end_points(colmax, radius, 2)]
    want.sort(key=lambda x: (-x[0], x[1]))
    cols, scores = np.concatenate(got_c), np.concatenate(got_s)
    order = np.lexsort((cols, -scores.astype(np.int64)))
    assert list(zip(scores[order].tolist(), cols[order].tolist())) == want


def _planted_case(rng, scoring_case: int):
    """Records with mutated copies of the queries on both strands: next to N
    runs, at record starts and ends, and across the CPU engine's chunk edges."""
    queries = [Sequence.from_text(f"q{k}", "".join(rng.choice(list("ACGT"), n)), "dna")
               for k, n in enumerate((1, 12, 40, 75))]
    records = []
    for r in range(3):
        body = list("".join(rng.choice(list("ACGT"), 700)))
        text = "".join(body)
        q = queries[(r + scoring_case) % len(queries)].text
        text = q + text[len(q):]  # at the record start
        text = text[:300] + "N" * 20 + _mutated(rng, q, 0.1) + "N" * 5 + text[300:]
        text = text[:500] + _rc(_mutated(rng, queries[2].text, 0.05)) + text[500:]
        text = text + _rc(queries[3].text)  # at the record end, minus strand
        records.append(Sequence.from_text(f"chr{r}", text.lower() if r == 1 else text, "dna"))
    return queries, records


@pytest.mark.parametrize("case", range(3))
def test_hits_equal_the_brute_force_scan(case):
    rng = np.random.default_rng(100 + case)
    scoring = SCORINGS[case]
    queries, genome = _planted_case(rng, case)
    scanner = Scanner(scoring, device="cpu")
    scanner.scanner.chunk = 97  # chunk edges everywhere
    got = scanner.scan(queries, genome, top=5, min_score=4)
    want = oracle.scan(queries, genome, scoring, top=5, min_score=4)
    def fields(h):  # (the oracle has no statistics)
        return {k: v for k, v in h.to_dict().items() if k not in ("evalue", "bitscore")}

    for r, w in zip(got, want):
        assert [fields(h) for h in r.hits] == [fields(h) for h in w]
    # the planted full copies are found, on their strands
    top = {r.query.name: (r.hits[0].strand, r.hits[0].target_start) for r in got if r.hits}
    assert top["q3"][0] == "-" or got[3].hits[0].score == len(queries[3]) * scoring.matrix.max_score


def test_identical_sequences_past_16_bits():
    rng = np.random.default_rng(7)
    big = Scoring.build("dna", match=40, mismatch=-60, gap_open=80, gap_extend=10)
    q = Sequence.from_text("q", "".join(rng.choice(list("ACGT"), 900)), "dna")  # 36,000 > 32767
    rec = Sequence.from_text("chr", "".join(rng.choice(list("ACGT"), 300)) + q.text + "ACGT" * 20, "dna")
    [r] = Scanner(big, device="cpu").scan([q], [rec], top=2, strand="plus")
    h = r.hits[0]
    assert (h.score, h.target_start, h.target_end, h.cigar) == (36_000, 300, 1200, "900=")


def test_bad_input():
    s = Scoring.default("dna")
    with pytest.raises(InputError) as e:
        Scanner(s, device="cpu", method="fast")
    assert e.value.param == "method"
    with pytest.raises(InputError):
        Scanner(s, device="cpu").scan([Sequence.from_text("p", "MKVL", "protein")], [Sequence.from_text("c", "ACGT")])
    with pytest.raises(InputError) as e:
        Scanner(s, device="cpu").scan([], [], top=0)
    assert e.value.param == "top"


def test_ecoli_fragments_planted_back(shared_data):
    """Mutated fragments (30-300 bp) of an E. coli slice, planted back on both
    strands: each one's best hit is where it was planted."""
    ecoli = read_sequences(shared_data / "dna" / "ecoli_K12_MG1655.fasta.gz", "dna")[0]
    rng = np.random.default_rng(11)
    base = ecoli.text[:120_000]
    queries, spots = [], []
    for k in range(12):
        n = int(rng.integers(30, 300))
        a = int(rng.integers(0, 100_000))
        frag = _mutated(rng, base[a:a + n], 0.04)
        queries.append(Sequence.from_text(f"f{k}", frag if k % 2 == 0 else _rc(frag), "dna"))
        spots.append((a, a + n, "+" if k % 2 == 0 else "-"))
    results = Scanner(Scoring.default("dna"), device="cpu").scan(
        queries, [Sequence.from_text("ecoli", base, "dna")], top=3, min_score=20)
    for r, (a, b, sign) in zip(results, spots):
        h = r.hits[0]
        assert h.strand == sign and h.target_start < b and a < h.target_end, (r.query.name, h.target_start, a)


