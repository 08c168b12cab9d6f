"""Paired FASTA files cut into parts without parsing them: the cuts fall on the same
record counts as the parsed files', and each part read alone holds the records
of reading the files whole."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from swgpu.exceptions import InputError
from swgpu.io.cuts import paired_cuts, plain_fasta, read_range, record_starts
from swgpu.io.readers import read_sequence_batch


@st.composite
def _fasta(draw, count: int) -> bytes:
    end = draw(st.sampled_from(["\n", "\r\n"]))
    lines = []
    for k in range(count):
        lines.append(">" + draw(st.sampled_from([f"r{k}", f"r{k} a>b", f"r{k} >x >y", f"r{k}\tdesc"])))
        for _ in range(draw(st.integers(1, 3))):
            lines.append(draw(st.text("ACGTN", min_size=1, max_size=30)))
    return (end.join(lines) + end).encode()


def _naive_starts(data: bytes) -> list[int]:
    return [k for k in range(len(data)) if data[k:k + 1] == b">" and (k == 0 or data[k - 1:k] == b"\n")]


@settings(max_examples=60, deadline=None)
@given(data=st.data(), count=st.integers(1, 40), records=st.integers(1, 9), block=st.integers(1, 64))
def test_cuts_fall_on_record_counts_and_parts_read_alone(tmp_path_factory, data, count, records, block):
    folder = tmp_path_factory.mktemp("cuts")
    q, t = folder / "q.fa", folder / "t.fa"
    q.write_bytes(data.draw(_fasta(count)))
    t.write_bytes(data.draw(_fasta(count)))
    for path in (q, t):
        starts = np.concatenate(list(record_starts(path, block)))
        assert starts.tolist() == _naive_starts(path.read_bytes())
    parts = list(paired_cuts(q, t, records, block=block))
    assert [p.index for p in parts] == list(range(len(parts)))
    assert [p.first for p in parts] == list(range(0, count, records))
    assert sum(p.records for p in parts) == count
    for path, side in ((q, "query"), (t, "target")):
        whole = read_sequence_batch(str(path), "dna")
        got = []
        for part in parts:
            batch = read_range(path, *getattr(part, side), "dna", threads=2)
            assert batch is not None and len(batch) == part.records
            got += [(s.name, s.description, s.text) for s in batch]
        assert got == [(s.name, s.description, s.text) for s in whole]
        assert getattr(parts[-1], side)[1] == path.stat().st_size


def test_files_of_different_counts_are_refused_after_both_are_counted(tmp_path):
    (tmp_path / "q.fa").write_text("".join(f">q{k}\nACGT\n" for k in range(7)))
    (tmp_path / "t.fa").write_text("".join(f">t{k}\nACGT\n" for k in range(5)))
    for a, b, want in (("q.fa", "t.fa", "q.fa has 7 records but .*t.fa has 5"),
                       ("t.fa", "q.fa", "t.fa has 5 records but .*q.fa has 7")):
        parts = paired_cuts(tmp_path / a, tmp_path / b, 2, block=8)
        with pytest.raises(InputError, match=want):
            list(parts)


def test_a_part_not_of_the_common_case_reads_as_none(tmp_path):
    path = tmp_path / "q.fa"
    path.write_bytes(b">r1\nACGT\n>r2\nAC\x01GT\n")  # (a control character: read record by record instead)
    assert read_range(path, 0, 9, "dna") is not None
    assert read_range(path, 9, path.stat().st_size, "dna") is None


def test_only_plain_fasta_is_cut(tmp_path):
    import gzip

    (tmp_path / "a.fa").write_text(">r\nACGT\n")
    (tmp_path / "b.fq").write_text("@r\nACGT\n+\nIIII\n")
    (tmp_path / "c.fa.gz").write_bytes(gzip.compress(b">r\nACGT\n"))
    (tmp_path / "d.fa").write_text("")
    assert [plain_fasta(tmp_path / n) for n in ("a.fa", "b.fq", "c.fa.gz", "d.fa", "none.fa")] == \
        [True, False, False, False, False]
    assert not plain_fasta(tmp_path)


def test_a_pipe_is_not_read_to_see_what_it_is(tmp_path):
    import os

    read, write = os.pipe()
    os.write(write, b">r\nACGT\n")
    try:
        assert not plain_fasta(f"/dev/fd/{read}")
        assert os.read(read, 100) == b">r\nACGT\n"  # (nothing taken from it)
    finally:
        os.close(read)
        os.close(write)
