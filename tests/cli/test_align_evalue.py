"""``align --evalue``: pairs, further alignments and genome scale cut by
E-value; a scoring without E-values refuses it in one line."""

from __future__ import annotations

from importlib import resources

from swgpu.cli import main

EXAMPLES = resources.files("swgpu").joinpath("data", "examples")
Q, T = str(EXAMPLES / "queries.fasta"), str(EXAMPLES / "targets.fasta")


def _evalues(path):
    return [float(line.split("\t")[10]) for line in path.read_text().splitlines()]


def test_align_cuts_by_evalue(tmp_path):
    every, cut, more = tmp_path / "all.tsv", tmp_path / "cut.tsv", tmp_path / "more.tsv"
    assert main(["align", Q, T, "--device", "cpu", "-f", "blast6", "-o", str(every), "--quiet"]) == 0
    assert main(["align", Q, T, "--device", "cpu", "-f", "blast6", "--evalue", "1", "-o", str(cut), "--quiet"]) == 0
    assert main(["align", Q, T, "--device", "cpu", "-f", "blast6", "--evalue", "1", "--max-hsps", "2",
                 "-o", str(more), "--quiet"]) == 0
    lines, kept = every.read_text().splitlines(), cut.read_text().splitlines()
    assert set(kept) <= set(lines) and len(lines) > 60  # (E-values are printed rounded: 1.04 shows as 1.0)
    assert {x for x, e in zip(lines, _evalues(every)) if e <= 0.95} <= set(kept) and max(_evalues(cut)) <= 1
    assert max(_evalues(more)) <= 1 and len(_evalues(more)) > len(_evalues(cut))


def test_a_scoring_without_evalues_refuses_the_cut(tmp_path, capsys):
    (tmp_path / "q.fa").write_text(">q\nACGTTGCAAGGCTTACGATCG\n")
    code = main(["align", str(tmp_path / "q.fa"), str(tmp_path / "q.fa"), "--match", "5", "--mismatch", "-1",
                 "--evalue", "1"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("swgpu: error: --evalue: ") and "no E-values" in err[0]
