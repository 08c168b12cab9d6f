"""``swgpu screen`` runs the garbage collector rarely, and leaves its thresholds as they were."""

from __future__ import annotations

import gc

from swgpu.cli import screen


def test_rare_collections_inside_and_thresholds_restored_after(run_cli, tmp_path, monkeypatch):
    (tmp_path / "q.fa").write_text(">q1\nACGTACGTAC\n>q2\nAAAA\n")
    (tmp_path / "t.fa").write_text(">t1\nTTACGTTCGTAA\n>t2\nCCCC\n")
    before = gc.get_threshold()
    seen = []
    inner = screen._run
    monkeypatch.setattr(screen, "_run", lambda args: seen.append(gc.get_threshold()) or inner(args))
    code, out, _ = run_cli(["screen", "-q", "q.fa", "-t", "t.fa", "--device", "cpu", "--threshold", "10",
                            "-f", "sam"], tmp_path)
    assert code == 0 and "q1\t0\tt1\t3\t255\t4=1X4=" in out
    assert seen[0][0] >= 100_000 and seen[0][1:] == before[1:]
    assert gc.get_threshold() == before
