"""The files of a command: outputs checked before any work (writable, not an
input, not another output), makedb's database name, ``.zst`` outputs, the
shipped matrices by name, asymmetric matrices, empty pairs."""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import subprocess
import sys
import tempfile
from importlib import resources
from pathlib import Path

import pytest

EXAMPLES = Path(str(resources.files("swgpu").joinpath("data", "examples")))
QUERIES, TARGETS = EXAMPLES / "queries.fasta", EXAMPLES / "targets.fasta"
DNA_TEXT = "ACGTTGCAAGGCTTACCGATGCATGCAAGT"


def _error(code: int, out: str, err: str) -> str:
    """The one line of a refused command (exit 2, nothing on standard output, no traceback)."""
    assert code == 2 and out == "" and "Traceback" not in err and err.count("\n") == 1, (code, err)
    return err.strip()


@pytest.fixture
def files(tmp_path) -> Path:
    """A folder with protein queries and targets (q.fa, t.fa), DNA reads, a
    genome and pairs (r.fa, g.fa, p.tsv)."""
    shutil.copy(QUERIES, tmp_path / "q.fa")
    shutil.copy(TARGETS, tmp_path / "t.fa")
    (tmp_path / "r.fa").write_text(f">r1\n{DNA_TEXT[:20]}\n")
    (tmp_path / "g.fa").write_text(f">chr\n{DNA_TEXT * 4}\n")
    (tmp_path / "p.tsv").write_text(f"{DNA_TEXT[:20]}\t{DNA_TEXT}\n")
    return tmp_path


# every command with inputs: (arguments, the input an output may not be)
COMMANDS = {
    "search-q": (["search", "-q", "q.fa", "-d", "t.fa"], "q.fa"),
    "search-d": (["search", "-q", "q.fa", "-d", "t.fa"], "t.fa"),
    "align": (["align", "q.fa", "t.fa"], "t.fa"),
    "scan": (["scan", "-q", "r.fa", "-g", "g.fa"], "g.fa"),
    "screen-pairs": (["screen", "--pairs", "p.tsv"], "p.tsv"),
    "screen-q": (["screen", "-q", "r.fa", "-t", "r.fa", "--threshold", "1"], "r.fa"),
}


@pytest.mark.parametrize("link", ["same", "symlink", "hardlink"])
@pytest.mark.parametrize("command", COMMANDS)
def test_an_output_that_is_an_input_is_refused(run_cli, files, command, link):
    args, victim = COMMANDS[command]
    before = (files / victim).read_bytes()
    out = victim
    if link != "same":
        out = "link"
        if link == "symlink":
            os.symlink(victim, files / out)
        else:
            os.link(files / victim, files / out)
    line = _error(*run_cli([*args, "--device", "cpu", "-o", out], files))
    assert f"-o '{out}' is the input" in line and repr(victim) in line
    assert (files / victim).read_bytes() == before and sorted(os.listdir(files)) == sorted(
        ["q.fa", "t.fa", "r.fa", "g.fa", "p.tsv"] + ([] if link == "same" else ["link"]))


@pytest.mark.parametrize("link", [False, True])
def test_makedb_onto_its_fasta_is_refused(run_cli, files, link):
    before = (files / "t.fa").read_bytes()
    if link:
        os.symlink("t.fa", files / "t.swdb")
    line = _error(*run_cli(["makedb", "t.fa", "t.swdb" if link else "t.fa"], files))
    assert "is the input 't.fa'" in line and (files / "t.fa").read_bytes() == before


def test_standard_output_appending_to_an_input_and_standard_input_as_output_are_refused(run_cli, files):
    before = (files / "q.fa").read_bytes()
    saved, appending = os.dup(1), os.open(files / "q.fa", os.O_WRONLY | os.O_APPEND)
    os.dup2(appending, 1)  # swgpu align q.fa t.fa >> q.fa
    try:
        first = run_cli(["align", "q.fa", "t.fa", "--device", "cpu", "--quiet"], files)
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        os.close(appending)
    assert _error(*first) == ("swgpu: error: standard output is the input 'q.fa': an output must not replace an "
                              "input; write it to another file")
    saved, reading = os.dup(0), os.open(files / "q.fa", os.O_RDONLY)
    os.dup2(reading, 0)  # swgpu align - t.fa -o q.fa < q.fa
    try:
        second = run_cli(["align", "-", "t.fa", "--device", "cpu", "-o", "q.fa"], files)
    finally:
        os.dup2(saved, 0)
        os.close(saved)
        os.close(reading)
    assert "swgpu: error: -o 'q.fa' is the input standard input: " in _error(*second)
    assert (files / "q.fa").read_bytes() == before


def test_an_output_through_a_descriptor_onto_an_input_is_refused(files):
    """``-o /dev/stdout >> q.fa`` and ``-o /dev/fd/3 3>> q.fa`` lead to the input too."""
    before = (files / "q.fa").read_bytes()
    for shell in ("{swgpu} align q.fa t.fa --device cpu -o /dev/stdout >> q.fa",
                  "{swgpu} align q.fa t.fa --device cpu -o /dev/fd/3 3>> q.fa"):
        proc = subprocess.run(["bash", "-c", shell.format(swgpu=f"{sys.executable} -m swgpu")], cwd=files,
                              capture_output=True, text=True)
        assert proc.returncode == 2, proc.stderr
        assert "is the input 'q.fa': an output must not replace an input" in proc.stderr
        assert (files / "q.fa").read_bytes() == before


def test_two_outputs_in_one_file_are_refused(run_cli, files):
    args = ["align", "r.fa", "g.fa", "--ends", "3", "--device", "cpu", "--quiet"]
    line = _error(*run_cli([*args, "--ends-out", "X", "-o", "X"], files))
    assert line == ("swgpu: error: -o 'X' and --ends-out 'X' are one file: give each output its own file")
    assert not (files / "X").exists()
    code, _, err = run_cli([*args, "--ends-out", "/dev/null", "-o", "/dev/null"], files)  # devices may be shared
    assert code == 0, err


@pytest.mark.parametrize("output, words", [("/nonexistent/x.tsv", "-o: the folder of '/nonexistent/x.tsv' does not exist"),
                                           ("somedir", "-o: 'somedir' is a directory"),
                                           ("", "-o: an empty name is not a file")])
@pytest.mark.parametrize("args", [["search", "-q", "missing.fa", "-d", "t.fa"], ["align", "missing.fa", "t.fa"],
                                  ["scan", "-q", "missing.fa", "-g", "g.fa"], ["screen", "--pairs", "missing.tsv"],
                                  ["align", "missing.fa", "g.fa", "--ends", "2", "--ends-out"]], ids=str)
def test_outputs_are_checked_before_the_inputs_are_read(run_cli, files, args, output, words):
    (files / "somedir").mkdir()
    flag = [] if args[-1] == "--ends-out" else ["-o"]
    line = _error(*run_cli([*args, *flag, output, "--device", "cpu"], files))
    assert line.startswith("swgpu: error: ") and (words if flag else words.replace("-o:", "--ends-out:")) in line


def test_demo_and_makedb_check_their_output_first(run_cli, files):
    assert "the folder of '/nonexistent/h.tsv'" in _error(*run_cli(["demo", "-o", "/nonexistent/h.tsv"], files))
    assert "the folder of '/nonexistent/x.swdb'" in _error(*run_cli(["makedb", "missing.fa", "/nonexistent/x.swdb"],
                                                                    files))


@contextlib.contextmanager
def _read_only_folder():
    """A folder where no file can be made by this process (as root: made as
    another user for the while)."""
    folder = tempfile.mkdtemp(prefix="swgpu-ro-")
    os.chmod(folder, 0o555)
    root = os.geteuid() == 0
    try:
        if root:
            os.seteuid(65534)
        yield folder
    finally:
        if root:
            os.seteuid(0)
        os.chmod(folder, 0o755)
        shutil.rmtree(folder)


def test_a_read_only_folder_is_named_by_the_path_given(run_cli, files):
    from swgpu.io.writers import OutputFile

    with _read_only_folder() as folder:
        out = os.path.join(folder, "out.tsv")
        line = _error(*run_cli(["search", "-q", "missing.fa", "-d", "t.fa", "-o", out]))
        with pytest.raises(OSError) as info:
            OutputFile(out)
    assert f"cannot write '{out}'" in line and ".tmp" not in line
    assert info.value.filename == out and os.listdir(files).count("out.tsv") == 0


def test_bench_out_that_is_a_file_is_refused_before_the_benchmark(run_cli, files):
    line = _error(*run_cli(["bench", "screen", "--out", "q.fa", "--pairs", "1", "-m", "1", "-n", "1",
                            "--device", "cpu"], files))
    assert line.startswith("swgpu: error: --out: 'q.fa' is a file, not a folder")


@pytest.mark.parametrize("out, words", [("-", "not standard output (-)"),
                                        ("x.swdb.gz", "not compressed (search maps it into memory): give a name "
                                                      "without .gz"),
                                        ("x.fa.zst", "without .zst")])
def test_makedb_refuses_standard_output_and_compressed_names(run_cli, files, monkeypatch, out, words):
    stdout = io.TextIOWrapper(io.BytesIO())  # where a database written to standard output would go
    monkeypatch.setattr(sys, "stdout", stdout)
    line = _error(*run_cli(["makedb", "t.fa", out], files))
    assert words in line and sorted(os.listdir(files)) == ["g.fa", "p.tsv", "q.fa", "r.fa", "t.fa"]
    assert stdout.buffer.getvalue() == b""


def test_makedb_of_a_database_says_it_is_one(run_cli, files):
    assert run_cli(["makedb", "t.fa", "t.swdb"], files)[0] == 0
    line = _error(*run_cli(["makedb", "t.swdb", "new.swdb"], files))
    assert line == ("swgpu: error: t.swdb: already a swgpu database (made by `swgpu makedb`), not a FASTA/FASTQ "
                    "file: give it to `swgpu search -d` as it is")


def test_demo_zst_output_is_compressed_blast6(run_cli, files):
    try:
        from compression import zstd
    except ImportError:
        zstd = pytest.importorskip("backports.zstd")
    assert run_cli(["demo", "--device", "cpu", "--quiet", "-o", "h.tsv.zst"], files)[0] == 0
    assert run_cli(["demo", "--device", "cpu", "--quiet", "-o", "h.tsv"], files)[0] == 0
    text = zstd.decompress((files / "h.tsv.zst").read_bytes()).decode()
    assert text == (files / "h.tsv").read_text() and len(text.splitlines()[0].split("\t")) == 16


def _blosum62_edited(folder: Path) -> None:
    text = resources.files("swgpu").joinpath("data", "matrices", "BLOSUM62").read_text().splitlines(keepends=True)
    (folder / "BLOSUM62").write_text("".join(line.replace(" 11 ", " 99 ") if line.startswith("W ") else line
                                             for line in text))


def test_a_blosum62_file_in_the_folder_does_not_replace_the_shipped_one(run_cli, files):
    args = ["search", "-q", "q.fa", "-d", "t.fa", "--device", "cpu", "--quiet"]
    code, shipped, err = run_cli(args, files)
    assert code == 0, err
    _blosum62_edited(files)
    assert run_cli(args, files)[1] == shipped
    assert run_cli([*args, "--matrix", "BLOSUM62"], files)[1] == shipped
    code, edited, _ = run_cli([*args, "--matrix", "./BLOSUM62"], files)
    assert code == 0 and edited != shipped and "\tNA\tNA\t" in edited  # the file, without BLOSUM62's E-values
    (files / "BLOSUM62").unlink()
    (files / "BLOSUM62").mkdir()
    code, out, err = run_cli(["demo", "--device", "cpu", "--quiet", "-f", "blast6"], files)
    assert code == 0 and out, err


def test_an_asymmetric_matrix_warns_on_one_line_and_runs(run_cli, files):
    text = resources.files("swgpu").joinpath("data", "matrices", "BLOSUM62").read_text().splitlines(keepends=True)
    (files / "asym").write_text("".join(line.replace("A  4 -1", "A  4  3", 1) for line in text))
    code, out, err = run_cli(["align", "q.fa", "q.fa", "--matrix", "asym", "--device", "cpu", "--quiet",
                              "-f", "blast6"], files)
    assert code == 0 and out
    assert err == "swgpu: warning: asym is not symmetric (A-R scores 3, R-A -1): scores depend on which sequence " \
                  "is the query\n"


@pytest.mark.parametrize("line, name", [("q1\tACGT\tt1\t\n", "t1"), ("ACGT\t\n", "pair2_t"),
                                        ("q1\t\tt1\tACGT\n", "q1")])
def test_a_pair_with_an_empty_sequence_is_refused(run_cli, files, line, name):
    (files / "e.tsv").write_text(f"ACGT\tACGA\n{line}")
    assert _error(*run_cli(["screen", "--pairs", "e.tsv", "--device", "cpu"], files)) == (
        f"swgpu: error: e.tsv: line 2: record {name!r} is empty (no sequence letters)")
