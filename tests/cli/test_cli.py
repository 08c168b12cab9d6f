"""Tests of the ``swgpu`` command line: bad input, output formats, scoring options."""

from __future__ import annotations

import gzip
import json
import os
import random
import subprocess
import sys
from importlib import resources
from pathlib import Path

import pytest

import swgpu
from swgpu.io.alphabet import DNA, PROTEIN
from swgpu.scoring import Scoring

SRC = Path(swgpu.__file__).resolve().parent.parent
EXAMPLES = Path(str(resources.files("swgpu").joinpath("data", "examples")))
QUERIES = EXAMPLES / "queries.fasta"
TARGETS = EXAMPLES / "targets.fasta"
N_TARGETS = TARGETS.read_text().count(">")
JSON_KEYS = {"query", "target", "score", "query_start", "query_end", "target_start", "target_end",
             "cigar", "identity", "evalue"}


def _write(path: Path, data) -> Path:
    if isinstance(data, str):
        data = data.encode("latin-1")
    path.write_bytes(data)
    return path


def _listing(directory: Path) -> list[str]:
    return sorted(os.listdir(directory))


def _one_line_error(code: int, out: str, err: str) -> str:
    """Check the user-error contract and return the message line."""
    assert code == 2, (code, err)
    assert out == ""
    assert "Traceback" not in err
    assert err.endswith("\n")
    assert err.count("\n") == 1, err
    line = err.strip()
    assert line
    return line


def _blast6(out: str) -> list[list[str]]:
    rows = [line.split("\t") for line in out.splitlines()]
    assert rows and all(len(r) == 16 for r in rows)
    return rows


def _self_row(rows, name="P02232"):
    hits = [r for r in rows if r[0] == name and r[1] == name]
    assert len(hits) == 1
    return hits[0]


def sw_score(a: str, b: str, scoring: Scoring) -> int:
    """Smith-Waterman score with affine gaps (open + (k-1)*extend), written out plainly."""
    alpha = scoring.alphabet
    x, y = alpha.encode(a).tolist(), alpha.encode(b).tolist()
    sub = scoring.matrix.values.tolist()
    go, ge = scoring.gap_open, scoring.gap_extend
    neg = -10**9
    n, m = len(x), len(y)
    h_prev = [0] * (m + 1)
    f_prev = [neg] * (m + 1)
    best = 0
    for i in range(1, n + 1):
        h = [0] * (m + 1)
        f = [neg] * (m + 1)
        e = neg
        for j in range(1, m + 1):
            e = max(h[j - 1] - go, e - ge)
            f[j] = max(h_prev[j] - go, f_prev[j] - ge)
            h[j] = max(0, h_prev[j - 1] + sub[x[i - 1]][y[j - 1]], e, f[j])
            best = max(best, h[j])
        h_prev, f_prev = h, f
    return best


# ===================================================================== bad input

def _truncated_gz(tmp: Path) -> str:
    data = gzip.compress(TARGETS.read_bytes(), mtime=0)
    _write(tmp / "cut.fasta.gz", data[: len(data) // 2])
    return "cut.fasta.gz"


def _file(name, data):
    def make(tmp: Path) -> str:
        _write(tmp / name, data)
        return name
    return make


def _matrix_file(content):
    def make(tmp: Path) -> str:
        (tmp / "my_matrix").write_text(content)
        return "my_matrix"
    return make


_SHORT_MATRIX = "   A  R  N  D\nA  4 -1 -2 -2\nR -1  5  0 -2\nN -2  0  6  1\nD -2 -2  1  6\n"

# id -> (args builder, expected words in the message); builders get the
# directory and return the argument list after "swgpu".
BAD = {
    "empty_file": (lambda t: ["align", _file("e.fasta", b"")(t), TARGETS], ["e.fasta", "empty"]),
    "empty_target_file": (lambda t: ["align", QUERIES, _file("e.fasta", b"")(t)], ["e.fasta", "empty"]),
    "empty_record": (lambda t: ["align", _file("r.fasta", b">a\n\n>b\nAC\n")(t), TARGETS], ["r.fasta", "'a'", "empty"]),
    "header_only": (lambda t: ["align", _file("h.fasta", b">a\n")(t), TARGETS], ["h.fasta", "'a'"]),
    "whitespace_only": (lambda t: ["align", _file("w.fasta", b"  \n\n")(t), TARGETS], ["w.fasta"]),
    "no_record_name": (lambda t: ["align", _file("n.fasta", b"> x\nACGT\n")(t), TARGETS], ["n.fasta", "name"]),
    "not_fasta_text": (lambda t: ["align", _file("t.fasta", b"hello world\n")(t), TARGETS], ["t.fasta"]),
    "binary_garbage": (lambda t: ["align", _file("g.fasta", random.Random(7).randbytes(4096))(t), TARGETS],
                       ["g.fasta"]),
    "binary_garbage_bin": (lambda t: ["align", _file("g.bin", random.Random(8).randbytes(4096))(t), TARGETS],
                           ["g.bin"]),
    "binary_garbage_target": (lambda t: ["align", QUERIES, _file("g.fa", random.Random(9).randbytes(4096))(t)],
                              ["g.fa"]),
    "binary_after_header": (lambda t: ["align", _file("b.fasta", b">x\n" + random.Random(3).randbytes(2000))(t),
                                       TARGETS], ["b.fasta"]),
    "garbage_with_gz_suffix": (lambda t: ["align", _file("n.fasta.gz", random.Random(4).randbytes(999))(t),
                                          TARGETS], ["n.fasta.gz"]),
    "truncated_gz": (lambda t: ["align", _truncated_gz(t), TARGETS], ["cut.fasta.gz", "truncated"]),
    "truncated_gz_target": (lambda t: ["align", QUERIES, _truncated_gz(t)], ["cut.fasta.gz", "truncated"]),
    "invalid_dna_letter": (lambda t: ["align", _file("d.fasta", b">a\nAC1GT\n")(t), TARGETS],
                           ["d.fasta", "'a'", "position 3", "'1'"]),
    "invalid_dna_letter_forced": (lambda t: ["align", _file("d.fasta", b">a\nAC1GT\n")(t),
                                             _file("d.fasta", b">a\nAC1GT\n")(t), "--alphabet", "dna"],
                                  ["d.fasta", "'a'", "position 3", "dna letter"]),
    "invalid_dna_letter_long": (lambda t: ["align", _file("d.fasta", b">a\nACGTACGTACGTACGTAC1GT\n")(t), TARGETS],
                                ["d.fasta", "'a'", "position 19", "dna letter"]),
    "invalid_protein_letter": (lambda t: ["align", _file("p.fasta", b">p\nMKV#L\n")(t), TARGETS],
                               ["p.fasta", "'p'", "position 4", "'#'"]),
    "invalid_letter_in_target": (lambda t: ["align", QUERIES, _file("p.fasta", b">ok\nMKVL\n>p\nMKV#L\n")(t)],
                                 ["p.fasta", "'p'", "position 4", "'#'"]),
    "protein_forced_dna": (lambda t: ["align", QUERIES, TARGETS, "--alphabet", "dna"],
                           ["queries.fasta", "'P02232'", "dna letter", "--alphabet", "protein"]),
    "fastq_named_fasta": (lambda t: ["align", _file("q.fasta", b"@r1\nACGT\n+\nIIII\n")(t), TARGETS],
                          ["q.fasta", "FASTQ"]),
    "fastq_named_fa_gz": (lambda t: ["align", _file("q.fa.gz", gzip.compress(b"@r1\nACGT\n+\nIIII\n", mtime=0))(t),
                                     TARGETS], ["q.fa.gz", "FASTQ"]),
    "nonexistent_file": (lambda t: ["align", "nope.fasta", TARGETS], ["nope.fasta"]),
    "nonexistent_target": (lambda t: ["align", QUERIES, "nope.fasta"], ["nope.fasta"]),
    "directory": (lambda t: ["align", (t / "adir").mkdir() or "adir", TARGETS], ["adir", "directory"]),
    "bad_matrix_name": (lambda t: ["align", QUERIES, TARGETS, "--matrix", "BLOSUM99"], ["BLOSUM99"]),
    "bad_matrix_file": (lambda t: ["align", QUERIES, TARGETS, "--matrix", _matrix_file("garbage\nfoo bar\n")(t)],
                        ["my_matrix"]),
    "empty_matrix_file": (lambda t: ["align", QUERIES, TARGETS, "--matrix", _matrix_file("")(t)], ["my_matrix"]),
    "matrix_missing_amino_acids": (lambda t: ["align", QUERIES, TARGETS, "--matrix", _matrix_file(_SHORT_MATRIX)(t)],
                                   ["my_matrix", "lacks"]),
    "matrix_and_match": (lambda t: ["align", QUERIES, TARGETS, "--matrix", "BLOSUM62", "--match", "1"], ["not both"]),
    "negative_gap_open": (lambda t: ["align", QUERIES, TARGETS, "--gap-open", "-1"], ["gap"]),
    "negative_gap_extend": (lambda t: ["align", QUERIES, TARGETS, "--gap-extend", "-1"], ["gap"]),
    "extend_above_open": (lambda t: ["align", QUERIES, TARGETS, "--gap-extend", "5", "--gap-open", "2"],
                          ["gap extend (5)", "gap open (2)"]),
    "zero_gap_open": (lambda t: ["align", QUERIES, TARGETS, "--gap-open", "0"], ["--gap-open", "from 1 to"]),
    "non_integer_gap": (lambda t: ["align", QUERIES, TARGETS, "--gap-open", "abc"], ["--gap-open", "abc"]),
    "zero_match": (lambda t: ["align", _file("d.fasta", b">a\nACGT\n")(t), "d.fasta", "--match", "0"], ["match"]),
    "positive_mismatch": (lambda t: ["align", _file("d.fasta", b">a\nACGT\n")(t), "d.fasta", "--mismatch", "1"],
                          ["mismatch"]),
    "unknown_option": (lambda t: ["align", QUERIES, TARGETS, "--bogus"], ["--bogus"]),
    "unknown_format": (lambda t: ["align", QUERIES, TARGETS, "--format", "xml"], ["xml"]),
    "unknown_alphabet": (lambda t: ["align", QUERIES, TARGETS, "--alphabet", "klingon"], ["klingon"]),
    "unknown_device": (lambda t: ["align", QUERIES, TARGETS, "--device", "tpu"], ["tpu"]),
    "missing_target_argument": (lambda t: ["align", QUERIES], ["target"]),
    "unknown_command": (lambda t: ["frobnicate"], ["frobnicate"]),
}


@pytest.mark.parametrize("with_output", [False, True], ids=["stdout", "output_file"])
@pytest.mark.parametrize("case", list(BAD))
def test_bad_input_is_one_line_exit_2(run_cli, tmp_path, case, with_output):
    build, words = BAD[case]
    args = build(tmp_path)
    if with_output:
        args = args + ["-o", "out.txt"]
    before = _listing(tmp_path)
    code, out, err = run_cli(args, tmp_path)
    line = _one_line_error(code, out, err)
    for word in words:
        assert word in line, (word, line)
    # no output file and no stray temporary file
    assert _listing(tmp_path) == before


def test_bad_input_leaves_an_existing_output_file_alone(run_cli, tmp_path):
    (tmp_path / "out.txt").write_text("previous results\n")
    _write(tmp_path / "p.fasta", ">p\nMKV#L\n")
    code, out, err = run_cli(["align", "p.fasta", TARGETS, "-o", "out.txt"], tmp_path)
    _one_line_error(code, out, err)
    assert (tmp_path / "out.txt").read_text() == "previous results\n"
    assert _listing(tmp_path) == ["out.txt", "p.fasta"]


def test_unwritable_output_directory_is_one_line_exit_2(run_cli, tmp_path):
    code, out, err = run_cli(["align", QUERIES, TARGETS, "-f", "blast6", "-o", "nodir/out.txt"], tmp_path)
    _one_line_error(code, out, err)
    assert _listing(tmp_path) == []


def test_unwritable_output_error_names_the_output_path(run_cli, tmp_path):
    code, out, err = run_cli(["align", QUERIES, TARGETS, "-f", "blast6", "-o", "nodir/out.txt"], tmp_path)
    line = _one_line_error(code, out, err)
    assert ".tmp" not in line
    assert "out.txt" in line


CORRUPT = {
    "xz_garbage": ("g.fasta.xz", b"\xfd7zXZ\x00" + bytes(60)),
    "zst_garbage": ("g.fasta.zst", random.Random(5).randbytes(1000)),
    "gz_invalid_deflate_block": ("g.fasta.gz", bytes.fromhex("1f8b0800000000000003") + b"\x07" + bytes(50)),
}


@pytest.mark.parametrize("case", sorted(CORRUPT))
def test_corrupt_compressed_input_is_one_line_exit_2(run_cli, tmp_path, case):
    name, data = CORRUPT[case]
    _write(tmp_path / name, data)
    code, out, err = run_cli(["align", name, TARGETS, "-o", "out.txt"], tmp_path)
    _one_line_error(code, out, err)
    assert _listing(tmp_path) == [name]


def _cuda_available() -> bool:
    try:
        from swgpu.engines.cuda import runtime
        return bool(runtime.available())
    except Exception:
        return False


@pytest.mark.skipif(_cuda_available(), reason="a GPU is present, --device cuda works")
def test_device_cuda_without_gpu_is_one_line_exit_2(run_cli, tmp_path):
    code, out, err = run_cli(["align", QUERIES, TARGETS, "--device", "cuda", "-f", "blast6", "-o", "out.txt"],
                             tmp_path)
    _one_line_error(code, out, err)
    assert "cuda" in err
    assert _listing(tmp_path) == []


@pytest.mark.skipif(_cuda_available(), reason="a GPU is present, --device cuda works")
@pytest.mark.parametrize("fmt", ["sam", "pairwise"])
def test_device_cuda_without_gpu_writes_nothing_to_stdout(run_cli, tmp_path, fmt):
    code, out, err = run_cli(["align", QUERIES, TARGETS, "--device", "cuda", "-f", fmt], tmp_path)
    _one_line_error(code, out, err)


@pytest.mark.parametrize("case", ["binary_garbage", "truncated_gz", "invalid_protein_letter", "extend_above_open"])
def test_console_entry_reports_bad_input_without_traceback(tmp_path, case):
    build, words = BAD[case]
    args = [str(a) for a in build(tmp_path)] + ["-o", "out.txt"]
    before = _listing(tmp_path)
    env = dict(os.environ)
    env["PYTHONPATH"] = str(SRC) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    proc = subprocess.run([sys.executable, "-m", "swgpu", *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    line = _one_line_error(proc.returncode, proc.stdout, proc.stderr)
    assert line.startswith("swgpu")
    for word in words:
        assert word in line
    assert _listing(tmp_path) == before


# ===================================================================== happy paths


def test_version(run_cli):
    code, out, err = run_cli(["--version"])
    assert code == 0
    assert out.strip() == f"swgpu {swgpu.__version__}"


def test_no_command_prints_help(run_cli):
    code, out, err = run_cli([])
    assert code == 2
    assert "align" in out and "demo" in out and "info" in out


def test_info(run_cli):
    code, out, err = run_cli(["info"])
    assert code == 0
    assert f"swgpu {swgpu.__version__}" in out
    assert "cpu engine" in out
    assert "cuda engine" in out


def test_demo(run_cli):
    code, out, err = run_cli(["demo"])
    assert code == 0
    assert "Score" in out
    assert "# Score: 719" in out
    assert "Traceback" not in err


def test_demo_blast6(run_cli):
    code, out, err = run_cli(["demo", "--format", "blast6"])
    assert code == 0
    assert _self_row(_blast6(out))[12] == "719"


def test_align_blast6(run_cli):
    code, out, err = run_cli(["align", QUERIES, TARGETS, "--format", "blast6"])
    assert code == 0
    assert err.startswith("swgpu align: 2 queries x 40 targets = 80 pairs, ") and err.count("\n") == 1
    rows = _blast6(out)
    assert 0 < len(rows) <= 2 * N_TARGETS
    assert {r[0] for r in rows} == {"P02232", "P09187_fragment"}
    row = _self_row(rows)
    assert row[12] == "719"              # raw score
    assert row[2] == "100.000"           # pident
    assert row[6:10] == ["1", "144", "1", "144"]
    assert row[13:16] == ["144", "144", "144="]
    assert all(int(r[12]) >= 1 for r in rows)


def test_align_sam(run_cli):
    code, out, err = run_cli(["align", QUERIES, TARGETS, "--format", "sam"])
    assert code == 0
    lines = out.splitlines()
    header = [line for line in lines if line.startswith("@")]
    records = lines[len(header):]
    assert lines[: len(header)] == header  # the header comes first
    assert header[0].startswith("@HD")
    assert all(h.startswith("@SQ") for h in header[1:-1])
    assert len(header) - 2 == N_TARGETS
    assert header[-1].startswith("@PG")
    assert "SN:P02232\tLN:144" in out
    assert records and all(len(r.split("\t")) >= 11 for r in records)
    self_rec = [r.split("\t") for r in records if r.startswith("P02232\t0\tP02232\t")]
    assert len(self_rec) == 1
    fields = self_rec[0]
    assert fields[3] == "1" and fields[5] == "144="
    assert "AS:i:719" in fields


def test_align_json(run_cli):
    code, out, err = run_cli(["align", QUERIES, TARGETS, "--format", "json"])
    assert code == 0
    lines = out.splitlines()
    assert len(lines) > 0
    objs = [json.loads(line) for line in lines]
    for obj in objs:
        assert JSON_KEYS <= set(obj), JSON_KEYS - set(obj)
    self_obj = [o for o in objs if o["query"] == "P02232" and o["target"] == "P02232"]
    assert len(self_obj) == 1
    o = self_obj[0]
    assert o["score"] == 719
    assert (o["query_start"], o["query_end"], o["target_start"], o["target_end"]) == (1, 144, 1, 144)
    assert o["cigar"] == "144="
    assert o["identity"] == 1.0


def test_align_pairwise_is_the_default(run_cli):
    code, out, err = run_cli(["align", QUERIES, TARGETS])
    assert code == 0
    assert "# Query: P02232 (144)" in out
    assert "# Score: 719" in out
    assert "# Scoring: BLOSUM62, gap open 11, gap extend 1" in out
    code2, out2, _ = run_cli(["align", QUERIES, TARGETS, "--format", "pairwise"])
    assert code2 == 0
    assert out2.replace(" --format pairwise", "") == out


@pytest.mark.parametrize("fmt", ["blast6", "sam", "json", "pairwise"])
def test_output_file(run_cli, tmp_path, fmt):
    code, expected, _ = run_cli(["align", QUERIES, TARGETS, "-f", fmt], tmp_path)
    assert code == 0
    code, out, err = run_cli(["align", QUERIES, TARGETS, "-f", fmt, "-o", "out.txt"], tmp_path)
    assert code == 0
    assert out == ""
    assert _listing(tmp_path) == ["out.txt"]  # no temporary file left
    written = (tmp_path / "out.txt").read_text()
    if fmt in ("blast6", "json"):
        assert written == expected
    else:  # the command line is recorded in the output
        assert written.replace(" -o out.txt", "") == expected


def test_output_file_replaces_an_existing_file(run_cli, tmp_path):
    (tmp_path / "out.txt").write_text("old\n")
    code, out, err = run_cli(["align", QUERIES, TARGETS, "-f", "blast6", "-o", "out.txt"], tmp_path)
    assert code == 0
    assert "719" in (tmp_path / "out.txt").read_text()
    assert _listing(tmp_path) == ["out.txt"]


def test_min_score(run_cli):
    code, out, _ = run_cli(["align", QUERIES, TARGETS, "-f", "blast6", "--min-score", "100"])
    assert code == 0
    rows = _blast6(out)
    assert rows and all(int(r[12]) >= 100 for r in rows)


def test_threads_one_gives_the_same_output(run_cli):
    _, many, _ = run_cli(["align", QUERIES, TARGETS, "-f", "blast6"])
    _, one, _ = run_cli(["align", QUERIES, TARGETS, "-f", "blast6", "--threads", "1", "--device", "cpu"])
    assert one == many


# ===================================================================== scoring options


def test_pam30_options_change_scores(run_cli):
    _, default, _ = run_cli(["align", QUERIES, TARGETS, "-f", "blast6"])
    code, out, err = run_cli(["align", QUERIES, TARGETS, "-f", "blast6", "--matrix", "PAM30",
                              "--gap-open", "9", "--gap-extend", "1"])
    assert code == 0
    rows = _blast6(out)
    q = QUERIES.read_text().split("\n")[1]
    pam30 = Scoring.build("protein", matrix="PAM30", gap_open=9, gap_extend=1)
    diagonal = sum(pam30.score_pair(c, c) for c in q)
    assert _self_row(rows)[12] == str(diagonal) == "1058"
    assert out != default


def test_matrix_file_option(run_cli, shared_data):
    _, by_name, _ = run_cli(["align", QUERIES, TARGETS, "-f", "json"])
    code, by_file, err = run_cli(["align", QUERIES, TARGETS, "-f", "json", "--matrix",
                                  shared_data / "matrices" / "BLOSUM62"])
    assert code == 0
    scores = lambda text: [(o["query"], o["target"], o["score"]) for o in map(json.loads, text.splitlines())]
    assert scores(by_file) == scores(by_name)


DNA_Q = "ACGTTGCAAGGCTTACGATCGATTACG"
DNA_T = "GGACGTTGCAGGCTTACCGATCGATACGTT"


@pytest.fixture
def dna_files(tmp_path):
    _write(tmp_path / "q.fasta", f">q\n{DNA_Q}\n")
    _write(tmp_path / "t.fasta", f">t\n{DNA_T}\n>u\n{DNA_T[::-1]}\n")
    return tmp_path


def _json_scores(out: str) -> dict:
    return {(o["query"], o["target"]): o["score"] for o in map(json.loads, out.splitlines())}


def test_dna_default_scoring(run_cli, dna_files):
    code, out, err = run_cli(["align", "q.fasta", "t.fasta", "-f", "json"], dna_files)
    assert code == 0
    d = Scoring.default("dna")
    assert _json_scores(out) == {("q", "t"): sw_score(DNA_Q, DNA_T, d), ("q", "u"): sw_score(DNA_Q, DNA_T[::-1], d)}
    _, pw, _ = run_cli(["align", "q.fasta", "t.fasta"], dna_files)
    assert "# Scoring: match2/mismatch-3, gap open 5, gap extend 2" in pw


def test_dna_options(run_cli, dna_files):
    args = ["align", "q.fasta", "t.fasta", "-f", "json", "--match", "1", "--mismatch", "-1",
            "--gap-open", "2", "--gap-extend", "1"]
    code, out, err = run_cli(args, dna_files)
    assert code == 0
    s = Scoring.build("dna", match=1, mismatch=-1, gap_open=2, gap_extend=1)
    expected = {("q", "t"): sw_score(DNA_Q, DNA_T, s), ("q", "u"): sw_score(DNA_Q, DNA_T[::-1], s)}
    assert _json_scores(out) == expected
    _, default, _ = run_cli(["align", "q.fasta", "t.fasta", "-f", "json"], dna_files)
    assert _json_scores(default) != expected
    _, pw, _ = run_cli(args[:3] + args[5:], dna_files)
    assert "# Scoring: match1/mismatch-1, gap open 2, gap extend 1" in pw


def test_dna_nuc44_matrix(run_cli, dna_files):
    code, out, err = run_cli(["align", "q.fasta", "t.fasta", "-f", "json", "--matrix", "NUC.4.4"], dna_files)
    assert code == 0
    s = Scoring.build("dna", matrix="NUC.4.4")
    assert _json_scores(out)[("q", "t")] == sw_score(DNA_Q, DNA_T, s)


# ===================================================================== alphabets and letters


def test_alphabet_is_guessed(run_cli, dna_files):
    _, out, _ = run_cli(["align", QUERIES, TARGETS], dna_files)
    assert "BLOSUM62" in out
    _, out, _ = run_cli(["align", "q.fasta", "t.fasta"], dna_files)
    assert "match2/mismatch-3" in out


def test_alphabet_protein_forced_on_dna(run_cli, dna_files):
    code, out, err = run_cli(["align", "q.fasta", "t.fasta", "-f", "json", "--alphabet", "protein"], dna_files)
    assert code == 0
    p = Scoring.default(PROTEIN)
    assert _json_scores(out)[("q", "t")] == sw_score(DNA_Q, DNA_T, p)
    _, pw, _ = run_cli(["align", "q.fasta", "t.fasta", "--alphabet", "protein"], dna_files)
    assert "# Scoring: BLOSUM62, gap open 11, gap extend 1" in pw


@pytest.mark.parametrize("alphabet", ["dna", "rna"])
def test_alphabet_dna_forced(run_cli, dna_files, alphabet):
    code, out, err = run_cli(["align", "q.fasta", "t.fasta", "-f", "json", "--alphabet", alphabet], dna_files)
    assert code == 0
    assert _json_scores(out)[("q", "t")] == sw_score(DNA_Q, DNA_T, Scoring.default(DNA))


@pytest.mark.parametrize("fmt", ["blast6", "sam", "json", "pairwise"])
def test_crlf_gives_the_same_output(run_cli, tmp_path, fmt):
    outputs = []
    for sub, eol in (("lf", "\n"), ("crlf", "\r\n")):
        d = tmp_path / sub
        d.mkdir()
        _write(d / "q.fasta", QUERIES.read_text().replace("\n", eol))
        _write(d / "t.fasta", TARGETS.read_text().replace("\n", eol))
        code, out, err = run_cli(["align", "q.fasta", "t.fasta", "-f", fmt], d)
        assert code == 0, err
        outputs.append(out)
    assert b"\r\n" in (tmp_path / "crlf" / "q.fasta").read_bytes()
    assert "\r" not in outputs[1]
    assert outputs[0] == outputs[1]


def test_crlf_dna(run_cli, dna_files):
    _write(dna_files / "q_crlf.fasta", f">q\r\n{DNA_Q[:10]}\r\n{DNA_Q[10:]}\r\n")
    _, lf, _ = run_cli(["align", "q.fasta", "t.fasta", "-f", "json"], dna_files)
    _, crlf, _ = run_cli(["align", "q_crlf.fasta", "t.fasta", "-f", "json"], dna_files)
    assert crlf == lf


def test_lowercase_rna_and_iupac(run_cli, dna_files):
    _, ref, _ = run_cli(["align", "q.fasta", "t.fasta", "-f", "json"], dna_files)
    ref_scores = _json_scores(ref)
    _write(dna_files / "lower.fasta", f">q\n{DNA_Q.lower()}\n")
    _write(dna_files / "rna.fasta", f">q\n{DNA_Q.replace('T', 'U')}\n")
    for name in ("lower.fasta", "rna.fasta"):
        code, out, err = run_cli(["align", name, "t.fasta", "-f", "json"], dna_files)
        assert code == 0, err
        assert _json_scores(out) == ref_scores, name
    # an IUPAC code is an N: it scores as a mismatch
    iupac = DNA_Q[:5] + "R" + DNA_Q[6:]
    _write(dna_files / "iupac.fasta", f">q\n{iupac}\n")
    code, out, err = run_cli(["align", "iupac.fasta", "t.fasta", "-f", "json"], dna_files)
    assert code == 0, err
    n_version = DNA_Q[:5] + "N" + DNA_Q[6:]
    assert _json_scores(out)[("q", "t")] == sw_score(n_version, DNA_T, Scoring.default(DNA))


def test_protein_rare_letters(run_cli, tmp_path):
    _write(tmp_path / "p.fasta", ">p\nMKVLBZXUO*ACDEF\n")
    code, out, err = run_cli(["align", "p.fasta", "p.fasta", "-f", "json"], tmp_path)
    assert code == 0, err
    (obj,) = map(json.loads, out.splitlines())
    assert obj["score"] > 0


@pytest.mark.parametrize("name, compress", [
    ("q.fastq", lambda b: b),
    ("q.fq.gz", lambda b: gzip.compress(b, mtime=0)),
])
def test_fastq_queries(run_cli, dna_files, name, compress):
    _, ref, _ = run_cli(["align", "q.fasta", "t.fasta", "-f", "json"], dna_files)
    fq = f"@q read one\n{DNA_Q}\n+\n{'I' * len(DNA_Q)}\n".encode()
    _write(dna_files / name, compress(fq))
    code, out, err = run_cli(["align", name, "t.fasta", "-f", "json"], dna_files)
    assert code == 0, err
    assert out == ref


def test_gzipped_targets(run_cli, tmp_path):
    _write(tmp_path / "t.fasta.gz", gzip.compress(TARGETS.read_bytes(), mtime=0))
    _, ref, _ = run_cli(["align", QUERIES, TARGETS, "-f", "blast6"], tmp_path)
    code, out, err = run_cli(["align", QUERIES, "t.fasta.gz", "-f", "blast6"], tmp_path)
    assert code == 0, err
    assert out == ref
