"""Codes packed two per byte for uploads (engines.nibbles)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from swgpu.engines.nibbles import pack_nibbles


def reference(src: np.ndarray) -> np.ndarray:
    p = np.zeros(src.size + (src.size & 1), dtype=np.uint8)
    p[: src.size] = src
    return p[0::2] | (p[1::2] << 4)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 4), max_size=70), st.integers(0, 7))
def test_pack_equals_reference(codes, offset):
    buf = np.zeros(len(codes) + offset, dtype=np.uint8)
    buf[offset:] = codes
    src = buf[offset:]  # unaligned starts too
    dst = np.full((src.size + 1) // 2, 0xEE, dtype=np.uint8)
    assert not pack_nibbles(src, dst, 4)
    np.testing.assert_array_equal(dst, reference(src))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=1, max_size=70), st.data())
def test_any_code_above_the_max_is_found(codes, data):
    src = np.array(codes, dtype=np.uint8)
    src[data.draw(st.integers(0, src.size - 1))] = data.draw(st.integers(5, 255))
    assert pack_nibbles(src, np.zeros((src.size + 1) // 2, dtype=np.uint8), 4)


def test_every_byte_value_against_every_max():
    for max_code in (0, 4, 15, 20, 127):
        for v in range(256):
            src = np.full(16, min(v, max_code), dtype=np.uint8)
            src[9] = v
            assert pack_nibbles(src, np.zeros(8, dtype=np.uint8), max_code) == (v > max_code)
