"""The blast7 format: BLAST ``-outfmt 7``'s comment lines around each query's rows."""

from __future__ import annotations

import io

import numpy as np
import pytest

from swgpu._version import __version__
from swgpu.align.alignment import Alignment
from swgpu.align.batch import AlignmentBatch
from swgpu.exceptions import InputError
from swgpu.io.sequence import Sequence
from swgpu.io.texts import Texts
from swgpu.io.writers import AlignmentWriter, format_blast6
from swgpu.io.writers.blast6 import COLUMNS, NOT_WRITTEN, STD_COLUMNS, parse_columns
from swgpu.io.writers.blast7 import FIELD_NAMES, Blast7Report, fields_line, subject_set
from swgpu.scoring import Scoring

DNA = Scoring.default("dna")
PROGRAM = f"# SWGPU {__version__}"

#: ``blastp -outfmt "7 <all the columns BLAST+ 2.12 knows>"``: its # Fields: line, column by column.
BLAST_FIELDS = (
    "query id, query gi, query acc., query acc.ver, query length, subject id, subject ids, subject gi, "
    "subject gis, subject acc., subject acc.ver, subject accs., subject length, q. start, q. end, s. start, "
    "s. end, query seq, subject seq, evalue, bit score, score, alignment length, % identity, identical, "
    "mismatches, positives, gap opens, gaps, % positives, query/sbjct frames, query frame, sbjct frame, BTOP, "
    "subject tax id, subject sci name, subject com names, subject blast name, subject super kingdom, "
    "subject tax ids, subject sci names, subject com names, subject blast names, subject super kingdoms, "
    "subject title, subject titles, subject strand, % query coverage per subject, % query coverage per hsp, "
    "% query coverage per uniq subject")
BLAST_NAMES = ("qseqid qgi qacc qaccver qlen sseqid sallseqid sgi sallgi sacc saccver sallacc slen qstart qend "
               "sstart send qseq sseq evalue bitscore score length pident nident mismatch positive gapopen gaps "
               "ppos frames qframe sframe btop staxid ssciname scomname sblastname sskingdom staxids sscinames "
               "scomnames sblastnames sskingdoms stitle salltitles sstrand qcovs qcovhsp qcovus").split()


def _aln(qname, qtext, tname, ttext, ops="=" * 8, qs=0, ts=0):
    q, t = Sequence.from_text(qname, qtext), Sequence.from_text(tname, ttext)
    return Alignment.from_ops(q, t, DNA, qs, ts, ops)


@pytest.fixture
def hits():
    return [_aln("q1", "ACGTACGT", "t1", "ACGTACGT"), _aln("q1", "ACGTACGT", "t2", "TACGTACGTA", ts=1),
            _aln("q3", "GGGGCCCC", "t1", "GGGGCCCC")]


def test_field_names_are_blast_plus_ones():
    blast = dict(zip(BLAST_NAMES, BLAST_FIELDS.split(", ")))
    assert len(blast) == len(BLAST_NAMES)
    for name in COLUMNS:
        if name in blast:
            assert FIELD_NAMES[name] == blast[name], name
    assert set(COLUMNS) - set(blast) == {"cigar", "strand"}  # swgpu's own
    assert set(blast) - set(COLUMNS) == set(NOT_WRITTEN)
    assert set(FIELD_NAMES) == set(COLUMNS)
    assert fields_line(STD_COLUMNS) == ("# Fields: query id, subject id, % identity, alignment length, mismatches, "
                                        "gap opens, q. start, q. end, s. start, s. end, evalue, bit score")


def test_blast_columns_swgpu_does_not_write_are_refused_by_name():
    for name in NOT_WRITTEN:
        with pytest.raises(InputError) as info:
            parse_columns(f"7 qseqid {name}")
        assert info.value.param == "columns" and f"'{name}' is BLAST's" in info.value.message
        assert "\n" not in info.value.message


def test_queries_in_order_with_zero_hits(hits):
    buf = io.StringIO()
    with AlignmentWriter(buf, "blast7", queries=[("q1", "first query"), "q2", ("q3", "")],
                         database="db.swdb") as w:
        for a in hits:
            w.write(a)
    rows = [format_blast6(a, STD_COLUMNS) for a in hits]
    fields = fields_line(STD_COLUMNS)
    assert buf.getvalue().splitlines() == [
        PROGRAM, "# Query: q1 first query", "# Database: db.swdb", fields, "# 2 hits found", rows[0], rows[1],
        PROGRAM, "# Query: q2", "# Database: db.swdb", "# 0 hits found",
        PROGRAM, "# Query: q3", "# Database: db.swdb", fields, "# 1 hits found", rows[2],
        "# BLAST processed 3 queries"]
    assert w.count == 3


def test_blocks_are_written_when_finished_in_query_order(hits):
    buf = io.StringIO()
    w = AlignmentWriter(buf, "blast7", queries=["q1", "q2", "q3"], columns="7 qseqid sseqid")
    w.write(hits[2])
    w.finish_query("q3")
    assert buf.getvalue() == ""  # q1 and q2 come first
    w.write(hits[0])
    w.finish_queries(1)
    assert buf.getvalue().splitlines()[-1] == "q1\tt1"
    w.finish_query(1)  # q2, by index: its block and q3's
    text = buf.getvalue()
    assert text.count("# Query:") == 3 and text.endswith("q3\tt1\n")
    with pytest.raises(ValueError):
        w.write(hits[1], query=0)  # q1 is finished
    w.close()
    assert buf.getvalue().endswith("# BLAST processed 3 queries\n")


def test_rows_of_queries_not_given_add_them(hits):
    buf = io.StringIO()
    with AlignmentWriter(buf, "blast7", columns=["qseqid"]) as w:
        w.write_many(hits)
    lines = buf.getvalue().splitlines()
    assert [x for x in lines if x.startswith("# Query")] == ["# Query: q1", "# Query: q3"]
    assert "# Database" not in buf.getvalue() and lines[-1] == "# BLAST processed 2 queries"
    assert subject_set("t.fa") == "User specified sequence set (Input: t.fa)"


def test_duplicate_query_names_go_by_index(hits):
    report = Blast7Report(["qseqid"])
    report.add_queries(["q1", "q1"])
    report.add_rows(b"q1\n", 1, index=1)
    report.add_rows(b"q1\n", 1, name="q1")  # the first not finished q1
    assert report.end().decode().count("# 1 hits found") == 2


def test_format_numbers_must_match_the_format():
    with pytest.raises(InputError) as info:
        AlignmentWriter(None, "blast7", columns="6 qseqid")
    assert "format 7, not 6" in info.value.message
    assert AlignmentWriter(io.StringIO(), "blast7", columns="7").columns == STD_COLUMNS
    assert AlignmentWriter(io.StringIO(), "blast7").columns == STD_COLUMNS  # as BLAST's -outfmt 7


def test_columns_path_equals_record_path(hits):
    batch = AlignmentBatch.from_alignments(hits, query_index=[0, 0, 2], target_index=[0, 1, 0])
    qnames, tnames = Texts.from_strings(["q1", "q2", "q3"]), Texts.from_strings(["t1", "t2"])
    got = []
    for offset in (None, 0):
        buf = io.StringIO()
        with AlignmentWriter(buf, "blast7", queries=["q1", "q2", "q3"], database="d") as w:
            assert w.write_columns(batch, qnames, tnames, query_offset=offset)
        got.append(buf.getvalue())
    buf = io.StringIO()
    with AlignmentWriter(buf, "blast7", queries=["q1", "q2", "q3"], database="d") as w:
        w.write_many(hits)
    assert got == [buf.getvalue()] * 2


def test_biopython_reads_the_blast7_output(hits, tmp_path):
    SearchIO = pytest.importorskip("Bio.SearchIO", reason="Biopython is not installed")
    out = tmp_path / "hits.blast7"
    for a in hits:
        a.evalue, a.bitscore = 2e-5, 15.5
    with AlignmentWriter(out, "blast7", queries=[("q1", "first"), "q2", "q3"], database="db",
                         columns="7 qseqid sseqid pident length evalue bitscore qseq sseq btop") as w:
        w.write_many(hits)
    results = list(SearchIO.parse(str(out), "blast-tab", comments=True))
    assert [(r.id, len(r)) for r in results] == [("q1", 2), ("q2", 0), ("q3", 1)]
    assert results[0].description == "first" and results[0].target == "db"
    assert np.isclose(results[0][0][0].ident_pct, 100.0)
