"""Tests of the ``.swdb`` database file: self-checking on open (magic, format,
size, checksums, contents), descriptions, duplicate IDs, file mode."""

from __future__ import annotations

import json
import os
import stat
import struct
import warnings
import zlib
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from swgpu.exceptions import InputError
from swgpu.io.database import FORMAT, Database
from swgpu.io.sequence import Sequence

EXAMPLES = Path(str(resources.files("swgpu").joinpath("data", "examples")))
QUERIES, TARGETS = EXAMPLES / "queries.fasta", EXAMPLES / "targets.fasta"
FASTA = ">a first sequence\nMKVLAAGIVG\n>b\nMKVW\n>c  third\tone \nMKVLAAGIVGLLKKAA\n>d\nACDEFGHIKLMNPQRSTVWY\n"


@pytest.fixture
def db_file(tmp_path) -> Path:
    (tmp_path / "db.fasta").write_text(FASTA)
    Database.from_fasta(tmp_path / "db.fasta").save(tmp_path / "db.swdb")
    return tmp_path / "db.swdb"


def _damaged(path) -> InputError:
    with pytest.raises(InputError) as info:
        Database.open(path)
    assert info.value.param == "db"
    assert "makedb" in info.value.message and "\n" not in str(info.value)
    return info.value


def _header(path: Path) -> tuple[dict, int]:
    data = path.read_bytes()
    length = struct.unpack("<Q", data[8:16])[0]
    return json.loads(data[24:24 + length]), 24 + length


def test_round_trip_with_descriptions(db_file):
    db = Database.open(db_file)
    direct = Database.from_fasta(db_file.with_suffix(".fasta"))
    assert db.names == direct.names and db.descriptions == direct.descriptions
    assert np.array_equal(db.residues, direct.residues) and np.array_equal(db.index, direct.index)
    by_name = {db.names[i]: db.descriptions[i] for i in range(len(db))}
    assert by_name == {"a": "first sequence", "b": "", "c": "third\tone", "d": ""}
    seq = db.sequence(db.names.index("a"))
    assert (seq.name, seq.description, seq.text) == ("a", "first sequence", "MKVLAAGIVG")


def test_descriptions_default_to_empty():
    db = Database.from_sequences([Sequence.from_text("x", "MKV")])
    assert db.descriptions == [""] and db.sequence(0).description == ""


def test_file_mode_follows_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        Database.from_fasta(TARGETS).save(tmp_path / "t.swdb")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "t.swdb").stat().st_mode) == 0o644
    assert os.listdir(tmp_path) == ["t.swdb"]


@pytest.mark.parametrize("keep", [30, 100, 300, 1000, -1])
def test_truncated_file_is_damaged(db_file, tmp_path, keep):
    data = db_file.read_bytes()
    (tmp_path / "t.swdb").write_bytes(data[:keep] if keep < len(data) else data[:-1])
    assert "damaged" in _damaged(tmp_path / "t.swdb").message


def test_appended_data_is_damaged(db_file):
    with open(db_file, "ab") as fh:
        fh.write(b"extra")
    assert "appended" in _damaged(db_file).message


@pytest.mark.parametrize("section", ["offsets", "index", "residues", "names", "descriptions"])
def test_flipped_byte_in_a_section_is_found(db_file, section):
    header, _ = _header(db_file)
    start, nbytes, _ = header["sections"][section]
    data = bytearray(db_file.read_bytes())
    data[start + nbytes // 2] ^= 0x40
    db_file.write_bytes(bytes(data))
    assert f"checksum mismatch in section '{section}'" in _damaged(db_file).message


def test_flipped_byte_in_the_header_is_found(db_file):
    data = bytearray(db_file.read_bytes())
    data[30] ^= 0x01
    db_file.write_bytes(bytes(data))
    assert "header checksum" in _damaged(db_file).message


def test_consistent_checksums_but_bad_contents(tmp_path):
    db = Database.from_fasta(TARGETS)
    offsets = db.offsets.copy()
    offsets[2] = offsets[1] - 1  # a negative length
    bad = Database(db.alphabet, db.names, offsets, db.residues, db.index)
    bad.save(tmp_path / "bad.swdb")
    assert "offsets" in _damaged(tmp_path / "bad.swdb").message
    codes = np.array(db.residues)
    codes[5] = 200
    Database(db.alphabet, db.names, db.offsets, codes, db.index).save(tmp_path / "codes.swdb")
    assert "residue codes" in _damaged(tmp_path / "codes.swdb").message


def test_older_and_newer_formats_say_what_to_do(db_file, tmp_path):
    old = tmp_path / "old.swdb"
    old.write_bytes(b"SWGPUDB1" + struct.pack("<Q", 2) + b"{}" + bytes(100))
    with pytest.raises(InputError, match="format 1, written by an older swgpu.*rebuild it with `swgpu makedb`"):
        Database.open(old)
    newer = tmp_path / "newer.swdb"
    newer.write_bytes(f"SWGPUDB{FORMAT + 1}".encode() + db_file.read_bytes()[8:])
    with pytest.raises(InputError, match="newer than this swgpu"):
        Database.load(newer)


def test_not_a_database(tmp_path):
    (tmp_path / "x.swdb").write_bytes(b"hello world, not a database at all")
    with pytest.raises(InputError, match="not a swgpu database"):
        Database.open(tmp_path / "x.swdb")
    with pytest.raises(InputError) as info:
        Database.open(tmp_path / "missing.swdb")
    assert info.value.param == "db"


def test_cli_truncated_database_is_one_line_exit_2(run_cli, tmp_path):
    assert run_cli(["makedb", TARGETS, "s.swdb"], tmp_path)[0] == 0
    (tmp_path / "t.swdb").write_bytes((tmp_path / "s.swdb").read_bytes()[:3000])
    code, out, err = run_cli(["search", "-q", QUERIES, "-d", "t.swdb", "--device", "cpu"], tmp_path)
    assert (code, out) == (2, "") and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("swgpu: error: -d: t.swdb is damaged (") and "rebuild it with `swgpu makedb`" in err


def test_duplicate_ids_warn_once(tmp_path):
    seqs = [Sequence.from_text(n, "MKV" * (k + 1)) for k, n in enumerate(["a", "b", "a", "c", "b", "a"])]
    with pytest.warns(UserWarning, match=r"3 duplicate IDs, first 'a'") as record:
        db = Database.from_sequences(seqs)
    assert len(record) == 1 and sorted(db.names) == ["a", "a", "a", "b", "b", "c"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Database.from_sequences(seqs[:2])


def test_cli_makedb_duplicate_ids_one_warning_line(run_cli, tmp_path):
    (tmp_path / "d.fa").write_text(">x one\nMKVL\n>y\nMKVLA\n>x two\nMKV\n")
    code, out, err = run_cli(["makedb", "d.fa", "d.swdb"], tmp_path)
    assert code == 0 and out == ""
    warning = [line for line in err.splitlines() if "warning" in line]
    assert warning == ["swgpu: warning: d.fa: 1 duplicate IDs, first 'x' (kept as they are)"]
    db = Database.open(tmp_path / "d.swdb")
    assert sorted(zip(db.names, db.descriptions)) == [("x", "one"), ("x", "two"), ("y", "")]


def test_name_with_a_line_break_cannot_be_saved(tmp_path):
    db = Database.from_sequences([Sequence.from_text("x", "MKV", description="two\nlines")])
    with pytest.raises(InputError, match="line break"):
        db.save(tmp_path / "x.swdb")
    assert os.listdir(tmp_path) == []


def test_header_records_checksums(db_file):
    header, _ = _header(db_file)
    data = db_file.read_bytes()
    assert header["format"] == FORMAT and header["size"] == len(data)
    for start, nbytes, crc in header["sections"].values():
        assert start % 64 == 0 and zlib.crc32(data[start:start + nbytes]) == crc


def test_sam_refuses_a_duplicate_target_id_with_two_lengths(tmp_path, run_cli):
    # makedb warns about the duplicate; SAM output then stops with one line (a valid
    # SAM header cannot list one name twice) and writes no file
    fa = tmp_path / "d.fa"
    fa.write_text(">x first\nMKTAYIAKQRQISFVKSHFSRQ\n>x second\nMKTAYIAKQRQISFVKSH\n")
    q = tmp_path / "q.fa"
    q.write_text(">q\nMKTAYIAKQRQISFVKSHFSRQ\n")
    code, out, err = run_cli(["makedb", fa, tmp_path / "d.swdb"])
    assert code == 0 and "duplicate" in err
    code, out, err = run_cli(["search", "-q", q, "-d", tmp_path / "d.swdb", "--device", "cpu", "-f", "sam",
                              "-o", tmp_path / "h.sam", "--evalue", "1000"])
    assert code == 2 and "unique reference names" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "h.sam").exists()
