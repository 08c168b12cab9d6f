"""The engine interface (``swgpu.engines.base``) on a machine without a GPU:
engine look-up and caching, device resolution, the scorer protocols, the CPU
tracer fallback of engines without traceback kernels, and the CPU pair scorer
against the reference."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from swgpu import Scoring, Sequence
from swgpu.align import reference
from swgpu.engines.base import (DatabaseScorer, Engine, PairScorer, Tracer, cuda_available, get_engine,
                                resolve_device)
from swgpu.engines.cpu.engine import CpuEngine
from swgpu.exceptions import EngineError, InputError

from oracle import random_pairs

DNA = Scoring.default("dna")
PROTEIN = Scoring.default("protein")


def test_get_engine_cpu_is_cached_cpu_engine():
    engine = get_engine("cpu")
    assert isinstance(engine, CpuEngine)
    assert engine.name == "cpu"
    assert get_engine("cpu") is engine
    assert engine.capabilities() == ("score_database", "score_pairs", "trace")


def test_get_engine_threads_are_part_of_the_key():
    one = get_engine("cpu", threads=1)
    assert one.threads == 1
    assert get_engine("cpu", threads=1) is one
    assert one is not get_engine("cpu", threads=2)


def test_resolve_device():
    assert resolve_device("cpu") == "cpu"
    assert resolve_device("CPU") == "cpu"
    assert resolve_device("auto") == ("cuda" if cuda_available() else "cpu")
    assert resolve_device("") == resolve_device("auto")


@pytest.mark.parametrize("device", ["tpu", "cuda0", "opencl"])
def test_resolve_device_unknown_name(device):
    with pytest.raises(EngineError) as exc:
        resolve_device(device)
    assert exc.value.param == "device"
    assert device in str(exc.value)


def test_cuda_without_gpu_is_an_engine_error():
    if cuda_available():
        pytest.skip("this machine has a usable GPU")
    for device in ("cuda", "gpu"):
        with pytest.raises(EngineError) as exc:
            resolve_device(device)
        assert exc.value.param == "device"
    with pytest.raises(EngineError) as exc:
        get_engine("cuda")
    assert exc.value.param == "device"


def test_cpu_objects_satisfy_the_protocols():
    engine = get_engine("cpu")
    db_scorer = engine.database_scorer(PROTEIN)
    pair_scorer = engine.pair_scorer(DNA)
    tracer = engine.tracer(PROTEIN)
    assert isinstance(db_scorer, DatabaseScorer)
    assert isinstance(pair_scorer, PairScorer)
    assert isinstance(tracer, Tracer)
    # the protocols are not trivially satisfied
    assert not isinstance(object(), DatabaseScorer)
    assert not isinstance(tracer, PairScorer)


class _FakeEngine(Engine):
    """An engine without traceback kernels: its tracer must come from the CPU engine."""

    name = "fake"

    def database_scorer(self, scoring):  # pragma: no cover - never called
        raise NotImplementedError

    def pair_scorer(self, scoring, kernel="auto", transpose="ballot"):  # pragma: no cover - never called
        raise NotImplementedError


def test_engine_without_traceback_kernels_traces_on_the_cpu():
    fake = _FakeEngine(threads=1)
    assert fake.traceback_kernels() is None
    tracer = fake.tracer(PROTEIN)
    assert isinstance(tracer, Tracer)
    cpu_tracer = get_engine("cpu", threads=1).tracer(PROTEIN)
    assert type(tracer) is type(cpu_tracer)
    q = Sequence.from_text("q", "HEAGAWGHEEMKVLAAGIW", "protein")
    t = Sequence.from_text("t", "PAWHEAEMKVLSAGW", "protein")
    got, want = tracer.align(q, t), cpu_tracer.align(q, t)
    assert dataclasses.astuple(got) == dataclasses.astuple(want)
    assert got.score == reference.sw_score(q.codes.tolist(), t.codes.tolist(), PROTEIN) > 0
    assert tracer.score(q, t) == got.score


@pytest.mark.parametrize("kernel", ["wordwise", "bitwise"])
@pytest.mark.parametrize("params", [(2, -3, 5, 2), (1, -2, 3, 1), (2, -1, 1, 1)])
def test_cpu_pair_scorer_matches_reference(kernel, params):
    match, mismatch, go, ge = params
    scoring = Scoring.build("dna", match=match, mismatch=mismatch, gap_open=go, gap_extend=ge)
    qs, ts = random_pairs(np.random.default_rng(sum(params)), 12, (1, 40), (1, 50))
    scorer = get_engine("cpu").pair_scorer(scoring, kernel=kernel)
    got = scorer.scores(qs, ts)
    want = [reference.sw_score(q.tolist(), t.tolist(), scoring) for q, t in zip(qs, ts)]
    assert got.dtype == np.int32
    assert got.tolist() == want


def test_unknown_pair_kernel_is_an_input_error():
    with pytest.raises(InputError) as exc:
        get_engine("cpu").pair_scorer(DNA, kernel="nope")
    assert exc.value.param == "kernel"
