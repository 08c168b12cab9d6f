"""``benchmarks/plot_scaling.py``: the speedup plot of BENCHMARKS.md's scaling entries, from its JSON."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "plot_scaling.py"


def test_plot_of_measured_times(tmp_path):
    pytest.importorskip("matplotlib")
    spec = importlib.util.spec_from_file_location("plot_scaling", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    data = {"title": "t", "jobs": [{"label": "a", "gpus": [1, 2, 4], "seconds": [8.0, 4.2, 2.3]},
                                   {"label": "b", "gpus": [1, 2], "seconds": [3.0, 2.5]}]}
    (tmp_path / "s.json").write_text(json.dumps(data))
    module.main([str(tmp_path / "s.json"), str(tmp_path / "s.png")])
    assert (tmp_path / "s.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
