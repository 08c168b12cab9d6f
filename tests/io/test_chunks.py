"""Files read a part at a time give the records and errors of reading them whole."""

from __future__ import annotations

import gzip

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from swgpu.exceptions import InputError
from swgpu.io.chunks import file_batches, paired_batches, read_ahead
from swgpu.io.readers import read_sequence_batch
from swgpu.io.sequence_batch import SequenceBatch


_LINES = ["ACGT", "acgtn", "N", "GATTACA", " ", "\r", "ACGTACGTACGTACGTACGT"]
_BAD = ["J", "#c", "\x01", ""]


@st.composite
def _fasta(draw) -> bytes:
    lines = []
    for k in range(draw(st.integers(1, 30))):
        lines.append(">" + draw(st.sampled_from([f"r{k}", f"r{k} some words", f"r{k}\té", "", " x"])))
        for _ in range(draw(st.integers(0, 3))):
            parts = _LINES + (_BAD if draw(st.integers(0, 9)) == 0 else [])
            lines.append("".join(draw(st.lists(st.sampled_from(parts), max_size=4))))
    end = draw(st.sampled_from(["\n", "\r\n"]))
    return (end.join(lines) + end).encode("utf-8")


def _records(batches) -> list | str:
    try:
        out = []
        for batch in batches:
            out += [(s.name, s.description, s.text, s.codes.tolist()) for s in batch]
        return out
    except InputError as exc:
        return str(exc)


@settings(max_examples=120, deadline=None)
@given(data=_fasta(), block=st.integers(1, 400), gz=st.booleans(), expect=st.sampled_from([None, "dna"]),
       ahead=st.sampled_from([0, 1, 3]))
@example(data=b">r0\n\nACGT\n>r1\nACGT\n\n\n>r2\n\n\nACGT\n>r3\nACGT\n\n>\n", block=1, gz=False, expect=None,
         ahead=0)
def test_parts_hold_the_records_of_the_whole(tmp_path_factory, data, block, gz, expect, ahead):
    path = tmp_path_factory.mktemp("c") / ("r.fa.gz" if gz else "r.fa")
    path.write_bytes(gzip.compress(data) if gz else data)
    try:
        whole = _records([read_sequence_batch(path, "dna", expect=expect)])
    except InputError as exc:
        whole = str(exc)
    assert _records(file_batches(path, "dna", expect=expect, block=block, ahead=ahead)) == whole


@pytest.mark.parametrize("ahead", [0, 2])
def test_a_problem_late_in_the_file_is_said_as_when_read_whole(tmp_path, ahead):
    text = "".join(f">r{k}\nACGTACGTAC\n" for k in range(200)) + ">bad\nACJT\n"
    path = tmp_path / "r.fa"
    path.write_text(text)
    with pytest.raises(InputError) as whole:
        read_sequence_batch(path, "dna")
    got = []
    with pytest.raises(InputError) as parts:
        for batch in file_batches(path, "dna", block=300, ahead=ahead):
            got.append(len(batch))
    assert str(parts.value) == str(whole.value) and "record 'bad'" in str(parts.value)
    assert len(got) > 3 and sum(got) <= 200


@pytest.mark.parametrize("records, ahead", [(1, 0), (7, 1), (64, 0), (64, 4), (1000, 2)])
def test_pairs_come_in_parts_of_equal_counts(tmp_path, records, ahead):
    (tmp_path / "q.fa").write_text("".join(f">q{k} d\n{'ACGT' * (1 + k % 5)}\n" for k in range(150)))
    (tmp_path / "t.fa.gz").write_bytes(gzip.compress("".join(f">t{k}\n{'GGCA' * (1 + k % 9)}\n"
                                                             for k in range(150)).encode()))
    parts = list(paired_batches(tmp_path / "q.fa", tmp_path / "t.fa.gz", records, alphabet="dna", block=97,
                                ahead=ahead))
    assert all(len(q) == len(t) for q, t in parts)
    assert [len(q) for q, _ in parts[:-1]] == [records] * (len(parts) - 1) and 0 < len(parts[-1][0]) <= records
    qs = SequenceBatch.concat([q for q, _ in parts])
    ts = SequenceBatch.concat([t for _, t in parts])
    assert qs.names == [f"q{k}" for k in range(150)] and qs.descriptions == ["d"] * 150
    assert ts.texts == [("GGCA" * (1 + k % 9)) for k in range(150)]
    assert ts.codes.tobytes() == read_sequence_batch(tmp_path / "t.fa.gz", "dna").codes.tobytes()


@pytest.mark.parametrize("first, records", [(3, 64), (64, 10), (1, 1), (500, 20)])
def test_a_smaller_first_part_then_parts_of_the_count(tmp_path, first, records):
    (tmp_path / "q.fa").write_text("".join(f">q{k}\n{'ACGT' * (1 + k % 5)}\n" for k in range(150)))
    (tmp_path / "t.fa").write_text("".join(f">t{k}\n{'GGCA' * (1 + k % 9)}\n" for k in range(150)))
    parts = list(paired_batches(tmp_path / "q.fa", tmp_path / "t.fa", records, alphabet="dna", block=97,
                                first=first))
    sizes = [len(q) for q, _ in parts]
    assert sizes[0] == min(first, 150) and all(n == records for n in sizes[1:-1]) and sum(sizes) == 150
    assert SequenceBatch.concat([q for q, _ in parts]).names == [f"q{k}" for k in range(150)]
    assert SequenceBatch.concat([t for _, t in parts]).names == [f"t{k}" for k in range(150)]


def test_unequal_files_count_both(tmp_path):
    (tmp_path / "q.fa").write_text("".join(f">q{k}\nACGT\n" for k in range(40)))
    (tmp_path / "t.fa").write_text("".join(f">t{k}\nACGT\n" for k in range(43)))
    with pytest.raises(InputError, match=r"q.fa has 40 records but .*t.fa has 43"):
        list(paired_batches(tmp_path / "q.fa", tmp_path / "t.fa", 8, alphabet="dna", block=50))


def test_read_ahead_keeps_order_and_errors():
    def items():
        yield from range(5)
        raise InputError("broken")

    got = []
    with pytest.raises(InputError, match="broken"):
        for x in read_ahead(items()):
            got.append(x)
    assert got == list(range(5))
    early = read_ahead(iter(range(100)))
    assert next(early) == 0
    early.close()
