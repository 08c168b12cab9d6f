"""Genome-scale ``align`` and ``scan`` through a Dask cluster of two worker
processes equal one process, also when a worker dies during the run."""

from __future__ import annotations

import os
import signal
import threading
import time

import numpy as np
import pytest

from swgpu import Scoring, Sequence
from swgpu.workloads.longalign import LongAligner
from swgpu.workloads.scan import Scanner

distributed = pytest.importorskip("distributed")

COMP = str.maketrans("ACGT", "TGCA")
SCORING = Scoring.default("dna")


@pytest.fixture(scope="module")
def cluster():
    from swgpu.parallel.dask_executor import DaskExecutor

    with DaskExecutor(workers=2, threads_per_worker=1) as ex:
        yield ex


def _mutate(rng, text: str, rate: float) -> str:
    s = list(text)
    for k in rng.integers(0, len(s), int(len(s) * rate)).tolist():
        s[k] = "ACGT"[int(rng.integers(4))]
    return "".join(s)


@pytest.fixture(scope="module")
def long_pair():
    """50 kbp against 400 kbp (two records), pieces of the query planted on
    both strands across the parts' boundaries (two per worker: 100 kbp apart)."""
    rng = np.random.default_rng(50)
    q = "".join(rng.choice(list("ACGT"), 50_000))
    t = "".join(rng.choice(list("ACGT"), 400_000))
    plant = [(98_000, _mutate(rng, q[1000:6000], 0.04)),
             (198_500, _mutate(rng, q[20_000:24_000], 0.02).translate(COMP)[::-1]),
             (249_000, q[30_000:32_000]),  # across the record boundary at 250 kbp: cut in two
             (299_000, _mutate(rng, q[40_000:43_000], 0.05))]
    for at, piece in plant:
        t = t[:at] + piece + t[at + len(piece):]
    return Sequence.from_text("q", q, "dna"), [Sequence.from_text("a", t[:250_000], "dna"),
                                               Sequence.from_text("b", t[250_000:], "dna")]


def _run_long(executor, pair):
    q, targets = pair
    r = LongAligner(SCORING, device="cpu", executor=executor, separation=200,
                    max_alignment_length=6000).align(q, targets, top=40, alignments=5)
    return [e.to_dict() for e in r.end_points], [a.to_dict() for a in r.alignments]


def test_long_pair_equals_one_process(cluster, long_pair):
    one = _run_long(None, long_pair)
    assert one[0][0]["score"] > 9000 and {e["strand"] for e in one[0][:5]} == {"+", "-"}
    assert _run_long(cluster, long_pair) == one


def test_a_worker_killed_during_the_run(cluster, long_pair):
    one = _run_long(None, long_pair)
    pids = cluster.run(os.getpid)
    out = {}
    job = threading.Thread(target=lambda: out.update(r=_run_long(cluster, long_pair)))
    job.start()
    deadline = time.time() + 30
    while time.time() < deadline and not any(cluster.client.processing().values()):
        time.sleep(0.01)
    os.kill(sorted(pids.values())[0], signal.SIGKILL)  # the nanny starts a new one; Dask reruns its tasks
    job.join(180)
    assert out["r"] == one
    cluster.client.wait_for_workers(2, timeout=60)


def test_scan_equals_one_process(cluster):
    rng = np.random.default_rng(8)
    genome = "".join(rng.choice(list("ACGT"), 120_000))
    queries = [Sequence.from_text(f"q{k}", "".join(rng.choice(list("ACGT"), n)), "dna")
               for k, n in enumerate((30, 200, 700))]
    for k, q in enumerate(queries):
        at = 29_990 + 30_000 * k  # across the parts' boundaries
        piece = _mutate(rng, q.text, 0.05) if k % 2 == 0 else q.text.translate(COMP)[::-1]
        genome = genome[:at] + piece + genome[at + len(piece):]
    recs = [Sequence.from_text("g1", genome[:70_000], "dna"), Sequence.from_text("g2", genome[70_000:], "dna")]
    runs = [Scanner(SCORING, device="cpu", executor=ex).scan(queries, recs, top=5, min_score=25)
            for ex in (None, cluster)]
    assert [[h.to_dict() for h in r.hits] for r in runs[0]] == [[h.to_dict() for h in r.hits] for r in runs[1]]
    assert all(r.hits for r in runs[0])
