"""The disk cache of compiled kernels, with a stand-in for CuPy and NVRTC (no GPU needed)."""

from __future__ import annotations

import json

import pytest

from swgpu.engines.cuda import kernel_cache
from swgpu.engines.cuda.kernel_cache import cache_dir, cache_key, load_or_compile


class DriverError(RuntimeError):
    """CuPy's CUDADriverError: a ``status``."""

    def __init__(self, status):
        super().__init__(f"status {status}")
        self.status = status


class FakeRawModule:
    """``cupy.RawModule``: loads a 'cubin' file that must start with b"CUBIN"
    (else CUDA_ERROR_INVALID_IMAGE), or b"OOM" (out of memory, status 2)."""

    made: list = []

    def __init__(self, *, path=None, code=None, options=(), name_expressions=None):
        self.path, self.code, self.names = path, code, name_expressions
        FakeRawModule.made.append(self)

    @property
    def module(self):
        if self.path is not None:
            with open(self.path, "rb") as f:
                data = f.read()
            if data.startswith(b"OOM"):
                raise DriverError(2)
            if not data.startswith(b"CUBIN"):
                raise DriverError(200)
        return self

    def get_function(self, name):
        return (self.path or "code", name)


class FakeCupy:
    __version__ = "99.0"
    RawModule = FakeRawModule

    class cuda:
        class runtime:
            @staticmethod
            def runtimeGetVersion():
                return 13000


@pytest.fixture
def compiles(monkeypatch, tmp_path):
    monkeypatch.setenv("SWGPU_CACHE_DIR", str(tmp_path / "cache"))
    FakeRawModule.made = []
    calls = []

    def compile_(source, options, names, filename):
        calls.append((source, options, names))
        return b"CUBIN" + source.encode(), {n: f"_Z{len(n)}{n}" for n in names}

    monkeypatch.setattr(kernel_cache, "_compile", compile_)
    monkeypatch.setattr(kernel_cache, "_versions", lambda cp: (cp.__version__, 13000, (13, 0)))
    return calls


def test_compiled_once_then_loaded(compiles, tmp_path):
    m = load_or_compile(FakeCupy, "src", ("-arch=sm_90",), ("k<1>",))
    assert m.get_function("k<1>")[1] == "_Z4k<1>" and m.get_function("plain")[1] == "plain"
    assert len(compiles) == 1
    m2 = load_or_compile(FakeCupy, "src", ("-arch=sm_90",), ("k<1>",))
    assert len(compiles) == 1 and m2.get_function("k<1>") == m.get_function("k<1>")
    files = sorted(p.suffix for p in (tmp_path / "cache").iterdir())
    assert files == [".cubin", ".json"]  # no temporary file left


def test_any_change_compiles_again(compiles):
    load_or_compile(FakeCupy, "src", ("-arch=sm_90",), ())
    load_or_compile(FakeCupy, "src2", ("-arch=sm_90",), ())
    load_or_compile(FakeCupy, "src", ("-arch=sm_80",), ())
    load_or_compile(FakeCupy, "src", ("-arch=sm_90",), ("k<2>",))
    assert len(compiles) == 4


def test_a_bad_file_is_compiled_again_and_replaced(compiles, tmp_path):
    load_or_compile(FakeCupy, "src", ("-arch=sm_90",), ())
    (binary,) = (tmp_path / "cache").glob("*.cubin")
    binary.write_bytes(b"garbage")
    load_or_compile(FakeCupy, "src", ("-arch=sm_90",), ())
    assert len(compiles) == 2 and binary.read_bytes().startswith(b"CUBIN")
    (table,) = (tmp_path / "cache").glob("*.json")
    table.write_text("{not json")
    load_or_compile(FakeCupy, "src", ("-arch=sm_90",), ())
    assert len(compiles) == 3 and json.loads(table.read_text()) == {}


def test_other_load_errors_are_raised_not_compiled_over(compiles, tmp_path):
    load_or_compile(FakeCupy, "src", ("-arch=sm_90",), ())
    (binary,) = (tmp_path / "cache").glob("*.cubin")
    binary.write_bytes(b"OOM")
    with pytest.raises(DriverError):
        load_or_compile(FakeCupy, "src", ("-arch=sm_90",), ())
    assert len(compiles) == 1 and binary.read_bytes() == b"OOM"


def test_a_cache_that_cannot_be_written_loads_from_a_temporary_file(compiles, monkeypatch, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("SWGPU_CACHE_DIR", str(blocker / "kernels"))  # a path under a plain file
    m = load_or_compile(FakeCupy, "src", ("-arch=sm_90",), ("k<1>",))
    assert m.get_function("k<1>")[1] == "_Z4k<1>" and len(compiles) == 1
    assert FakeRawModule.made[-1].code is None


def test_files_are_readable_by_all(compiles, tmp_path):
    load_or_compile(FakeCupy, "src", ("-arch=sm_90",), ())
    assert {p.stat().st_mode & 0o777 for p in (tmp_path / "cache").iterdir()} == {0o644}


def test_cache_dir(monkeypatch, tmp_path):
    monkeypatch.delenv("SWGPU_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_dir() == tmp_path / "swgpu" / "kernels"
    monkeypatch.setenv("SWGPU_CACHE_DIR", "/x/y")
    assert str(cache_dir()) == "/x/y"


def test_key_covers_every_input():
    base = cache_key("s", ("-a",), ("n",), (1, 2))
    assert len({base, cache_key("t", ("-a",), ("n",), (1, 2)), cache_key("s", ("-b",), ("n",), (1, 2)),
                cache_key("s", ("-a",), ("m",), (1, 2)), cache_key("s", ("-a",), ("n",), (1, 3))}) == 5
