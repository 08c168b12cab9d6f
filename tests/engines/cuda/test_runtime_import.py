"""The CuPy import without its cuTENSOR preload (``runtime.skip_unused_preloads``), on a stand-in CuPy package."""

import sys
import textwrap

import pytest

from swgpu.engines.cuda import runtime

_ENVIRONMENT = """
_preload_libs = {"nccl": None, "cutensor": None}
loaded = []

def _preload_library(lib):
    if _preload_libs[lib] is not None:  # CuPy: "preload already attempted"
        return
    _preload_libs[lib] = {}
    loaded.append(lib)
"""

_INIT = """
from cupy import _environment
_environment._preload_library("cutensor")
"""


@pytest.fixture
def fake_cupy(tmp_path, monkeypatch):
    pkg = tmp_path / "cupy"
    pkg.mkdir()
    (pkg / "__init__.py").write_text(textwrap.dedent(_INIT))
    (pkg / "_environment.py").write_text(textwrap.dedent(_ENVIRONMENT))
    monkeypatch.syspath_prepend(str(tmp_path))
    saved = {k: sys.modules.pop(k) for k in list(sys.modules) if k == "cupy" or k.startswith("cupy.")}
    hooks = list(sys.meta_path)
    sys.meta_path[:] = [h for h in hooks if not isinstance(h, runtime._PreloadSkipper)]
    yield pkg
    for k in [k for k in sys.modules if k == "cupy" or k.startswith("cupy.")]:
        del sys.modules[k]
    sys.modules.update(saved)
    sys.meta_path[:] = hooks


def test_plain_import_preloads(fake_cupy):
    import cupy

    assert cupy._environment.loaded == ["cutensor"]


def test_skipped_preload_and_no_hook_left(fake_cupy):
    runtime.skip_unused_preloads()
    runtime.skip_unused_preloads()  # a second call adds nothing
    assert sum(isinstance(h, runtime._PreloadSkipper) for h in sys.meta_path) == 1
    import cupy

    env = cupy._environment
    assert env.loaded == [] and env._preload_libs == {"nccl": None, "cutensor": {}}
    assert env.__file__ == str(fake_cupy / "_environment.py")
    assert not any(isinstance(h, runtime._PreloadSkipper) for h in sys.meta_path)
    assert sys.modules["cupy._environment"] is env


def test_a_layout_without_that_table_is_left_alone(fake_cupy):
    (fake_cupy / "_environment.py").write_text("loaded = []\ndef _preload_library(lib):\n    loaded.append(lib)\n")
    runtime.skip_unused_preloads()
    import cupy

    assert cupy._environment.loaded == ["cutensor"]


def test_nothing_once_cupy_is_imported(fake_cupy):
    import cupy  # noqa: F401

    runtime.skip_unused_preloads()
    assert not any(isinstance(h, runtime._PreloadSkipper) for h in sys.meta_path)

