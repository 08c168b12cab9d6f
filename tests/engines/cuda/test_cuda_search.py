"""CUDA database search engine: exact scores against a plain Gotoh reference.

Every test needs an NVIDIA GPU and CuPy (``pytest -m gpu``); without them the
module is skipped.
"""

from __future__ import annotations

import numpy as np
import pytest

cp = pytest.importorskip("cupy")

from swgpu.engines.cuda import runtime  # noqa: E402

if not runtime.available():
    pytest.skip(f"no CUDA device: {runtime.why_unavailable()}", allow_module_level=True)

from swgpu.engines.cuda.search import VARIANTS, CudaSearchEngine  # noqa: E402

pytestmark = pytest.mark.gpu

numba = pytest.importorskip("numba")


@numba.njit(cache=False)
def _sw(q, t, M, go, ge):
    n = t.size
    NEG = -(1 << 40)
    H = np.zeros(n + 1, np.int64)
    F = np.full(n + 1, NEG, np.int64)
    best = 0
    for i in range(q.size):
        diag = 0
        e = NEG
        hleft = 0
        for j in range(1, n + 1):
            up = H[j]
            e = max(e - ge, hleft - go)
            f = max(F[j] - ge, up - go)
            F[j] = f
            h = max(0, diag + M[q[i], t[j - 1]], e, f)
            diag = up
            H[j] = h
            hleft = h
            best = max(best, h)
    return best


def reference(q, seqs, M, go, ge):
    M64 = np.asarray(M, np.int64)
    q64 = np.asarray(q, np.int64)
    return np.array([_sw(q64, np.asarray(s, np.int64), M64, go, ge) for s in seqs], dtype=np.int64)


def concat(seqs):
    off = np.zeros(len(seqs) + 1, np.int64)
    off[1:] = np.cumsum([len(s) for s in seqs])
    res = np.concatenate([np.asarray(s, np.uint8) for s in seqs]) if seqs else np.zeros(0, np.uint8)
    return res.astype(np.uint8), off


def random_matrix(rng, K, lo=-4, hi=6):
    M = rng.integers(lo, hi, size=(K, K)).astype(np.int32)
    M[0, 0] = max(M[0, 0], 1)
    return M


@pytest.fixture(scope="module")
def rng():
    return np.random.default_rng(20240611)


def check(eng, queries, seqs, M, go, ge):
    for q in queries:
        got = eng.scores(q)
        assert got.dtype == np.int32 and got.shape == (len(seqs),)
        np.testing.assert_array_equal(got.astype(np.int64), reference(q, seqs, M, go, ge))


def test_edge_lengths(rng):
    M = random_matrix(rng, 26)
    seqs = [rng.integers(0, 26, size=L).astype(np.uint8)
            for L in [0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 33, 64, 65, 129, 300, 1000, 2500]]
    eng = CudaSearchEngine(M, 11, 1)
    eng.load_database(*concat(seqs))
    queries = [rng.integers(0, 26, size=L).astype(np.uint8) for L in (1, 2, 3, 47, 48, 49, 200, 777)]
    check(eng, queries, seqs, M, 11, 1)
    assert np.array_equal(eng.scores(np.zeros(0, np.uint8)), np.zeros(len(seqs), np.int32))
    assert set(eng.last_timing) >= {"kernel", "overflow_rerun", "d2h", "total"}


@pytest.mark.parametrize("tile", VARIANTS)
def test_every_tile_shape(rng, tile):
    M = random_matrix(rng, 20)
    seqs = [rng.integers(0, 20, size=int(L)).astype(np.uint8) for L in rng.integers(0, 700, size=60)]
    eng = CudaSearchEngine(M, 6, 2)
    eng.config_override = tile
    eng.load_database(*concat(seqs))
    check(eng, [rng.integers(0, 20, size=L).astype(np.uint8) for L in (1, 130, 400)], seqs, M, 6, 2)


def overflow_case(rng):
    """900 per match: a 40-letter identity already exceeds 16 bits. The query,
    a database holding it, two of its pieces and random sequences."""
    M = np.full((4, 4), -200, np.int32)
    np.fill_diagonal(M, 900)
    q = rng.integers(0, 4, size=120).astype(np.uint8)
    seqs = [q.copy(), q[10:90].copy(), q[:20].copy()]
    seqs += [rng.integers(0, 4, size=int(L)).astype(np.uint8) for L in rng.integers(0, 150, size=30)]
    return M, q, seqs


def test_overflow_rerun(rng):
    M, q, seqs = overflow_case(rng)
    eng = CudaSearchEngine(M, 300, 40)
    eng.load_database(*concat(seqs))
    check(eng, [q, q[:50], q[:5]], seqs, M, 300, 40)
    eng.scores(q)
    assert eng.last_config["rerun_pairs"] >= 1


@pytest.mark.parametrize("mode", ["pairs", "queries"])
def test_scores_at_the_top_of_16_bits(rng, mode):
    """Scores just under the 16-bit limit are exact in 16 bits; those past it,
    up to 32767 and beyond, are re-run in 32 bits."""
    M = np.full((4, 4), -100, np.int32)
    np.fill_diagonal(M, 100)
    go, ge = 50, 5
    eng = CudaSearchEngine(M, go, ge)
    eng.batch_mode = mode
    limit = eng.threshold
    assert limit == 32767 - 100 - (go + 1)
    q = rng.integers(0, 4, size=340).astype(np.uint8)
    n = limit // 100
    seqs = [q[:k].copy() for k in (n - 8, n - 1, n, n + 1, n + 2, 328, 340)]
    seqs.append(np.concatenate([q[:150], q[156:n + 1]]))  # a gap of 6 near the limit
    seqs += [rng.integers(0, 4, size=int(L)).astype(np.uint8) for L in rng.integers(0, 400, size=20)]
    eng.load_database(*concat(seqs))
    queries = [q, q[:n + 1].copy(), q[::-1].copy(), q[5:].copy()]
    check_many(eng, queries, seqs, M, go, ge)
    check(eng, queries[:2], seqs, M, go, ge)
    assert eng.last_config["rerun_pairs"] >= 1


def test_gaps_without_cost(rng):
    # open 0: every value is stored a little above 0
    M = random_matrix(rng, 6, -3, 3)
    seqs = [rng.integers(0, 6, size=int(L)).astype(np.uint8) for L in rng.integers(0, 200, size=30)]
    for go, ge in ((0, 0), (1, 0), (1, 1)):
        for mode in ("pairs", "queries"):
            eng = CudaSearchEngine(M, go, ge)
            eng.batch_mode = mode
            eng.load_database(*concat(seqs))
            check_many(eng, [rng.integers(0, 6, size=L).astype(np.uint8) for L in (1, 40, 150)], seqs, M, go, ge)


def test_long_sequences(rng):
    M = random_matrix(rng, 5, -3, 3)
    seqs = [rng.integers(0, 5, size=L).astype(np.uint8) for L in (10_500, 3, 0, 1)]
    eng = CudaSearchEngine(M, 5, 2)
    eng.load_database(*concat(seqs))
    check(eng, [rng.integers(0, 5, size=L).astype(np.uint8) for L in (1, 11_000)], seqs, M, 5, 2)


def test_scores_many_matches_scores(rng):
    M = random_matrix(rng, 26)
    seqs = [rng.integers(0, 26, size=int(L)).astype(np.uint8) for L in rng.integers(1, 400, size=41)]
    eng = CudaSearchEngine(M, 10, 1)
    eng.load_database(*concat(seqs))
    qs = [rng.integers(0, 26, size=L).astype(np.uint8) for L in (5, 150, 0, 333)]
    many = eng.scores_many(qs)
    for q, got in zip(qs, many):
        np.testing.assert_array_equal(got, eng.scores(q))


def test_asymmetric_matrix_and_linear_gaps(rng):
    M = rng.integers(-8, 9, size=(32, 32)).astype(np.int32)
    seqs = [rng.integers(0, 32, size=int(L)).astype(np.uint8) for L in rng.integers(0, 300, size=25)]
    for go, ge in ((9, 2), (4, 4), (6, 0)):
        eng = CudaSearchEngine(M, go, ge)
        eng.load_database(*concat(seqs))
        check(eng, [rng.integers(0, 32, size=L).astype(np.uint8) for L in (9, 210)], seqs, M, go, ge)


def check_many(eng, queries, seqs, M, go, ge):
    got = eng.scores_many(queries)
    for q, g in zip(queries, got):
        assert g.dtype == np.int32 and g.shape == (len(seqs),)
        np.testing.assert_array_equal(g.astype(np.int64), reference(q, seqs, M, go, ge))


@pytest.mark.parametrize("chunk", [None, 1, 1500, 10**9], ids=["chunks-auto", "chunk-1", "chunk-1500", "one-chunk"])
@pytest.mark.parametrize("tile", VARIANTS)
def test_query_pairs_every_tile_shape(rng, tile, chunk):
    # queries of many lengths share the two halves: starts and ends inside
    # tiles, queries shorter than a segment, a half with idle passes
    M = random_matrix(rng, 21)
    seqs = [rng.integers(0, 21, size=int(L)).astype(np.uint8) for L in rng.integers(0, 600, size=50)]
    seqs += [np.zeros(0, np.uint8), rng.integers(0, 21, size=1).astype(np.uint8)]
    eng = CudaSearchEngine(M, 7, 2)
    eng.config_override = tile
    eng.batch_mode = "queries"
    eng.chunk_columns = chunk
    eng.load_database(*concat(seqs))
    qs = [rng.integers(0, 21, size=L).astype(np.uint8) for L in (1, 700, 2, 17, 33, 0, 130, 400, 513, 64, 1025)]
    check_many(eng, qs, seqs, M, 7, 2)
    assert eng.last_config["tiles"] == [("queries", tile)]
    check_many(eng, qs[:2], seqs, M, 7, 2)  # one query per half


def test_query_pairs_overflow_rerun(rng):
    M, q, seqs = overflow_case(rng)
    for chunk in (None, 10**9):
        eng = CudaSearchEngine(M, 300, 40)
        eng.batch_mode = "queries"
        eng.chunk_columns = chunk
        eng.load_database(*concat(seqs))
        check_many(eng, [q, q[:50], q[:5], q[::-1].copy()], seqs, M, 300, 40)
        assert eng.last_config["rerun_pairs"] >= 1


def test_query_pairs_long_sequences(rng):
    M = random_matrix(rng, 5, -3, 3)
    seqs = [rng.integers(0, 5, size=L).astype(np.uint8) for L in (10_500, 3, 0, 1, 700)]
    eng = CudaSearchEngine(M, 5, 2)
    eng.batch_mode = "queries"
    eng.load_database(*concat(seqs))
    check_many(eng, [rng.integers(0, 5, size=L).astype(np.uint8) for L in (1, 11_000, 300)], seqs, M, 5, 2)


def test_batch_modes_agree(rng):
    M = random_matrix(rng, 24)
    seqs = [rng.integers(0, 24, size=int(L)).astype(np.uint8) for L in rng.integers(0, 900, size=300)]
    eng = CudaSearchEngine(M, 11, 1)
    eng.load_database(*concat(seqs))
    qs = [rng.integers(0, 24, size=int(L)).astype(np.uint8) for L in rng.integers(1, 1500, size=9)]
    results = {}
    for mode in ("auto", "pairs", "queries"):
        eng.batch_mode = mode
        results[mode] = eng.scores_many(qs)
    for a, b, c in zip(results["auto"], results["pairs"], results["queries"]):
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)
    np.testing.assert_array_equal(results["pairs"][3].astype(np.int64), reference(qs[3], seqs, M, 11, 1))


@pytest.mark.parametrize("mode", ["queries", "pairs"])
def test_streamed_database_parts(rng, mode):
    # a memory limit far below the database: parts streamed through two buffers
    M = random_matrix(rng, 20)
    M[np.arange(20), np.arange(20)] = 40
    seqs = [rng.integers(0, 20, size=int(L)).astype(np.uint8) for L in rng.integers(0, 400, size=300)]
    seqs += [np.zeros(0, np.uint8), rng.integers(0, 20, size=1).astype(np.uint8),
             rng.integers(0, 20, size=3000).astype(np.uint8)]
    seqs.append(seqs[-1][:1200].copy())  # 1200 x 40 = 48,000: overflows 16 bits
    res, off = concat(seqs)
    qs = [rng.integers(0, 20, size=L).astype(np.uint8) for L in (1, 90, 700, 5)] + [seqs[-1].copy()]
    eng = CudaSearchEngine(M, 8, 2)
    eng.memory_limit = 48 * len(seqs) + 24 * 20_000
    eng.batch_mode = mode
    eng.load_database(res, off)
    assert eng.parts >= 4
    check_many(eng, qs, seqs, M, 8, 2)
    assert eng.last_config["parts"] == eng.parts and eng.last_config["rerun_pairs"] >= 1
    check(eng, qs[1:3], seqs, M, 8, 2)  # single queries
    check_many(eng, qs, seqs, M, 8, 2)  # again: buffers reused
    eng.memory_limit = 1000
    with pytest.raises(ValueError, match="too small"):
        eng.load_database(res, off)


def test_resident_database_through_the_pinned_ring(rng, monkeypatch):
    # a resident database past STAGED_UPLOAD (here 64 KiB) goes through the stager's ring of 8 MiB chunks
    from swgpu.engines.cuda import search_stream, staging

    monkeypatch.setattr(search_stream, "STAGED_UPLOAD", 1 << 16)
    monkeypatch.setattr(staging.Stager, "CHUNK", 1 << 14)
    M = random_matrix(rng, 20)
    seqs = [rng.integers(0, 20, size=int(L)).astype(np.uint8) for L in rng.integers(0, 600, size=400)]
    res, off = concat(seqs)
    assert res.size > 1 << 16
    eng = CudaSearchEngine(M, 11, 1)
    eng.load_database(res, off)
    assert eng.parts == 1
    check(eng, [rng.integers(0, 20, size=L).astype(np.uint8) for L in (1, 57, 300)], seqs, M, 11, 1)


def test_bad_codes_rejected():
    eng = CudaSearchEngine(np.eye(4, dtype=np.int32), 2, 1)
    with pytest.raises(ValueError):
        eng.load_database(np.array([0, 4], np.uint8), np.array([0, 2]))
    eng.load_database(np.array([0, 3], np.uint8), np.array([0, 2]))
    with pytest.raises(ValueError):
        eng.scores(np.array([5], np.uint8))
