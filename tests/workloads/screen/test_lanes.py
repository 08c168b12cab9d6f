"""A screen's parts spread over several lanes (GPUs of one process,
:mod:`swgpu.workloads.screen.lanes`), here lanes of the CPU engine: the
parts come out in order, equal to one lane's, with and without a threshold;
an error in one part stops the stream and is raised; closing the stream
early stops the lanes."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu import Scoring, Sequence
from swgpu.workloads.screen import Screener


def _parts(count=9, size=40, seed=3):
    rng = np.random.default_rng(seed)
    parts = []
    for p in range(count):
        qs, ts = [], []
        for k in range(size if p != 4 else 1):  # one part of a single pair
            q = "".join(rng.choice(list("ACGTN"), int(rng.integers(1, 80))))
            t = q[::-1] + q if k % 3 == 0 else "".join(rng.choice(list("ACGT"), int(rng.integers(1, 150))))
            qs.append(Sequence.from_text(f"q{p}.{k}", q))
            ts.append(Sequence.from_text(f"t{p}.{k}", t))
        parts.append((qs, ts))
    return parts


def _lanes(screener, n):
    screener.lanes = screener.lanes[:1] * n
    return screener


def _summary(part):
    cigars = None
    if part.batch is not None:
        cigars = [a.cigar for a in part.batch.alignments(part.queries, part.targets, Scoring.default("dna"))]
    return part.first, part.result.scores.tolist(), part.result.strands.tolist(), cigars


@pytest.mark.parametrize("threshold", [None, 12])
@pytest.mark.parametrize("lanes", [2, 3])
def test_lanes_give_one_lanes_parts_in_order(threshold, lanes):
    scoring = Scoring.default("dna")
    want = [_summary(p) for p in Screener(scoring, device="cpu", strand="both").stream(_parts(), threshold)]
    screener = _lanes(Screener(scoring, device="cpu", strand="both"), lanes)
    got = [_summary(p) for p in screener.stream(_parts(), threshold)]
    assert got == want
    assert [g[0] for g in got] == [0, 40, 80, 120, 160, 161, 201, 241, 281]
    assert screener.busy["score"] > 0 and (threshold is None or screener.busy["traceback"] > 0)


def test_an_error_in_a_part_is_raised():
    screener = _lanes(Screener(Scoring.default("dna"), device="cpu"), 3)
    parts = _parts()
    parts[5] = (parts[5][0], parts[5][1][:-1])  # one target short
    got = []
    with pytest.raises(Exception, match="queries but"):
        for part in screener.stream(parts, 10):
            got.append(part.first)
    assert got == [0, 40, 80, 120, 160][:len(got)]


def test_closing_the_stream_stops_the_lanes():
    closed = []

    def source():
        try:
            yield from _parts(count=40)
        finally:
            closed.append(True)

    screener = _lanes(Screener(Scoring.default("dna"), device="cpu"), 2)
    stream = screener.stream(source(), 10)
    next(stream)
    stream.close()
    assert closed == [True]


def test_render_runs_beside_the_lanes_and_its_result_rides_with_the_part():
    import threading

    threads = set()

    def render(part):
        threads.add(threading.current_thread().name)
        return ("made", part.first, len(part.queries))

    screener = _lanes(Screener(Scoring.default("dna"), device="cpu"), 3)
    parts = list(screener.stream(_parts(), 12, render))
    assert [p.rendered for p in parts] == [("made", p.first, len(p.queries)) for p in parts]
    assert threads and all(name.startswith("swgpu-render") for name in threads)
    assert screener.busy["render"] > 0
    one = list(Screener(Scoring.default("dna"), device="cpu").stream(_parts(), 12, render))
    assert all(p.rendered is None for p in one)  # (one lane: the caller makes it)


def test_an_error_while_rendering_is_raised_in_order():
    def render(part):
        if part.first == 120:
            raise ValueError("render failed")
        return part.first

    screener = _lanes(Screener(Scoring.default("dna"), device="cpu"), 2)
    got = []
    with pytest.raises(ValueError, match="render failed"):
        for part in screener.stream(_parts(), 12, render):
            got.append(part.rendered)
    assert got == [0, 40, 80]


def test_tracers_made_at_the_start_change_nothing():
    scoring = Scoring.default("dna")
    want = [_summary(p) for p in Screener(scoring, device="cpu").stream(_parts(), 12)]
    got = [_summary(p) for p in _lanes(Screener(scoring, device="cpu", traced=True), 2).stream(_parts(), 12)]
    assert got == want
