"""swgpu.parallel.heap: large blocks mapped on their own, glibc's environment setting first."""

import os
import subprocess
import sys

import pytest

_CALL = "from swgpu.parallel.heap import map_large_blocks; print(map_large_blocks())"


def _run(env_extra: dict) -> str:
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_MMAP_THRESHOLD_"}
    env.update(env_extra)
    return subprocess.run([sys.executable, "-c", _CALL], env=env, capture_output=True, text=True,
                          check=True).stdout.strip()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's mallopt")
def test_set_unless_the_environment_says_otherwise():
    assert _run({}) in ("True", "False")  # (False only with a C library without mallopt's setting)
    assert _run({"MALLOC_MMAP_THRESHOLD_": "131072"}) == "False"
