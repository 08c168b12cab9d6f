"""SAM written to a file path (records handed to the file in chunks) equals SAM
written to a stream, record for record; the header's targets; the query check."""

from __future__ import annotations

import io

import numpy as np
import pytest

from swgpu.align.alignment import Alignment
from swgpu.exceptions import InputError
from swgpu.io.sequence import Sequence
from swgpu.io.writers import AlignmentWriter, format_sam
from swgpu.io.writers import writer as writer_module
from swgpu.io.writers.sam import sam_targets
from swgpu.scoring import Scoring

DNA = Scoring.default("dna")


def _alignments(n: int):
    """``(alignment, query)`` pairs: plus and minus strand, some empty, some with E-values."""
    rng = np.random.default_rng(3)
    out = []
    for k in range(n):
        q = Sequence.from_text(f"q{k % 50}", "".join(rng.choice(list("ACGTacgt"), 12)))
        t = Sequence.from_text(f"t{k % 7}", "ACGTACGTAC")
        if k % 11 == 0:
            a = Alignment.empty_for(q, t)
        elif k % 3 == 0:
            a = Alignment.from_ops(q.reverse_complement(), t, DNA, 1, 2, "XX==I=")
            a.strand = "-"
        else:
            a = Alignment.from_ops(q, t, DNA, 2, 0, "=X==D==")
        if k % 5 == 0:
            a.evalue, a.bitscore = [1e-30, float("nan"), 0.5][k % 3], 40.0
        out.append((a, q.text if k % 2 else q))
    return out


@pytest.mark.parametrize("secondary", [False, True])
def test_file_path_output_equals_stream_output(tmp_path, monkeypatch, secondary):
    monkeypatch.setattr(writer_module, "_CHUNK", 7)
    rows = _alignments(100)
    targets = [(f"t{k}", 10) for k in range(7)]
    stream = io.StringIO()
    with AlignmentWriter(stream, "sam", program_line="swgpu x", targets=targets, secondary=secondary) as w:
        for a, q in rows:
            w.write(a, query_text=q)
    path = tmp_path / "o.sam"
    with AlignmentWriter(path, "sam", program_line="swgpu x", targets=targets, secondary=secondary) as w:
        for a, q in rows[:40]:
            w.write(a, query_text=q)
        assert w.write_many(rows[40:]) == 60
    assert path.read_text() == stream.getvalue()
    assert w.count == 100 and stream.getvalue().count("\n") == 100 + 2 + len(targets)
    assert stream.getvalue().splitlines()[2 + len(targets)] == format_sam(rows[0][0], rows[0][1])


def test_a_failing_record_leaves_no_file_but_a_stream_has_those_before(tmp_path, monkeypatch):
    monkeypatch.setattr(writer_module, "_CHUNK", 4)
    rows = _alignments(30)
    bad = rows[17][0]
    bad.target = "elsewhere"  # not in the header
    path = tmp_path / "o.sam"
    with pytest.raises(ValueError, match="'elsewhere' is not among the targets"):
        with AlignmentWriter(path, "sam", targets=[(f"t{k}", 10) for k in range(7)]) as w:
            w.write_many(rows)
    assert not path.exists() and not list(tmp_path.iterdir())
    stream = io.StringIO()
    with pytest.raises(ValueError):
        with AlignmentWriter(stream, "sam", targets=[(f"t{k}", 10) for k in range(7)]) as w:
            w.write_many(rows)
    assert stream.getvalue().count("\n") == 17 + 2 + 7


def test_sam_targets():
    assert sam_targets([("a", 5), ("b", 7), ("a", 5)]) == [("a", 5), ("b", 7)]
    assert sam_targets((("a", 5), ("b", 7))) == [("a", 5), ("b", 7)]
    assert sam_targets([["a", np.int64(5)], ("b", True)]) == [("a", 5), ("b", 1)]
    assert sam_targets([Sequence.from_text("s", "ACGT"), ("t", 2)]) == [("s", 4), ("t", 2)]
    assert sam_targets(iter([(1, 2)])) == [("1", 2)]
    with pytest.raises(InputError, match="'a' names two sequences"):
        sam_targets([("a", 5), ("a", 6)])


def test_the_query_check_ignores_case_and_gaps():
    q = Sequence.from_text("q", "ttACGTacgtG")
    t = Sequence.from_text("t", "ACGACGT")
    a = Alignment.from_ops(q, t, DNA, 2, 0, "===I====")
    assert format_sam(a, q.text.upper()).split("\t")[9] == "TTACGTACGTG"
    assert format_sam(a, q).split("\t")[9] == q.text
    with pytest.raises(InputError, match="does not match the aligned query"):
        format_sam(a, "ttACCTacgtG")


@pytest.mark.parametrize("evalue, text", [(3.4e-149, "3.4e-149"), (0.0015, "0.0015"), (2.0, "2"),
                                          (1.23456789e-300, "1.23457e-300"), (0.0, "0")])
def test_evalue_tag_is_text_that_survives_bam(tmp_path, evalue, text):
    """ZE is a string tag, %.6g of the E-value: a float tag (single precision in
    BAM) turns an E-value below ~1e-38 into 0."""
    q, t = Sequence.from_text("q", "ACGTACGT"), Sequence.from_text("t", "ACGACGT")
    a = Alignment.from_ops(q, t, DNA, 0, 0, "===I====")
    a.evalue = evalue
    assert format_sam(a, q).split("\t")[-1] == f"ZE:Z:{text}"
    pysam = pytest.importorskip("pysam")
    sam, bam = tmp_path / "a.sam", tmp_path / "a.bam"
    with AlignmentWriter(sam, "sam", targets=[t]) as w:
        w.write(a, query_text=q)
    with pysam.AlignmentFile(str(sam)) as src, pysam.AlignmentFile(str(bam), "wb", template=src) as dst:
        for record in src:
            dst.write(record)
    with pysam.AlignmentFile(str(bam), "rb") as back:
        (record,) = list(back)
    assert record.get_tag("ZE") == text and float(record.get_tag("ZE")) == float(f"{evalue:.6g}")
    assert record.to_string().split("\t")[-1] == f"ZE:Z:{text}"
