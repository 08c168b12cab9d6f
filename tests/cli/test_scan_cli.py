"""``swgpu scan`` from the command line: formats, both strands, secondary
hits, bad input."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

COMP = str.maketrans("ACGT", "TGCA")


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(3)
    q = "".join(rng.choice(list("ACGT"), 60))
    g1 = "".join(rng.choice(list("ACGT"), 2000))
    g2 = "".join(rng.choice(list("ACGT"), 900))
    g1 = g1[:500] + q + g1[560:1500] + q.translate(COMP)[::-1] + g1[1560:]
    (tmp_path / "g.fa").write_text(f">chr1 one\n{g1}\n>chr2\n{g2.lower()}\n")
    (tmp_path / "q.fa").write_text(f">probe\n{q}\n")
    return tmp_path


def test_blast6_both_strands(run_cli, files):
    code, out, err = run_cli(["scan", "-q", "q.fa", "-g", "g.fa", "--device", "cpu", "--min-score", "60",
                              "--quiet"], files)
    assert code == 0, err
    rows = [line.split("\t") for line in out.splitlines()]
    assert [(r[1], r[8], r[9], r[12]) for r in rows] == [("chr1", "501", "560", "120"), ("chr1", "1560", "1501", "120")]


def test_sam_header_flags_and_secondary(run_cli, files):
    code, out, err = run_cli(["scan", "-q", "q.fa", "-g", "g.fa", "--device", "cpu", "--min-score", "60",
                              "-o", "hits.sam", "--quiet"], files)
    assert code == 0, err
    lines = (files / "hits.sam").read_text().splitlines()
    assert [line for line in lines if line.startswith("@SQ")] == ["@SQ\tSN:chr1\tLN:2000", "@SQ\tSN:chr2\tLN:900"]
    records = [line.split("\t") for line in lines if not line.startswith("@")]
    assert [(r[1], r[3], r[5]) for r in records] == [("0", "501", "60="), ("272", "1501", "60=")]


def test_json_and_top(run_cli, files):
    code, out, err = run_cli(["scan", "-q", "q.fa", "-g", "g.fa", "--device", "cpu", "--top", "1", "-f", "json",
                              "--quiet"], files)
    assert code == 0, err
    [hit] = [json.loads(line) for line in out.splitlines()]
    assert (hit["target"], hit["score"], hit["target_start"]) == ("chr1", 120, 501)  # 1-based, as every format


@pytest.mark.parametrize("args, words", [
    (["--top", "0"], ["--top"]),
    (["--method", "fast"], ["--method"]),
    (["--matrix", "BLOSUM62"], ["dna"]),
    (["--strand", "sideways"], ["--strand"]),
])
def test_bad_input_is_one_line_exit_2(run_cli, files, args, words):
    before = sorted(os.listdir(files))
    code, out, err = run_cli(["scan", "-q", "q.fa", "-g", "g.fa", "--device", "cpu", "-o", "out.tsv", *args], files)
    assert code == 2 and out == "" and err.count("\n") == 1 and "Traceback" not in err, err
    assert all(w in err for w in words), err
    assert sorted(os.listdir(files)) == before


def test_protein_query_against_dna_genome_is_refused(run_cli, files):
    (files / "p.fa").write_text(">p\nMKVLWEEQRSTHIPF\n")
    code, out, err = run_cli(["scan", "-q", "p.fa", "-g", "g.fa", "--device", "cpu"], files)
    assert code == 2 and err.count("\n") == 1, err


@pytest.mark.parametrize("fmt", ["blast6", "blast7", "sam", "json", "pairwise"])
def test_hit_columns_write_what_the_records_write(run_cli, files, fmt):
    """The hits, written as columns, are byte for byte the hits of
    ``Scanner.scan`` written one record at a time (SAM's secondary flags by
    query name: two queries share one)."""
    from types import SimpleNamespace

    from swgpu import Scoring, read_sequences
    from swgpu.cli.options import write_alignments
    from swgpu.workloads.scan import Scanner

    rng = np.random.default_rng(8)
    g = (files / "g.fa").read_text().split("\n")[1]
    with open(files / "q.fa", "a") as fh:
        for k in range(12):
            a = int(rng.integers(0, len(g) - 80))
            frag = g[a:a + int(rng.integers(20, 80))]
            fh.write(f">dup{k % 3} {k}\n{frag if k % 2 else frag.translate(COMP)[::-1]}\n")
    args = ["scan", "-q", "q.fa", "-g", "g.fa", "--device", "cpu", "--top", "3", "--min-score", "20", "-f", fmt,
            "-o", "hits.out", "--quiet"]
    code, _, err = run_cli(args, files)
    assert code == 0, err
    queries, genome = read_sequences(files / "q.fa"), read_sequences(files / "g.fa")
    scoring = Scoring.default("dna")
    results = Scanner(scoring, device="cpu").scan(queries, genome, top=3, min_score=20)
    assert sum(len(r.hits) for r in results) > 12
    opts = SimpleNamespace(output=str(files / "records.out"), format=fmt, argv=args,
                           columns=None, db=None, target=None, genome="g.fa", pairs=None)
    write_alignments(opts, scoring, [(h, r.query.text, k) for k, r in enumerate(results) for h in r.hits],
                     targets=[(r.name, len(r)) for r in genome], secondary=True, queries=queries)
    assert (files / "hits.out").read_bytes() == (files / "records.out").read_bytes()
