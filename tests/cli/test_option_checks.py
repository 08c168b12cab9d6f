"""Option checks of the command line: every numeric option refuses values out
of its range (one line naming the option and the range, exit 2), scorings
given in part are refused, unknown options name the subcommand, screen's
options ask for what screen has."""

from __future__ import annotations

import re
from importlib import resources
from pathlib import Path

import pytest

from swgpu.cli import build_parser

EXAMPLES = Path(str(resources.files("swgpu").joinpath("data", "examples")))
QUERIES = EXAMPLES / "queries.fasta"
TARGETS = EXAMPLES / "targets.fasta"
SEARCH = ["search", "-q", QUERIES, "-d", TARGETS, "--device", "cpu"]
ALIGN = ["align", QUERIES, TARGETS, "--device", "cpu"]
SCREEN = ["screen", "--pairs", "pairs.tsv", "--device", "cpu"]
DNA_PAIRS = "a\tACGTACGTACGTACGT\tb\tACGTACGTACGTACGT\nc\tAAAAAAAA\td\tCCCCCCCC\n"


def _usage_error(code: int, out: str, err: str) -> str:
    assert (code, out) == (2, ""), (code, err)
    assert err.count("\n") == 1 and "Traceback" not in err
    return err.strip()


# (command line, option shown, allowed range shown)
RANGES = [
    (SEARCH + ["--threads", "0"], "--threads", ">= 1"),
    (ALIGN + ["--threads", "-2"], "--threads", ">= 1"),
    (SEARCH + ["--top", "0"], "--top/--max-target-seqs", ">= 1"),
    (SEARCH + ["--max-target-seqs", "-1"], "--top/--max-target-seqs", ">= 1"),
    (SEARCH + ["--evalue", "-1"], "--evalue", "> 0"),
    (SEARCH + ["--evalue", "0"], "--evalue", "> 0"),
    (SEARCH + ["--evalue", "nan"], "--evalue", "finite"),
    (SEARCH + ["--evalue", "inf"], "--evalue", "finite"),
    (SEARCH + ["--evalue", "1e999"], "--evalue", "finite"),
    (SEARCH + ["--evalue", "ten"], "--evalue", "> 0"),
    (ALIGN + ["--min-score", "-5"], "--min-score", ">= 0"),
    (ALIGN + ["--gap-open", "-1"], "--gap-open", "from 1 to 10000"),
    (ALIGN + ["--gap-open", "20000"], "--gap-open", "from 1 to 10000"),
    (ALIGN + ["--gap-extend", "-1"], "--gap-extend", "from 0 to 10000"),
    (ALIGN + ["--gap-open", "nan"], "--gap-open", "integer"),
    (ALIGN + ["--gap-open", "1.5"], "--gap-open", "integer"),
    (ALIGN + ["--match", "0"], "--match", ">= 1"),
    (ALIGN + ["--mismatch", "2"], "--mismatch", "<= 0"),
    (SEARCH + ["--match", "inf"], "--match", ">= 1"),
    (SCREEN + ["--threshold", "-1"], "--threshold", ">= 0"),
    (SCREEN + ["--gap-open", "-1"], "--gap-open", "from 1 to 10000"),
    (SCREEN + ["--threads", "0"], "--threads", ">= 1"),
    (["demo", "--threads", "0"], "--threads", ">= 1"),
    (["bench", "search", "-q", QUERIES, "--random-db", "10x10", "--repeats", "0"], "--repeats", ">= 1"),
    (["bench", "search", "-q", QUERIES, "--random-db", "10x10", "--top", "0"], "--top", ">= 1"),
    (["bench", "search", "-q", QUERIES, "--random-db", "10x10", "--gap-open", "-3"], "--gap-open", "from 1"),
    (["bench", "screen", "--pairs", "0"], "--pairs", ">= 1"),
    (["bench", "screen", "-m", "-4"], "-m", ">= 1"),
]


@pytest.mark.parametrize("argv, option, allowed", RANGES,
                         ids=[f"{a[0]}-{' '.join(map(str, a[-2:]))}" for a, _, _ in RANGES])
def test_numeric_options_are_checked(run_cli, tmp_path, argv, option, allowed):
    (tmp_path / "pairs.tsv").write_text(DNA_PAIRS)
    line = _usage_error(*run_cli(argv + ["-o", "out.tsv"] if argv[0] != "bench" else argv, tmp_path))
    command = "swgpu bench " + argv[1] if argv[0] == "bench" else f"swgpu {argv[0]}"
    assert line.startswith(f"{command}: error: argument {option}: must be "), line
    assert allowed in line and line.endswith(f"(see {command} --help)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pairs.tsv"]


@pytest.mark.parametrize("argv, words", [
    (["bench", "screen", "-n", "100,0"], ["-n", ">= 1"]),
    (["bench", "search", "-q", QUERIES, "--random-db", "0x100"], ["--random-db", ">= 1"]),
])
def test_bench_lists_are_checked(run_cli, argv, words):
    line = _usage_error(*run_cli(argv))
    assert all(w in line for w in words), line


# ------------------------------------------------------------------ scoring given in part

@pytest.mark.parametrize("argv, words", [
    (ALIGN + ["--match", "5"], ["--match needs --mismatch"]),
    (ALIGN + ["--mismatch", "-4"], ["--mismatch needs --match"]),
    (SEARCH + ["--match", "5", "--mismatch", "-4"], ["replace BLOSUM62", "--matrix none"]),
    (ALIGN + ["--match", "5", "--mismatch", "-4"], ["replace BLOSUM62", "--matrix none"]),
    (ALIGN + ["--matrix", "none"], ["--matrix none", "--match and --mismatch"]),
    (ALIGN + ["--matrix", "BLOSUM62", "--mismatch", "-1"], ["--matrix", "not both"]),
    (SCREEN + ["--match", "1"], ["--match needs --mismatch"]),
])
def test_partial_scoring_is_refused(run_cli, tmp_path, argv, words):
    (tmp_path / "pairs.tsv").write_text(DNA_PAIRS)
    line = _usage_error(*run_cli(argv, tmp_path))
    assert line.startswith("swgpu: error: ")
    assert all(w in line for w in words), line


def test_protein_match_mismatch_with_matrix_none(run_cli):
    code, out, err = run_cli(ALIGN + ["--matrix", "none", "--match", "5", "--mismatch", "-4", "--min-score", "700"])
    assert code == 0, err
    assert "# Scoring: match5/mismatch-4, gap open 11, gap extend 1" in out
    assert "# Score: 720" in out and "# E-value" in out   # 144 identities x 5; statistics estimated for it


def test_dna_match_and_mismatch_together(run_cli, tmp_path):
    (tmp_path / "q.fa").write_text(">q\nACGTTGCAAGGCTTACGATCG\n")
    code, out, err = run_cli(["align", "q.fa", "q.fa", "--match", "1", "--mismatch", "-2"], tmp_path)
    assert code == 0, err
    assert "# Scoring: match1/mismatch-2" in out and "# Score: 21" in out


# ------------------------------------------------------------------ unknown options

@pytest.mark.parametrize("argv, command", [
    (["search", "--bogus"], "swgpu search"),
    (["search", "-q", "q.fa", "-d", "d.fa", "--bogus"], "swgpu search"),
    (["align", "--bogus"], "swgpu align"),
    (["align", "q.fa", "t.fa", "extra"], "swgpu align"),
    (["screen", "--alphabet", "protein"], "swgpu screen"),
    (["bench", "screen", "--bogus"], "swgpu bench screen"),
    (["makedb", "in.fa", "out.swdb", "--bogus"], "swgpu makedb"),
])
def test_unknown_options_name_the_subcommand(run_cli, argv, command):
    line = _usage_error(*run_cli(argv))
    extras = argv[-2:] if argv[-2] == "--alphabet" else argv[-1:]
    assert line == f"{command}: error: unrecognized arguments: {' '.join(extras)} (see {command} --help)"


def test_missing_required_option_still_reported(run_cli):
    line = _usage_error(*run_cli(["search", "-q", "q.fa"]))
    assert line == "swgpu search: error: the following arguments are required: -d/--db (see swgpu search --help)"


# ------------------------------------------------------------------ screen

@pytest.mark.parametrize("extra, words", [
    (["-f", "sam"], ["--format", "-f sam needs --threshold"]),
    (["-f", "blast6"], ["--format", "needs --threshold"]),
    (["--outfmt", "qseqid"], ["--outfmt", "needs --threshold"]),
    (["-o", "hits.sam"], ["-o", "hits.sam names a sam file", "--threshold"]),
])
def test_screen_alignment_output_needs_threshold(run_cli, tmp_path, extra, words):
    (tmp_path / "pairs.tsv").write_text(DNA_PAIRS)
    line = _usage_error(*run_cli(SCREEN + extra, tmp_path))
    assert all(w in line for w in words), line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pairs.tsv"]


def test_screen_threshold_takes_format_from_the_name(run_cli, tmp_path):
    (tmp_path / "pairs.tsv").write_text(DNA_PAIRS)
    code, _, err = run_cli(SCREEN + ["--threshold", "10", "-o", "hits.sam"], tmp_path)
    assert code == 0, err
    assert (tmp_path / "hits.sam").read_text().startswith("@HD")
    code, _, err = run_cli(SCREEN + ["-o", "scores.tsv"], tmp_path)
    assert code == 0, err
    assert (tmp_path / "scores.tsv").read_text().startswith("query\ttarget\tscore\n")


SCREEN_BAD = {
    "protein_pairs": "a\tMKVLWQEEKL\tb\tMKVLWQEEKL\n",
    "bad_line": "just-one-field\n",
    "digit": "a\tAC1GT\tb\tACGT\n",
}


@pytest.mark.parametrize("case", sorted(SCREEN_BAD))
def test_screen_errors_suggest_only_its_own_flags(run_cli, tmp_path, case):
    (tmp_path / "pairs.tsv").write_text(SCREEN_BAD[case])
    line = _usage_error(*run_cli(SCREEN, tmp_path))
    screen = build_parser()._subparsers._group_actions[0].choices["screen"]  # argparse has no public way
    flags = {s for action in screen._actions for s in action.option_strings}
    assert set(re.findall(r"(?<![\w-])--?[a-z][\w-]*", line)) <= flags, line
