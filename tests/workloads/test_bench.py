"""``bench screen`` sizes are checked against the memory available before
anything is made: one line and exit 2, not a process killed for memory or a
``MemoryError`` after many seconds."""

from __future__ import annotations

import builtins
import time

import pytest

from swgpu.engines import get_engine
from swgpu.exceptions import InputError
from swgpu.scoring import Scoring
from swgpu.workloads import bench, limits

GIB = 2**30


@pytest.fixture
def memory(monkeypatch):
    """The machine of the issue: 16 GiB available, whatever this one has."""
    monkeypatch.setattr(limits, "available_memory", lambda: 16 * GIB)


@pytest.mark.parametrize("argv, need", [
    (["--pairs", "16", "-n", "64", "-m", "100000000"], "16 pairs of 100,000,000 x 64 letters need at least "),
    (["--pairs", "100000000", "-n", "65536"], "100,000,000 pairs of 128 x 65,536 letters need at least "),
])
def test_sizes_beyond_memory_are_refused_first(run_cli, tmp_path, memory, argv, need):
    t0 = time.perf_counter()
    code, out, err = run_cli(["bench", "screen", "--device", "cpu", "--out", tmp_path / "out"] + argv)
    assert (code, out) == (2, "") and err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith(f"swgpu: error: {need}") and err.endswith(" of memory, and 16.00 GiB is available\n"), err
    assert time.perf_counter() - t0 < 5 and not (tmp_path / "out").exists()


def test_screen_bytes_counts_the_pairs_and_the_largest_kernel():
    scheme = Scoring.build("dna", match=2, mismatch=-1, gap_open=1, gap_extend=1)
    engine = get_engine("cpu", threads=2)
    bitwise, wordwise = (engine.pair_scorer(scheme, k) for k in ("bitwise", "wordwise"))
    pairs = 2 * bench.PAIR_BYTES + 2 * 2 * (1000 + 64)
    assert bench.screen_bytes(2, 1000, 64) == pairs
    assert bench.screen_bytes(2, 1000, 64, [wordwise]) == pairs + wordwise.working_bytes(2, 1000, 64)
    big = bench.screen_bytes(16, 100_000_000, 64, [bitwise, wordwise])
    assert big == 16 * (2 * (100_000_000 + 64) + bench.PAIR_BYTES) + bitwise.working_bytes(16, 100_000_000, 64)
    assert big > 20 * GIB  # the bit planes of 10^8 query rows


def test_a_small_run_fits(tmp_path):
    result = bench.bench_screen(64, 32, [48], device="cpu", kernels=["bitwise"], out=str(tmp_path), log=lambda _: 0)
    assert [r["n"] for r in result["rows"]] == [48]


def test_available_memory_without_psutil(monkeypatch):
    real_import = builtins.__import__

    def no_psutil(name, *args, **kwargs):
        if name == "psutil":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_psutil)
    have = limits.available_memory()  # /proc/meminfo, else os.sysconf
    if have is None:
        pytest.skip("this system says nothing of its memory")
    assert have > 0
    limits.check_memory(1, "these bytes")
    with pytest.raises(InputError, match="^these jobs need at least .* of memory, and .* is available$"):
        limits.check_memory(have + 2**40, "these jobs")
