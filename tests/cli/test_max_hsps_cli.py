"""``--max-hsps`` of search, align and scan: further alignments of a pair,
secondary in SAM, ``qcovs`` over all of a pair's alignments, the limit in
scan; bad values refused in one line."""

from __future__ import annotations

import random

import pytest

from swgpu.cli import main


def _dna(rng, n):
    return "".join(rng.choice("ACGT") for _ in range(n))


def _revcomp(s):
    return s[::-1].translate(str.maketrans("ACGT", "TGCA"))


@pytest.fixture()
def planted(tmp_path):
    """A 60 bp probe planted twice on the plus strand and once on the minus strand of one chromosome."""
    rng = random.Random(3)
    probe = _dna(rng, 60)
    chrom = list(_dna(rng, 6000))
    for at, text in [(700, probe), (3100, probe), (5000, _revcomp(probe))]:
        chrom[at:at + 60] = text
    (tmp_path / "probe.fa").write_text(f">probe\n{probe}\n")
    (tmp_path / "chr.fa").write_text(">chr1\n" + "".join(chrom) + "\n" + f">other\n{_dna(rng, 2000)}\n")
    return tmp_path


def _rows(path):
    return [line.split("\t") for line in path.read_text().splitlines() if not line.startswith(("#", "@"))]


def test_search_reports_each_planted_copy(planted, capsys):
    out = planted / "hits.tsv"
    cols = "6 qseqid sseqid sstrand sstart send qcovs qcovhsp"
    assert main(["search", "-q", str(planted / "probe.fa"), "-d", str(planted / "chr.fa"), "--device", "cpu",
                 "--top", "2", "--max-hsps", "2", "--outfmt", cols, "-o", str(out), "--quiet"]) == 0
    rows = _rows(out)
    assert [(r[2], int(r[3])) for r in rows[:3]] == [("plus", 701), ("plus", 3101), ("minus", 5060)]
    assert [r[5] for r in rows[:2]] == ["100", "100"]  # (the two copies cover the whole probe each)
    assert all(r[2] == "minus" for r in rows[3:]) and len(rows) <= 4  # (the second on minus: chance)
    one = planted / "one.tsv"
    assert main(["search", "-q", str(planted / "probe.fa"), "-d", str(planted / "chr.fa"), "--device", "cpu",
                 "--top", "2", "--outfmt", cols, "-o", str(one), "--quiet"]) == 0
    assert [(r[2], int(r[3])) for r in _rows(one)] == [("plus", 701), ("minus", 5060)]


def test_align_marks_further_alignments_secondary(planted):
    out = planted / "a.sam"
    assert main(["align", str(planted / "probe.fa"), str(planted / "chr.fa"), "--device", "cpu", "--strand", "plus",
                 "--max-hsps", "3", "--min-score", "60", "-f", "sam", "-o", str(out), "--quiet"]) == 0
    rows = _rows(out)
    assert [(r[2], int(r[1]), int(r[3])) for r in rows] == [("chr1", 0, 701), ("chr1", 256, 3101)]


def test_scan_limits_hits_per_sequence(planted):
    out = planted / "s.tsv"
    args = ["scan", "-q", str(planted / "probe.fa"), "-g", str(planted / "chr.fa"), "--device", "cpu",
            "--min-score", "100", "--outfmt", "6 sseqid sstart", "--quiet"]
    assert main(args + ["-o", str(out)]) == 0
    assert sorted(int(r[1]) for r in _rows(out)) == [701, 3101, 5060]
    assert main(args + ["--max-hsps", "2", "-o", str(out)]) == 0
    assert sorted(int(r[1]) for r in _rows(out)) == [701, 3101]


@pytest.mark.parametrize("extra,msg", [(["--max-hsps", "0"], "--max-hsps"),
                                       (["--max-hsps", "2", "--ends", "3"], "--max-hsps: applies to pairs")])
def test_bad_max_hsps_is_one_line(planted, capsys, extra, msg):
    assert main(["align", str(planted / "probe.fa"), str(planted / "chr.fa"), "--device", "cpu", *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and msg in err[0]
