"""Whole FASTA records cut with array operations equal the records read one by one."""

from __future__ import annotations

import random

import pytest

from swgpu.io.batches import RecordBatch, fasta_batches, fasta_record, whole_records
from swgpu.io.sequence import split_header


def _one_by_one(region: bytes) -> list[tuple[str, str, str]]:
    """``(name, description, text)`` of each record, as the one-by-one reader cuts them."""
    out = []
    for part in region[1:].split(b"\n>"):
        header, text = fasta_record([part])
        out.append((*split_header(header), text))
    return out


def _fields(batch: RecordBatch) -> list[tuple[str, str, str]]:
    assert bytes(batch.joined) == b"".join(b"\0" + t.encode("latin-1") for t in batch.texts)
    return list(zip(batch.names, batch.descriptions, batch.texts))


def _random_region(rng: random.Random, crlf: bool) -> bytes:
    records = []
    for k in range(rng.randint(1, 60)):
        header = rng.choice([f"r{k}", f"r{k} a description", f"r{k}\tx  y\t", f"r{k}\x0bv", f"r{k}\x0cf ",
                             f"gi|{k}|x#1>y", f"r{k}   ", "", " lead", "\tlead", "  "])
        lines = [header]
        for _ in range(rng.randint(0, 4)):
            lines.append("".join(rng.choice("ACGTNacgtn") for _ in range(rng.randint(0, 70))))
            if rng.random() < 0.1:
                lines.append(rng.choice(["", "   ", "AC GT\tN"]))
        records.append(">" + "\n".join(lines) + "\n")
    text = "".join(records)
    return (text.replace("\n", "\r\n") if crlf else text).encode("ascii")


@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
def test_whole_records_equal_one_by_one(crlf):
    rng = random.Random(7 + crlf)
    for _ in range(200):
        region = _random_region(rng, crlf)
        assert _fields(whole_records(region)) == _one_by_one(region)


def test_names_and_descriptions_as_split_header_cuts_them():
    region = b">a b  c \n>d\tdesc\r\n>e\x0bx\n>f \n>g\n>\n> lead\nAC\n"
    batch = whole_records(region)
    assert batch.names == ["a", "d", "e", "f", "g", "", ""]
    assert batch.descriptions[:5] == ["b  c", "desc", "x", "", ""]
    assert batch.texts == ["", "", "", "", "", "", "AC"]


def test_lowercase_blank_lines_and_spaces_in_letters_are_kept_as_read():
    batch = whole_records(b">x\nacGT\n\n  \nNN nn\t\r\n")
    assert batch.texts == ["acGTNNnn"]


@pytest.mark.parametrize("region", [b">a\nAC\n# comment\nGT\n", b">a\nAC\n  # indented comment\n",
                                    b">a\nAC#GT\n", ">caf\u00e9\nACGT\n".encode("utf-8"),
                                    ">caf\u00e9\nACGT\n".encode("latin-1")])
def test_comments_and_non_ascii_headers_are_left_to_the_one_by_one_reader(region):
    assert whole_records(region) is None


def test_a_hash_or_gt_in_a_header_and_non_ascii_letters_stay_on_the_fast_path():
    batch = whole_records(">s#1>x\nAC\n>t\nA\u00e9C\n".encode("latin-1"))
    assert batch.names == ["s#1>x", "t"] and batch.texts == ["AC", "A\u00e9C"]


def _blocks(data: bytes, size: int) -> list[bytes]:
    """``data`` in blocks of about ``size`` bytes, each ending at a line end (as the reader cuts them)."""
    out, at = [], 0
    while at < len(data):
        end = data.find(b"\n", at + size - 1)
        end = len(data) if end < 0 else end + 1
        out.append(data[at:end])
        at = end
    return out


@pytest.mark.parametrize("size", [1, 7, 64, 1000, 1 << 20])
def test_fasta_batches_equal_one_by_one_whatever_the_blocks(size):
    rng = random.Random(size)
    data = b"".join(_random_region(rng, rng.random() < 0.5) for _ in range(5))
    data += b">c\nAC\n# a comment\nGT\n>u caf\xc3\xa9\nTT"  # one by one, and no line end at the end
    expected = _one_by_one(data)
    got = [f for batch in fasta_batches(iter(_blocks(data, size))) for f in _fields(batch)]
    assert got == expected
