"""``swgpu.engines.registry``: a further engine registered by name is resolved,
listed among the devices and the ``--device`` choices, built by ``get_engine``
with its device ids checked against its own probe, started by ``start_gpu``,
placed one engine per device by a search; registering imports nothing."""

from __future__ import annotations

import subprocess
import sys

import pytest

from swgpu.engines import base, registry
from swgpu.engines.base import Engine, cuda_available, get_engine, gpu_count, resolve_device, start_gpu
from swgpu.exceptions import EngineError

FAKE_GPUS = [{"id": 0, "name": "Fake 1", "sms": 4, "memory": 2**30, "arch": "f1"},
             {"id": 1, "name": "Fake 1", "sms": 4, "memory": 2**30, "arch": "f1"}]


class FakeEngine(Engine):
    """An accelerator engine that does no work."""

    name = "fake"

    def database_scorer(self, scoring):
        raise NotImplementedError("fake")

    def pair_scorer(self, scoring, kernel="auto", transpose="ballot"):
        raise NotImplementedError("fake")


@pytest.fixture
def fake():
    """The engine ``fake`` (alias ``fk``) with two devices; ``started`` counts its start hook's calls."""
    started = []
    registry.register_engine("fake", FakeEngine, accelerator=True, probe=lambda: (True, 2, "", FAKE_GPUS),
                             start=lambda: started.append(1), aliases=("fk",))
    yield started
    registry.unregister_engine("fake")


@pytest.fixture
def absent():
    """The accelerator ``absent``: registered, without a device."""
    registry.register_engine("absent", FakeEngine, accelerator=True, probe=lambda: (False, 0, "no absent device", ()))
    yield
    registry.unregister_engine("absent")


def test_builtin_engines():
    assert registry.names()[:2] == ("cpu", "cuda")
    assert base.DEVICES == ("auto",) + registry.names()
    assert registry.lookup("gpu").name == "cuda" and registry.is_accelerator("cuda")
    assert not registry.is_accelerator("cpu") and not registry.is_accelerator("tpu")
    assert registry.probe("cpu") == (True, 1, "", ())
    assert gpu_count("cpu") == 1
    assert not get_engine("cpu").accelerator


def test_registered_engine_is_resolved_listed_and_built(fake):
    assert registry.names()[-1] == "fake"
    assert base.DEVICES[-1] == "fake" and registry.device_choices()[-1] == "fake"
    assert resolve_device("fake") == resolve_device("FK") == "fake"
    engine = get_engine("fake", 1, threads=1)
    assert isinstance(engine, FakeEngine) and engine.device_id == 1 and engine.accelerator
    assert get_engine("fk", 1, threads=1) is engine
    assert gpu_count("fake") == 2
    assert base.describe_devices("fake") == FAKE_GPUS
    assert base.gpu_unavailable_reason("fake") == ""
    # auto: the first available accelerator in registration order
    assert resolve_device("auto") == ("cuda" if cuda_available() else "fake")


def test_device_ids_are_checked_against_the_engines_probe(fake):
    with pytest.raises(EngineError) as exc:
        get_engine("fake", 2)
    assert exc.value.param == "gpus"
    assert "GPU 2: this machine has 2 GPU(s)" in str(exc.value)


def test_start_gpu_calls_the_start_hook(fake):
    start_gpu("cpu")
    assert fake == []
    start_gpu("fake")
    start_gpu("auto")  # auto may resolve to any accelerator
    start_gpu("nothing")
    assert fake == [1, 1]


def test_unavailable_accelerator(absent):
    with pytest.raises(EngineError) as exc:
        resolve_device("absent")
    assert exc.value.param == "device"
    assert "absent: no usable GPU (no absent device); use cpu" in str(exc.value)
    assert resolve_device("auto") in ("cuda", "cpu")
    assert gpu_count("absent") == 0 and base.describe_devices("absent") == []


def test_unknown_device_lists_the_registered_names(fake):
    with pytest.raises(EngineError) as exc:
        resolve_device("tpu")
    assert "unknown device 'tpu': use auto, cpu, cuda or fake" in str(exc.value)


def test_unknown_device_message_without_further_engines():
    with pytest.raises(EngineError) as exc:
        resolve_device("tpu")
    assert "unknown device 'tpu': use auto, cpu or cuda" in str(exc.value)


def test_a_probe_that_raises_means_unavailable():
    def broken():
        raise OSError("driver gone\nsecond line")

    registry.register_engine("broken", FakeEngine, accelerator=True, probe=broken)
    try:
        assert registry.probe("broken") == (False, 0, "OSError: driver gone", ())
        with pytest.raises(EngineError, match="broken: no usable GPU"):
            get_engine("broken")
    finally:
        registry.unregister_engine("broken")
    assert "broken" not in registry.names()


def test_cleanup_leaves_the_builtins(fake):
    registry.unregister_engine("fake")
    assert registry.names() == ("cpu", "cuda")
    with pytest.raises(EngineError):
        resolve_device("fake")


def test_search_places_one_engine_per_device(fake):
    from swgpu.workloads.search.placement import devices

    assert [e.device_id for e in devices("fake", threads=1)] == [0, 1]
    assert [e.device_id for e in devices("fake", [1], threads=1)] == [1]
    with pytest.raises(EngineError, match="this machine has 2 GPU"):
        devices("fake", [0, 5], threads=1)
    assert [e.name for e in devices("cpu", threads=1)] == ["cpu"]


def test_device_choices_of_the_command_line(fake):
    from swgpu.cli.main import build_parser

    parser = build_parser()
    args = parser.parse_args(["search", "-q", "q.fa", "-d", "d.fa", "--device", "fake"])
    assert args.device == "fake"
    args = parser.parse_args(["bench", "screen", "--device", "fake"])
    assert args.device == "fake"


def test_registry_imports_no_engine():
    code = ("import sys\nfrom swgpu.engines import registry\nregistry.probe('cpu')\nregistry.start('cpu')\n"
            "print(' '.join(sys.modules))")
    mods = set(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              check=True).stdout.split())
    assert not {"numpy", "numba", "cupy", "swgpu.engines.cpu.engine", "swgpu.engines.cuda.runtime"} & mods
