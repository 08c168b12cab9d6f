"""Every command of the ``sh`` blocks of README.md and docs/*.md runs, so the
documentation cannot drift from the code.

Each block runs in a folder of its own holding the documentation's file names
(:data:`FILES`: the bundled examples, or small generated DNA), with
``src/swgpu/data/examples/`` read as the bundled examples and ``/tmp/`` as the
block's folder. ``swgpu`` commands run in this process (each must exit 0, or
with the status a ``; echo "status $?"`` line documents); the only other
command run is ``printf`` (through bash). Lines that need a GPU, a cluster or
../shared data, or that install packages, are skipped -- each by an entry of
:data:`SKIPS`, all of which must still match a line.
"""

from __future__ import annotations

import gzip
import random
import re
import shlex
import shutil
import subprocess
from importlib import resources
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
EXAMPLES = Path(str(resources.files("swgpu").joinpath("data", "examples")))

#: The documentation's file names and what each is here: ``examples/NAME`` a
#: bundled example (``.gz``: compressed, ``.swdb``: made by makedb), else
#: generated DNA: a 20 kbp genome, a 1.5 kbp region and 60 bp probes of it,
#: reads (FASTA, FASTQ) and the windows they come from, a pair file.
FILES = {
    "queries.fa": "examples/queries.fasta", "q.fa": "examples/queries.fasta",
    "QUERIES.fa": "examples/queries.fasta", "a.faa": "examples/queries.fasta",
    "TARGETS.fa": "examples/targets.fasta", "b.faa": "examples/targets.fasta",
    "t.fa.gz": "examples/targets.fasta.gz", "swissprot.fasta.gz": "examples/targets.fasta.gz",
    "sp.swdb": "examples/targets.swdb",
    "genome.fa": "genome", "genome.fa.gz": "genome", "ref.fa": "genome", "region.fa": "region",
    "probes.fa": "probes", "reads.fa": "reads", "windows.fa": "windows", "reads.fq": "reads",
    "pairs.tsv": "pairs",
}

#: (part of a command, why it is not run here)
SKIPS = [
    ("pip install", "installs packages: the tests run on the installed tree"),
    ("python3 -m pytest", "the test suite itself"),
    ("benchmarks/pairwise_cpu.py", "reads ../shared data"),
    ("benchmarks/align_100k.py", "reads ../shared data"),
    ("--device cuda", "needs a GPU"),
    ("--workers", "starts a Dask cluster"),
    ("--scheduler", "needs a Dask cluster"),
    ("dask scheduler", "starts a Dask cluster"),
    ("dask worker", "starts a Dask cluster"),
    ("SWGPU_SCHEDULER", "names a Dask cluster"),
    ("dask cuda worker", "needs dask-cuda and GPUs"),
    ("openssl req", "makes the TLS certificates: tests/cli/test_dask_tls.py runs these commands"),
    ("chmod 600 key.pem", "part of making the TLS certificates (no swgpu command)"),
]

#: Commands other than swgpu that are run (through bash).
SHELL = ("printf",)


def _blocks() -> list[tuple[str, list[str]]]:
    """``(place, lines)`` of every ``sh`` block: continuation lines joined."""
    found = []
    for doc in DOCS:
        text = doc.read_text()
        for m in re.finditer(r"^```sh\n(.*?)^```", text, re.S | re.M):
            lines = m.group(1).replace("\\\n", " ").splitlines()
            found.append((f"{doc.name}:{text[:m.start()].count(chr(10)) + 1}", lines))
    return found


BLOCKS = _blocks()


def _commands(lines: list[str]) -> list[tuple[list[str], str]]:
    """Each command of a block as ``(tokens, text)``: lines split at ``&&``
    and ``;``, comments dropped; an ``echo "status $?"`` after a command is
    kept as the token list ``["echo", "status $?"]``."""
    out = []
    for line in lines:
        lex = shlex.shlex(line, posix=True, punctuation_chars=";&|<>")
        lex.whitespace_split = True
        tokens, current = list(lex), []
        for token in tokens + [";"]:
            if token in (";", "&&", "&"):
                if current:
                    out.append((current, " ".join(t if t in (">", ">>") else shlex.quote(t) for t in current)))
                current = []
            else:
                current.append(token)
    return out


def _skip(text: str) -> str | None:
    return next((why for part, why in SKIPS if part in text), None)


def _dna(rng: random.Random, n: int) -> str:
    return "".join(rng.choices("ACGT", k=n))


def _mutate(rng: random.Random, seq: str, rate: float) -> str:
    return "".join(rng.choice("ACGT") if rng.random() < rate else c for c in seq)


def _revcomp(seq: str) -> str:
    return seq.translate(str.maketrans("ACGT", "TGCA"))[::-1]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    """A folder of every name of :data:`FILES`."""
    from swgpu.io.database import Database

    folder = tmp_path_factory.mktemp("doc-inputs")
    rng = random.Random(16)
    genome = _dna(rng, 20_000)
    windows = [(k, genome[k:k + 200]) for k in range(0, 12_000, 600)]
    made = {
        "genome": f">chr1\n{genome[:12_000]}\n>chr2\n{genome[12_000:]}\n",
        "region": f">region\n{_mutate(rng, genome[5_000:6_500], 0.02)}\n",
        "probes": "".join(f">p{k}\n{genome[k:k + 60] if k % 2 else _revcomp(genome[k:k + 60])}\n"
                          for k in range(1_000, 19_000, 3_000)),
        "windows": "".join(f">w{k}\n{w}\n" for k, w in windows),
        "reads": "".join(f">r{k}\n{_mutate(rng, w[20:170], 0.03)}\n" for k, w in windows),
        "pairs": "".join(f"q{k}\t{w[:150]}\tt{k}\t{_mutate(rng, w, 0.01)}\n" for k, w in windows[:5]),
    }
    for name, source in FILES.items():
        path = folder / name
        if source.startswith("examples/"):
            example = EXAMPLES / Path(source).name.split(".")[0]
            text = example.with_suffix(".fasta").read_text()
            if source.endswith(".swdb"):
                Database.from_fasta(example.with_suffix(".fasta")).save(path)
            elif source.endswith(".gz"):
                path.write_bytes(gzip.compress(text.encode(), mtime=0))
            else:
                path.write_text(text)
        elif name.endswith(".fq"):
            records = [r.split("\n") for r in made["reads"].split(">")[1:]]
            path.write_text("".join(f"@{h}\n{s}\n+\n{'I' * len(s)}\n" for h, s, _ in records))
        elif name.endswith(".gz"):
            path.write_bytes(gzip.compress(made[source].encode(), mtime=0))
        else:
            path.write_text(made[source])
    return folder


def test_the_documentation_has_commands_and_every_skip_is_used():
    texts = [text for _, lines in BLOCKS for _, text in _commands(lines)]
    assert sum(t.startswith("swgpu ") for t in texts) >= 30
    for part, why in SKIPS:
        assert any(part in t for t in texts), f"no command needs the skip {part!r} ({why}) any more"


@pytest.mark.parametrize("place, lines", BLOCKS, ids=[place for place, _ in BLOCKS])
def test_commands_of_the_documentation_run(run_cli, inputs, tmp_path, place, lines):
    folder = tmp_path / "run"
    shutil.copytree(inputs, folder)
    expected = [int(s) for s in re.findall(r"^# status (\d+)$", "\n".join(lines), re.M)]
    commands = _commands(lines)
    for k, (tokens, text) in enumerate(commands):
        # (/tmp/ first: the examples' own path may lie under /tmp)
        tokens = [t.replace("/tmp/", f"{folder}/").replace("src/swgpu/data/examples/", f"{EXAMPLES}/")
                  for t in tokens]
        if _skip(text) or tokens[0] == "echo":  # a status line: checked with its command
            continue
        follows = commands[k + 1][0] if k + 1 < len(commands) else []
        status = expected.pop(0) if follows == ["echo", "status $?"] else 0
        if tokens[0] == "swgpu":
            code, out, err = run_cli(tokens[1:], folder)
        else:
            assert tokens[0] in SHELL, f"{place}: {text!r} is neither swgpu nor in SHELL nor in SKIPS"
            shell = " ".join(t if t in (">", ">>") else shlex.quote(t) for t in tokens)
            done = subprocess.run(["bash", "-c", shell], cwd=folder, capture_output=True, text=True)
            code, err = done.returncode, done.stderr
        assert code == status and "Traceback" not in err, f"{place}: {text}: exit {code}\n{err}"
