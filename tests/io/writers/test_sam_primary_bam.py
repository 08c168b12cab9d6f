"""SAM's secondary flag from an alignment's optional ``primary``, and BAM output through pysam."""

from __future__ import annotations

import importlib.util
import io

import numpy as np
import pytest

from swgpu.align.alignment import Alignment
from swgpu.align.batch import AlignmentBatch
from swgpu.exceptions import InputError
from swgpu.io.sequence import Sequence
from swgpu.io.texts import Texts
from swgpu.io.writers import AlignmentWriter, AlignmentRecord, format_sam
from swgpu.io.writers.bam import bam_available
from swgpu.io.writers.record import is_primary
from swgpu.scoring import Scoring

DNA = Scoring.default("dna")
Q, T = Sequence.from_text("q", "TTACGTACGTG"), Sequence.from_text("t", "GACGACGTCCACGTACG")


def _alns():
    a = Alignment.from_ops(Q, T, DNA, 2, 1, "===I====")
    b = Alignment.from_ops(Q, T, DNA, 2, 10, "=======")
    c = Alignment.from_ops(Q.reverse_complement(), T, DNA, 1, 10, "=====")
    c.strand = "-"
    return [a, b, c]


def _flags(text: str) -> list[int]:
    return [int(line.split("\t")[1]) for line in text.splitlines() if not line.startswith("@")]


def test_primary_is_optional_and_defaults_to_primary():
    a, b, c = _alns()
    assert isinstance(a, AlignmentRecord) and getattr(a, "primary", True)

    class Record:  # the attributes of an alignment, no primary
        def __getattr__(self, name):
            if name == "primary":
                raise AttributeError(name)
            return getattr(a, name)

    assert not hasattr(Record(), "primary") and is_primary(Record())
    assert format_sam(Record(), Q.text) == format_sam(a, Q.text)
    assert format_sam(a, Q.text).split("\t")[1] == "0"
    b.primary, c.primary = False, False
    assert format_sam(b, Q.text).split("\t")[1] == "256"
    assert format_sam(c, Q.text).split("\t")[1] == "272"
    b.primary = True
    assert format_sam(b, Q.text).split("\t")[1] == "0"


@pytest.mark.parametrize("compiled", [False, True])
def test_secondary_records_are_flagged_record_by_record_and_in_columns(compiled):
    alns = _alns()
    primary = np.array([True, False, False])
    for a, p in zip(alns, primary):
        a.primary = bool(p)
    buf = io.StringIO()
    with AlignmentWriter(buf, "sam", targets=[T]) as w:
        if compiled:
            batch = AlignmentBatch.from_alignments(alns, query_index=[0, 0, 0], target_index=[0, 0, 0])
            batch.primary = primary
            assert w.write_columns(batch, Texts.from_strings(["q"]), Texts.from_strings(["t"]),
                                   Texts.from_strings([Q.text]))
        else:
            for a in alns:
                w.write(a, query_text=Q.text)
    assert _flags(buf.getvalue()) == [0, 256, 272]


def test_output_unchanged_without_primary():
    alns = _alns()
    texts = []
    for compiled in (False, True):
        buf = io.StringIO()
        with AlignmentWriter(buf, "sam", targets=[T]) as w:
            if compiled:
                w.write_columns(AlignmentBatch.from_alignments(alns, [0, 0, 0], [0, 0, 0]),
                                Texts.from_strings(["q"]), Texts.from_strings(["t"]), Texts.from_strings([Q.text]))
            else:
                for a in alns:
                    w.write(a, query_text=Q.text)
        texts.append(buf.getvalue())
    assert texts[0] == texts[1] and _flags(texts[0]) == [0, 0, 16]


@pytest.mark.skipif(not bam_available(), reason="pysam is not installed (pip install 'swgpu[bam]')")
def test_bam_holds_the_sam_records(tmp_path):
    import pysam

    alns = _alns()
    alns[1].primary = False
    for a in alns:
        a.evalue = 3.4e-149
    for fmt, name in (("sam", "x.sam"), ("bam", "x.bam")):
        with AlignmentWriter(tmp_path / name, fmt, targets=[T], program_line="swgpu test") as w:
            for a in alns:
                w.write(a, query_text=Q.text)
        assert w.count == 3
    assert (tmp_path / "x.bam").read_bytes()[:2] == b"\x1f\x8b"  # BGZF
    with pysam.AlignmentFile(str(tmp_path / "x.bam"), "rb") as bam:
        header = str(bam.header)
        records = [r.to_string() for r in bam]
    sam = (tmp_path / "x.sam").read_text()
    assert header.splitlines() == [x for x in sam.splitlines() if x.startswith("@")]
    assert records == [x for x in sam.splitlines() if not x.startswith("@")]
    assert [x for x in tmp_path.iterdir()] and sorted(p.name for p in tmp_path.iterdir()) == ["x.bam", "x.sam"]


@pytest.mark.skipif(not bam_available(), reason="pysam is not installed (pip install 'swgpu[bam]')")
def test_a_failed_bam_leaves_nothing(tmp_path):
    with pytest.raises(RuntimeError):
        with AlignmentWriter(tmp_path / "x.bam", "bam", targets=[T]) as w:
            w.write(_alns()[0], query_text=Q.text)
            raise RuntimeError("stop")
    assert list(tmp_path.iterdir()) == []


def test_bam_without_pysam_is_refused_before_anything_is_written(tmp_path, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pysam" else real(name, *a))
    with pytest.raises(InputError) as info:
        AlignmentWriter(tmp_path / "x.bam", "bam", targets=[T])
    assert info.value.param == "format" and "pysam" in info.value.message and "swgpu[bam]" in info.value.message
    assert list(tmp_path.iterdir()) == []
