"""The device executor: tasks on one thread per device, results in order,
each task seeing its thread's device; scan and genome-scale align through
it give what one process gives (CPU workers here; GPUs in the GPU tests)."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from swgpu import Scoring, Sequence
from swgpu.parallel.dask_executor import worker_gpu, worker_threads
from swgpu.parallel.device_executor import DeviceExecutor
from swgpu.workloads.longalign import LongAligner
from swgpu.workloads.scan import Scanner

COMP = str.maketrans("ACGT", "TGCA")


def test_tasks_see_their_device_and_threads_in_order():
    ex = DeviceExecutor([3, 5], threads=2)
    seen = ex.map(lambda x: (x, worker_gpu(), worker_threads(), threading.current_thread().name), range(40))
    assert [s[0] for s in seen] == list(range(40))
    assert {s[1] for s in seen} <= {3, 5} and {s[2] for s in seen} == {2}
    assert worker_gpu() == 0 and worker_threads() == 1  # this thread is no worker
    assert ex.scatter(seen) is seen and ex.workers == 2 and ex.map(str, []) == []
    assert list(ex.imap(str, [1, 2])) == ["1", "2"]


def test_an_error_in_a_task_is_raised():
    def fail(x):
        if x == 3:
            raise ValueError("task 3")
        return x

    with pytest.raises(ValueError, match="task 3"):
        DeviceExecutor([0, 0]).map(fail, range(8))
    ran = []

    def first_fails(x):
        ran.append(x)
        if x == 0:
            raise KeyError("first")
        return x

    with pytest.raises(KeyError, match="first"):
        DeviceExecutor([0]).map(first_fails, range(6))
    assert ran == [0]  # no task starts after one failed
    with pytest.raises(ValueError):
        DeviceExecutor([])


def _genome(rng):
    q = "".join(rng.choice(list("ACGT"), 300))
    mutated = "".join(c if rng.random() > 0.05 else "ACGT"[int(rng.integers(4))] for c in q)
    g1 = "".join(rng.choice(list("ACGT"), 6000))
    g2 = "".join(rng.choice(list("ACGT"), 3000))
    g1 = g1[:1000] + mutated + g1[1300:4000] + q.translate(COMP)[::-1] + g1[4300:]
    g2 = g2[:2000] + q[:150] + g2[2150:]
    genome = [Sequence.from_text("chr1", g1, "dna"), Sequence.from_text("chr2", g2, "dna")]
    return Sequence.from_text("q", q, "dna"), genome


def test_scan_and_long_align_through_devices_equal_one_process():
    rng = np.random.default_rng(4)
    query, genome = _genome(rng)
    others = [Sequence.from_text(f"s{k}", "".join(rng.choice(list("ACGT"), 80)), "dna") for k in range(5)]
    scoring = Scoring.default("dna")
    ex = DeviceExecutor([0, 0], threads=1)
    one = Scanner(scoring, device="cpu", threads=1).scan([query] + others, genome, top=5, min_score=20)
    two = Scanner(scoring, device="cpu", threads=1, executor=ex).scan([query] + others, genome, top=5, min_score=20)
    assert [[h.to_dict() for h in r.hits] for r in one] == [[h.to_dict() for h in r.hits] for r in two]
    assert any(r.hits for r in one)
    a = LongAligner(scoring, device="cpu", threads=1).align(query, genome, top=6, alignments=3)
    b = LongAligner(scoring, device="cpu", threads=1, executor=ex).align(query, genome, top=6, alignments=3)
    assert [e.to_dict() for e in a.end_points] == [e.to_dict() for e in b.end_points]
    assert [x.to_dict() for x in a.alignments] == [x.to_dict() for x in b.alignments]
