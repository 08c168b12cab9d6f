"""The striped target profiles (:func:`swgpu.engines.cpu.striped.striped_profile`,
and :func:`swgpu.engines.cpu.global_kernel.nw_profile` in another type)
against the column-by-column definition they state: every entry, every tile,
the pads past the end, each table type and lane count."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu.engines.cpu.global_kernel import nw_profile
from swgpu.engines.cpu.striped import striped_profile


def _by_columns(t, tables, lanes, seg):
    n, k, width = t.shape[0], tables.shape[0], seg * lanes
    tiles = max(1, -(-n // width))
    prof = np.zeros(tiles * k * width, dtype=tables.dtype)  # (0: the pad score, -bias, past the end)
    for c in range(tiles):
        for a in range(k):
            for lane in range(lanes):
                for p in range(seg):
                    j = c * width + lane * seg + p
                    if j < n:
                        prof[(c * k + a) * width + p * lanes + lane] = tables[a][t[j]]
    return prof, tiles


@pytest.mark.parametrize("seed", range(12))
def test_the_profile_is_its_definition(seed):
    rng = np.random.default_rng(seed)
    for trial in range(25):
        k = int(rng.integers(1, 33))
        letters = int(rng.integers(k, 40))
        tables = rng.integers(0, 250, (k, letters)).astype([np.uint8, np.uint16, np.int32][trial % 3])
        lanes, seg = int(rng.choice([8, 16, 32, 64])), int(rng.integers(1, 20))
        n = int(rng.integers(0, 3 * seg * lanes + 5)) if trial else 0
        t = rng.integers(0, letters, n).astype(np.uint8)
        got, tiles = striped_profile(t, tables, lanes, seg)
        want, want_tiles = _by_columns(t, tables, lanes, seg)
        assert tiles == want_tiles and got.dtype == want.dtype
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("seed", range(4))
def test_the_global_passes_profile_in_its_own_type(seed):
    rng = np.random.default_rng(100 + seed)
    for trial in range(25):
        k = int(rng.integers(1, 33))
        matrix = rng.integers(-20, 20, (k, k)).astype(np.int32)
        lanes, seg = int(rng.choice([8, 16, 32])), int(rng.integers(1, 20))
        n = int(rng.integers(0, 3 * seg * lanes + 5)) if trial else 0
        b = rng.integers(0, k, n).astype(np.uint8)
        for like in (np.zeros(1, np.int16), np.zeros(1, np.int32)):
            got, tiles = nw_profile(b, matrix, like, lanes, seg)
            want, want_tiles = _by_columns(b, matrix.astype(like.dtype), lanes, seg)
            assert tiles == want_tiles and got.dtype == like.dtype
            np.testing.assert_array_equal(got, want)
