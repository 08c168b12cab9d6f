"""``swgpu align --ends``: genome-scale alignment from the command line."""

from __future__ import annotations

import numpy as np
import pytest

COMP = str.maketrans("ACGT", "TGCA")


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(5)
    q = "".join(rng.choice(list("ACGT"), 400))
    t = "".join(rng.choice(list("ACGT"), 6000))
    t = t[:1000] + q + t[1400:4000] + q[100:300].translate(COMP)[::-1] + t[4200:]
    (tmp_path / "q.fa").write_text(f">region\n{q}\n")
    (tmp_path / "t.fa").write_text(f">chrA\n{t[:3000]}\n>chrB\n{t[3000:]}\n")
    return tmp_path


def test_end_points_table_and_alignments(run_cli, files):
    code, out, err = run_cli(["align", "q.fa", "t.fa", "--ends", "3", "--alignments", "2", "--ends-out", "ends.tsv",
                              "-f", "blast6", "--device", "cpu", "--quiet"], files)
    assert code == 0, err
    table = [line.split("\t") for line in (files / "ends.tsv").read_text().splitlines()]
    assert table[0][0] == "#rank" and len(table) == 4
    assert [(r[2], r[3], r[4]) for r in table[1:3]] == [("chrA", "+", "1400"), ("chrB", "-", "1200")]
    rows = [line.split("\t") for line in out.splitlines()]
    assert [(r[1], r[8], r[9]) for r in rows] == [("chrA", "1001", "1400"), ("chrB", "1200", "1000")]


@pytest.mark.parametrize("flag,value", [("--ends", "0"), ("--separation", "0"), ("--max-alignment-length", "-1")])
def test_bad_values_exit_2(run_cli, files, flag, value):
    code, out, err = run_cli(["align", "q.fa", "t.fa", "--ends", "2", flag, value, "--device", "cpu"], files)
    assert code == 2 and flag in err and "Traceback" not in err


def test_max_alignment_length_shorter_than_the_best_alignment(run_cli, files):
    code, out, err = run_cli(["align", "q.fa", "t.fa", "--ends", "5", "--max-alignment-length", "10",
                              "--ends-out", "ends.tsv", "-o", "best.sam", "--device", "cpu"], files)
    assert (code, out) == (2, "") and err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("swgpu: error: --max-alignment-length: an end point of region scores 800 ")
    assert "scores 800 " in err and "give at least 400 " in err and not (files / "ends.tsv").exists() and not (files / "best.sam").exists()


def test_workers_give_the_same_files(run_cli, files):
    pytest.importorskip("distributed")
    outs = []
    for extra in ([], ["--workers", "2", "--threads", "1"]):
        code, out, err = run_cli(["align", "q.fa", "t.fa", "--ends", "5", "--alignments", "2", "--ends-out",
                                  "ends.tsv", "-o", "a.sam", "--device", "cpu", "--quiet"] + extra, files)
        assert code == 0, err
        sam = [x for x in (files / "a.sam").read_text().splitlines() if not x.startswith("@PG")]  # the command line
        outs.append(((files / "ends.tsv").read_text(), sam))
    assert outs[0] == outs[1]


def test_workers_need_ends(run_cli, files):
    code, out, err = run_cli(["align", "q.fa", "t.fa", "--workers", "2", "--device", "cpu"], files)
    assert code == 2 and "--workers" in err and "--ends" in err


def test_method_rowscan_gives_the_same_files(run_cli, files):
    outs = []
    for method in ("auto", "rowscan"):
        code, out, err = run_cli(["align", "q.fa", "t.fa", "--ends", "5", "--alignments", "2", "--ends-out",
                                  "ends.tsv", "-o", "a.sam", "--device", "cpu", "--quiet", "--method", method], files)
        assert code == 0, err
        sam = [x for x in (files / "a.sam").read_text().splitlines() if not x.startswith("@PG")]
        outs.append(((files / "ends.tsv").read_text(), sam))
    assert outs[0] == outs[1]
