"""Texts and the segment copies of swgpu.io.texts."""

import numpy as np
import pytest

from swgpu.io import texts
from swgpu.io.texts import Texts, gather_segments, put_segments


@pytest.mark.parametrize("block", [1, 7, 64, 1 << 22])
def test_put_segments_equals_one_copy_at_a_time(monkeypatch, block):
    monkeypatch.setattr(texts, "SEGMENT_BLOCK", block)  # rounds of every size, down to one segment a round
    rng = np.random.default_rng(block)
    pool = rng.integers(0, 256, 500).astype(np.uint8)
    lengths = rng.integers(0, 20, 60)
    lengths[::7] = 0  # empty segments too
    starts = rng.integers(0, 480, 60)
    ends = starts + lengths
    at = np.cumsum(lengths + 3) - lengths - 3
    want = np.zeros(int(at[-1] + lengths[-1] + 5), np.uint8)
    for s, e, a in zip(starts, ends, at):
        want[a:a + e - s] = pool[s:e]
    got = np.zeros_like(want)
    put_segments(pool, starts, ends, at, got)
    np.testing.assert_array_equal(got, want)
    out, offsets = gather_segments(pool, starts, ends)
    assert Texts(out, offsets).strings("latin-1") == [pool[s:e].tobytes().decode("latin-1") for s, e in zip(starts, ends)]


def test_put_segments_of_nothing():
    out = np.zeros(3, np.uint8)
    put_segments(np.zeros(0, np.uint8), np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, np.int64), out)
    assert out.tolist() == [0, 0, 0]


@pytest.mark.parametrize("compiled", [False, True])
@pytest.mark.parametrize("block", [1, 7, 1 << 22])
def test_reversed_segments_equal_one_at_a_time(monkeypatch, compiled, block):
    monkeypatch.setattr(texts, "SEGMENT_BLOCK", block)
    monkeypatch.setattr(texts, "worth", lambda n: compiled)
    rng = np.random.default_rng(block + compiled)
    pool = rng.integers(0, 256, 500).astype(np.uint8)
    table = rng.permutation(256).astype(np.uint8)
    lengths = rng.integers(0, 20, 60)
    lengths[::7] = 0
    starts = rng.integers(0, 480, 60)
    out, offsets = texts.reversed_segments(pool, starts, starts + lengths, table)
    assert Texts(out, offsets).strings("latin-1") == [
        table[pool[s:s + n][::-1]].tobytes().decode("latin-1") for s, n in zip(starts, lengths)]
    out, offsets = texts.reversed_segments(pool, starts[:0], starts[:0], table)
    assert out.size == 0 and offsets.tolist() == [0]
