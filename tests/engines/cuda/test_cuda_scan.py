"""GPU scan end points and hits equal the CPU engine's (``pytest -m gpu``)."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu import Scoring, Sequence
from swgpu.engines import cuda_available, get_engine
from swgpu.workloads.scan import Scanner

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not cuda_available(), reason="needs CuPy and a CUDA GPU")]

SCORINGS = [Scoring.default("dna"), Scoring.build("dna", match=1, mismatch=-2, gap_open=6, gap_extend=1),
            Scoring.build("dna", match=1, mismatch=-1, gap_open=1, gap_extend=1),
            Scoring.build("dna", match=40, mismatch=-60, gap_open=80, gap_extend=10)]


def _genome(rng, sizes, planted=()):
    recs = []
    for k, n in enumerate(sizes):
        text = "".join(rng.choice(list("ACGTN"), n, p=[0.24, 0.24, 0.24, 0.24, 0.04]))
        for q in planted:
            at = int(rng.integers(0, max(1, n - len(q))))
            text = text[:at] + q + text[at + len(q):]
        recs.append(Sequence.from_text(f"r{k}", text[:n] if n else "A", "dna"))
    return recs


@pytest.mark.parametrize("scoring", SCORINGS, ids=["2/-3/5/2", "1/-2/6/1", "1/-1/1/1", "40/-60/80/10"])
@pytest.mark.parametrize("window", [7, 64, 4096])
@pytest.mark.parametrize("method", ["auto", "rowscan"])
def test_end_points_equal_the_cpu_engine(scoring, window, method):
    rng = np.random.default_rng(window)
    queries = [Sequence.from_text(f"q{k}", "".join(rng.choice(list("ACGT"), n)), "dna") for k, n in
               enumerate((1, 5, 33, 70, 200))]
    genome = _genome(rng, (1, 50, 3000, 9000), [q.text for q in queries[2:]])
    codes = np.concatenate([r.codes for r in genome])
    bounds = np.cumsum([0] + [len(r) for r in genome])
    gpu = get_engine("cuda").genome_scanner(scoring, method)
    gpu.window, gpu.fill = window, False  # this window exactly
    cpu = get_engine("cpu").genome_scanner(scoring)
    qs = [q.codes for q in queries]
    for floor in (1, 10, [1, 2, 3, 40, 50]):
        a = gpu.candidates(qs, codes, bounds, floor, 1000)
        b = cpu.candidates(qs, codes, bounds, floor, 1000)
        for (ca, sa), (cb, sb) in zip(a, b):
            assert ca.tolist() == cb.tolist() and sa.tolist() == sb.tolist()


@pytest.mark.parametrize("scoring", SCORINGS, ids=["2/-3/5/2", "1/-2/6/1", "1/-1/1/1", "40/-60/80/10"])
@pytest.mark.parametrize("long_query", [1, 600])
def test_long_kernel_end_points_equal_the_cpu_engine(scoring, long_query):
    """The long kernel (strips of one problem on many warps): forced on every
    query, and on queries of several strips, with parts and radii."""
    rng = np.random.default_rng(long_query)
    queries = [Sequence.from_text(f"q{k}", "".join(rng.choice(list("ACGT"), n)), "dna") for k, n in
               enumerate((1, 33, 513, 1100, 2600))]
    genome = _genome(rng, (1, 700, 6000, 12000), [q.text for q in queries[1:]])
    codes = np.concatenate([r.codes for r in genome])
    bounds = np.cumsum([0] + [len(r) for r in genome])
    gpu = get_engine("cuda").genome_scanner(scoring)
    gpu.long_query = long_query
    cpu = get_engine("cpu").genome_scanner(scoring)
    qs = [q.codes for q in queries]
    total = int(bounds[-1])
    for own, radius in ((None, None), ((0, total), 50), ((3000, 15000), 7), ((6701, 6702), 1)):
        a = gpu.candidates(qs, codes, bounds, 5, 1000, own=own, radius=radius)
        b = cpu.candidates(qs, codes, bounds, 5, 1000, own=own, radius=radius)
        for (ca, sa), (cb, sb) in zip(a, b):
            assert ca.tolist() == cb.tolist() and sa.tolist() == sb.tolist()


def test_long_kernel_identical_sequences_past_16_bits():
    """A 40 kbp query against itself inside a longer record: scores past 16 bits."""
    rng = np.random.default_rng(9)
    q = "".join(rng.choice(list("ACGT"), 40_000))
    rec = "".join(rng.choice(list("ACGT"), 3_000)) + q + "".join(rng.choice(list("ACGT"), 2_000))
    query, genome = Sequence.from_text("q", q, "dna"), [Sequence.from_text("r", rec, "dna")]
    scoring = SCORINGS[0]
    codes, bounds = genome[0].codes, np.array([0, len(rec)])
    a = get_engine("cuda").genome_scanner(scoring).candidates([query.codes], codes, bounds, 1000, 10, radius=100)
    b = get_engine("cpu").genome_scanner(scoring).candidates([query.codes], codes, bounds, 1000, 10, radius=100)
    assert a[0][1][0] == 80_000 and a[0][0][0] == 3_000 + 40_000 - 1
    assert a[0][0].tolist() == b[0][0].tolist() and a[0][1].tolist() == b[0][1].tolist()


@pytest.mark.parametrize("scoring", SCORINGS[:2], ids=["2/-3/5/2", "1/-2/6/1"])
@pytest.mark.parametrize("method", ["auto", "rowscan"])
def test_hits_equal_the_cpu_engine(scoring, method):
    rng = np.random.default_rng(4)
    queries = [Sequence.from_text(f"q{k}", "".join(rng.choice(list("ACGT"), n)), "dna") for k, n in
               enumerate((20, 64, 256))]
    comp = str.maketrans("ACGT", "TGCA")
    genome = _genome(rng, (20_000, 5_000), [q.text for q in queries] + [q.text.translate(comp)[::-1] for q in queries])
    got = Scanner(scoring, device="cuda", method=method).scan(queries, genome, top=5, min_score=15)
    want = Scanner(scoring, device="cpu").scan(queries, genome, top=5, min_score=15)
    for r, w in zip(got, want):
        assert [h.to_dict() for h in r.hits] == [h.to_dict() for h in w.hits]


def test_ecoli_100_fragments_planted_back(shared_data):
    """100 fragments of 30-2,000 bp cut from E. coli, mutated (5%), half
    reverse-complemented: the GPU finds each one's origin as its best hit."""
    from swgpu import read_sequences

    genome = read_sequences(shared_data / "dna" / "ecoli_K12_MG1655.fasta.gz", "dna")
    g = genome[0].text
    rng = np.random.default_rng(100)
    comp = str.maketrans("ACGTacgt", "TGCAtgca")
    queries, spots = [], []
    for k in range(100):
        n = int(rng.integers(30, 2001))
        a = int(rng.integers(0, len(g) - n))
        s = list(g[a:a + n])
        for _ in range(n // 20):
            s[int(rng.integers(n))] = "ACGT"[int(rng.integers(4))]
        text = "".join(s)
        minus = k % 2 == 1
        queries.append(Sequence.from_text(f"f{k}", text.translate(comp)[::-1] if minus else text, "dna"))
        spots.append((a, a + n, "-" if minus else "+"))
    results = Scanner(Scoring.default("dna"), device="cuda").scan(queries, genome, top=3, min_score=40)
    for r, (a, b, sign) in zip(results, spots):
        h = r.hits[0]
        assert h.strand == sign and h.target_start < b and a < h.target_end, (r.query.name, h.target_start, a)


def test_rowscan_identical_sequences_past_16_bits():
    rng = np.random.default_rng(10)
    q = "".join(rng.choice(list("ACGT"), 17_000))
    rec = "".join(rng.choice(list("ACGT"), 2_000)) + q + "".join(rng.choice(list("ACGT"), 1_500))
    query, codes = Sequence.from_text("q", q, "dna"), Sequence.from_text("r", rec, "dna").codes
    bounds = np.array([0, len(rec)])
    a = get_engine("cuda").genome_scanner(SCORINGS[0], "rowscan").candidates([query.codes], codes, bounds, 500, 5)
    b = get_engine("cpu").genome_scanner(SCORINGS[0]).candidates([query.codes], codes, bounds, 500, 5)
    assert a[0][1][0] == 34_000 and a[0][0].tolist() == b[0][0].tolist() and a[0][1].tolist() == b[0][1].tolist()


@pytest.mark.parametrize("scoring", SCORINGS[:3], ids=["2/-3/5/2", "1/-2/6/1", "1/-1/1/1"])
def test_rowscan_switches_between_8_and_32_bit_rows(scoring):
    """A query whose first 300 letters occur in the genome: its rows pass
    255 there (32-bit cells) and fall back after (8-bit cells again, with the
    seed's margin of 10 rows); the end points equal the CPU engine's."""
    rng = np.random.default_rng(8)
    head = "".join(rng.choice(list("ACGT"), 300))
    # 480 letters: gaps reach back at most 480 columns, so the localized scan runs (sc_rowscan)
    query = Sequence.from_text("q", head + "".join(rng.choice(list("ACGT"), 180)), "dna")
    genome = _genome(rng, (5000, 20000), [head])
    codes = np.concatenate([r.codes for r in genome])
    bounds = np.cumsum([0] + [len(r) for r in genome])
    gpu = get_engine("cuda").genome_scanner(scoring, "rowscan")
    gpu.window = 3000
    a = gpu.candidates([query.codes], codes, bounds, 20, 50)
    b = get_engine("cpu").genome_scanner(scoring).candidates([query.codes], codes, bounds, 20, 50)
    got, want = list(zip(a[0][0].tolist(), a[0][1].tolist())), list(zip(b[0][0].tolist(), b[0][1].tolist()))
    assert got == want, (len(got), len(want), [x for x in got if x not in want][:5], [x for x in want if x not in got][:5])
    assert want[0][1] >= 300 * scoring.matrix.max_score
    eight, rows = gpu.row_words
    assert 0 < eight < rows  # both kinds of rows ran
    assert eight > rows // 2  # the rows past the planted copy went back to bytes


@pytest.mark.parametrize("scoring", SCORINGS, ids=["2/-3/5/2", "1/-2/6/1", "1/-1/1/1", "40/-60/80/10"])
@pytest.mark.parametrize("window", [700, 1 << 18])
def test_rowscan_across_tiles_equals_the_cpu_engine(scoring, window):
    """Queries whose gaps reach back further than half a tile: the row scan
    runs across the tiles of a problem (decoupled look-back), with short
    queries in the same launches, several records and own ranges."""
    rng = np.random.default_rng(window + 3)
    queries = [Sequence.from_text(f"q{k}", "".join(rng.choice(list("ACGT"), n)), "dna") for k, n in
               enumerate((1, 33, 700, 2600))]
    genome = _genome(rng, (1, 900, 7000, 15000), [q.text for q in queries[1:]])
    codes = np.concatenate([r.codes for r in genome])
    bounds = np.cumsum([0] + [len(r) for r in genome])
    gpu = get_engine("cuda").genome_scanner(scoring, "rowscan")
    gpu.window = window
    cpu = get_engine("cpu").genome_scanner(scoring)
    qs = [q.codes for q in queries]
    total = int(bounds[-1])
    for own, radius in ((None, None), ((0, total), 50), ((3000, 15000), 7)):
        a = gpu.candidates(qs, codes, bounds, 5, 1000, own=own, radius=radius)
        b = cpu.candidates(qs, codes, bounds, 5, 1000, own=own, radius=radius)
        for (ca, sa), (cb, sb) in zip(a, b):
            assert ca.tolist() == cb.tolist() and sa.tolist() == sb.tolist()


def test_pair_kernels_near_the_16_bit_limit():
    """Queries whose best scores sit just under the 16-bit pair kernels'
    limit (16,000: two problems to a warp) and just over it (16,800: 32-bit
    cells), planted exactly, with an odd number of windows per query."""
    from swgpu.engines.cuda.scan import PAIR_LIMIT

    scoring = SCORINGS[3]  # 40/-60/80/10
    rng = np.random.default_rng(16)
    queries = [Sequence.from_text(f"q{n}", "".join(rng.choice(list("ACGT"), n)), "dna") for n in (400, 420, 3)]
    genome = _genome(rng, (9_000, 2_000), [q.text for q in queries])
    codes = np.concatenate([r.codes for r in genome])
    bounds = np.cumsum([0] + [len(r) for r in genome])
    gpu = get_engine("cuda").genome_scanner(scoring)
    gpu.window, gpu.fill = 1_000, False  # 9 + 2 windows a query
    assert gpu._paired(np.array([[0, 400] + [0] * 9, [0, 420] + [0] * 9])).tolist() == [True, False]
    assert 400 * 40 + 80 < PAIR_LIMIT < 420 * 40 + 80
    cpu = get_engine("cpu").genome_scanner(scoring)
    qs = [q.codes for q in queries]
    a = gpu.candidates(qs, codes, bounds, 1, 50)
    b = cpu.candidates(qs, codes, bounds, 1, 50)
    assert [int(x[1][0]) for x in a[:2]] == [16_000, 16_800]
    for (ca, sa), (cb, sb) in zip(a, b):
        assert ca.tolist() == cb.tolist() and sa.tolist() == sb.tolist()


@pytest.mark.parametrize("host_sort", [0, 1 << 18])
def test_best_end_points_chosen_on_either_side(monkeypatch, host_sort):
    """Each query's best end points, ordered on the GPU or on the host."""
    from swgpu.engines.cuda import scan_best

    monkeypatch.setattr(scan_best, "HOST_SORT", host_sort)
    rng = np.random.default_rng(21)
    queries = [Sequence.from_text(f"q{k}", "".join(rng.choice(list("ACGT"), n)), "dna") for k, n in
               enumerate((12, 40, 90))]
    genome = _genome(rng, (30_000, 4_000), [q.text for q in queries])
    codes = np.concatenate([r.codes for r in genome])
    bounds = np.cumsum([0] + [len(r) for r in genome])
    qs = [q.codes for q in queries]
    for keep in (1, 7, 10_000):
        a = get_engine("cuda").genome_scanner(SCORINGS[0]).candidates(qs, codes, bounds, 4, keep)
        b = get_engine("cpu").genome_scanner(SCORINGS[0]).candidates(qs, codes, bounds, 4, keep)
        for (ca, sa), (cb, sb) in zip(a, b):
            assert ca.tolist() == cb.tolist() and sa.tolist() == sb.tolist()
