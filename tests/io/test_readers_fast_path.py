"""The reader's whole-block path: records across the 1 MiB block boundary, the
order of the checks in a group of records, errors, gzip without xopen."""

from __future__ import annotations

import bz2
import gzip
import random
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from swgpu.exceptions import InputError
from swgpu.io import encoding, readers
from swgpu.io.alphabet import DNA
from swgpu.io.readers import iter_sequences, read_sequences


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def _records(n: int, seed: int = 1) -> list[tuple[str, str]]:
    rng = random.Random(seed)
    return [(f"r{k}", "".join(rng.choice("ACGTacgtN") for _ in range(rng.randint(1, 700)))) for k in range(n)]


def _fasta(records, width: int = 60, crlf: bool = False) -> bytes:
    end = "\r\n" if crlf else "\n"
    lines = []
    for name, text in records:
        lines.append(f">{name} about {name}")
        lines += [text[i:i + width] for i in range(0, len(text), width)]
    return (end.join(lines) + end).encode("ascii")


@pytest.mark.parametrize("crlf", [False, True])
@pytest.mark.parametrize("gz", [False, True])
def test_records_across_the_block_boundary(tmp_path, crlf, gz):
    records = _records(5000)
    data = _fasta(records, crlf=crlf)
    assert len(data) > readers._BLOCK + 100_000  # records run across the first block's end
    path = _write(tmp_path / ("r.fa.gz" if gz else "r.fa"), gzip.compress(data, mtime=0) if gz else data)
    seqs = read_sequences(path)
    assert [(s.name, s.text) for s in seqs] == records
    assert {s.description for s in seqs[:3]} == {"about r0", "about r1", "about r2"}
    for s in seqs[::97]:
        np.testing.assert_array_equal(s.codes, DNA.encode(s.text))


def test_codes_are_read_only_views():
    seqs = read_sequences(Path(readers.__file__).parent.parent / "data" / "examples" / "targets.fasta")
    assert not seqs[0].codes.flags.writeable
    with pytest.raises(ValueError):
        seqs[0].codes[0] = 1


def test_the_first_problem_in_the_file_is_said_whatever_the_groups(tmp_path, monkeypatch):
    path = _write(tmp_path / "e.fa", b">a\nAC\n>b\nA1C\n>c\nAC\n>d\nAC\n>e\n\n>f\nAC\n")
    for group in (4096, 2):
        monkeypatch.setattr(encoding, "ENCODE_GROUP", group)
        with pytest.raises(InputError, match=r"record 'b', position 2: '1' is not a valid dna letter"):
            read_sequences(path)


def test_no_name_counts_the_records_before_it(tmp_path, monkeypatch):
    data = b"".join(b">r%d\nACGT\n" % k for k in range(10)) + b">\tx\nACGT\n"
    for group in (4096, 3):
        monkeypatch.setattr(encoding, "ENCODE_GROUP", group)
        with pytest.raises(InputError, match=r"n.fa: record 11 has no name"):
            read_sequences(_write(tmp_path / "n.fa", data))


def test_invalid_letter_message_names_the_record_and_position(tmp_path):
    path = _write(tmp_path / "x.fa", _fasta(_records(300)) + b">bad one\nACGTAC\nGT\xe9A\n")
    with pytest.raises(InputError) as info:
        read_sequences(path)
    assert info.value.message == (f"{path}: record 'bad', position 9: '\u00e9' is not a valid dna letter "
                                  "(is this a protein file? give the protein alphabet)")


def test_fastq_error_after_good_records(tmp_path):
    path = _write(tmp_path / "r.fq", b"@r1\nACGT\n+\nIIII\n@r2\nAC\n+\nI\n")
    with pytest.raises(InputError, match=r"record 2: 2 letters but 1 quality values"):
        read_sequences(path)


def test_iter_sequences_yields_before_reading_everything(tmp_path):
    data = _fasta(_records(8000)) + b">z\nAC\n" + bytes([1]) * 10  # binary data in the last block
    seqs = iter_sequences(_write(tmp_path / "b.fa", data), DNA)
    assert next(seqs).name == "r0"
    with pytest.raises(InputError, match="binary data"):
        list(seqs)


def test_gzip_and_plain_files_are_read_without_xopen(tmp_path):
    gz = _write(tmp_path / "a.fa.gz", gzip.compress(b">a\nACGT\n", mtime=0))
    nameless = _write(tmp_path / "a.data", gzip.compress(b">b\nGG\n", mtime=0))  # gzip found by its first bytes
    plain = _write(tmp_path / "p", b">c\nTT\n")
    code = ("import sys; from swgpu.io.readers import read_sequences\n"
            f"print([s.name for p in {[str(gz), str(nameless), str(plain)]!r} for s in read_sequences(p)])\n"
            "print('xopen' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["['a',", "'b',", "'c']", "False"]


def test_other_compressions_without_a_suffix_still_go_to_xopen(tmp_path):
    path = _write(tmp_path / "b.data", bz2.compress(b">b\nACGT\n"))
    assert [s.text for s in read_sequences(path)] == ["ACGT"]
