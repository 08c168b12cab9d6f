"""End points found in one run and traced in another (``--ends-out``, then
``--ends-in``): the same end points and alignments as one run; tables of
other inputs, or damaged ones, refused with one line."""

from __future__ import annotations

import io
import random
import re

import pytest

from swgpu import Scoring, Sequence
from swgpu.cli import main
from swgpu.exceptions import InputError
from swgpu.workloads.longalign import EndPoint, LongAligner, read_end_points, write_end_points

COMP = str.maketrans("ACGT", "TGCA")


def _mutated(rng, s, rate=0.02):
    out = []
    for c in s:
        x = rng.random()
        if x < rate:
            out.append(rng.choice("ACGT"))
        elif x < rate + 0.002:
            continue
        elif x < rate + 0.004:
            out.append(c + rng.choice("ACGT"))
        else:
            out.append(c)
    return "".join(out)


@pytest.fixture(scope="module")
def genome(tmp_path_factory):
    """A 1.5 kbp region, and two records holding a mutated copy of it (plus
    strand) and of most of it (minus strand) among random letters."""
    rng = random.Random(11)
    rand = lambda n: "".join(rng.choice("ACGT") for _ in range(n))  # noqa: E731
    q = rand(1500)
    c1 = rand(2000) + _mutated(rng, q) + rand(1500)
    c2 = rand(900) + _mutated(rng, q[200:1300]).translate(COMP)[::-1] + rand(700)
    d = tmp_path_factory.mktemp("ends")
    (d / "q.fa").write_text(f">region\n{q}\n")
    (d / "g.fa").write_text(f">c1\n{c1}\n>c2\n{c2}\n")
    return d


def _run(argv, capsys):
    code = main(argv)
    return code, capsys.readouterr().err


def test_traced_from_the_table_as_in_one_run(genome, capsys):
    q, g = str(genome / "q.fa"), str(genome / "g.fa")
    common = [q, g, "--device", "cpu", "--separation", "100", "--quiet"]
    one = genome / "one.sam"
    assert main(["align", *common, "--ends", "6", "--alignments", "3", "--ends-out", str(genome / "e1.tsv"),
                 "-f", "sam", "-o", str(one)]) == 0
    assert main(["align", *common, "--ends", "6", "--alignments", "0", "--ends-out", str(genome / "e2.tsv"),
                 "-o", str(genome / "none.txt")]) == 0
    two = genome / "two.sam"
    assert main(["align", *common, "--ends-in", str(genome / "e2.tsv"), "--alignments", "3", "-f", "sam",
                 "-o", str(two)]) == 0
    assert (genome / "e1.tsv").read_text() == (genome / "e2.tsv").read_text()
    body = [[line for line in p.read_text().splitlines() if not line.startswith("@PG")] for p in (one, two)]
    assert body[0] == body[1]
    records = [line for line in body[0] if not line.startswith("@")]
    assert len(records) == 3 and {r.split("\t")[1] for r in records[:2]} == {"0", "16"}  # both strands


def test_the_api_traces_what_align_traced(genome):
    from swgpu import read_sequences

    query = read_sequences(genome / "q.fa", "dna")[0]
    targets = read_sequences(genome / "g.fa", "dna")
    aligner = LongAligner(Scoring.default("dna"), device="cpu", separation=100)
    found = aligner.align(query, targets, top=4, alignments=2)
    again = aligner.trace(query, targets, found.end_points, alignments=2)
    assert again.end_points == found.end_points
    assert [(a.target, a.score, a.strand, a.cigar, a.target_start) for a in again.alignments] == \
        [(a.target, a.score, a.strand, a.cigar, a.target_start) for a in found.alignments]
    assert aligner.trace(query, targets, found.end_points, alignments=0).alignments == []


def test_table_round_trip():
    points = [EndPoint(918004, "+", "chr4", 1207331), EndPoint(5, "-", "chr X", 1)]
    out = io.StringIO()
    write_end_points(out, [("a region", points), ("empty", [])])
    assert read_end_points(io.StringIO(out.getvalue()), "t.tsv") == {"a region": points}


@pytest.mark.parametrize("text, says", [
    ("1\tregion\tc1\t+\t3500\n", "t.tsv line 1: 5 tab-separated columns, expected 6"),
    ("#x\n1\tregion\tc1\t+\tend\t5\n", "t.tsv line 2: rank, target_end and score must be whole numbers"),
    ("1\tregion\tc1\tx\t3500\t5\n", "strand 'x'"),
    ("1\tregion\tc1\t+\t0\t5\n", "at least 1"),
    ("1\tregion\tc1\t+\t9\t5\n1\tregion\tc1\t+\t99\t5\n", "t.tsv line 2: rank 1 of region given twice"),
])
def test_damaged_tables_are_refused_with_the_line(text, says):
    with pytest.raises(InputError, match=says):
        read_end_points(io.StringIO(text), "t.tsv")


@pytest.mark.parametrize("row, says", [
    ("1\tregion\tc9\t+\t3500\t1432", "on 'c9', a name not among the targets"),
    ("1\tregion\tc1\t+\t9999\t1432", "ends at c1:9999, past the record's [0-9,]+ letters"),
    ("1\tregion\tc1\t+\t3500\t1", "scores .*, not the 1 given for it"),
    ("1\tother\tc1\t+\t3500\t1432", "lists end points of 'other', which is not a record of"),
])
def test_end_points_of_other_inputs_are_refused(genome, capsys, row, says):
    table = genome / "bad.tsv"
    table.write_text(f"#rank\tquery\ttarget\tstrand\ttarget_end\tscore\n{row}\n")
    out = genome / "bad.sam"
    code, err = _run(["align", str(genome / "q.fa"), str(genome / "g.fa"), "--device", "cpu", "--ends-in",
                      str(table), "-f", "sam", "-o", str(out), "--quiet"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert re.search(says, err), err
    assert not out.exists()


def test_ends_and_ends_in_together_are_refused(genome, capsys):
    code, err = _run(["align", str(genome / "q.fa"), str(genome / "g.fa"), "--ends", "3", "--ends-in",
                      str(genome / "e1.tsv"), "--device", "cpu"], capsys)
    assert code == 2 and "either --ends" in err


def test_protein_end_points_are_on_the_plus_strand_only():
    q = Sequence.from_text("q", "MKTAYIAKQRQISFVKSHFSRQ", "protein")
    t = Sequence.from_text("t", "GGGG" + "MKTAYIAKQRQISFVKSHFSRQ" + "GGGG", "protein")
    aligner = LongAligner(Scoring.default("protein"), device="cpu")
    with pytest.raises(InputError, match="the - strand"):
        aligner.trace(q, [t], [EndPoint(100, "-", "t", 26)])
    best = aligner.align(q, [t], top=1)
    assert aligner.trace(q, [t], best.end_points).alignments[0].cigar == "22="
