"""Column maxima in row bands on threads (:mod:`swgpu.engines.cpu.scan_bands`)
against the whole pass: random DNA and protein, several problems of
different band counts in one pipeline, bands of one row, scores past 8 and
16 bits at the bands' edges, and ``scan``'s end points by bands against
those of whole-record chunks."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swgpu import Scoring
from swgpu.engines.cpu import scan_bands
from swgpu.engines.cpu.scan import CpuGenomeScanner
from swgpu.engines.cpu.scan_bands import band_cuts, column_maxima_bands
from swgpu.engines.cpu.scan_striped import column_maxima_striped

SETTINGS = {"deadline": None, "suppress_health_check": list(HealthCheck), "derandomize": True}
SCORINGS = [Scoring.default("dna"), Scoring.default("protein"),
            Scoring.build("dna", match=9, mismatch=-7, gap_open=12, gap_extend=3),
            Scoring.build("dna", match=3, mismatch=-1, gap_open=2, gap_extend=2)]


def _matrix(scoring):
    return np.ascontiguousarray(scoring.matrix.values, dtype=np.int32)


def _whole(q, t, scoring, c0, c1):
    out = np.zeros(c1 - c0, np.int32)
    column_maxima_striped(q, _matrix(scoring), t, c0, c1, scoring.gap_open, scoring.gap_extend, out)
    return out


def _bands(problems, t, scoring, threads):
    got = {}
    pieces = []
    column_maxima_bands(problems, _matrix(scoring), t, scoring.gap_open, scoring.gap_extend, threads,
                        lambda p, a, b: pieces.append((p, a, b)), lambda p, colmax: got.setdefault(p, colmax))
    return got, pieces


@pytest.fixture
def small_bands(monkeypatch):
    monkeypatch.setattr(scan_bands, "PIECE", 4096)
    monkeypatch.setattr(scan_bands, "MIN_BAND_ROWS", 1)


@given(seed=st.integers(0, 2 ** 32 - 1), scoring=st.sampled_from(SCORINGS), threads=st.integers(1, 5),
       rows=st.integers(1, 60), count=st.integers(1, 3))
@settings(max_examples=60, **SETTINGS)
def test_bands_equal_the_whole_pass(seed, scoring, threads, rows, count):
    rng = np.random.default_rng(seed)
    letters = int(rng.choice([2, 4, scoring.matrix.values.shape[0]]))
    t = rng.integers(0, letters, int(rng.integers(1, 14_000))).astype(np.uint8)
    problems = []
    for _ in range(count):
        m = int(rng.integers(1, 300))
        q = rng.integers(0, letters, m).astype(np.intp)
        if rng.random() < 0.5 and t.size > m:  # a mutated copy of the query in the target
            at = int(rng.integers(0, t.size - m))
            copy = q.copy()
            copy[rng.random(m) < 0.05] = 0
            t[at:at + m] = copy
        c0 = int(rng.integers(0, t.size))
        problems.append((q, c0, int(rng.integers(c0 + 1, t.size + 1))))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(scan_bands, "PIECE", 4096)
        mp.setattr(scan_bands, "MIN_BAND_ROWS", rows)
        got, pieces = _bands(problems, t, scoring, threads)
    for p, (q, c0, c1) in enumerate(problems):
        assert got[p].tolist() == _whole(q, t, scoring, c0, c1).tolist()
        # every column reported once, in order
        spans = [(a, b) for x, a, b in pieces if x == p]
        assert spans[0][0] == c0 and spans[-1][1] == c1
        assert all(b == a2 for (_, b), (a2, _) in zip(spans, spans[1:]))


def test_scores_past_16_bits_cross_the_bands(small_bands):
    """A 3,300-letter copy scoring 66,000: bands below the first take edges
    past 16 bits, and their next pieces go back to narrow lanes."""
    rng = np.random.default_rng(9)
    scoring = Scoring.build("dna", match=20, mismatch=-30, gap_open=40, gap_extend=20)
    q = rng.integers(0, 4, 3300).astype(np.intp)
    t = np.concatenate([rng.integers(0, 4, 3000), q[:700], rng.integers(0, 4, 500), q, q[:7],
                        rng.integers(0, 4, 9000)]).astype(np.uint8)
    want = _whole(q, t, scoring, 0, t.size)
    assert want.max() == 66_000
    for threads in (1, 3, 7):
        got, _ = _bands([(q, 0, t.size), (q[:900], 100, 9000)], t, scoring, threads)
        assert got[0].tolist() == want.tolist()
        assert got[1].tolist() == _whole(q[:900], t, scoring, 100, 9000).tolist()


def test_a_failing_problem_stops_every_band(small_bands):
    scoring = Scoring.default("dna")
    t = np.random.default_rng(2).integers(0, 4, 20_000).astype(np.uint8)
    q = t[5000:5400].astype(np.intp)

    def fail(p, colmax):
        raise RuntimeError("no room")

    with pytest.raises(RuntimeError, match="no room"):
        column_maxima_bands([(q, 0, 9000), (q, 0, t.size)], _matrix(scoring), t, scoring.gap_open,
                            scoring.gap_extend, 4, None, fail)


def test_band_cuts():
    assert band_cuts(0, 8).tolist() == [0, 0]
    assert band_cuts(1024, 16).tolist() == [0, 512, 1024]
    assert band_cuts(10 ** 6, 16).size == 17


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("own", [None, (9_000, 61_000)])
def test_scan_end_points_by_bands_equal_chunks(small_bands, threads, own):
    """A long query (its passes in bands) beside a short one (in chunks),
    two records, with and without owned columns: the end points of whole
    records' passes."""
    rng = np.random.default_rng(5)
    scoring = Scoring.default("dna")
    g = rng.integers(0, 4, 90_000).astype(np.uint8)
    long_q = g[20_000:23_000].copy()
    long_q[rng.random(long_q.size) < 0.03] = 1
    queries = [long_q, rng.integers(0, 4, 40).astype(np.uint8), g[60_000:61_500].copy()]
    bounds = np.array([0, 40_000, 90_000])
    banded = CpuGenomeScanner(scoring, threads)
    banded.chunk = 8192  # the long queries' leads pass a quarter of a chunk
    whole = CpuGenomeScanner(scoring, threads)
    whole.chunk = 1 << 30  # one chunk a record: no lead, no bands
    reported = []
    got = banded.candidates(queries, g, bounds, 25, 30, lambda k, n: reported.append((k, n)), own=own)
    want = whole.candidates(queries, g, bounds, 25, 30, own=own)
    for (gc, gs), (wc, ws) in zip(got, want):
        assert gc.tolist() == wc.tolist() and gs.tolist() == ws.tolist()
    a, b = own or (0, g.size)
    for k in range(len(queries)):
        assert sum(n for x, n in reported if x == k) == b - a


def _no_repeats(m, seed=1):
    """Codes with no two equal neighbours (a copy scores only on its diagonal)."""
    rng = np.random.default_rng(seed)
    q = np.zeros(m, np.intp)
    for i in range(1, m):
        q[i] = (q[i - 1] + 1 + rng.integers(0, 3)) % 4
    return q


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("case", ["first band's left edge", "corner of a lower band"])
def test_edges_past_8_bits_at_a_piece_boundary(monkeypatch, threads, case):
    """A copy ending at a piece's last column with a score past 8 bits and
    nothing high in the next piece: the next piece starts in lanes wide
    enough for its left edge (band 0) and for the top edge's corner, the row
    above at the column before the piece (band 1), not in 8-bit lanes that
    would wrap them."""
    monkeypatch.setattr(scan_bands, "PIECE", 4096)
    monkeypatch.setattr(scan_bands, "MIN_BAND_ROWS", 150)
    scoring = Scoring.default("dna")
    q = _no_repeats(300)
    t = np.full(3 * 4096, 4, np.uint8)  # N
    if case == "first band's left edge":
        t[4096 - 129:4096] = q[:129]  # score 258 at the last column of the first piece
    else:
        t[4096 - 128:4096] = q[22:150]  # 256 on band 0's last row (rows 0-149 of 2 bands) there
    want = _whole(q, t, scoring, 0, t.size)
    assert want.max() >= 256
    got, _ = _bands([(q, 0, t.size)], t, scoring, threads)
    assert got[0].tolist() == want.tolist()
