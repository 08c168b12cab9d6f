"""`swgpu --version` and `--help` start without NumPy, Numba or CuPy (fast start)."""

from __future__ import annotations

import subprocess
import sys


def _modules_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "; import sys; print(' '.join(sys.modules))"],
                         capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_cli_import_needs_no_numpy():
    mods = _modules_after("import swgpu.cli")
    assert not {"numpy", "numba", "cupy"} & mods


def test_version_and_help_run_without_numpy():
    for args in (["--version"], ["--help"], ["search", "--help"]):
        code = (f"import sys; sys.argv = ['swgpu'] + {args!r}\n"
                "from swgpu.cli import main\n"
                "try:\n    main()\nexcept SystemExit:\n    pass\n"
                "assert 'numpy' not in sys.modules, 'numpy imported'")
        subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)


def test_public_names_load_on_first_use():
    mods = _modules_after("import swgpu; swgpu.Scoring")
    assert "numpy" in mods and "swgpu.scoring" in mods
