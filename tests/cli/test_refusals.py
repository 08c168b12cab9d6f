"""What the command line refuses, each with one line on standard error and
exit status 2, and nothing written: scores beyond the kernels' range, options
that would do nothing; and messages that name only what the command has and
was given (an option, a file, a header line)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import pytest

EXAMPLES = Path(str(resources.files("swgpu").joinpath("data", "examples")))
QUERIES = EXAMPLES / "queries.fasta"
TARGETS = EXAMPLES / "targets.fasta"
DNA = ">a\nACGTACGTTGCAACGT\n"
PAIRS = "a\tACGTACGTACGTACGT\tb\tACGTACGTACGTACGT\n"


def _refused(code: int, out: str, err: str) -> str:
    assert (code, out) == (2, ""), (code, err)
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err.strip()


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "d.fa").write_text(DNA)
    (tmp_path / "pairs.tsv").write_text(PAIRS)
    return tmp_path


def _listing(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


# ------------------------------------------------------------------ scores beyond the kernels' range

COMMANDS = {
    "align": ["align", "d.fa", "d.fa"],
    "search": ["search", "-q", "d.fa", "-d", "d.fa"],
    "screen": ["screen", "--pairs", "pairs.tsv"],
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("scores, flag, limit", [
    (["--match", "3000000000", "--mismatch", "-3"], "--match", "at most 1,073,741,823"),
    (["--match", "2", "--mismatch=-3000000000"], "--mismatch", "at least -268,435,456"),
])
def test_scores_beyond_the_kernels_range(run_cli, folder, command, scores, flag, limit):
    line = _refused(*run_cli(COMMANDS[command] + scores + ["--device", "cpu", "-o", "out.txt"], folder))
    assert line.startswith(f"swgpu: error: {flag}: ") and limit in line and "32-bit" in line, line
    assert _listing(folder) == ["d.fa", "pairs.tsv"]


def test_protein_match_beyond_the_lengths_blames_match(run_cli):
    line = _refused(*run_cli(["align", QUERIES, TARGETS, "--matrix", "none", "--match", "100000000",
                              "--mismatch", "-1"]))
    assert line.startswith("swgpu: error: --match: the best possible score") and "smaller match score" in line


# ------------------------------------------------------------------ options that do nothing

@pytest.mark.parametrize("extra", [["--alignments", "3"], ["--ends-out", "e.tsv"], ["--ends-out=e.tsv"],
                                   ["--max-alignment-length", "50"], ["--separation", "10"],
                                   ["--method", "rowscan"]])
def test_genome_scale_options_need_ends(run_cli, folder, extra):
    line = _refused(*run_cli(["align", "d.fa", "d.fa", "--device", "cpu", "-o", "out.txt"] + extra, folder))
    assert extra[0].split("=")[0] in line and "--ends" in line, line
    assert _listing(folder) == ["d.fa", "pairs.tsv"]


def test_group_kernel_on_the_cpu(run_cli, folder):
    line = _refused(*run_cli(["screen", "--pairs", "pairs.tsv", "--kernel", "group", "--device", "cpu",
                              "-o", "out.tsv"], folder))
    assert line.startswith("swgpu: error: --kernel: group runs on the GPU only"), line
    assert _listing(folder) == ["d.fa", "pairs.tsv"]


# ------------------------------------------------------------------ messages

@pytest.mark.parametrize("pairs, words", [
    ("a\tMKVLWQEEKL\tb\tMKVLWQEEKL\n", ["'L' is not a valid dna letter", "screen compares DNA only"]),
    ("qseq\ttseq\nACGT\tACGT\n", ["line 1 looks like a header line", "'qseq\\ttseq'", "#"]),
    ("query_name\tquery\ttarget_name\ttarget\nq\tACGT\tt\tACGT\n", ["line 1 looks like a header line"]),
])
def test_screen_letters_name_no_alphabet_option(run_cli, tmp_path, pairs, words):
    (tmp_path / "pairs.tsv").write_text(pairs)
    line = _refused(*run_cli(["screen", "--pairs", "pairs.tsv", "--device", "cpu"], tmp_path))
    assert line.startswith("swgpu: error: pairs.tsv: line ") and "alphabet" not in line, line
    assert all(w in line for w in words), line


def test_screen_fasta_letters_name_no_alphabet_option(run_cli, folder):
    line = _refused(*run_cli(["screen", "-q", QUERIES, "-t", QUERIES, "--device", "cpu"], folder))
    assert line.startswith(f"swgpu: error: {QUERIES}: record 'P02232'") and "alphabet" not in line, line


def test_a_guessed_alphabet_is_not_blamed_on_alphabet(run_cli, tmp_path):
    (tmp_path / "d.fa").write_text(DNA)
    line = _refused(*run_cli(["align", "d.fa", QUERIES], tmp_path))
    assert line.startswith(f"swgpu: error: {QUERIES}: record 'P02232', position 3: 'F' is not"), line
    line = _refused(*run_cli(["align", "d.fa", QUERIES, "--alphabet", "dna"], tmp_path))
    assert line.startswith("swgpu: error: --alphabet: "), line


def test_a_sam_header_error_of_pairs_names_no_target_option(run_cli, tmp_path):
    (tmp_path / "pairs.tsv").write_text("q1\tACGTACGT\tt\tACGTACGT\nq2\tACGTACGT\tt\tACGTACGTA\n")
    line = _refused(*run_cli(["screen", "--pairs", "pairs.tsv", "--threshold", "1", "-f", "sam",
                              "--device", "cpu"], tmp_path))
    assert line.startswith("swgpu: error: target ID 't' names two sequences"), line


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full")
def test_a_full_device_is_named(run_cli):
    line = _refused(*run_cli(["align", QUERIES, TARGETS, "-o", "/dev/full"]))
    assert line == "swgpu: error: /dev/full: No space left on device"


def test_both_inputs_on_standard_input(run_cli):
    line = _refused(*run_cli(["align", "-", "-"]))
    assert line == "swgpu: error: the query and the target cannot both be standard input (-)"
