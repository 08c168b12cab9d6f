"""Differential tests of the CPU engine's SIMD kernels against the reference
aligner (:mod:`swgpu.align.reference`) and the plain-Python Gotoh oracle.

Hypothesis draws the scorings (DNA match/mismatch and protein matrices,
``gap_open == gap_extend`` and free extension included), the sequences (all
letters, ``N``/``X``/``B``/``Z``/``*``/``U``/``O`` and repeats that make
ties), and the kernels' geometry (tiles, blocks, windows, threads). Over
10,000 cases in all; the exact-score past-16-bits cases are in
``test_simd_kernels.py``.
"""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from swgpu.align import reference
from swgpu.align.traceback import local_align
from swgpu.engines.cpu import striped
from swgpu.engines.cpu.screen import screen_scores_simd
from swgpu.engines.cpu.search import CpuSearchEngine
from swgpu.engines.cpu.tracer import SimdKernels
from swgpu.io.alphabet import DNA, PROTEIN
from swgpu.io.sequence import Sequence
from swgpu.scoring import Scoring

from oracle import gotoh_scores

SETTINGS = dict(deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)


@st.composite
def scorings(draw, dna_only: bool = False):
    go = draw(st.integers(1, 14))
    ge = draw(st.sampled_from([go, 0, 1, draw(st.integers(0, go))]))  # open == extend and free extension often
    if dna_only or draw(st.booleans()):
        return Scoring.build("dna", match=draw(st.integers(1, 6)), mismatch=draw(st.integers(-8, 0)),
                             gap_open=go, gap_extend=ge)
    return Scoring.build("protein", matrix=draw(st.sampled_from(["BLOSUM62", "PAM30", "BLOSUM45"])),
                         gap_open=go, gap_extend=ge)


@st.composite
def codes(draw, alphabet, max_len: int = 40, like=None):
    """Code arrays: random over a few letters (ties) or all of them, or a mutant of ``like``."""
    if like is not None and like.size and draw(st.integers(0, 2)) == 0:
        out = list(like.tolist())
        for _ in range(draw(st.integers(0, 4))):
            pos = draw(st.integers(0, len(out)))
            kind = draw(st.sampled_from("SID"))
            if kind == "S" and out:
                out[pos % len(out)] = draw(st.integers(0, alphabet.size - 1))
            elif kind == "I":
                out[pos:pos] = draw(st.lists(st.integers(0, alphabet.size - 1), max_size=6))
            else:
                del out[pos: pos + draw(st.integers(1, 6))]
        return np.array(out, dtype=np.uint8)
    letters = draw(st.integers(1, alphabet.size))
    n = draw(st.integers(0, max_len))
    return np.array(draw(st.lists(st.integers(0, letters - 1), min_size=n, max_size=n)), dtype=np.uint8)


@st.composite
def scored_pair(draw, max_len: int = 40):
    scoring = draw(scorings())
    q = draw(codes(scoring.alphabet, max_len))
    t = draw(codes(scoring.alphabet, max_len, like=q))
    if draw(st.booleans()):
        q, t = t, q
    return scoring, q, t


def _seq(name, c, alphabet):
    return Sequence(name, alphabet.decode(c), c, alphabet)


@settings(max_examples=5000, **SETTINGS)
@given(scored_pair(), st.sampled_from([64, 256, 4096]), st.sampled_from([1, 3, 256]), st.sampled_from([0, 1 << 20]),
       st.sampled_from([None, 0, 240, 70_000]))
def test_striped_score_and_end_cell(case, tile_bytes, block, eight_bit_cells, least):
    """Tiles of 1 to 64 vector steps; 8-bit passes that saturate (handed on to
    16 bits) and ones skipped; hints of the score that change nothing."""
    scoring, q, t = case
    want = reference.sw_end(q.tolist(), t.tolist(), scoring)
    old = striped.TILE_BYTES, striped.BLOCK_ROWS, striped.EIGHT_BIT_CELLS
    striped.TILE_BYTES, striped.BLOCK_ROWS, striped.EIGHT_BIT_CELLS = tile_bytes, block, eight_bit_cells
    try:
        got = striped.sw_end_striped(q, t, scoring.matrix.values, scoring.gap_open, scoring.gap_extend, least)
    finally:
        striped.TILE_BYTES, striped.BLOCK_ROWS, striped.EIGHT_BIT_CELLS = old
    assert got == want


@settings(max_examples=3000, **SETTINGS)
@given(scored_pair(max_len=60))
def test_traceback_on_simd_passes(case):
    """Score, end (first cell in row-major order) and start (latest) as the reference's."""
    scoring, q, t = case
    a, b = _seq("q", q, scoring.alphabet), _seq("t", t, scoring.alphabet)
    ref = reference.align(a, b, scoring)
    got = local_align(SimdKernels(), a, b, scoring)
    key = lambda x: (x.score, x.query_start, x.query_end, x.target_start, x.target_end)  # noqa: E731
    assert key(got) == key(ref)


@st.composite
def databases(draw):
    scoring = draw(scorings())
    query = draw(codes(scoring.alphabet, 50))
    seqs = draw(st.lists(codes(scoring.alphabet, 70, like=query), min_size=0, max_size=24))
    return scoring, query, seqs


@settings(max_examples=1000, **SETTINGS)
@given(databases(), st.sampled_from([1, 2]), st.sampled_from([1 << 17, 40]), st.sampled_from([16, 1 << 16]))
def test_search_scores(case, threads, long_length, stride):
    """Every database sequence's score, whole or on windows (``long_length`` 40 cuts many)."""
    scoring, query, seqs = case
    offsets = np.zeros(len(seqs) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([s.size for s in seqs])
    residues = np.concatenate(seqs) if seqs else np.zeros(0, np.uint8)
    engine = CpuSearchEngine(scoring.matrix.values, scoring.gap_open, scoring.gap_extend, long_length=long_length,
                             stride=stride, threads=threads)
    engine.load_database(residues, offsets)
    got = engine.scores(query)
    assert got.dtype == np.int32
    assert got.tolist() == [reference.sw_score(query.tolist(), s.tolist(), scoring) for s in seqs]


@st.composite
def screen_pairs(draw):
    match, mismatch = draw(st.integers(1, 9)), draw(st.integers(-12, 0))
    go = draw(st.integers(0, 14))
    ge = draw(st.sampled_from([go, 0, draw(st.integers(0, go))]))
    qs, ts = [], []
    for _ in range(draw(st.integers(0, 12))):
        q = draw(codes(DNA, 45))
        qs.append(q)
        ts.append(draw(codes(DNA, 60, like=q)))
    return (match, mismatch, go, ge), qs, ts


@settings(max_examples=1000, **SETTINGS)
@given(screen_pairs(), st.sampled_from([1, 2]), st.sampled_from([0.0, 0.5]))
def test_screen_scores(case, threads, sparse_fill):
    """One pair per lane (and, with ``sparse_fill``, uneven batches pair by pair)."""
    params, qs, ts = case
    got, _ = screen_scores_simd(qs, ts, *params, threads=threads, sparse_fill=sparse_fill)
    np.testing.assert_array_equal(got, gotoh_scores(qs, ts, params))


def test_protein_rare_letters_score_as_the_matrix_says():
    """B, Z, X, *, U, O: swgpu's matrix (U and O as X), not the named matrix of a peer."""
    scoring = Scoring.default("protein")
    q = PROTEIN.encode("MKVUOXBZ*W")
    t = PROTEIN.encode("MKVXXXBZ*W")
    want = reference.sw_end(q.tolist(), t.tolist(), scoring)
    assert striped.sw_end_striped(q, t, scoring.matrix.values, 11, 1) == want
    engine = CpuSearchEngine(scoring.matrix.values, 11, 1)
    engine.load_database(t, np.array([0, t.size]))
    assert engine.scores(q).tolist() == [want[0]]


def _global_last_row(a, b, scoring, lead):
    """Full-matrix Gotoh, global: (H, F) of the last row, F the scores ending in a vertical gap."""
    o, e = scoring.gap_open, scoring.gap_extend
    S = scoring.matrix.values
    neg = -(1 << 40)
    m, n = len(a), len(b)
    H = [0] + [-(o + (j - 1) * e) for j in range(1, n + 1)]
    F = [neg] * (n + 1)
    for i in range(1, m + 1):
        c0 = -(lead + (i - 1) * e)
        row, Fi, E = [c0], [c0], neg
        for j in range(1, n + 1):
            f = max(F[j] - e, H[j] - o)
            E = max(E - e, row[j - 1] - o)
            row.append(max(H[j - 1] + int(S[a[i - 1], b[j - 1]]), E, f))
            Fi.append(f)
        H, F = row, Fi
    return H, F


@settings(max_examples=1500, **SETTINGS)
@given(scored_pair(max_len=50), st.sampled_from([128, 256, 4096]), st.sampled_from([1, 4, 256]), st.booleans(),
       st.booleans())
def test_global_last_row(case, tile_bytes, block, lead_extends, wide):
    """The striped global pass (16- and 32-bit lanes, tiles of 2 to 64 steps) against full-matrix Gotoh."""
    from swgpu.engines.cpu import global_kernel

    scoring, a, b = case
    if a.size == 0 or b.size == 0:
        return
    lead = scoring.gap_extend if lead_extends else scoring.gap_open
    old = global_kernel.TILE_BYTES, global_kernel.BLOCK_ROWS, global_kernel.lane_type
    global_kernel.TILE_BYTES, global_kernel.BLOCK_ROWS = tile_bytes, block
    if wide:
        global_kernel.lane_type = lambda *args: (np.int32, global_kernel.NEG32)
    try:
        cc, dd = global_kernel.nw_last_row(a, b, scoring.matrix.values, scoring.gap_open, scoring.gap_extend, lead)
    finally:
        global_kernel.TILE_BYTES, global_kernel.BLOCK_ROWS, global_kernel.lane_type = old
    want_h, want_f = _global_last_row(a.tolist(), b.tolist(), scoring, lead)
    assert cc.tolist() == want_h and dd.tolist() == want_f
