"""The GPU's FASTA scan gives the array scan's names, descriptions, letters and
codes, or hands the text back to the host (``pytest -m gpu``; skipped without
CuPy and a GPU); a screen's score table scanned and written that way equals the
CPU's, with Numba never loaded."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swgpu.engines import cuda_available
from swgpu.io.alphabet import DNA, PROTEIN
from swgpu.io.scan_arrays import checked, scan_part
from swgpu.io.scanner import _CLASS
from swgpu.io.texts import gather_segments

from fasta_texts import HEADER_PARTS, LINE_PARTS, fasta_texts

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not cuda_available(), reason="needs CuPy and a CUDA GPU")]

_FASTA = fasta_texts(HEADER_PARTS + ["\x01", ">"], LINE_PARTS + ["\x7f", "é", "\xff"], latin1=True)


@pytest.fixture(scope="module")
def scan():
    from swgpu.engines.cuda.fasta_scan import DeviceScan

    return DeviceScan(0)


def _lut(table):
    return np.frombuffer(table, dtype=np.uint8) if table is not None else np.arange(256, dtype=np.uint8)


def _same(scan, data: np.ndarray, lut: np.ndarray) -> None:
    """The GPU's scan of ``data`` is the array scan's, or None where that says reject or recheck."""
    want = scan_part(data, lut, _CLASS)
    got = scan(data, checked(lut, _CLASS), _CLASS)
    if isinstance(want, str):
        assert got is None
        return
    assert got is not None
    fields, loff, letters, codes = want
    names, descriptions, got_letters, got_codes = got
    for texts, a, b in ((names, 0, 1), (descriptions, 2, 3)):
        buffer, offsets = gather_segments(data, fields[:, a], fields[:, b])
        assert bytes(texts.buffer) == bytes(buffer) and texts.offsets.tolist() == offsets.tolist()
    assert got_letters.offsets.tolist() == loff.tolist()
    assert bytes(got_letters.buffer) == bytes(letters) and bytes(got_codes) == bytes(codes)
    assert got_codes.dtype == np.uint8 and got_letters.offsets.dtype == np.int64


@settings(max_examples=300, deadline=None)
@given(text=_FASTA, table=st.sampled_from([DNA.table, PROTEIN.table, None]))
def test_gpu_scan_equals_the_array_scan(scan, text, table):
    if not text.startswith(b">"):
        return
    _same(scan, np.frombuffer(text, dtype=np.uint8), _lut(table))


@pytest.mark.parametrize("text", [
    b">r1 a b\nACGT\n>r2\nAC\r\nGT\r\n", b">r1\nACGT", b">r1\tx\r\nAC\r\n\r\n>r2 \r\nG",
    b">\nACGT\n", b"> r1\nACGT\n", b">r1\n>r2\nAC\n", b">r1\nAC GT\n", b">r1\nAC#GT\n", b">r\xc3\xa9\nAC\n",
    b">r1\x01\nAC\n", b">r1\nACXGT\n", b">r1\nAC\x7f\n",
])
def test_gpu_scan_cases(scan, text):
    _same(scan, np.frombuffer(text, dtype=np.uint8), _lut(DNA.table))


def test_gpu_scan_of_many_lines_and_long_lines(scan):
    rng = np.random.default_rng(5)
    reads = "".join(f">read{k} sample {k % 7}\n{''.join(rng.choice(list('ACGTN'), int(rng.integers(1, 180))))}\n"
                    for k in range(90_000))  # (more lines than one block sums: the tiled sums)
    long = ">chr1 long\n" + "".join(rng.choice(list("ACGTacgt"), 300_000)) + "\n>chr2\n" + "ACGT" * 5000
    for text in (reads, long, reads + long):
        _same(scan, np.frombuffer(text.encode(), dtype=np.uint8), _lut(DNA.table))


_SCREEN = """
import sys
import swgpu.io.chunks as chunks, swgpu.io.compiled as compiled
compiled.COMPILED_BYTES = 1 << 12  # (small files read in blocks, as large ones are)
chunks.BLOCK = 1 << 16
from swgpu.cli.main import main
rc = main(sys.argv[1:])
print("numba" in sys.modules, file=sys.stderr)
sys.exit(rc)
"""


def test_screen_score_table_scanned_on_the_gpu_equals_the_cpus(tmp_path):
    rng = np.random.default_rng(11)
    q, t = tmp_path / "q.fa", tmp_path / "t.fa"
    seqs = [("".join(rng.choice(list("ACGT"), int(rng.integers(20, 150)))),
             "".join(rng.choice(list("ACGTN"), int(rng.integers(20, 250))))) for _ in range(3000)]
    q.write_text("".join(f">q{k} d\n{a}\n" for k, (a, _) in enumerate(seqs)))
    t.write_text("".join(f">t{k}\n{b[:60]}\n{b[60:]}\n" for k, (_, b) in enumerate(seqs)))
    env = dict(os.environ, SWGPU_DETACH="0")
    outs = {}
    for device in ("cuda", "cpu"):
        out = tmp_path / f"{device}.tsv"
        run = subprocess.run([sys.executable, "-c", _SCREEN, "screen", "-q", str(q), "-t", str(t), "--device", device,
                              "-o", str(out), "--quiet"], env=env, capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        outs[device] = (out.read_bytes(), run.stderr.strip().splitlines()[-1])
    assert outs["cuda"][0] == outs["cpu"][0]
    assert outs["cuda"][1] == "False"  # (the GPU's scan and lines: Numba not loaded)
    assert outs["cuda"][0].count(b"\n") == 3001


def test_a_gpu_without_memory_hands_the_text_back(scan, monkeypatch):
    import cupy

    data = np.frombuffer(b">r1\nACGT\n", dtype=np.uint8)
    lut = _lut(DNA.table)
    assert scan(data, checked(lut, _CLASS), _CLASS) is not None

    def full(*args, **kwargs):
        raise cupy.cuda.memory.OutOfMemoryError(1 << 40, 0, 0)

    monkeypatch.setattr(cupy, "asarray", full)
    assert scan(data, checked(lut, _CLASS), _CLASS) is None  # (the host scans it)
