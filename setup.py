"""The build step beyond pyproject.toml: the CPU kernels compiled into the
built package (:mod:`swgpu.cli.prepare`), so that an install from source
starts its first command without compiling. Skipped for editable installs,
with ``SWGPU_NO_PREPARE=1``, and where it fails (the kernels then compile
at first use, as they would without it)."""

import os
import subprocess
import sys
import tempfile

from setuptools import setup
from setuptools.command.build_py import build_py


class BuildWithKernels(build_py):
    def run(self):
        super().run()
        if getattr(self, "editable_mode", False) or os.environ.get("SWGPU_NO_PREPARE") or self.dry_run:
            return
        lib = os.path.abspath(self.build_lib)
        for folder, _, names in os.walk(os.path.join(lib, "swgpu")):  # (an earlier build's kernels)
            for name in names:
                if name.endswith((".nbi", ".nbc")):
                    os.remove(os.path.join(folder, name))
        env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "NUMBA_DISABLE_JIT")}
        # (the built package first; the rest of the path kept: an isolated build finds its packages through it)
        env["PYTHONPATH"] = os.pathsep.join([lib] + [p for p in [os.environ.get("PYTHONPATH")] if p])
        code = ("import os, sys, swgpu; "
                "sys.exit(3) if not os.path.abspath(swgpu.__file__).startswith(sys.argv[1]) else None; "
                "from swgpu.cli.prepare import prepare; "
                "print(f'swgpu: CPU kernels compiled into the package in {prepare():.1f} s')")
        try:
            with tempfile.TemporaryDirectory() as scratch:  # (swgpu's own caches: not the builder's home)
                env["SWGPU_CACHE_DIR"] = scratch
                done = subprocess.run([sys.executable, "-c", code, lib], env=env, cwd=lib, timeout=1800,
                                      capture_output=True, text=True)
        except (OSError, subprocess.SubprocessError) as exc:
            print(f"swgpu: the CPU kernels were not compiled ahead ({exc}); they compile at first use")
            return
        print((done.stdout + done.stderr).strip()[-2000:] or f"swgpu: kernel compile ended with {done.returncode}")


setup(cmdclass={"build_py": BuildWithKernels})
