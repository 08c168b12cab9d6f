"""Output control of the command line: ``--outfmt`` columns, the format taken
from ``-o``'s extension, the E-value cut-off of ``search``, full names in the
pairwise view."""

from __future__ import annotations

import json
import random
from importlib import resources
from pathlib import Path

import pytest

from swgpu.io.writers.blast6 import BLAST6_COLUMNS, COLUMNS, STD_COLUMNS

EXAMPLES = Path(str(resources.files("swgpu").joinpath("data", "examples")))
QUERIES = EXAMPLES / "queries.fasta"
TARGETS = EXAMPLES / "targets.fasta"
SEARCH = ["search", "-q", QUERIES, "-d", TARGETS, "--device", "cpu"]


def _rows(text: str) -> list[list[str]]:
    return [line.split("\t") for line in text.splitlines()]


@pytest.fixture
def described(tmp_path):
    """Targets with descriptions (one without) and a query that hits them all."""
    (tmp_path / "q.fa").write_text(">q1 the query\nMKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQ\n")
    (tmp_path / "t.fa").write_text(">t1 first target, 33 aa\nMKTAYIAKQRQISFVKSHFSRQLEERLGLIEVQ\n"
                                   ">t2\nMKTAYIAKQRQISFVKSHFSRQ\n"
                                   ">t3 third  target\nAKQRQISFVKSHFSRQLEERLG\n")
    return tmp_path


# ------------------------------------------------------------------ --outfmt

def test_default_columns_unchanged(run_cli):
    code, out, _ = run_cli(SEARCH)
    assert code == 0
    assert {len(r) for r in _rows(out)} == {16}
    assert BLAST6_COLUMNS == STD_COLUMNS + ("score", "qlen", "slen", "cigar")


@pytest.mark.parametrize("spec", ["qseqid sseqid evalue score", "qseqid,sseqid,evalue,score",
                                  "6 qseqid sseqid evalue score", " 6  qseqid, sseqid evalue,score "])
def test_outfmt_selects_columns_in_order(run_cli, spec):
    _, full, _ = run_cli(SEARCH)
    code, out, err = run_cli(SEARCH + ["--outfmt", spec])
    assert code == 0, err
    assert _rows(out) == [[r[0], r[1], r[10], r[12]] for r in _rows(full)]


def test_outfmt_6_alone_is_blast_std(run_cli):
    _, full, _ = run_cli(SEARCH)
    code, out, _ = run_cli(SEARCH + ["--outfmt", "6"])
    assert code == 0
    assert _rows(out) == [r[:12] for r in _rows(full)]
    _, std, _ = run_cli(SEARCH + ["--outfmt", "std qlen"])
    assert _rows(std) == [r[:12] + [r[13]] for r in _rows(full)]


def test_outfmt_stitle_qcovs_strand(run_cli, described):
    cols = ["--outfmt", "qseqid sseqid stitle qcovs strand sstrand nident"]
    code, out, err = run_cli(["search", "-q", "q.fa", "-d", "t.fa", "--device", "cpu", *cols], described)
    assert code == 0, err
    rows = {r[1]: r for r in _rows(out)}
    assert rows["t1"][2] == "t1 first target, 33 aa"      # BLAST's stitle: ID, a space, the description
    assert rows["t2"][2] == "t2"                          # no description: the ID alone
    assert rows["t3"][2] == "t3 third  target"
    assert rows["t1"][3] == "100" and rows["t2"][3] == str(round(100 * 22 / 33))  # this alignment's query span
    assert {r[4] for r in rows.values()} == {"+"} and {r[5] for r in rows.values()} == {"plus"}
    assert rows["t1"][6] == "33"
    # align takes the descriptions from the target file
    code, out, err = run_cli(["align", "q.fa", "t.fa", *cols], described)
    assert code == 0, err
    assert [r[2] for r in _rows(out)] == ["t1 first target, 33 aa", "t2", "t3 third  target"]


def test_outfmt_unknown_column_lists_the_names(run_cli, tmp_path):
    code, out, err = run_cli(SEARCH + ["--outfmt", "qseqid bits", "-o", "hits.tsv"], tmp_path)
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert err.startswith("swgpu: error: --outfmt: unknown column 'bits': choose from qseqid, sseqid,")
    assert all(name in err for name in COLUMNS)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("extra, words", [
    (["-f", "sam"], ["--outfmt", "blast6", "sam"]),
    (["-o", "hits.sam"], ["--outfmt", "blast6", "hits.sam"]),
    ([], ["--outfmt", "formats 6 and 7", "not 5"]),
])
def test_outfmt_needs_blast6(run_cli, tmp_path, extra, words):
    spec = "5 qseqid" if not extra else "qseqid"
    code, out, err = run_cli(SEARCH + ["--outfmt", spec, *extra], tmp_path)
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert all(w in err for w in words), err


def test_outfmt_makes_align_write_blast6(run_cli):
    code, out, _ = run_cli(["align", QUERIES, TARGETS, "--outfmt", "qseqid sseqid score", "--min-score", "700"])
    assert code == 0
    assert _rows(out) == [["P02232", "P02232", "719"]]


# ------------------------------------------------------------------ format from -o's name

@pytest.mark.parametrize("name, first", [
    ("hits.sam", "@HD\tVN:1.6"), ("hits.SAM", "@HD\tVN:1.6"), ("hits.json", '{"query":'),
    ("hits.jsonl", '{"query":'), ("hits.m8", "P02232\tP02232\t"), ("hits.blast6", "P02232\tP02232\t"),
    ("hits.tsv", "P02232\tP02232\t"), ("hits.txt", "P02232\tP02232\t"), ("hits", "P02232\tP02232\t"),
])
def test_search_format_from_output_name(run_cli, tmp_path, name, first):
    code, _, err = run_cli(SEARCH + ["-o", name], tmp_path)
    assert code == 0, err
    assert (tmp_path / name).read_text().startswith(first)


@pytest.mark.parametrize("name, first", [("out.txt", "# Program: swgpu"), ("out.tsv", "P02232\t"),
                                         ("out.sam", "@HD"), ("out", "# Program: swgpu")])
def test_align_format_from_output_name(run_cli, tmp_path, name, first):
    code, _, err = run_cli(["align", QUERIES, TARGETS, "--min-score", "700", "-o", name], tmp_path)
    assert code == 0, err
    assert (tmp_path / name).read_text().startswith(first)


def test_format_option_wins_over_the_name(run_cli, tmp_path):
    code, _, _ = run_cli(SEARCH + ["-f", "json", "-o", "hits.sam"], tmp_path)
    assert code == 0
    assert json.loads((tmp_path / "hits.sam").read_text().splitlines()[0])["query"] == "P02232"


@pytest.mark.parametrize("name, fmt", [("hits.sam.gz", "sam"), ("hits.jsonl.bz2", "json"),
                                       ("hits.m8.xz", "blast6"), ("hits.txt.gz", "blast6"),
                                       ("hits.sam.zst", "sam")])
def test_compressed_name_uses_the_extension_before(name, fmt):
    from swgpu.cli.options import format_from_name

    assert (format_from_name(name) or "blast6") == fmt


# ------------------------------------------------------------------ E-value cut-off

@pytest.fixture
def random_proteins(tmp_path):
    rng = random.Random(11)
    letters = "ACDEFGHIKLMNPQRSTVWY"
    (tmp_path / "q.fa").write_text(">q\n" + "".join(rng.choice(letters) for _ in range(60)) + "\n")
    (tmp_path / "db.fa").write_text("".join(f">s{i}\n" + "".join(rng.choice(letters) for _ in range(200)) + "\n"
                                            for i in range(300)))
    return tmp_path


def test_search_default_evalue_is_10(run_cli, random_proteins):
    base = ["search", "-q", "q.fa", "-d", "db.fa", "--device", "cpu", "--top", "40", "--outfmt", "sseqid evalue"]
    code, out, err = run_cli(base + ["--evalue", "1000"], random_proteins)
    assert code == 0, err
    everything = [(s, float(e)) for s, e in _rows(out)]
    assert len(everything) == 40 and max(e for _, e in everything) > 10  # weak hits, as BLAST would not show
    code, out, err = run_cli(base, random_proteins)
    assert code == 0, err
    kept = [(s, float(e)) for s, e in _rows(out)]
    assert kept == [(s, e) for s, e in everything if e <= 10]
    _, explicit, _ = run_cli(base + ["--evalue", "10"], random_proteins)
    assert explicit == out


def test_search_without_statistics_has_no_default_cut(run_cli, tmp_path):
    # match 5, mismatch -1: random letters score more the longer they are (no
    # logarithmic regime), so no E-values: no cut-off, and no error for the default
    (tmp_path / "q.fa").write_text(">q\nACGTTGCAAGGCTTACGATCGATTACG\n")
    (tmp_path / "t.fa").write_text(">t\nGGACGTTGCAGGCTTACCGATCGATACGTT\n>u\nTTTTTTTTTTTTTTTTTTGA\n")
    linear = ["--match", "5", "--mismatch", "-1"]
    code, out, err = run_cli(["search", "-q", "q.fa", "-d", "t.fa", "--device", "cpu", *linear], tmp_path)
    assert code == 0, err
    rows = _rows(out)
    assert {r[1] for r in rows} == {"t", "u"} and {r[10] for r in rows} == {"NA"}
    code, out, err = run_cli(["search", "-q", "q.fa", "-d", "t.fa", "--device", "cpu", *linear, "--evalue", "10"],
                             tmp_path)
    assert (code, out) == (2, "") and err.startswith("swgpu: error: --evalue: ") and "no E-values" in err


def test_max_target_seqs_is_top(run_cli):
    _, top, _ = run_cli(SEARCH + ["--top", "3"])
    code, out, _ = run_cli(SEARCH + ["--max-target-seqs", "3"])
    assert code == 0 and out == top and len(_rows(out)) == 6


# ------------------------------------------------------------------ pairwise names

def test_pairwise_shows_long_names_whole(run_cli, tmp_path):
    name = "sp|P02232|LGB2_LUPLU_a_long_identifier"
    (tmp_path / "q.fa").write_text(f">{name}\n" + QUERIES.read_text().split("\n")[1] + "\n")
    code, out, err = run_cli(["align", "q.fa", TARGETS, "--min-score", "700"], tmp_path)
    assert code == 0, err
    body = [line for line in out.splitlines() if line and not line.startswith("#")]
    assert body[0].startswith(name + " ")
    assert body[2].startswith("P02232" + " " * (len(name) - 6) + " ")
    assert len({line.index("MGFTEKQEALVNSS") for line in (body[0], body[2])}) == 1
