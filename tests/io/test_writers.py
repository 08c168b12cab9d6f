"""Tests of the alignment writers (blast6, SAM, JSON lines, pairwise)."""

from __future__ import annotations

import io
import json
import os
import re

import pytest

from swgpu.align.alignment import Alignment
from swgpu.exceptions import InputError
from swgpu.scoring import Scoring
from swgpu.io.sequence import Sequence
from swgpu.io.writers.blast6 import COLUMNS, STD_COLUMNS
from swgpu.io.writers import (
    BLAST6_COLUMNS,
    FORMATS,
    AlignmentWriter,
    format_blast6,
    format_evalue,
    format_json,
    format_pairwise,
    format_sam,
    sam_header,
)

DNA = Scoring.default("dna")


@pytest.fixture
def plus():
    """query[2:10] ACGTACGT against target[1:8] ACG-ACGT, one unaligned query letter at the end."""
    q = Sequence.from_text("q1", "TTACGTACGTG")
    t = Sequence.from_text("t1", "GACGACGTCC")
    a = Alignment.from_ops(q, t, DNA, 2, 1, "===I====")
    return q, t, a


@pytest.fixture
def minus():
    """rc(query)[2:10] AACGTTGC against target[1:9]; on the forward query that is positions 3-10."""
    q = Sequence.from_text("q2", "TTGCAACGTTCC")
    t = Sequence.from_text("t2", "GAACGTTGCG")
    a = Alignment.from_ops(q.reverse_complement(), t, DNA, 2, 1, "========")
    a.strand = "-"
    return q, t, a


def _lines(text: str) -> list[str]:
    return text.splitlines()


def _sam_query_ops_length(cigar: str) -> int:
    return sum(int(n) for n, op in re.findall(r"(\d+)([MIDNSHP=X])", cigar) if op in "M=XIS")


# ---------------------------------------------------------------- format_evalue

@pytest.mark.parametrize(
    "value, text",
    [
        (None, "NA"), (float("nan"), "NA"), (0.0, "0.0"), (1e-181, "0.0"), (1e-150, "1e-150"),
        (2.3e-45, "2e-45"), (4.4e-4, "4e-04"), (0.00123, "0.001"), (0.05, "0.050"), (0.5, "0.50"),
        (2.54, "2.5"), (123.4, "123"),
    ],
)
def test_format_evalue(value, text):
    assert format_evalue(value) == text


# ---------------------------------------------------------------- blast6

def test_blast6_exact(plus):
    _, _, a = plus
    a.evalue, a.bitscore = 2.3e-5, 15.04
    assert format_blast6(a) == "q1\tt1\t87.500\t8\t0\t1\t3\t10\t2\t8\t2e-05\t15.0\t9\t11\t10\t3=1I4="


def test_blast6_unknown_statistics_are_na(plus):
    fields = format_blast6(plus[2]).split("\t")
    assert len(fields) == len(BLAST6_COLUMNS) == 16
    assert fields[10:12] == ["NA", "NA"]


def test_blast6_minus_strand(minus):
    q, t, a = minus
    fields = format_blast6(a).split("\t")
    qstart, qend, sstart, send = map(int, fields[6:10])
    assert (qstart, qend) == (3, 10)
    assert (sstart, send) == (9, 2) and sstart > send
    # the forward query segment is the reverse complement of the target segment
    seg = Sequence.from_text("x", q.text[qstart - 1:qend]).reverse_complement().text
    assert seg == t.text[send - 1:sstart]


def test_blast6_header_and_empty(plus, tmp_path):
    q, t, a = plus
    out = tmp_path / "hits.tsv"
    with AlignmentWriter(out, "blast6", header=True) as w:
        w.write_many([a, Alignment.empty_for(q, t)])
    lines = _lines(out.read_text())
    assert len(lines) == 2
    assert lines[0].startswith("#") and "qseqid" in lines[0] and "cigar" in lines[0]
    assert lines[1] == format_blast6(a)


def test_blast6_columns_by_name(plus, minus):
    _, _, a = plus
    a.evalue, a.bitscore = 2.3e-5, 15.04
    full = dict(zip(BLAST6_COLUMNS, format_blast6(a).split("\t")))
    for spec in ("sseqid evalue score cigar", "sseqid,evalue,score,cigar", "6 sseqid, evalue score,cigar",
                 ["sseqid", "evalue", "score", "cigar"]):
        assert format_blast6(a, spec).split("\t") == [full["sseqid"], full["evalue"], full["score"], full["cigar"]]
    assert format_blast6(a, "6") == format_blast6(a, STD_COLUMNS) == "\t".join(format_blast6(a).split("\t")[:12])
    assert format_blast6(a, "std qlen").split("\t")[12] == "11"
    # 8 query letters of 11; 7 identical columns, 7 positive, 1 gap column
    assert format_blast6(a, "qcovs qcovhsp nident positive ppos gaps strand sstrand").split("\t") == [
        "73", "73", "7", "7", "87.500", "1", "+", "plus"]
    assert format_blast6(minus[2], "qcovs strand sstrand sstart send").split("\t") == ["67", "-", "minus", "9", "2"]


def test_blast6_stitle(plus):
    _, t, a = plus
    assert format_blast6(a, "stitle") == "t1"                       # no description: the ID alone
    assert format_blast6(a, "stitle", {"t1": "a DNA target"}) == "t1 a DNA target"
    assert format_blast6(a, "stitle", {"other": "x"}) == "t1"


def test_writer_columns_and_header(plus, tmp_path):
    q, t, a = plus
    out = tmp_path / "hits.tsv"
    described = Sequence.from_text("t1", t.text, description="from the target")
    with AlignmentWriter(out, "blast6", header=True, columns="qseqid stitle score", targets=[described]) as w:
        w.write(a)
    assert _lines(out.read_text()) == ["# Fields: qseqid, stitle, score", "q1\tt1 from the target\t9"]
    with AlignmentWriter(out, "blast6", columns=["stitle"], descriptions={"t1": "given"},
                         targets=[described]) as w:
        w.write(a)
    assert out.read_text() == "t1 given\n"
    with AlignmentWriter(out, "blast6") as w:
        assert w.columns == BLAST6_COLUMNS
        w.write(a)
    assert out.read_text() == format_blast6(a) + "\n"


@pytest.mark.parametrize("fmt, columns, words", [
    ("blast6", "qseqid bits", ["unknown column 'bits'", "qseqid", "stitle", "qcovs", "std"]),
    ("blast6", "7 qseqid", ["format 6", "not 7"]),
    ("blast6", " , ", ["no column"]),
    ("sam", "qseqid", ["blast6"]),
])
def test_writer_bad_columns(fmt, columns, words):
    with pytest.raises(InputError) as info:
        AlignmentWriter(None, fmt, columns=columns, targets=[])
    assert info.value.param == "columns"
    assert all(w in info.value.message for w in words), info.value.message
    assert set(COLUMNS) >= set(BLAST6_COLUMNS)


def test_blast6_rejects_empty_line():
    q, t = Sequence.from_text("q", "ACGT"), Sequence.from_text("t", "ACGT")
    with pytest.raises(ValueError):
        format_blast6(Alignment.empty_for(q, t))


# ---------------------------------------------------------------- SAM

def test_sam_exact(plus):
    q, t, a = plus
    a.evalue = 0.0015
    buf = io.StringIO()
    with AlignmentWriter(buf, "sam", targets=[("t1", len(t)), ("other", 5)], program_line="swgpu align q.fa t.fa") as w:
        w.write(a, query_text=q.text)
    lines = _lines(buf.getvalue())
    assert lines[0] == "@HD\tVN:1.6\tSO:unsorted"
    assert lines[1] == "@SQ\tSN:t1\tLN:10"
    assert lines[2] == "@SQ\tSN:other\tLN:5"
    assert re.fullmatch(r"@PG\tID:swgpu\tPN:swgpu\tVN:\S+\tCL:swgpu align q\.fa t\.fa", lines[3])
    assert lines[4] == "q1\t0\tt1\t2\t255\t2S3=1I4=1S\t*\t0\t0\tTTACGTACGTG\t*\tAS:i:9\tNM:i:1\tZE:Z:0.0015"
    assert len(lines) == 5


def test_sam_without_query_text_hard_clips(plus):
    _, _, a = plus
    fields = format_sam(a).split("\t")
    assert fields[5] == "2H3=1I4=1H"
    assert fields[9] == "*"


@pytest.mark.parametrize("start, ops", [(0, "===I===="), (2, "===I===="), (1, "=X=D=I="), (3, "===")])
def test_sam_cigar_length_matches_seq(start, ops):
    q = Sequence.from_text("q", "TTACGTACGTGA")
    t = Sequence.from_text("t", "ACGACGTCCACGTA")
    a = Alignment.from_ops(q, t, DNA, start, 0, ops)
    fields = format_sam(a, q).split("\t")
    assert _sam_query_ops_length(fields[5]) == len(fields[9]) == len(q)


def test_sam_minus_strand(minus):
    q, t, a = minus
    fields = format_sam(a, q.text).split("\t")
    assert fields[1] == "16"
    assert fields[3] == "2"
    assert fields[5] == "2S8=2S"
    assert fields[9] == q.reverse_complement().text
    assert _sam_query_ops_length(fields[5]) == len(fields[9])


def test_sam_empty_is_unmapped(plus):
    q, t, _ = plus
    e = Alignment.empty_for(q, t)
    assert format_sam(e).split("\t") == ["q1", "4", "*", "0", "0", "*", "*", "0", "0", "*", "*"]
    assert format_sam(e, q.text).split("\t")[9] == q.text


def test_sam_needs_targets():
    with pytest.raises(ValueError, match="targets"):
        AlignmentWriter(io.StringIO(), "sam")


def test_sam_header_from_sequences():
    t = Sequence.from_text("chrA", "ACGTACGT")
    assert "@SQ\tSN:chrA\tLN:8\n" in sam_header([t, ("chrA", 8)])
    with pytest.raises(ValueError):
        sam_header([("chrA", 8), ("chrA", 9)])


def test_sam_query_text_checked(plus):
    _, _, a = plus
    with pytest.raises(ValueError):
        format_sam(a, "ACGT")  # wrong length
    with pytest.raises(ValueError):
        format_sam(a, "G" * a.query_length)  # wrong letters


# ---------------------------------------------------------------- JSON

def test_json_round_trip(plus):
    q, t, a = plus
    a.evalue = 1e-10
    d = json.loads(format_json(a))
    assert set(a.to_dict()) <= set(d)
    assert (d["query_start"], d["query_end"]) == (3, 10)
    assert (d["target_start"], d["target_end"]) == (2, 8)
    # 1-based inclusive back to slices
    assert q.text[d["query_start"] - 1:d["query_end"]] == a.query_aligned.replace("-", "")
    assert t.text[d["target_start"] - 1:d["target_end"]] == a.target_aligned.replace("-", "")
    assert d["evalue"] == 1e-10 and d["bitscore"] is None
    assert d["cigar"] == "3=1I4=" and d["score"] == 9 and d["identity"] == 0.875
    for key in ("query", "target", "matches", "gaps", "length", "strand", "query_aligned"):
        assert d[key] == a.to_dict()[key]


def test_json_lines_file_and_empty(plus, tmp_path):
    q, t, a = plus
    out = tmp_path / "out.jsonl"
    with AlignmentWriter(out, "json") as w:
        n = w.write_many([a, Alignment.empty_for(q, t), a])
    assert n == 3
    rows = [json.loads(line) for line in _lines(out.read_text())]
    assert len(rows) == 3
    assert rows[1]["length"] == 0 and rows[1]["query_start"] is None and rows[1]["target_end"] is None
    assert rows[0] == rows[2]


def test_json_nan_evalue_is_null(plus):
    a = plus[2]
    a.evalue = float("nan")
    assert json.loads(format_json(a))["evalue"] is None


# ---------------------------------------------------------------- pairwise

def test_pairwise_exact(plus):
    _, _, a = plus
    a.evalue = 0.0015
    text = format_pairwise(a, DNA)
    assert text == (
        "#=======================================\n"
        "# Query: q1 (11)\n"
        "# Target: t1 (10)\n"
        "# Score: 9\n"
        "# Length: 8\n"
        "# Identity: 7/8 (87.5%)\n"
        "# Similarity: 7/8 (87.5%)\n"
        "# Gaps: 1/8 (12.5%)\n"
        "# E-value: 0.002\n"
        "# Scoring: match2/mismatch-3, gap open 5, gap extend 2\n"
        "#=======================================\n"
        "\n"
        "q1                 3 ACGTACGT     10\n"
        "                     ||| ||||\n"
        "t1                 2 ACG-ACGT      8\n"
        "\n"
    )


def test_pairwise_blocks_and_positions():
    q = Sequence.from_text("a_very_long_query_name", "ACGT" * 30)
    t = Sequence.from_text("t", "ACGT" * 30)
    a = Alignment.from_ops(q, t, DNA, 0, 0, "=" * 120)
    text = format_pairwise(a)
    body = [line for line in _lines(text) if line and not line.startswith("#")]
    assert len(body) == 6  # two blocks of 60 columns
    # the whole name (EMBOSS pads to 13 characters but never cuts); the columns move right to fit it
    assert body[0] == "a_very_long_query_name      1 " + "ACGT" * 15 + "     60"
    assert body[3].startswith("a_very_long_query_name     61 ") and body[3].endswith("    120")
    assert body[5] == "t                          61 " + "ACGT" * 15 + "    120"
    # the aligned text starts in the same column on every line, the match line included
    assert {line.index("ACGT") for line in (body[0], body[2], body[3], body[5])} == {30}
    assert body[1] == " " * 30 + "|" * 60
    after_header = text.split("#=======================================\n")[-1]
    assert after_header.count("\n\n") == 2 and text.endswith("\n\n")  # a blank line after each block


def test_pairwise_minus_strand_counts_down(minus):
    _, _, a = minus
    body = [line for line in _lines(format_pairwise(a)) if line and not line.startswith("#")]
    assert body[0].split() == ["q2", "10", "AACGTTGC", "3"]
    assert body[2].split() == ["t2", "2", "AACGTTGC", "9"]
    assert "# Strand: -" in format_pairwise(a)


def test_pairwise_empty(plus):
    q, t, _ = plus
    text = format_pairwise(Alignment.empty_for(q, t))
    assert "# Score: 0" in text and "# Length: 0" in text
    assert "|" not in text


# ---------------------------------------------------------------- the writer

def test_invalid_format():
    with pytest.raises(InputError) as info:
        AlignmentWriter(None, "xml")
    for fmt in FORMATS:
        assert fmt in str(info.value)


def test_stdout(plus, capsys):
    _, _, a = plus
    with AlignmentWriter(None, "blast6") as w:
        w.write(a)
    with AlignmentWriter("-", "json") as w:
        w.write(a)
    out = capsys.readouterr().out
    assert _lines(out) == [format_blast6(a), format_json(a)]


def test_file_written_atomically(plus, tmp_path):
    _, _, a = plus
    out = tmp_path / "out.tsv"
    with AlignmentWriter(str(out), "blast6") as w:
        w.write(a)
        assert not out.exists()  # nothing at the final path before close
        assert len(os.listdir(tmp_path)) == 1  # the temporary file
    assert os.listdir(tmp_path) == ["out.tsv"]
    assert out.read_text() == format_blast6(a) + "\n"
    umask = os.umask(0)
    os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o666 & ~umask


def test_exception_leaves_no_file(plus, tmp_path):
    _, _, a = plus
    out = tmp_path / "out.sam"
    with pytest.raises(RuntimeError):
        with AlignmentWriter(out, "sam", targets=[("t1", 10)]) as w:
            w.write(a)
            raise RuntimeError("boom")
    assert os.listdir(tmp_path) == []


def test_exception_keeps_existing_file(plus, tmp_path):
    _, _, a = plus
    out = tmp_path / "out.txt"
    out.write_text("previous results\n")
    with pytest.raises(ValueError):
        with AlignmentWriter(out, "sam", targets=[("elsewhere", 10)]) as w:
            w.write(a)  # target not in the header
    assert os.listdir(tmp_path) == ["out.txt"]
    assert out.read_text() == "previous results\n"


def test_success_replaces_existing_file(plus, tmp_path):
    _, _, a = plus
    out = tmp_path / "out.txt"
    out.write_text("old\n")
    with AlignmentWriter(out, "pairwise", scoring=DNA) as w:
        w.write(a)
    assert out.read_text() == format_pairwise(a, DNA)


def test_write_after_close(plus, tmp_path):
    w = AlignmentWriter(tmp_path / "x.json", "json")
    w.close()
    w.close()  # idempotent
    with pytest.raises(ValueError):
        w.write(plus[2])


def test_abort_without_with(plus, tmp_path):
    w = AlignmentWriter(tmp_path / "x.json", "json")
    w.write(plus[2])
    w.abort()
    assert os.listdir(tmp_path) == []


def test_write_many_with_query_text(plus):
    q, t, a = plus
    buf = io.StringIO()
    with AlignmentWriter(buf, "sam", targets=[t]) as w:
        w.write_many([(a, q.text), a])
    records = [line.split("\t") for line in _lines(buf.getvalue()) if not line.startswith("@")]
    assert records[0][9] == q.text and records[1][9] == "*"


# ---------------------------------------------------------------- layering and protocols

def test_writers_import_nothing_above_io():
    import ast
    import pathlib

    import swgpu.io.writers as writers

    above = {"scoring", "align", "engines", "parallel", "workloads", "cli"}
    for path in pathlib.Path(writers.__file__).parent.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                if node.level == 3:  # from ...X: X is a sibling of io
                    assert node.module.split(".")[0] not in above, (path.name, node.module)
                if node.level == 0 and node.module.startswith("swgpu."):
                    assert node.module.split(".")[1] not in above, (path.name, node.module)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    parts = alias.name.split(".")
                    assert not (parts[0] == "swgpu" and parts[1:2] and parts[1] in above), (path.name, alias.name)


class _Record:
    """A plain object with the attributes of an alignment, not an Alignment."""

    def __init__(self, a):
        self._d = {k: getattr(a, k) for k in a.to_dict()}
        self.__dict__.update(self._d, match_line=a.match_line, empty=a.empty)

    def to_dict(self):
        return dict(self._d)


def test_any_alignment_record_is_written_the_same(plus, minus):
    from swgpu.io.writers import AlignmentRecord

    for q, t, a in (plus, minus):
        a.evalue, a.bitscore = 1.5e-7, 33.3
        r = _Record(a)
        assert isinstance(r, AlignmentRecord)
        assert format_blast6(r) == format_blast6(a)
        assert format_sam(r, q.text) == format_sam(a, q.text)
        assert format_json(r) == format_json(a)
        assert format_pairwise(r, DNA) == format_pairwise(a, DNA)


def test_pairwise_scoring_needs_only_describe(plus):
    class Described:
        def describe(self):
            return "my scoring"

    assert "# Scoring: my scoring\n" in format_pairwise(plus[2], Described())


def test_errors_name_the_parameter(plus, tmp_path):
    with pytest.raises(InputError) as info:
        AlignmentWriter(None, "xml")
    assert info.value.param == "format" and "--" not in str(info.value)
    with pytest.raises(InputError) as info:
        AlignmentWriter(None, "sam")
    assert info.value.param == "targets"
    with pytest.raises(InputError) as info:
        format_sam(plus[2], "ACGT")
    assert info.value.param == "query_text"
    with pytest.raises(InputError) as info:
        format_pairwise(plus[2], width=0)
    assert info.value.param == "width"
    for bad in (tmp_path / "nodir" / "out.txt", tmp_path):
        with pytest.raises(InputError) as info:
            AlignmentWriter(bad, "json")
        assert info.value.param == "output" and str(bad) in str(info.value)
    assert os.listdir(tmp_path) == []
