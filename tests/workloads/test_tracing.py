"""Traceback of many jobs: checked, annotated for each job's own search space, reported in order."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu.engines import get_engine
from swgpu.io.sequence import Sequence
from swgpu.parallel.executors import ThreadExecutor
from swgpu.scoring import Scoring, Statistics
from swgpu.workloads.tracing import PairJob, Traceback


def _jobs(scoring, n=40, strand="+"):
    rng = np.random.default_rng(4)
    tracer = get_engine("cpu").tracer(scoring)
    jobs = []
    for k in range(n):
        q = Sequence.from_text(f"q{k}", "".join(rng.choice(list("ACGT"), int(rng.integers(5, 60)))))
        t = Sequence.from_text(f"t{k}", "".join(rng.choice(list("ACGT"), int(rng.integers(5, 60)))))
        jobs.append(PairJob(q, t, tracer.align(q, t).score if strand == "+" else None, (len(q), len(t), 1),
                            f"pair {k}", strand))
    return tracer, jobs


@pytest.mark.parametrize("strand", ["+", "both"])
def test_all_annotates_each_job_for_its_space_and_reports_in_order(strand):
    scoring = Scoring.build("dna", match=1, mismatch=-2, gap_open=5, gap_extend=2)
    stats = Statistics.for_scoring(scoring)
    tracer, jobs = _jobs(scoring, strand=strand)
    done = []
    trace = Traceback(tracer, stats, ThreadExecutor(1), on_done=done.append, scoring=scoring)
    alns = trace.all(jobs)
    assert done == jobs
    for job, aln in zip(jobs, alns):
        alone = Traceback(tracer, stats, ThreadExecutor(1), scoring=scoring).one(job)
        assert aln.to_dict() == alone.to_dict()
        assert (aln.evalue is None) == (aln.score <= 0)


def test_a_failing_score_check_reports_the_jobs_before_it():
    scoring = Scoring.build("dna", match=1, mismatch=-2, gap_open=5, gap_extend=2)
    tracer, jobs = _jobs(scoring, n=10)
    jobs[6].expected += 1
    done = []
    trace = Traceback(tracer, Statistics.for_scoring(scoring), ThreadExecutor(1), on_done=done.append)
    with pytest.raises(RuntimeError, match="pair 6: traceback score"):
        trace.all(jobs)
    assert done == jobs[:6]
