"""The one-pass FASTA scanner gives the record-by-record reader's records and errors."""

from __future__ import annotations

import gzip

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swgpu.exceptions import InputError
from swgpu.io import encoding, scanner
from swgpu.io.alphabet import SAMPLE_LETTERS
from swgpu.io.readers import read_sequence_batch, read_sequences

from fasta_texts import fasta_texts

def _read(fn, path, **kw):
    try:
        seqs = fn(path, **kw)
        return [(s.name, s.description, s.text, s.codes.tolist(), s.alphabet.name) for s in seqs]
    except InputError as exc:
        return str(exc)


@settings(max_examples=150, deadline=None)
@given(data=fasta_texts(), how=st.sampled_from([{}, {"alphabet": "dna"}, {"alphabet": "protein"}, {"expect": "dna"}]))
def test_same_records_or_error_as_one_by_one(tmp_path_factory, data, how):
    path = tmp_path_factory.mktemp("s") / "r.fa"
    path.write_bytes(data)
    assert _read(read_sequence_batch, path, **how) == _read(read_sequences, path, **how)


@pytest.mark.parametrize("gz", [False, True])
def test_clean_files_take_the_compiled_pass(tmp_path, monkeypatch, gz):
    rng = np.random.default_rng(3)
    recs = [(f"r{k}", "".join(rng.choice(list("ACGT"), int(rng.integers(1, 300))))) for k in range(3000)]
    data = "".join(f">{n} some read\n{t[:100]}\n{t[100:]}\n" for n, t in recs).encode()
    path = tmp_path / ("r.fa.gz" if gz else "r.fa")
    path.write_bytes(gzip.compress(data, mtime=0) if gz else data)
    want = _read(read_sequences, path)

    def refuse(*a, **k):
        raise AssertionError("read record by record")

    monkeypatch.setattr("swgpu.io.readers.encode_block", refuse)
    batch = read_sequence_batch(path)
    assert batch.names[:2] == ["r0", "r1"] and batch.descriptions[0] == "some read"
    assert _read(lambda p: list(batch), path) == want
    assert batch.name_texts().strings() == [n for n, _ in recs]


def test_alphabet_guessed_from_the_first_records_only(tmp_path):
    # the first records reach the sample's size with DNA; protein letters come after
    dna = "ACGT" * 250
    data = "".join(f">d{k}\n{dna}\n" for k in range(SAMPLE_LETTERS // len(dna) + 1)) + ">p\nMKVLWWQEF\n"
    path = tmp_path / "mix.fa"
    path.write_bytes(data.encode())
    assert _read(read_sequence_batch, path) == _read(read_sequences, path)  # (an invalid DNA letter)
    path.write_bytes(data.replace(">p\nMKVLWWQEF", ">p\nAAAAAA").encode())
    assert read_sequence_batch(path).alphabet.name == "dna"


def test_scan_refuses_what_it_does_not_take():
    for text in [b"", b"ACGT\n", b">\nACGT\n", b">a\n#x\nAC\n", b">a\nAC\n>b\n", b">\xc3\xa9\nAC\n", b">a\nA\x01C\n"]:
        assert scanner.scan_fasta(np.frombuffer(text, dtype=np.uint8)) is None, text
    assert encoding.ENCODE_GROUP > 0


def test_parts_on_threads_equal_one_part(monkeypatch):
    rng = np.random.default_rng(4)
    recs = [(f"r{k} d", "".join(rng.choice(list("ACGTN"), int(rng.integers(1, 2000))))) for k in range(2000)]
    data = np.frombuffer("".join(f">{n}\n{t[:70]}\n{t[70:]}\r\n" for n, t in recs).encode(), dtype=np.uint8)
    table = scanner.get_alphabet("dna").table
    one = scanner.scan_fasta(data, table, threads=1)
    monkeypatch.setattr(scanner, "_PART_LEAST", 1000)
    many = scanner.scan_fasta(data, table, threads=7)
    for a, b in zip(one[:3], many[:3]):
        assert a.strings() == b.strings()
        np.testing.assert_array_equal(a.offsets, b.offsets)
    np.testing.assert_array_equal(one[3], many[3])
    assert one[0].strings()[:2] == ["r0", "r1"] and one[2].strings()[5] == recs[5][1]


def test_numba_loads_without_scipy_for_the_command_line():
    import subprocess
    import sys

    code = ("import sys\n"
            "from swgpu.io import compiled\n"
            "compiled.WITHOUT_BLAS = True\n"
            "from swgpu.io import kernels\n"
            "assert 'numba.np.arraymath' in sys.modules and 'scipy' not in sys.modules\n"
            "import numpy as np\n"
            "from swgpu.io.texts import Texts\n"
            "from swgpu.io.writers.rows import Rows\n"
            "r = Rows(2); r.int(np.array([3, -4])); r.const('\\n'); assert r.render() == b'3\\n-4\\n'\n"
            "assert not any(isinstance(h, compiled._NoSciPy) for h in sys.meta_path)\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_device_scan_takes_the_large_texts_and_hands_back_what_it_does_not_take(monkeypatch):
    """:func:`scanner.use_device_scan`: the texts the compiled scan would take go to the device's scan first;
    its ``None`` leaves them to the host, which gives what it always gave."""
    from swgpu.io.alphabet import DNA
    from swgpu.io.scan_arrays import checked

    data = np.frombuffer(b">r1 d\nACGT\n>r2\nGG\n", dtype=np.uint8)
    host = scanner.scan_fasta(data, DNA.table)
    seen = []

    def device(text, check, cls):
        seen.append((bytes(text), bytes(check), cls is scanner._CLASS))
        return None

    scanner.use_device_scan(device)
    try:
        small = scanner.scan_fasta(data, DNA.table)  # (not the compiled scan's: the device is not asked)
        assert not seen
        large = scanner.scan_fasta(data, DNA.table, compiled=True)
        lut = np.frombuffer(DNA.table, dtype=np.uint8)
        assert seen == [(bytes(data), bytes(checked(lut, scanner._CLASS)), True)]
        for got in (small, large):
            assert [t.strings() for t in got[:3]] == [t.strings() for t in host[:3]]
            assert bytes(got[3]) == bytes(host[3])
        scanner.use_device_scan(lambda text, check, cls: "device's")
        assert scanner.scan_fasta(data, DNA.table, compiled=True) == "device's"
    finally:
        scanner.use_device_scan(None)
