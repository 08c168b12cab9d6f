"""Library errors about a parameter name the flag of the command being run; the
CLI's layout (one module per command, public imports only)."""

from __future__ import annotations

import ast
import importlib
from importlib import resources
from pathlib import Path

import pytest

from swgpu.cli import build_parser
from swgpu.cli.main import error_message
from swgpu.exceptions import InputError, ScoringError, SwgpuError
from swgpu.scoring import Scoring

EXAMPLES = Path(str(resources.files("swgpu").joinpath("data", "examples")))
QUERIES = EXAMPLES / "queries.fasta"
TARGETS = EXAMPLES / "targets.fasta"
CLI = Path(importlib.import_module("swgpu.cli").__file__).parent

ALIGN = ["align", "q.fa", "t.fa"]
SEARCH = ["search", "-q", "q.fa", "-d", "db"]
SCREEN = ["screen", "-q", "q.fa", "-t", "t.fa"]

# (command line, library parameter, what the line shows for it): the option is given
MAPPING = [
    (ALIGN + ["--gap-open", "3"], "gap_open", "--gap-open"),
    (ALIGN + ["--gap-extend=1"], "gap_extend", "--gap-extend"),
    (ALIGN + ["--matrix", "PAM30"], "matrix", "--matrix"),
    (ALIGN + ["--match", "2"], "match", "--match"),
    (ALIGN + ["--mismatch", "-2"], "mismatch", "--mismatch"),
    (ALIGN + ["--alphabet", "dna"], "alphabet", "--alphabet"),
    (ALIGN + ["--threads", "1"], "threads", "--threads"),
    (ALIGN + ["--device", "cpu"], "device", "--device"),
    (ALIGN + ["-f", "sam"], "format", "--format"),
    (ALIGN + ["-ox.sam"], "output", "-o"),
    (ALIGN, "query", "query"),        # a positional: no flag, always given
    (ALIGN, "targets", "target"),
    (ALIGN + ["--gpus", "0"], "gpus", "--gpus"),        # the local cluster of --ends
    (ALIGN + ["--max-align", "9"], "max_alignment_length", "--max-alignment-length"),  # abbreviated
    (SEARCH, "query", "-q"),
    (SEARCH, "db", "-d"),
    (SEARCH, "database", "-d"),
    (SEARCH + ["--evalue", "1"], "evalue", "--evalue"),
    (SEARCH + ["--max-target-seqs", "3"], "top", "--top"),
    (SEARCH + ["--gpus", "0"], "gpus", "--gpus"),
    (SCREEN, "target", "-t"),
    (["screen", "--pairs", "p.tsv"], "pairs", "--pairs"),
    (SCREEN + ["--kernel", "group"], "kernel", "--kernel"),
    (SCREEN + ["--threshold", "1"], "threshold", "--threshold"),
    (["makedb", "in.fa", "out.swdb", "--alphabet", "dna"], "alphabet", "--alphabet"),
    (["bench", "search", "-q", "q.fa", "--random-db", "1x1"], "random_db", "--random-db"),
    (["bench", "screen", "--kernels", "bitwise"], "kernels", "--kernels"),
    (["search", "-q", "q.fa", "-d", "db.swdb", "--gpu-memory", "1M"], "memory_limit", "--gpu-memory"),
]

# (command line, library parameter): an option the command has not, or that was not given, is not named
UNNAMED = [
    (SCREEN, "alphabet"),            # screen is DNA only: it has no --alphabet
    (ALIGN, "alphabet"),             # guessed: --alphabet not given
    (ALIGN, "gap_extend"),           # the default
    (["screen", "--pairs", "p.tsv"], "targets"),   # -t not given
    (["demo"], "top"),
    (["info"], "gap_open"),
    (["search", "-q", "q.fa", "-d", "db.swdb"], "memory_limit"),   # the default limit: not named
]


def _parse(argv):
    args = build_parser().parse_args(argv)
    args.argv = argv
    return args


@pytest.mark.parametrize("argv, param, shown", MAPPING, ids=[f"{a[0]}-{p}" for a, p, _ in MAPPING])
def test_param_is_shown_as_the_flag_of_the_command(argv, param, shown):
    line = error_message(ScoringError("must be >= 0, got -1", param=param), _parse(argv))
    assert line == f"swgpu: error: {shown}: must be >= 0, got -1"


@pytest.mark.parametrize("argv, param", UNNAMED, ids=[f"{a[0]}-{p}" for a, p in UNNAMED])
def test_param_the_command_lacks_or_was_not_given_is_not_named(argv, param):
    line = error_message(ScoringError("must be >= 0, got -1", param=param), _parse(argv))
    assert line == "swgpu: error: must be >= 0, got -1"


def test_error_without_param_is_unchanged():
    args = build_parser().parse_args(ALIGN)
    assert error_message(InputError("x.fa: empty"), args) == "swgpu: error: x.fa: empty"
    assert error_message(SwgpuError("gap_open: odd", param=None), None) == "swgpu: error: gap_open: odd"


def _fail_build(param):
    def build(cls, *args, **kwargs):
        raise ScoringError("must be >= 0, got -1", param=param)
    return classmethod(build)


@pytest.mark.parametrize("argv, shown", [
    (["align", QUERIES, TARGETS], "--gap-open"),
    (["search", "-q", QUERIES, "-d", TARGETS], "--gap-open"),
])
def test_library_error_through_main(run_cli, monkeypatch, tmp_path, argv, shown):
    monkeypatch.setattr(Scoring, "build", _fail_build("gap_open"))
    code, out, err = run_cli(argv + ["--gap-open", "3", "-o", "out.txt"], tmp_path)
    assert (code, out) == (2, "")
    assert err == f"swgpu: error: {shown}: must be >= 0, got -1\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("flag", ["--gap-open", "--gap-extend"])
def test_negative_gap_names_the_flag(run_cli, tmp_path, flag):
    code, out, err = run_cli(["align", QUERIES, TARGETS, flag, "-1"], tmp_path)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith(f"swgpu align: error: argument {flag}: must be an integer from ")
    assert err.endswith(", got '-1' (see swgpu align --help)\n")


def _cuda_available() -> bool:
    try:
        from swgpu.engines import cuda_available
        return bool(cuda_available())
    except Exception:
        return False


@pytest.mark.skipif(_cuda_available(), reason="a GPU is present, --device cuda works")
def test_engine_error_names_device(run_cli, tmp_path):
    code, out, err = run_cli(["search", "-q", QUERIES, "-d", TARGETS, "--device", "cuda", "-o", "out.txt"], tmp_path)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith("swgpu: error: --device: cuda: "), err
    assert list(tmp_path.iterdir()) == []


def test_info_lists_gpus(run_cli, monkeypatch):
    import swgpu.engines as engines

    monkeypatch.setattr(engines, "describe_devices", lambda engine="cuda": [
        {"id": 0, "name": "NVIDIA H100", "sms": 132, "memory": 80 * 2**30, "arch": "sm_90"}])
    code, out, err = run_cli(["info"])
    assert code == 0
    assert "cuda engine: GPU 0: NVIDIA H100, 132 SMs, 80 GiB, sm_90\n" in out


# ===================================================================== layout

COMMAND_MODULES = ["align", "search", "screen", "makedb", "bench", "info"]


@pytest.mark.parametrize("name", COMMAND_MODULES)
def test_command_modules_have_add_parser_and_run(name):
    module = importlib.import_module(f"swgpu.cli.{name}")
    assert callable(module.add_parser) and callable(module.run)


def _swgpu_imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module is not None:
            if node.level >= 2:  # from ..x import y: swgpu.x
                yield node.module.split("."), [a.name for a in node.names]
            elif node.level == 0 and node.module.startswith("swgpu."):
                yield node.module.split(".")[1:], [a.name for a in node.names]


@pytest.mark.parametrize("path", sorted(CLI.glob("*.py")), ids=lambda p: p.name)
def test_cli_imports_only_public_names(path):
    for parts, names in _swgpu_imports(path):
        assert not any(p.startswith("_") for p in parts), (path.name, parts)
        assert parts[:2] not in (["engines", "cuda"], ["engines", "cpu"]), (path.name, parts)
        assert not any(n.startswith("_") for n in names), (path.name, parts, names)
    assert sum(1 for _ in path.open()) <= 250
