"""When a screen scans its files on the GPU (a score table of large files on one GPU, Numba not loaded), and
that the compiled host paths are avoided then."""

from __future__ import annotations

import argparse
import sys

import pytest

from swgpu.cli import screen_scan
from swgpu.io import compiled


def _args(tmp_path, **kw):
    q, t = tmp_path / "q.fa", tmp_path / "t.fa"
    for path in (q, t):
        path.write_text(">r\nACGT\n" * 10)
    base = dict(query=str(q), target=str(t), pairs=None, threshold=None, device="cuda", gpus="0", processes=None,
                input_paths=("query", "target", "pairs"))
    base.update(kw)
    return argparse.Namespace(**base)


def test_which_screens_scan_on_the_gpu(tmp_path, monkeypatch):
    monkeypatch.setattr(compiled, "COMPILED_BYTES", 16)  # (the files count as large)
    monkeypatch.delitem(sys.modules, "numba", raising=False)  # (as in a command's process until it loads it)
    assert screen_scan.scans_on_gpu(_args(tmp_path))
    assert screen_scan.scans_on_gpu(_args(tmp_path, gpus="1"))
    for kw in (dict(threshold=0), dict(device="cpu"), dict(gpus="0,1"), dict(gpus="all"), dict(processes=2),
               dict(pairs="p.tsv", query=None, target=None), dict(gpus="x")):
        assert not screen_scan.scans_on_gpu(_args(tmp_path, **kw)), kw
    monkeypatch.setattr(screen_scan, "MOST_BYTES", 100)
    assert not screen_scan.scans_on_gpu(_args(tmp_path))  # (files this large: the host scans them)
    monkeypatch.setattr(screen_scan, "MOST_BYTES", 1 << 30)
    monkeypatch.setattr(compiled, "COMPILED_BYTES", 1 << 30)
    assert not screen_scan.scans_on_gpu(_args(tmp_path))  # (small files: the array scan, no Numba either)


def test_numba_loaded_means_the_host_scans(tmp_path, monkeypatch):
    pytest.importorskip("numba")
    monkeypatch.setattr(compiled, "COMPILED_BYTES", 16)
    assert "numba" in sys.modules or __import__("numba")
    assert not screen_scan.scans_on_gpu(_args(tmp_path))


def test_avoid_keeps_large_batches_off_the_compiled_paths(monkeypatch):
    monkeypatch.delitem(sys.modules, "numba", raising=False)
    assert compiled.worth(compiled.COMPILED_RECORDS)
    monkeypatch.setattr(compiled, "AVOID", True)
    assert not compiled.worth(compiled.COMPILED_RECORDS) and not compiled.worth(10)


def test_the_engines_fasta_scanners():
    from swgpu.engines import fasta_scanner

    assert fasta_scanner("cpu") is None and fasta_scanner("no-such-engine") is None
    for name in ("cuda", "gpu", "auto"):
        scan = fasta_scanner(name, 1)
        assert type(scan).__name__ == "DeviceScan" and scan.device_id == 1  # (made without loading CuPy)


def test_a_score_table_the_gpu_scans_reads_smaller_parts_joined_as_read(tmp_path, monkeypatch):
    from swgpu.cli import screen_parts

    monkeypatch.setattr(compiled, "COMPILED_BYTES", 16)
    monkeypatch.delitem(sys.modules, "numba", raising=False)
    assert screen_parts.part_size(_args(tmp_path)) == screen_parts.TABLE_PART
    assert screen_parts.part_size(_args(tmp_path, threshold=0)) == screen_parts.PART
    assert screen_parts.part_size(_args(tmp_path, device="cpu")) == screen_parts.CPU_PART
    seen = {}

    def parts(*a, **kw):
        seen.update(kw)
        yield from ()

    monkeypatch.setattr("swgpu.io.chunks.paired_batches", parts)
    monkeypatch.setattr(screen_parts.os, "cpu_count", lambda: 16)
    list(screen_parts.read_parts(_args(tmp_path)))
    assert seen["ahead"] == 2 and seen["later"] is False
    list(screen_parts.read_parts(_args(tmp_path, threshold=0)))
    assert seen["ahead"] == 0 and seen["later"] is False


def test_parts_joined_now_or_later_hold_the_same_records(tmp_path):
    from swgpu.io.chunks import paired_batches

    q, t = tmp_path / "q.fa", tmp_path / "t.fa"
    q.write_text("".join(f">q{k}\n{'ACGT' * (k % 9 + 1)}\n" for k in range(500)))
    t.write_text("".join(f">t{k}\n{'GGCA' * (k % 7 + 1)}\n" for k in range(500)))
    got = {}
    for later in (True, False):
        parts = list(paired_batches(q, t, 37, alphabet="dna", block=512, ahead=2, later=later))
        got[later] = [(a.names, a.codes.tolist(), b.names, b.codes.tolist()) for a, b in parts]
    assert got[True] == got[False] and len(got[True]) == -(-500 // 37)


def test_gpu_scan_gives_the_reader_and_the_writers_the_engines_scan_then_takes_them_back(tmp_path, monkeypatch):
    """The glue of :func:`screen_scan.gpu_scan`, with a stand-in for the GPU's scan (CPU only): the reader asks it
    first, the lines are its renderer's, the compiled host paths are avoided; all as before after the block."""
    import numpy as np

    import swgpu.engines
    from swgpu.io import scanner
    from swgpu.io.alphabet import DNA
    from swgpu.io.writers import arrays, rows

    class Scan:
        asked = 0

        def __call__(self, data, check, cls):
            Scan.asked += 1
            return None  # (the host scans it)

        def text(self):
            return arrays

    monkeypatch.setattr(compiled, "COMPILED_BYTES", 16)
    monkeypatch.delitem(sys.modules, "numba", raising=False)
    monkeypatch.setattr(swgpu.engines, "fasta_scanner", lambda device, device_id: Scan())
    before = rows.use_device(None)
    rows.use_device(before)
    data = np.frombuffer(b">r1\nACGT\n", dtype=np.uint8)
    table = rows.Rows(3)
    table.int(np.array([1, -2, 30]))
    table.const("\n")
    with screen_scan.gpu_scan(_args(tmp_path)):
        assert compiled.AVOID and not compiled.worth(compiled.COMPILED_RECORDS)
        assert scanner.scan_fasta(data, DNA.table, compiled=True) is not None and Scan.asked == 1
        assert bytes(table.render_array()) == b"1\n-2\n30\n"  # (the stand-in's renderer: the array passes)
        assert rows.small_lines().render_rows is arrays.render_rows
    assert not compiled.AVOID and rows.use_device(before) is before and scanner._device is None


def test_the_lines_fall_back_to_the_array_passes_where_the_gpu_cannot_be_used():
    from swgpu.exceptions import EngineError
    from swgpu.io.writers import arrays

    class NoGpu:
        def text(self):
            raise EngineError("CUDA engine unavailable: no device")

    assert screen_scan.Lines(NoGpu()).render_rows is arrays.render_rows
