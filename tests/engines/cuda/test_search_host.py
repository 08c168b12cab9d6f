"""Host side of the CUDA search engine (numpy only, no GPU): query schedule,
profile layout, database layout, batch size and the tile cost model."""

from __future__ import annotations

import numpy as np

def test_query_schedule_balances_the_halves():
    from swgpu.engines.cuda.search_layout import query_schedule

    lengths = [144, 189, 222, 375, 464, 567, 657, 729, 850, 1000, 1500, 2005, 2504, 3005, 3564, 4061, 4548,
               4743, 5147, 5478]
    for G, R in ((16, 32), (32, 32), (8, 16)):
        P, halves = query_schedule(lengths, G, R)
        seen = sorted(i for h in halves for i, _, _ in h)
        assert seen == list(range(len(lengths)))
        for h in halves:
            pos = 0
            for i, s0, n in h:  # consecutive segments, each query whole
                assert s0 == pos and n * R >= lengths[i] > (n - 1) * R
                pos += n
            assert pos <= P * G
        used = [sum(n for _, _, n in h) for h in halves]
        assert abs(used[0] - used[1]) <= max(n for h in halves for _, _, n in h)
        # padding: whole segments per query and at most one partial pass
        assert P * G * R * 2 - sum(lengths) <= len(lengths) * R + 2 * G * R
    assert query_schedule([5], 16, 32) == (1, [[(0, 0, 1)], []])


def test_query_pair_profile_layout():
    # letters x rows, C order, query a in the low and query b in the high 16 bits
    import types

    from swgpu.engines.cuda.search import CudaSearchEngine

    rng = np.random.default_rng(3)
    K = 6
    mx = np.full((K + 1, K + 1), -16384, np.int32)
    mx[:K, :K] = rng.integers(-5, 6, size=(K, K))
    stub = types.SimpleNamespace(K=K, _mx=mx)
    qs = [rng.integers(0, K, size=L).astype(np.uint8) for L in (40, 9, 17)]
    P, prof, info, sq = CudaSearchEngine._query_pair_profile(stub, qs, 8, 16)
    assert prof.flags["C_CONTIGUOUS"] and prof.dtype == np.uint32 and prof.shape == (K + 3, P * 128)
    lo = (prof & 0xFFFF).astype(np.uint16).view(np.int16)
    hi = (prof >> 16).astype(np.uint16).view(np.int16)
    # longest (40) first on half a from row 0; 17 on half b from row 0, then 9 after it (segment 2)
    np.testing.assert_array_equal(lo[:K, :40], mx[qs[0], :K].T)
    np.testing.assert_array_equal(hi[:K, :17], mx[qs[2], :K].T)
    np.testing.assert_array_equal(hi[:K, 32:41], mx[qs[1], :K].T)
    assert (lo[K] == -16384).all() and (lo[:, 40:] == -16384).all() and (hi[:, 17:32] == -16384).all()
    np.testing.assert_array_equal(prof[K + 1], prof[K])  # the closing letters score as the pad
    np.testing.assert_array_equal(prof[K + 2], prof[K])
    assert info[0] & 3 == 3 and info[2] & 2 and sq[2 * 2 + 1] == 1 and sq[0] == 0


def test_host_unit_codes_match_the_layout():
    # the host builder of streamed database parts writes what the GPU builder writes
    from swgpu.engines.cuda.search_layout import host_unit_codes, unit_layout

    rng = np.random.default_rng(0)
    lengths = np.concatenate([rng.integers(0, 300, size=300), [5000, 0, 1, 2, 3, 4096, 4095]])
    off = np.concatenate([[0], np.cumsum(lengths)])
    res = rng.integers(0, 20, int(off[-1])).astype(np.uint8)
    units = unit_layout(off)
    out = host_unit_codes(res, units, 20, np.empty(units.total_cols, np.uint8))
    ref = np.empty_like(out)
    for k in range(units.n):
        a, UL, L, s = units.uoff[k], units.ulen[k], units.length[k], units.src[k]
        assert UL == (0 if L == 0 else (L + 5) // 4 * 4)
        for j in range(UL):
            c = int(res[s + j]) if j < L else 20
            c = 21 if j >= UL - 2 else c
            c = 22 if j == UL - 1 else c
            ref[a + j] = c
    np.testing.assert_array_equal(out, ref)
    # large parts are gathered in compiled code: the same codes, from a read-only (mapped) file too
    from swgpu.engines.cuda import search_stream

    res.flags.writeable = False
    for part in (units, units.part(3, 250)):
        want = host_unit_codes(res, part, 20, np.full(part.total_cols, 7, np.uint8))
        got = np.full(part.total_cols, 9, np.uint8)
        search_stream.COMPILED_COLUMNS, before = 0, search_stream.COMPILED_COLUMNS
        try:
            search_stream.unit_codes(res, part, 20, got)
        finally:
            search_stream.COMPILED_COLUMNS = before
        np.testing.assert_array_equal(got, want)


def test_streamed_parts_keep_their_codes_only_where_the_host_has_room():
    from swgpu.engines.cuda.search_stream import host_cache_fits

    assert host_cache_fits(1 << 20) and not host_cache_fits(1 << 60)


def test_gpu_batch_size_bounded_by_memory():
    from swgpu.engines.cuda.search import CudaSearchEngine

    eng = object.__new__(CudaSearchEngine)  # the host-side rule only, no GPU
    eng.memory_limit, eng._limit_at_load = None, 40 << 30
    eng.n = 1_000_000
    assert eng._batch_size() == 64
    eng.n = 200_000_000  # 64 score arrays would take 51 GB: 13 of 0.8 GB fit in 10 GiB
    assert eng._batch_size() == 13
    eng.memory_limit = 1 << 20
    assert eng._batch_size() == 1


def test_batch_tile_charges_chunks_run_in_lockstep():
    # chunks of unequal columns cost more on tiles whose warps hold several
    # groups (G < 32) or share one profile per block (barrier every pass)
    from swgpu.engines.cuda.search_tiling import choose_batch_tile, lockstep_columns

    assert lockstep_columns([5, 1, 1, 1, 2], 2) == (5 + 1 + 2) * 2
    assert lockstep_columns([3, 3, 3], 1) == 9
    assert lockstep_columns([], 4) == 0
    lengths = [2000] * 20
    even = np.full(4096, 1000)
    cost_even, tile_even = choose_batch_tile(lengths, int(even.sum()), 10**5, even)
    assert (cost_even, tile_even) == choose_batch_tile(lengths, int(even.sum()), 10**5)
    assert tile_even == (16, 32)
    # 16 long chunks, then 16 short: the 16 warps of a block (G = 32) see equal
    # chunks, but 32 groups in lockstep (G = 16) always include a long one
    uneven = np.tile([1900] * 16 + [100] * 16, 128)
    cost, tile = choose_batch_tile(lengths, int(uneven.sum()), 10**5, uneven)
    assert tile == (32, 32) and cost > cost_even


def test_pair_layout_covers_every_sequence():
    off = np.array([0, 3, 3, 10, 11, 11], np.int64)
    from swgpu.engines.cuda.search_layout import pair_layout

    lay = pair_layout(off)
    ids = sorted(int(x) for x in lay.porig.ravel() if x >= 0)
    assert ids == [0, 1, 2, 3, 4]
    assert np.all(lay.plen % 4 == 0) and np.all(lay.la >= lay.lb)
