"""``swgpu screen`` on one process per device (:mod:`swgpu.cli.screen_lanes`): the
output of one process, byte for byte, in every format that allows it; nothing
written where a part is not of the common case (one process then reads the files)
or the files' counts differ. Run here on the CPU engine, two processes; on GPUs
by ``tests/cli/test_gpus_cli.py``."""

from __future__ import annotations

import pytest

from swgpu.cli import screen_lanes
from swgpu.cli.main import build_parser
from swgpu.cli.progress import Report
from swgpu.exceptions import InputError

from test_screen_stream import _pairs


def _processes(argv, devices=(0, 1)):
    from swgpu.cli.options import resolve_output

    args = build_parser().parse_args(argv)
    args.argv = argv
    if args.threshold is not None:
        resolve_output(args)  # (the format, as the command does first)
    return screen_lanes.run_processes(args, Report("swgpu screen", quiet=True), list(devices))


def _body(path):  # all but SAM's @PG line (the command line) and the pairwise header's
    return [line for line in path.read_bytes().splitlines() if not line.startswith((b"@PG", b"# Commandline"))]


@pytest.mark.parametrize("extra", [
    [],
    ["--threshold", "20", "-f", "sam", "--strand", "both"],
    ["--threshold", "0", "-f", "blast6", "--outfmt", "qseqid sseqid evalue qseq sstrand"],
    ["--threshold", "0", "-f", "blast6", "--outfmt", "qseqid sseqid stitle positive ppos"],
    ["--threshold", "20", "-f", "pairwise"],
])
def test_processes_write_what_one_process_writes(run_cli, tmp_path, monkeypatch, extra):
    monkeypatch.setattr(screen_lanes, "PART", 37)  # parts on both processes, out of order
    q, t = _pairs(tmp_path, 400)
    base = ["screen", "-q", str(q), "-t", str(t), "--device", "cpu", *extra]
    code, _, err = run_cli(base + ["-o", str(tmp_path / "one.out")])
    assert code == 0, err
    counts = _processes(base + ["-o", str(tmp_path / "two.out")])
    assert _body(tmp_path / "two.out") == _body(tmp_path / "one.out")
    assert counts["pairs"] == 400 and counts["cells"] > 0
    if extra:
        assert counts["written"] > 50


def test_records_made_one_by_one_leave_it_to_one_process(tmp_path, monkeypatch):
    # the pairwise view of names not in ASCII is made one record at a time
    q, t = _pairs(tmp_path, 100)
    q.write_text(q.read_text().replace(">r1 ", ">ré1 "))
    out = tmp_path / "two.txt"
    assert _processes(["screen", "-q", str(q), "-t", str(t), "--device", "cpu", "--threshold", "0", "-f",
                       "pairwise", "-o", str(out)]) is None
    assert not out.exists()


def test_a_part_not_of_the_common_case_leaves_it_to_one_process(run_cli, tmp_path, monkeypatch):
    monkeypatch.setattr(screen_lanes, "PART", 50)
    q, t = _pairs(tmp_path, 200)
    q.write_bytes(q.read_bytes() + b">odd\nAC\x01GT\n")
    t.write_bytes(t.read_bytes() + b">odd\nACGT\n")
    out = tmp_path / "two.sam"
    assert _processes(["screen", "-q", str(q), "-t", str(t), "--device", "cpu", "--threshold", "20", "-f", "sam",
                       "-o", str(out)]) is None
    assert not out.exists() and not list(tmp_path.glob(".swgpu-*"))


def test_files_of_different_counts_write_nothing(tmp_path, monkeypatch):
    monkeypatch.setattr(screen_lanes, "PART", 50)
    q, t = _pairs(tmp_path, 200)
    t.write_bytes(t.read_bytes() + b">extra\nACGT\n")
    out = tmp_path / "two.tsv"
    with pytest.raises(InputError, match="has 200 records but .* has 201"):
        _processes(["screen", "-q", str(q), "-t", str(t), "--device", "cpu", "-o", str(out)])
    assert not out.exists() and not list(tmp_path.glob(".swgpu-*"))


def test_the_choice_of_processes(tmp_path, monkeypatch):
    import os

    q, t = _pairs(tmp_path, 20)

    def chosen(*extra):
        args = build_parser().parse_args(["screen", "-q", str(q), "-t", str(t), "--device", "cuda", *extra])
        return screen_lanes.process_devices(args)

    assert chosen("--gpus", "0,1", "--processes", "2") == [0, 1]
    assert chosen("--gpus", "1", "--processes", "2") == [1, 1]
    assert chosen("--gpus", "0,2", "--processes", "4") == [0, 2, 0, 2]
    assert chosen("--gpus", "0,1,2", "--processes", "2") == [0, 1, 2]  # (at least one a GPU)
    assert chosen("--gpus", "0,1", "--processes", "1") is None
    assert chosen("--gpus", "0,1", "--processes", "2", "--threshold", "0", "-f", "blast7") is None
    # every blast6 column is written as columns (stitle, positive: since their batch writer)
    assert chosen("--gpus", "0,1", "--processes", "2", "--threshold", "0", "--outfmt", "6 qseqid stitle ppos") == [0, 1]
    assert chosen("--gpus", "0,1", "--processes", "2", "--threshold", "0", "--outfmt", "6 qseqid btop") == [0, 1]
    for extra, want in ((["--processes", "2"], [0, 0]), ([], None)):
        args = build_parser().parse_args(["screen", "-q", str(q), "-t", str(t), "--device", "cpu", *extra])
        assert screen_lanes.process_devices(args) == want
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert chosen("--gpus", "0,1") is None  # (by default: small files on one process)
    monkeypatch.setattr(screen_lanes, "LEAST_BYTES", 1)
    assert chosen("--gpus", "0,1") == [0, 1, 0, 1]
    assert chosen("--gpus", "0") is None  # (by default: one GPU on one process)
    monkeypatch.setattr(os, "cpu_count", lambda: 16)
    assert chosen("--gpus", "0,1,2") == [0, 1, 2]


def test_awkward_files_give_the_output_of_one_process(run_cli, tmp_path, monkeypatch):
    """CRLF lines, letters over several lines, ``>`` inside descriptions, N letters, a record of one letter."""
    import numpy as np

    monkeypatch.setattr(screen_lanes, "PART", 23)
    rng = np.random.default_rng(5)
    qs, ts = [], []
    for k in range(150):
        t = "".join(rng.choice(list("ACGTN"), int(rng.integers(1, 120))))
        q = t[int(rng.integers(0, 10)):][:int(rng.integers(1, 80))] or "A"
        lines = [q[i:i + 17] for i in range(0, len(q), 17)]
        qs.append(f">q{k} read>{k} x\r\n" + "\r\n".join(lines) + "\r\n")
        ts.append(f">t{k}\n{t}\n")
    (tmp_path / "q.fa").write_text("".join(qs), newline="")
    (tmp_path / "t.fa").write_text("".join(ts))
    base = ["screen", "-q", str(tmp_path / "q.fa"), "-t", str(tmp_path / "t.fa"), "--device", "cpu", "--threshold", "5",
            "-f", "sam", "--strand", "both"]
    code, _, err = run_cli(base + ["-o", str(tmp_path / "one.sam")])
    assert code == 0, err
    counts = _processes(base + ["-o", str(tmp_path / "two.sam")])
    assert counts is not None and counts["pairs"] == 150
    assert _body(tmp_path / "two.sam") == _body(tmp_path / "one.sam")


def _forced(monkeypatch, part=37):
    monkeypatch.setattr(screen_lanes, "PART", part)
    monkeypatch.setattr(screen_lanes, "process_devices", lambda args: [0, 1])


def test_a_late_part_not_of_the_common_case_writes_standard_output_once(run_cli, tmp_path, monkeypatch):
    q, t = _pairs(tmp_path, 300)
    text = q.read_text().split(">")
    text[281] = "q280 é\n" + text[281].split("\n", 1)[1]  # (a non-ASCII header: not the compiled scan's)
    q.write_text(">".join(text))
    base = ["screen", "-q", str(q), "-t", str(t), "--device", "cpu"]
    code, one, err = run_cli(base)
    assert code == 0, err
    _forced(monkeypatch)
    code, two, err = run_cli(base)
    assert code == 0, err
    assert two == one and one.count("\n") == 301


def test_a_stop_while_the_files_are_cut_prints_nothing_more(run_cli, tmp_path, monkeypatch):
    import time

    import swgpu.io.cuts as cuts

    q, t = _pairs(tmp_path, 300)
    q.write_text(q.read_text().replace(">r0 ", ">r0 é ", 1))  # (part 0 not of the compiled scan's case)
    slow = cuts.paired_cuts

    def slowly(*args, **kwargs):
        for cut in slow(*args, **kwargs):
            time.sleep(0.05)
            yield cut

    monkeypatch.setattr(cuts, "paired_cuts", slowly)
    _forced(monkeypatch, part=10)
    code, _, err = run_cli(["screen", "-q", str(q), "-t", str(t), "--device", "cpu", "-o", str(tmp_path / "o.tsv")])
    time.sleep(0.3)  # (the cutting thread, stopped, ends)
    assert code == 0 and err.strip().count("\n") == 0 and "300 pairs scored" in err, err
    assert (tmp_path / "o.tsv").read_text().count("\n") == 301 and not list(tmp_path.glob(".swgpu-*"))


def test_inputs_and_outputs_the_processes_cannot_share(tmp_path):
    import os

    from swgpu.cli.batches import spill_folder

    q, _ = _pairs(tmp_path, 5)
    fd = os.open(q, os.O_RDONLY)
    try:
        assert not screen_lanes._own_file(f"/dev/fd/{fd}") and screen_lanes._own_file(str(q))
    finally:
        os.close(fd)
    assert spill_folder("/dev/null") is None and spill_folder(str(tmp_path / "new.sam")) == str(tmp_path)


def test_the_command_on_processes_of_the_cpu(run_cli, tmp_path, monkeypatch):
    monkeypatch.setattr(screen_lanes, "PART", 41)
    q, t = _pairs(tmp_path, 200)
    base = ["screen", "-q", str(q), "-t", str(t), "--device", "cpu", "--threshold", "15", "-f", "sam"]
    outs = []
    for extra, name in (([], "one.sam"), (["--processes", "2", "--timings"], "two.sam")):
        code, _, err = run_cli(base + extra + ["-o", str(tmp_path / name)])
        assert code == 0, err
        outs.append(_body(tmp_path / name))
    assert outs[0] == outs[1] and len(outs[0]) > 100
    assert "tasks (waited)" in err  # (the processes' stages: it ran on them)


@pytest.mark.parametrize("large", [False, True])
def test_processes_of_a_large_input_give_their_freed_parts_back(tmp_path, monkeypatch, large):
    import swgpu.parallel.heap as heap
    import swgpu.workloads.screen.processes as processes

    seen = []

    class Recorder:  # (what the processes would be started with)
        def __init__(self, config, devices, part):
            seen.append(config)
            raise processes.NotCommon()

    monkeypatch.setattr(processes, "ProcessScreen", Recorder)
    monkeypatch.setattr(heap, "LARGE_INPUT", 0 if large else 1 << 40)
    q, t = _pairs(tmp_path, 20)
    assert _processes(["screen", "-q", str(q), "-t", str(t), "--device", "cpu", "-o", str(tmp_path / "x.tsv")]) is None
    assert [c.map_large for c in seen] == [large]


def test_processes_that_map_their_large_blocks_write_what_one_process_writes(run_cli, tmp_path, monkeypatch):
    import swgpu.parallel.heap as heap

    monkeypatch.setattr(heap, "LARGE_INPUT", 0)  # (each process then maps its blocks of 4 MiB and more on their own)
    monkeypatch.setattr(screen_lanes, "PART", 37)
    q, t = _pairs(tmp_path, 200)
    base = ["screen", "-q", str(q), "-t", str(t), "--device", "cpu", "--threshold", "0", "-f", "sam"]
    code, _, err = run_cli(base + ["-o", str(tmp_path / "one.sam")])
    assert code == 0, err
    _processes(base + ["-o", str(tmp_path / "two.sam")])
    assert _body(tmp_path / "two.sam") == _body(tmp_path / "one.sam")
