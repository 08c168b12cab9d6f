"""Karlin-Altschul parameters for *every* scoring system: BLAST's table where
it has the scoring (:func:`swgpu.scoring.karlin.lookup`), else an estimate by
simulation (:mod:`.simulation`), computed once per machine and kept on disk
(:mod:`.karlin_cache`).

A scoring is identified by its values, never its name: the scores among the
letters of positive background probability (the 20 standard amino acids, or
``A C G T``), the gap costs and the background composition. A matrix file
holding BLOSUM62's scores under any name therefore gets BLOSUM62's tabulated
parameters, or shares BLOSUM62's cached estimate for untabulated gap costs.

>>> from swgpu.scoring import ScoreMatrix, Scoring
>>> parameters(Scoring(ScoreMatrix.load("BLOSUM62"), 12, 1)).source
'BLAST table, BLOSUM62 gap existence 11 extension 1'
>>> identity(Scoring(ScoreMatrix.load("BLOSUM62"), 11, 11))[1:3]
('ARNDCQEGHILKMFPSTWYV', (11, 11))
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

import numpy as np

from . import karlin_cache, simulation
from .karlin import KarlinAltschul, lookup
from .ungapped import background

if TYPE_CHECKING:  # pragma: no cover
    from .scoring import Scoring

__all__ = ["identity", "parameters", "estimated", "simulated_record", "needs_simulation", "forget"]

_lock = threading.Lock()
_memory: dict[str, KarlinAltschul | None] = {}


def identity(scoring: "Scoring") -> tuple[np.ndarray, str, tuple[int, int], np.ndarray]:
    """``(values, letters, (gap_open, gap_extend), probs)``: what the
    statistics of ``scoring`` depend on (scores among the letters of positive
    background probability, in the alphabet's order)."""
    matrix = scoring.matrix
    p = background(matrix.alphabet)
    live = np.flatnonzero(p > 0)
    values = np.asarray(matrix.values)[np.ix_(live, live)].astype(np.int64)
    letters = "".join(matrix.alphabet.letters[i] for i in live)
    return values, letters, (int(scoring.gap_open), int(scoring.gap_extend)), p[live]


def _key(scoring: "Scoring", cells: int) -> str:
    values, letters, (go, ge), probs = identity(scoring)
    return karlin_cache.cache_key(values, letters, go, ge, probs, simulation.METHOD_VERSION, cells)


def _params(record: dict) -> KarlinAltschul | None:
    if record.get("none"):
        return None
    return KarlinAltschul(float(record["lambda"]), float(record["K"]), float(record["H"]),
                          float(record["alpha"]), float(record["beta"]), True,
                          f"simulated (island method, {record.get('islands', '?')} islands at or above score "
                          f"{record.get('cutoff', '?')}, {record.get('cells', '?')} cells)")


def simulated_record(scoring: "Scoring", cells: int | None = None) -> dict:
    """The simulation's result for ``scoring`` as stored on disk (``none``:
    True when the scoring has no logarithmic regime)."""
    cells = simulation.CELLS if cells is None else int(cells)
    est = simulation.estimate(scoring.matrix, scoring.gap_open, scoring.gap_extend, cells=cells)
    if est is None:
        # Stored too, so that a scoring without statistics is not simulated
        # again; the numbers keep the file sound.
        return {"none": True, "lambda": 1.0, "K": 1.0, "H": 1.0, "alpha": 1.0, "beta": 0.0,
                "scoring": scoring.describe()}
    return {"lambda": est.lambda_, "K": est.K, "H": est.H, "alpha": est.alpha, "beta": est.beta,
            "cutoff": est.cutoff, "islands": est.islands, "cells": est.cells,
            "seconds": round(est.seconds, 3), "scoring": scoring.describe(),
            "method": f"island method v{simulation.METHOD_VERSION}"}


def estimated(scoring: "Scoring", cells: int | None = None) -> KarlinAltschul | None:
    """Simulated gapped parameters of ``scoring`` (whatever the tables hold):
    from this process's memory, else the disk cache, else a simulation of
    about ``cells`` cells (then stored). None when the scoring has no
    logarithmic regime (the expected score is not negative, or gaps are so
    cheap that scores grow linearly with length). ``cells``: default
    :data:`swgpu.scoring.simulation.CELLS`."""
    cells = simulation.CELLS if cells is None else int(cells)
    key = _key(scoring, cells)
    with _lock:  # one simulation at a time; the others wait for its result
        if key in _memory:
            return _memory[key]
        record = karlin_cache.load(key)
        if record is None:
            _announce(scoring)
            record = simulated_record(scoring, cells)
            karlin_cache.store(key, record)
        params = _params(record)
        _memory[key] = params
        return params


def parameters(scoring: "Scoring", estimate: bool = True) -> KarlinAltschul | None:
    """BLAST's tabulated parameters of ``scoring`` when it has them, else (with
    ``estimate``) :func:`estimated`; None when there are none."""
    params = lookup(scoring)
    if params is not None or not estimate:
        return params
    return estimated(scoring)


def _announce(scoring: "Scoring") -> None:
    """Say on standard error, to a user at a terminal, what the pause is."""
    import sys

    try:
        if sys.stderr.isatty():
            print(f"swgpu: estimating E-value statistics for {scoring.describe()} (once; cached for later runs) ...",
                  file=sys.stderr, flush=True)
    except (AttributeError, ValueError):
        pass


def needs_simulation(scoring: "Scoring") -> bool:
    """True when the parameters of ``scoring`` are neither tabulated nor
    estimated already (in this process or the disk cache): getting them will
    take seconds (a command may say so first)."""
    if lookup(scoring) is not None:
        return False
    key = _key(scoring, simulation.CELLS)
    with _lock:
        return key not in _memory and karlin_cache.load(key) is None


def forget() -> None:
    """Drop this process's remembered estimates (the disk cache stays)."""
    with _lock:
        _memory.clear()
