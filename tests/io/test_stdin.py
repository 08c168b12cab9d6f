"""Reading standard input (``-``) and pipes: FIFOs, ``/dev/fd/N``, ``/dev/stdin``,
process substitution; plain and compressed; read once."""

from __future__ import annotations

import gzip
import io
import os
import shlex
import shutil
import subprocess
import sys
import threading
from importlib import resources
from pathlib import Path

import pytest

from swgpu.exceptions import InputError
from swgpu.io.alphabet import DNA, PROTEIN
from swgpu.io.database import Database
from swgpu.io.pairs import read_pair_files, read_pairs
from swgpu.io.readers import detect_alphabet, iter_sequences, read_sequences

EXAMPLES = Path(str(resources.files("swgpu").joinpath("data", "examples")))
QUERIES = EXAMPLES / "queries.fasta"
TARGETS = EXAMPLES / "targets.fasta"
DNA_FASTA = b">d1 first\nACGTACGTTGCA\n>d2\nGGCCAATTACGT\n"


def _records(seqs) -> list[tuple]:
    return [(s.name, s.description, s.text, s.alphabet, s.codes.tolist()) for s in seqs]


@pytest.fixture
def stdin(monkeypatch):
    """``stdin(data)``: standard input holds ``data`` (bytes), as a text stream over a binary buffer."""
    def _set(data: bytes):
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    return _set


# ------------------------------------------------------------- in process: "-"


@pytest.mark.parametrize("compress", [None, gzip.compress], ids=["plain", "gzip"])
def test_dash_reads_standard_input(stdin, compress):
    data = QUERIES.read_bytes()
    stdin(compress(data) if compress else data)
    assert _records(read_sequences("-")) == _records(read_sequences(QUERIES))


def test_dash_guesses_the_alphabet_in_one_read(stdin):
    stdin(DNA_FASTA)
    seqs = list(iter_sequences("-"))
    assert [s.name for s in seqs] == ["d1", "d2"] and all(s.alphabet is DNA for s in seqs)


def test_detect_alphabet_then_read_standard_input(stdin):
    # Database.from_fasta guesses, then reads: the bytes guessed from are kept for the read
    stdin(QUERIES.read_bytes())
    assert detect_alphabet("-") is PROTEIN
    assert _records(read_sequences("-", PROTEIN)) == _records(read_sequences(QUERIES))


def test_database_from_standard_input(stdin):
    stdin(gzip.compress(TARGETS.read_bytes()))
    db = Database.load("-")
    assert db.alphabet is PROTEIN and len(db) == TARGETS.read_text().count(">")


def test_standard_input_read_twice_is_empty_the_second_time(stdin):
    stdin(DNA_FASTA)
    assert len(read_sequences("-")) == 2
    with pytest.raises(InputError, match="standard input: the input is empty"):
        read_sequences("-")


@pytest.mark.parametrize("data, expected", [
    (b"", "standard input: the input is empty"),
    (b">a\nAC1GT\n", r"standard input: record 'a', position 3"),
    (b"\x00\x01\x02binary", "standard input: not a text FASTA/FASTQ file"),
    (gzip.compress(b">a\nACGT\n", mtime=0)[:-12], "standard input: the compressed file is truncated"),
])
def test_standard_input_errors_name_standard_input(stdin, data, expected):
    stdin(data)
    with pytest.raises(InputError, match=expected):
        read_sequences("-")


def test_pair_files_with_one_side_on_standard_input(stdin, tmp_path):
    target = tmp_path / "t.fa"
    target.write_bytes(b">t1\nACGTACGT\n>t2\nGGCCAATT\n")
    stdin(DNA_FASTA)
    queries, targets = read_pair_files("-", target)
    assert [q.name for q in queries] == ["d1", "d2"] and [t.name for t in targets] == ["t1", "t2"]
    with pytest.raises(InputError, match="only one of"):
        read_pair_files("-", "-")


def test_pairs_tsv_on_standard_input(stdin):
    stdin(gzip.compress(b"\xef\xbb\xbf# pairs\nq1 first\tACGT\tt1\tACGA\n"))
    queries, targets = read_pairs("-")
    assert (queries[0].name, queries[0].description, targets[0].name) == ("q1", "first", "t1")


# ------------------------------------------------------------- pipes with a path


def test_dev_fd_of_a_pipe(tmp_path):
    read_end, write_end = os.pipe()
    os.write(write_end, gzip.compress(QUERIES.read_bytes()))
    os.close(write_end)
    try:
        seqs = read_sequences(f"/dev/fd/{read_end}")
    finally:
        os.close(read_end)
    assert _records(seqs) == _records(read_sequences(QUERIES))


def test_fifo_read_once_for_guess_and_records(tmp_path):
    fifo = tmp_path / "q.fifo"
    os.mkfifo(fifo)

    def writer():
        with open(fifo, "wb") as fh:  # blocks until the reader opens it, once
            fh.write(QUERIES.read_bytes())

    thread = threading.Thread(target=writer, daemon=True)
    thread.start()
    db = Database.load(fifo)  # guesses the alphabet, then reads the records
    thread.join(timeout=10)
    assert not thread.is_alive()
    assert db.alphabet is PROTEIN and len(db) == 2


# ------------------------------------------------------------- the command line, in a subprocess


def _swgpu(args, cwd, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "swgpu", *args], cwd=cwd, capture_output=True, timeout=120,
                          **kwargs)


@pytest.fixture
def files(tmp_path) -> Path:
    shutil.copy(QUERIES, tmp_path / "q.fa")
    shutil.copy(TARGETS, tmp_path / "t.fa")
    return tmp_path


def test_cli_align_dash_redirected_and_piped(files):
    expected = _swgpu(["align", "q.fa", "t.fa", "-f", "blast6"], files)
    assert expected.returncode == 0 and expected.stdout
    with open(files / "q.fa", "rb") as fh:
        redirected = _swgpu(["align", "-", "t.fa", "-f", "blast6"], files, stdin=fh)
    piped = _swgpu(["align", "-", "t.fa", "-f", "blast6"], files, input=gzip.compress(QUERIES.read_bytes()))
    assert (redirected.returncode, redirected.stdout) == (0, expected.stdout)
    assert (piped.returncode, piped.stdout) == (0, expected.stdout)


def test_cli_search_query_from_a_pipe(files):
    expected = _swgpu(["search", "-q", "q.fa", "-d", "t.fa"], files)
    piped = _swgpu(["search", "-q", "-", "-d", "t.fa"], files, input=QUERIES.read_bytes())
    dev_stdin = _swgpu(["search", "-q", "/dev/stdin", "-d", "t.fa"], files, input=QUERIES.read_bytes())
    assert expected.returncode == 0 and expected.stdout
    assert (piped.returncode, piped.stdout) == (0, expected.stdout)
    assert (dev_stdin.returncode, dev_stdin.stdout) == (0, expected.stdout)


@pytest.mark.skipif(not (shutil.which("bash") and shutil.which("gzip")), reason="needs bash and gzip")
def test_cli_process_substitution(files):
    expected = _swgpu(["align", "q.fa", "t.fa", "-f", "blast6"], files)
    cmd = f"{shlex.quote(sys.executable)} -m swgpu align <(cat q.fa) <(gzip -c t.fa) -f blast6"
    run = subprocess.run(["bash", "-c", cmd], cwd=files, capture_output=True, timeout=120)
    assert (run.returncode, run.stdout) == (0, expected.stdout), run.stderr


def test_cli_empty_standard_input_is_one_line(files):
    run = _swgpu(["search", "-q", "-", "-d", "t.fa"], files, input=b"")
    assert run.returncode == 2 and run.stdout == b""
    assert run.stderr.decode() == "swgpu: error: standard input: the input is empty (nothing was read)\n"
