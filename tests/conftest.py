"""Shared fixtures: the real-data folder and an in-process runner for the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """``../shared/data`` relative to the repository root (or ``$SWGPU_DATA``).

    Found by walking up from this file to the first parent holding
    ``shared/data``; tests that need it are skipped when it is absent.
    """
    import os

    if os.environ.get("SWGPU_DATA") and Path(os.environ["SWGPU_DATA"]).is_dir():
        return Path(os.environ["SWGPU_DATA"])
    for parent in Path(__file__).resolve().parents:
        candidate = parent / "shared" / "data"
        if candidate.is_dir():
            return candidate
    pytest.skip("shared data folder ../shared/data not found")


@pytest.fixture
def run_cli(capsys, monkeypatch):
    """``run_cli(args, tmp_path=None) -> (code, out, err)``.

    Runs :func:`swgpu.cli.main` in this process with ``args`` (paths are turned
    into strings), from the directory ``tmp_path`` when one is given, and
    returns the exit code and what was printed on stdout and stderr.
    ``SystemExit`` (``--version``, ``--help``) is turned into its code.
    """
    from swgpu.cli import main

    def _run(args, tmp_path=None):
        if tmp_path is not None:
            monkeypatch.chdir(tmp_path)
        capsys.readouterr()  # drop anything printed before the call
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
        out, err = capsys.readouterr()
        return code, out, err

    return _run


# tests/ on the path, so that tests in sub-folders import the shared helpers (oracle.py)
import sys as _sys  # noqa: E402

_sys.path.insert(0, str(Path(__file__).resolve().parent))
