"""`--timings`: one line per phase on standard error at the end of a run."""

from __future__ import annotations

from importlib import resources

EX = resources.files("swgpu").joinpath("data", "examples")


def _phases(err: str, command: str) -> list[str]:
    return [line.split()[2] for line in err.splitlines() if line.startswith(f"swgpu {command}: ") and
            line.rstrip().endswith(" s") and len(line.split()) == 5]


def test_search_timings(run_cli, tmp_path):
    code, out, err = run_cli(["search", "-q", EX / "queries.fasta", "-d", EX / "targets.fasta", "--device", "cpu",
                              "--timings", "-o", tmp_path / "h.tsv"])
    assert code == 0
    assert _phases(err, "search") == ["read", "upload", "compile", "score", "rank", "traceback", "write", "total"]


def test_screen_and_align_timings(run_cli, tmp_path):
    pairs = tmp_path / "p.tsv"
    pairs.write_text("a\tACGTACGTACGTACGT\tb\tACGTACGTACGAACGT\n")
    code, out, err = run_cli(["screen", "--pairs", pairs, "--threshold", "1", "-f", "sam", "--device", "cpu",
                              "--timings", "-o", tmp_path / "s.sam"])
    assert code == 0
    assert _phases(err, "screen") == ["read", "upload", "score", "traceback+write", "total"]
    code, out, err = run_cli(["align", EX / "queries.fasta", EX / "queries.fasta", "--timings", "-o",
                              tmp_path / "a.txt"])
    assert code == 0 and _phases(err, "align") == ["read", "traceback+write", "total"]


def test_no_timings_by_default(run_cli, tmp_path):
    code, out, err = run_cli(["search", "-q", EX / "queries.fasta", "-d", EX / "targets.fasta", "--device", "cpu",
                              "-o", tmp_path / "h.tsv"])
    assert code == 0 and not _phases(err, "search")


def test_timings_seconds_line_up(run_cli, tmp_path):
    """``traceback+write`` is longer than the other phase names: the seconds stay in one column."""
    code, out, err = run_cli(["align", EX / "queries.fasta", EX / "queries.fasta", "--timings", "-o",
                              tmp_path / "a.txt"])
    lines = [line for line in err.splitlines() if _phases(line, "align")]
    assert code == 0 and len(lines) == 3
    assert len({line.index(" s", len("swgpu align: ")) for line in lines}) == 1, lines
    assert len({line.rindex(".") for line in lines}) == 1, lines


def test_the_phases_of_a_whole_process_add_up_to_its_time(tmp_path):
    """``swgpu ... --timings`` as a program: a ``start`` phase (the interpreter and
    the imports) first, and the phases add up to the total, which is the
    process's time since it started."""
    import subprocess
    import sys
    import time

    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "swgpu", "search", "-q", str(EX / "queries.fasta"), "-d",
                           str(EX / "targets.fasta"), "--device", "cpu", "--timings", "-o", str(tmp_path / "h.tsv")],
                          capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t0
    rows = {line.split()[2]: float(line.split()[3]) for line in proc.stderr.splitlines()
            if line.startswith("swgpu search: ") and line.rstrip().endswith(" s") and len(line.split()) == 5}
    assert list(rows)[0] == "start" and rows["start"] > 0
    assert abs(sum(v for k, v in rows.items() if k != "total") - rows["total"]) < 0.01
    assert rows["total"] <= wall + 0.02  # (the process's start is known to a clock tick, 10 ms)


def test_a_cpu_screen_of_large_files_loads_numba_in_a_phase_of_its_own(run_cli, tmp_path, monkeypatch):
    """Numba's load, begun at the start for large inputs, ends before the reading on the CPU (whose kernels need
    it): ``load``, then ``read`` (the reading alone)."""
    import threading

    from swgpu.io import compiled

    loaded = threading.Thread(target=compiled.load_scan)  # (what the start began for large files, done here)
    loaded.start()
    monkeypatch.setattr(compiled, "_preloading", loaded)  # (put back after)
    monkeypatch.setattr(compiled, "COMPILED_BYTES", 64)  # (these files count as large)
    (tmp_path / "q.fa").write_text("".join(f">q{k}\nACGTACGTAC\n" for k in range(20)))
    (tmp_path / "t.fa").write_text("".join(f">t{k}\nTTACGTTCGTAA\n" for k in range(20)))
    code, out, err = run_cli(["screen", "-q", tmp_path / "q.fa", "-t", tmp_path / "t.fa", "--device", "cpu",
                              "--threshold", "1", "-f", "sam", "--timings", "-o", tmp_path / "s.sam"])
    assert code == 0, err
    assert _phases(err, "screen") == ["load", "read", "upload", "score", "traceback+write", "total"]
