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


def test_large_inputs_counts_sequence_files_only(tmp_path):
    import argparse
    import gzip
    import os

    from swgpu.cli.paths import large_inputs

    fa, gz, db = tmp_path / "a.fa", tmp_path / "b.fa.gz", tmp_path / "c.swdb"
    fa.write_text(">r\n" + "ACGT" * 100 + "\n")
    gz.write_bytes(gzip.compress(fa.read_bytes()))
    db.write_bytes(b"SWGPUDB" + bytes(1000))
    ns = lambda **kw: argparse.Namespace(input_paths=tuple(kw), **kw)  # noqa: E731
    assert large_inputs(ns(query=str(fa)), 400) and not large_inputs(ns(query=str(fa)), 1000)
    assert large_inputs(ns(query=str(gz)), 4 * os.path.getsize(gz))
    assert not large_inputs(ns(db=str(db)), 10)  # not FASTA: never scanned
    r, w = os.pipe()
    os.write(w, b">r\nACGT\n")
    try:
        assert not large_inputs(ns(query=f"/dev/fd/{r}"), 1)
        assert os.read(r, 100) == b">r\nACGT\n"  # nothing read from a pipe
    finally:
        os.close(r)
        os.close(w)


def test_preload_scan_loads_the_compiled_scan_on_a_thread():
    import subprocess
    import sys

    code = ("import sys; from swgpu.io import compiled; compiled.preload_scan(); compiled._preloading.join(); "
            "print('swgpu.io.kernels' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "True"


def test_wait_preload_waits_for_the_load_and_never_for_itself(monkeypatch):
    """What CuPy's import waits for (engines.cuda.runtime): a load under way on another thread; none, or the
    loading thread itself, returns at once."""
    import threading

    from swgpu.io import compiled

    monkeypatch.setattr(compiled, "_preloading", None)
    compiled.wait_preload()  # (none under way)
    release, done, inner = threading.Event(), [], []

    def load():
        inner.append(compiled.wait_preload())  # (from the loading thread itself: no wait on itself)
        release.wait(5)
        done.append(True)

    thread = threading.Thread(target=load)
    monkeypatch.setattr(compiled, "_preloading", thread)
    thread.start()
    threading.Timer(0.05, release.set).start()
    compiled.wait_preload()
    assert done == [True] and inner == [None]


def test_compiling_is_said_once_at_a_terminal(monkeypatch, capsys):
    """What a first run on a machine says while it compiles (Numba's kernels, or a GPU's with NVRTC)."""
    from swgpu.io import compiled

    monkeypatch.setattr(compiled, "_announced", False)
    monkeypatch.setattr(compiled, "_terminal", lambda: False)
    compiled.announce_compiling()
    assert capsys.readouterr().err == ""  # a file or a pipe: nothing added
    monkeypatch.setattr(compiled, "_terminal", lambda: True)
    compiled.announce_compiling()
    compiled.announce_compiling()
    assert capsys.readouterr().err.count("compiling the kernels for this machine") == 1
