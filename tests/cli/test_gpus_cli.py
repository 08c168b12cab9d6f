"""``scan``, ``screen`` and genome-scale ``align`` on several GPUs of one process
(``--gpus``): the same output as on GPU 0 alone and as on the CPU (``pytest -m
gpu``; skipped without two GPUs)."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu.engines import cuda_available, gpu_count

pytestmark = [pytest.mark.gpu,
              pytest.mark.skipif(not cuda_available() or gpu_count() < 2, reason="needs CuPy and two CUDA GPUs")]

COMP = str.maketrans("ACGT", "TGCA")


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(8)
    q = "".join(rng.choice(list("ACGT"), 400))
    rest = [_random_text(rng, n) for n in (60_000, 25_000)]
    g1 = rest[0][:9_000] + q + rest[0][9_400:40_000] + q.translate(COMP)[::-1] + rest[0][40_400:]
    g2 = rest[1][:20_000] + q[:250] + rest[1][20_250:]
    (tmp_path / "g.fa").write_text(f">chr1\n{g1}\n>chr2\n{g2}\n")
    probes = [q] + ["".join(rng.choice(list("ACGT"), 120)) for _ in range(30)]
    (tmp_path / "q.fa").write_text("".join(f">p{k}\n{p}\n" for k, p in enumerate(probes)))
    (tmp_path / "one.fa").write_text(f">long\n{q}\n")
    return tmp_path


def _random_text(rng, n: int) -> str:
    return "".join(rng.choice(list("ACGT"), n))


def _out(run_cli, files, args, name):
    code, _, err = run_cli(args + ["-o", name, "--quiet"], files)
    assert code == 0, err
    # all but SAM's @PG line, which holds the command line
    return [line for line in (files / name).read_bytes().splitlines() if not line.startswith(b"@PG")]


@pytest.mark.parametrize("gpus", ["0,1", "1", "all"])
def test_scan_on_gpus_equals_one_gpu_and_cpu(run_cli, files, gpus):
    base = ["scan", "-q", "q.fa", "-g", "g.fa", "--top", "3", "-f", "sam"]
    want = _out(run_cli, files, base + ["--device", "cuda", "--gpus", "0"], "one.sam")
    assert _out(run_cli, files, base + ["--device", "cuda", "--gpus", gpus], "many.sam") == want
    assert _out(run_cli, files, base + ["--device", "cpu"], "cpu.sam") == want


@pytest.mark.parametrize("gpus", ["0,1", "all"])
def test_long_align_on_gpus_equals_one_gpu_and_cpu(run_cli, files, gpus):
    base = ["align", "one.fa", "g.fa", "--ends", "5", "--alignments", "3"]
    want = _out(run_cli, files, base + ["--device", "cuda", "--gpus", "0"], "one.tsv")
    assert _out(run_cli, files, base + ["--device", "cuda", "--gpus", gpus], "many.tsv") == want
    assert _out(run_cli, files, base + ["--device", "cpu"], "cpu.tsv") == want


@pytest.mark.parametrize("lanes", ["processes", "threads"])
@pytest.mark.parametrize("gpus", ["0,1", "all"])
def test_screen_on_gpus_equals_one_gpu_and_cpu(run_cli, files, gpus, lanes, monkeypatch):
    from swgpu.cli import screen, screen_lanes

    monkeypatch.setattr(screen, "PART", 70)  # parts on every GPU
    monkeypatch.setattr(screen_lanes, "PART", 70)
    lanes = ["--processes", "4" if lanes == "processes" else "1"]  # (whatever the size)
    rng = np.random.default_rng(3)
    qs = ["".join(rng.choice(list("ACGTN"), int(rng.integers(1, 150)))) for _ in range(500)]
    ts = [q[5:] + q[::-1] if k % 4 else _random_text(rng, int(rng.integers(1, 300))) for k, q in enumerate(qs)]
    (files / "sq.fa").write_text("".join(f">q{k}\n{q}\n" for k, q in enumerate(qs)))
    (files / "st.fa").write_text("".join(f">t{k}\n{t}\n" for k, t in enumerate(ts)))
    for extra in (["--threshold", "10", "-f", "sam", "--strand", "both"], ["--threshold", "0", "-f", "blast6"], []):
        base = ["screen", "-q", "sq.fa", "-t", "st.fa"] + extra
        want = _out(run_cli, files, base + ["--device", "cuda", "--gpus", "0"], "one.out")
        assert _out(run_cli, files, base + ["--device", "cuda", "--gpus", gpus, *lanes], "many.out") == want
        assert _out(run_cli, files, base + ["--device", "cpu"], "cpu.out") == want
