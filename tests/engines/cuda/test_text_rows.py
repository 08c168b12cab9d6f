"""The writers' lines made on the GPU equal the array passes' and the compiled
kernels' bytes (``pytest -m gpu``; skipped without CuPy and a GPU)."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu.engines import cuda_available
from swgpu.io.writers import arrays
from swgpu.io.writers.rows import Rows, Texts

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not cuda_available(), reason="needs CuPy and a CUDA GPU")]


@pytest.fixture(scope="module")
def device():
    from swgpu.engines.cuda.text_rows import DeviceText

    return DeviceText(0)


def _rows(rng, n: int) -> Rows:
    rows = Rows(n)
    pools = [Texts.from_strings(["".join(rng.choice(list("ACGTé\t"), int(rng.integers(0, 12)))) for _ in range(7)])
             for _ in range(6)]  # (more pools than the compiled kernels take at once; empty strings; UTF-8)
    for f in range(int(rng.integers(1, 14))):
        kind = int(rng.integers(0, 3))
        if kind == 0:
            rows.int(rng.choice([0, -1, 9, 10, -10, 99, 2**62, -(2**62), int(rng.integers(-10**6, 10**6))], n))
        elif kind == 1:
            rows.text(pools[int(rng.integers(0, len(pools)))], rng.integers(0, 7, n))
        else:
            rows.const(["\t", "", "AS:i:", "\n", "é"][int(rng.integers(0, 5))])
    return rows


@pytest.mark.parametrize("seed", range(12))
def test_rows_equal_the_array_passes_and_the_compiled_kernels(device, seed):
    rng = np.random.default_rng(seed)
    rows = _rows(rng, int(rng.integers(1, 3000)))
    spec = (rows.n, rows._kinds, rows._args, rows._ints, rows._starts, rows._ends, rows._pool_of, rows._pools,
            b"".join(rows._consts), np.cumsum([0] + [len(c) for c in rows._consts]))
    want = arrays.render_rows(*spec)
    assert bytes(device.render_rows(*spec)) == bytes(want)
    from swgpu.io import compiled

    old = compiled.COMPILED_RECORDS
    compiled.COMPILED_RECORDS = 0  # (the compiled kernels)
    try:
        assert bytes(rows.render_array()) == bytes(want)
    finally:
        compiled.COMPILED_RECORDS = old


@pytest.mark.parametrize("seed", range(8))
def test_cigars_equal_the_array_passes(device, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 2000))
    runs = rng.integers(0, 6, n)
    first = np.concatenate([[0], np.cumsum(runs)[:-1]]).astype(np.int64)
    last = first + runs
    total = int(runs.sum())
    run_len = rng.choice([1, 9, 10, 99, 100, 12345, 10**9], total).astype(np.int64)
    run_op = rng.choice(np.frombuffer(b"=XID", np.uint8), total)
    left = rng.choice([0, 0, 1, 10, 150], n).astype(np.int64)
    right = rng.choice([0, 0, 3, 99], n).astype(np.int64)
    for clip in (ord("S"), ord("H")):
        want = arrays.cigar_column(run_len, run_op, first, last, left, right, clip)
        got = device.cigar_column(run_len, run_op, first, last, left, right, clip)
        assert bytes(got[0]) == bytes(want[0]) and got[1].tolist() == want[1].tolist()


def test_empty_batches(device):
    assert device.render_rows(0, [], [], [], [], [], [], [], b"", np.zeros(1, np.int64)).size == 0
    out, off = device.cigar_column(np.zeros(0, np.int64), np.zeros(0, np.uint8), np.zeros(3, np.int64),
                                   np.zeros(3, np.int64), np.zeros(3, np.int64), np.array([0, 5, 0]), ord("S"))
    assert bytes(out) == b"5S" and off.tolist() == [0, 0, 2, 2]
