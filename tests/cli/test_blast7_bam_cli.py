"""The command line's blast7 (``--outfmt 7``, ``-f blast7``) and bam outputs."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from swgpu._version import __version__
from swgpu.io.writers.bam import bam_available

EXAMPLES = Path(str(resources.files("swgpu").joinpath("data", "examples")))
QUERIES = EXAMPLES / "queries.fasta"
TARGETS = EXAMPLES / "targets.fasta"
STD_FIELDS = ("# Fields: query id, subject id, % identity, alignment length, mismatches, gap opens, q. start, "
              "q. end, s. start, s. end, evalue, bit score")
PROGRAM = f"# SWGPU {__version__}"
NEEDS_PYSAM = pytest.mark.skipif(not bam_available(), reason="pysam is not installed (pip install 'swgpu[bam]')")


@pytest.fixture
def three(tmp_path):
    """The two example queries and one that hits nothing."""
    (tmp_path / "q3.fa").write_text(QUERIES.read_text() + ">nohit a query without hits\nWWWWCCCCWWWWCCCC\n")
    return tmp_path / "q3.fa"


def _blocks(text: str) -> list[list[str]]:
    """The lines of each query's block (from its program line on), and the last line alone."""
    lines = text.splitlines()
    starts = [k for k, line in enumerate(lines) if line == PROGRAM]
    return [lines[a:b] for a, b in zip(starts, starts[1:] + [len(lines) - 1])] + [lines[-1:]]


def test_search_outfmt_7_is_blast_s_commented_table(run_cli, three):
    search = ["search", "-q", three, "-d", TARGETS, "--device", "cpu", "--evalue", "1e-3"]
    code, out, err = run_cli(search + ["--outfmt", "7"])
    assert code == 0, err
    _, rows6, _ = run_cli(search + ["--outfmt", "6"])
    *blocks, last = _blocks(out)
    assert last == ["# BLAST processed 3 queries"]
    assert [b[:5] for b in blocks[:2]] == [
        [PROGRAM, "# Query: P02232 Swiss-Prot P02232, 144 aa", f"# Database: {TARGETS}", STD_FIELDS,
         "# 2 hits found"],
        [PROGRAM, "# Query: P09187_fragment residues 21-110 of Swiss-Prot P09187 with one substitution and a "
                  "5-residue deletion", f"# Database: {TARGETS}", STD_FIELDS, "# 2 hits found"]]
    assert blocks[2] == [PROGRAM, "# Query: nohit a query without hits", f"# Database: {TARGETS}", "# 0 hits found"]
    assert [line for b in blocks for line in b[5:]] == rows6.splitlines()
    for same in (["-f", "blast7"], ["--outfmt", "7 std"], ["--outfmt", "qseqid sseqid pident length mismatch "
                                                           "gapopen qstart qend sstart send evalue bitscore",
                                                           "-f", "blast7"]):
        assert run_cli(search + same)[1] == out
    code, _, _ = run_cli(search + ["-o", "hits.blast7"], three.parent)
    assert code == 0 and (three.parent / "hits.blast7").read_text() == out


@pytest.mark.parametrize("flags, words", [
    (["-f", "blast6", "--outfmt", "7 qseqid"], ["--outfmt: 7 asks for blast7 output, not blast6 (-f blast6)"]),
    (["-f", "blast7", "--outfmt", "6 qseqid"], ["--outfmt: 6 asks for blast6 output, not blast7 (-f blast7)"]),
    (["-f", "sam", "--outfmt", "7 qseqid"], ["blast6 and blast7 output, not sam"]),
    (["--outfmt", "7 qseqid staxid"], ["--outfmt: column 'staxid' is BLAST's", "btop"]),
])
def test_outfmt_7_refusals_are_one_line(run_cli, tmp_path, flags, words):
    code, out, err = run_cli(["search", "-q", QUERIES, "-d", TARGETS, "--device", "cpu", "-o", "x.out", *flags],
                             tmp_path)
    assert (code, out) == (2, "") and err.count("\n") == 1, err
    assert all(w in err for w in words), err
    assert list(tmp_path.iterdir()) == []


def test_align_and_scan_name_the_target_file_as_blast_does(run_cli, three):
    code, out, err = run_cli(["align", three, TARGETS, "--outfmt", "7 qseqid sseqid score btop",
                              "--min-score", "200", "--device", "cpu"])
    assert code == 0, err
    *blocks, last = _blocks(out)
    assert last == ["# BLAST processed 3 queries"]
    assert {b[2] for b in blocks} == {f"# Database: User specified sequence set (Input: {TARGETS})"}
    assert [b[4:] for b in blocks] == [
        ["# 2 hits found", "P02232\tP09187\t547\t" + "1GS2ED9SWQELA4PLSPNR3LF3IVIV1QE3TA2AGML5DN2GE1VQ3KQ1GQ8ML12EG3-"
         "G1GAKTDL1SA2IVQR3LV18SA8SNAT7GA6AK1", "P02232\tP02232\t719\t144"],
        ["# 2 hits found", "P09187_fragment\tP09187\t403\t30WA29-G-G-V-V-L25",
         "P09187_fragment\tP02232\t305\t1LPPSRN3FL3VIVI1EQ3AT2GALM5ND1WAEG1QV3QK1QG8LM12DEAVTV1-D-G-K-D1AS2VIRQ3VL10"],
        []]
    assert blocks[2][3] == "# 0 hits found"
    assert blocks[0][3] == "# Fields: query id, subject id, score, BTOP"
    ref = three.parent / "ref.fa"
    ref.write_text(">ref\n" + "ACGT" * 30 + "GATTACAGATTACAGGGCCCTTTAAAGGG" + "TTGCA" * 20 + "\n")
    (three.parent / "probe.fa").write_text(">p1 a probe\nGATTACAGATTACAGGGCCCTTTAAAGGG\n>p2\nCCCTTTAAAGGGCCCTGTAATCTGTAATC\n")
    code, out, err = run_cli(["scan", "-q", three.parent / "probe.fa", "-g", ref, "--min-score", "40", "--top", "1",
                              "-f", "blast7", "--device", "cpu"])
    assert code == 0, err
    lines = out.splitlines()
    assert "# Query: p1 a probe" in lines and "# Query: p2" in lines
    assert f"# Database: User specified sequence set (Input: {ref})" in lines


def test_screen_blast7_has_a_block_per_pair_across_parts(run_cli, tmp_path, monkeypatch):
    from swgpu.cli import screen_parts

    rng = np.random.default_rng(3)
    q, t = [], []
    for k in range(40):
        target = "".join(rng.choice(list("ACGT"), 60))
        read = target[10:40] if k % 3 else "".join(rng.choice(list("ACGT"), 30))
        q.append(f">r{k}\n{read}\n")
        t.append(f">w{k}\n{target}\n")
    (tmp_path / "q.fa").write_text("".join(q))
    (tmp_path / "t.fa").write_text("".join(t))
    args = ["screen", "-q", "q.fa", "-t", "t.fa", "--threshold", "40", "--device", "cpu", "--outfmt",
            "7 qseqid sseqid score btop sseq"]
    code, whole, err = run_cli(args, tmp_path)
    assert code == 0, err
    monkeypatch.setattr(screen_parts, "CPU_PART", 7)  # several parts
    assert run_cli(args, tmp_path)[1] == whole
    *blocks, last = _blocks(whole)
    assert last == ["# BLAST processed 40 queries"] and [b[1] for b in blocks] == [f"# Query: r{k}" for k in range(40)]
    assert {b[2] for b in blocks} == {"# Database: User specified sequence set (Input: t.fa)"}
    assert sum(b[-1] == "# 0 hits found" for b in blocks) >= 10


@pytest.mark.parametrize("fmt", ["blast6", "blast7"])
def test_compiled_and_record_paths_write_the_same_letters_columns(run_cli, tmp_path, monkeypatch, fmt):
    import swgpu.io.compiled as compiled

    args = ["align", QUERIES, TARGETS, "--device", "cpu", "--strand", "plus", "-f", fmt, "--outfmt",
            f"{fmt[-1]} qseqid sseqid qseq sseq btop frames sframe qacc sallseqid"]
    outs = []
    for worth in (lambda n: True, lambda n: False):
        monkeypatch.setattr(compiled, "worth", worth)
        code, out, err = run_cli(args)
        assert code == 0, err
        outs.append(out)
    assert outs[0] == outs[1] and outs[0].count("\n") >= 80


@pytest.mark.skipif(shutil.which("blastp") is None, reason="BLAST+ (blastp) is not installed")
def test_structure_and_best_hits_equal_blastp_s(run_cli, three, tmp_path):
    cols = "qseqid sseqid pident length mismatch gapopen qstart qend sstart send btop qseq sseq"
    blast = subprocess.run(["blastp", "-query", str(three), "-subject", str(TARGETS), "-outfmt", f"7 {cols}"],
                           capture_output=True, text=True, check=True).stdout
    code, ours, err = run_cli(["align", three, TARGETS, "--min-score", "100", "--device", "cpu", "--outfmt",
                               f"7 {cols}"])
    assert code == 0, err

    def shape(text):  # each query's comment lines (not the program's, not the count) and rows
        return [([x for x in block[1:] if x.startswith("# ") and not x.endswith(" hits found")],
                 [x for x in block if not x.startswith("#")]) for block in _blocks(text)[:-1]]

    theirs = shape(blast.replace(blast.splitlines()[0], PROGRAM))
    assert [c for c, _ in shape(ours)] == [c for c, _ in theirs]
    for (_, rows), (_, best) in zip(shape(ours), theirs):  # BLAST's two best hits, column for column
        assert set(best[:2]) <= set(rows)
    assert blast.startswith("# BLASTP ") and ours.startswith(PROGRAM + "\n")
    assert blast.splitlines()[-1] == ours.splitlines()[-1] == "# BLAST processed 3 queries"


@NEEDS_PYSAM
@pytest.mark.parametrize("command", ["search", "align", "screen"])
def test_bam_holds_the_sam_records(run_cli, tmp_path, command):
    import pysam

    (tmp_path / "q.fa").write_text(">a read\nACGTACGTTTGACCAGATTACA\n>b\nGGGGCCCCAAAATTTTGCGC\n")
    (tmp_path / "t.fa").write_text(">x\nTTACGTACGTTTGACCAGATTACAGG\n>y\nGGGGCCCCAAAATTTTGCGCAAAA\n")
    base = {"screen": ["screen", "-q", "q.fa", "-t", "t.fa", "--threshold", "10"],
            "search": ["search", "-q", "q.fa", "-d", "t.fa", "--strand", "both"],
            "align": ["align", "q.fa", "t.fa", "--min-score", "10"]}[command] + ["--device", "cpu"]
    assert run_cli(base + ["-o", "x.sam"], tmp_path)[0] == 0
    assert run_cli(base + ["-o", "x.bam"], tmp_path)[0] == 0
    assert run_cli(base + ["-f", "bam", "-o", "y.out"], tmp_path)[0] == 0
    sam = (tmp_path / "x.sam").read_text().splitlines()
    assert len(sam) > 4
    for name in ("x.bam", "y.out"):
        with pysam.AlignmentFile(str(tmp_path / name), "rb") as bam:
            assert [r.to_string() for r in bam] == [x for x in sam if not x.startswith("@")]
            assert [x for x in str(bam.header).splitlines() if not x.startswith("@PG")] == \
                [x for x in sam if x.startswith(("@HD", "@SQ"))]


@NEEDS_PYSAM
def test_bam_of_protein_is_refused_and_leaves_nothing(run_cli, tmp_path):
    code, out, err = run_cli(["search", "-q", QUERIES, "-d", TARGETS, "--device", "cpu", "-o", "x.bam"], tmp_path)
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert "BAM stores sequences as nucleotides" in err and "-f sam" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("flags, flag", [(["-o", "x.bam"], "-o"), (["-f", "bam", "-o", "x.out"], "--format")])
def test_bam_without_pysam_is_one_line_before_any_work(run_cli, tmp_path, monkeypatch, flags, flag):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pysam" else real(name, *a))
    code, out, err = run_cli(["search", "-q", QUERIES, "-d", TARGETS, "--device", "cpu", *flags], tmp_path)
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert err.startswith(f"swgpu: error: {flag}") and "pip install 'swgpu[bam]'" in err, err
    assert list(tmp_path.iterdir()) == []


@NEEDS_PYSAM
def test_the_documented_bam_command_runs(run_cli, tmp_path):
    """docs/formats.md shows it outside the blocks that tests/test_doc_commands.py runs (it needs pysam)."""
    import pysam

    command = "swgpu screen -q reads.fa -t windows.fa --threshold 100 -o hits.bam --device cpu"
    assert command in (Path(__file__).resolve().parents[2] / "docs" / "formats.md").read_text()
    rng = np.random.default_rng(8)
    windows = ["".join(rng.choice(list("ACGT"), 200)) for _ in range(6)]
    (tmp_path / "windows.fa").write_text("".join(f">w{k}\n{w}\n" for k, w in enumerate(windows)))
    (tmp_path / "reads.fa").write_text("".join(f">r{k}\n{w[20:170]}\n" for k, w in enumerate(windows)))
    code, _, err = run_cli(command.split()[1:], tmp_path)
    assert code == 0, err
    with pysam.AlignmentFile(str(tmp_path / "hits.bam"), "rb") as bam:
        assert [r.query_name for r in bam] == [f"r{k}" for k in range(6)]
