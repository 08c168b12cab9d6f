"""The engine interface: what a compute engine can do, and how to get one.

An :class:`Engine` is one device (the CPU, or one GPU) and hands out the
objects that do the work, each built for one scoring scheme:

* :meth:`Engine.database_scorer` -- a :class:`DatabaseScorer`: exact local
  scores of queries against a loaded database (``search``);
* :meth:`Engine.pair_scorer` -- a :class:`PairScorer`: the best local score of
  each of many (query, target) pairs (``screen``);
* :meth:`Engine.tracer` -- a :class:`Tracer`: full alignments of pairs
  (traceback in linear memory; ``align`` and the hits of every workload).

Workloads get engines only from :func:`get_engine` and use only these
methods; host logic (batching, overflow policy, verification, result assembly)
lives outside the engines. A new engine is a sub-package with a subclass of
:class:`Engine`, registered in :mod:`swgpu.engines.registry`.

>>> engine = get_engine("cpu")
>>> engine.name, engine.capabilities()
('cpu', ('score_database', 'score_pairs', 'trace'))
>>> from swgpu import Scoring, Sequence
>>> q, t = Sequence.from_text("q", "ACGTACGTAC"), Sequence.from_text("t", "TTACGTTCGTAA")
>>> engine.tracer(Scoring.default("dna")).align(q, t).cigar
'4=1X4='
"""

from __future__ import annotations

import abc
import os
from typing import Protocol, Sequence as Seq, runtime_checkable

import numpy as np

from ..align.alignment import Alignment
from ..align.traceback import PairTracer, TracebackKernels
from ..exceptions import EngineError
from ..io.sequence import Sequence
from ..scoring import Scoring
from . import registry
from .start import start_gpu  # noqa: F401 (re-exported)

__all__ = ["Engine", "DatabaseScorer", "PairScorer", "Tracer", "GenomeScanner", "TracebackKernels", "get_engine",
           "resolve_device", "start_gpu", "cuda_available", "gpu_count", "gpu_unavailable_reason", "describe_devices"]


def __getattr__(name: str):
    if name == "DEVICES":  # what ``device`` takes: ("auto", *the registered engines), as registered now
        return registry.device_choices()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@runtime_checkable
class DatabaseScorer(Protocol):
    """Exact SW scores of queries against every sequence of a loaded database."""

    last_timing: dict

    def load_database(self, residues: np.ndarray, offsets: np.ndarray) -> None:
        """Sequence ``i`` is ``residues[offsets[i]:offsets[i + 1]]`` (codes)."""

    def compile(self, query_lengths: Seq[int] = ()) -> float:
        """Prepare (compile or load) what scoring these query lengths needs; seconds."""

    def scores_many(self, queries: list[np.ndarray]) -> list[np.ndarray]:
        """``int32`` scores of each query (code array) against every sequence, database order."""


@runtime_checkable
class PairScorer(Protocol):
    """Best local score of each pair ``(queries[i], targets[i])``."""

    #: Per-phase timings of the last call (engine specific), or None.
    last_timings: object

    def scores(self, queries: list[np.ndarray], targets: list[np.ndarray]) -> np.ndarray:
        """``int32`` score of each pair of code arrays."""

    # Optional: ``scores_and_ends(pair_batch)`` -> (scores, ends or None): also each pair's end cell
    # ``(score, end row, end column)`` as the tracer's end pass finds it (the CPU engine's lane kernels),
    # which the screen hands to ``trace_packed(..., ends=...)`` so that the pass is not run again.


@runtime_checkable
class Tracer(Protocol):
    """Optimal local alignments of pairs, with traceback."""

    def check(self, query: Sequence, target: Sequence) -> None:
        """InputError unless both sequences suit the scoring."""

    def align(self, query: Sequence, target: Sequence) -> Alignment:
        """The optimal local alignment (score 0 and an empty alignment when none scores > 0)."""

    def score(self, query: Sequence, target: Sequence) -> int:
        """The optimal local score only."""

    def align_many(self, pairs, executor=None, expected=None, end_at_last: bool = False) -> list[Alignment]:
        """Alignments of many ``(query, target)`` pairs, in order (batched
        where the engine batches; ``executor`` runs what runs on the CPU;
        ``expected``: known best scores, None where unknown, a hint only;
        ``end_at_last``: each ends at its target's last letter)."""

    # Optional, for engines that trace many pairs per launch (the CUDA engine):
    # ``trace_packed(qcodes, qstart, qlen, tcodes, tstart, tlen, expected)`` (and ``ends=`` where the
    # engine's pair scorer has ``scores_and_ends``)
    # returns the paths of pairs whose codes lie end to end in two arrays
    # (``engines.cuda.traceback_passes.Paths``), which
    # ``workloads.tracing.Traceback.columns`` turns into an ``AlignmentBatch``.


@runtime_checkable
class GenomeScanner(Protocol):
    """Candidate end points of queries along a long target (``scan``)."""

    last_timings: dict

    def candidates(self, queries: list[np.ndarray], genome: np.ndarray, bounds: np.ndarray, min_score,
                   keep: int, on_done=None, own: tuple[int, int] | None = None,
                   radius: int | None = None, max_span: int | None = None) -> list[tuple[np.ndarray, np.ndarray]]:
        """For each query (codes): ``(columns, scores)`` of its ``keep`` best
        candidate end points (:mod:`swgpu.align.scan_rule`) along ``genome``
        (records end to end, record ``r`` = ``genome[bounds[r]:bounds[r+1]]``),
        best first, ties by column; ``min_score``: one threshold or one per
        query; ``on_done(query_index, letters)``: progress. ``own``: only end
        points in genome columns ``[own[0], own[1])`` (a part of the genome;
        the engine reaches back and ahead as far as the rule needs);
        ``radius``: the rule's neighbourhood (default: each query's length);
        ``max_span``: the most target letters an alignment may span (default:
        :func:`~swgpu.align.scan_rule.span_bound`)."""


class Engine(abc.ABC):
    """One compute device and the work it can do (see the module docs)."""

    #: The registered name: ``"cpu"``, ``"cuda"``, ...
    name: str = ""

    def __init__(self, device_id: int = 0, threads: int | None = None):
        self.device_id = int(device_id)
        self.threads = max(1, int(threads or os.cpu_count() or 1))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(device_id={self.device_id})"

    @property
    def accelerator(self) -> bool:
        """True for an engine of a device with ids (a GPU), as registered."""
        return registry.is_accelerator(self.name)

    def capabilities(self) -> tuple[str, ...]:
        """What this engine does itself: ``score_database``, ``score_pairs``, ``trace``."""
        return ("score_database", "score_pairs", "trace")

    @abc.abstractmethod
    def database_scorer(self, scoring: Scoring) -> DatabaseScorer:
        """A scorer of queries against a database, for ``scoring``."""

    @abc.abstractmethod
    def pair_scorer(self, scoring: Scoring, kernel: str = "auto", transpose: str = "ballot") -> PairScorer:
        """A bulk scorer of DNA pairs (match/mismatch scoring) with ``kernel``
        (``auto``, ``bitwise``, ``wordwise``, ``group``); ``transpose`` tunes
        the GPU's bit-sliced kernel (``ballot`` or ``swap``)."""

    def genome_scanner(self, scoring: Scoring, method: str = "auto") -> GenomeScanner:
        """Candidate end points of queries along long targets (``method``:
        ``auto`` the fastest exact one, ``rowscan`` the row-parallel scan;
        both give the same end points). Engines without their own get the
        CPU engine's."""
        return get_engine("cpu", threads=self.threads).genome_scanner(scoring, method)

    def banded_genome_scanner(self, scoring: Scoring, devices, method: str = "auto") -> GenomeScanner | None:
        """A genome scanner that runs each long query's rows in bands, one per
        device of ``devices`` (GPUs of this process), every cell once -- for
        queries so long that cutting the genome into parts would start each
        part a lead as long as the part; None where this engine has none.
        Beside ``candidates`` it has ``takes(queries, bounds, min_score, own,
        radius, max_span)``: whether such a call runs in bands (else it runs
        on one device, and the caller had better cut the genome into parts)."""
        return None

    def traceback_kernels(self) -> TracebackKernels | None:
        """The four traceback passes on this engine, or None when it has none
        (its :meth:`tracer` then runs on the CPU engine)."""
        return None

    def tracer(self, scoring: Scoring) -> Tracer:
        """Aligns pairs with traceback on this engine (on the CPU engine when
        this one has no traceback kernels)."""
        kernels = self.traceback_kernels()
        if kernels is None:
            return get_engine("cpu", threads=self.threads).tracer(scoring)
        return PairTracer(kernels, scoring)


def cuda_available() -> bool:
    """True when CuPy imports and sees at least one CUDA device."""
    return registry.probe("cuda").available


def gpu_count(engine: str = "cuda") -> int:
    """Devices of the accelerator ``engine`` (CUDA: the GPUs CuPy sees; 0 without CuPy or a GPU)."""
    return registry.probe(engine).count


def gpu_unavailable_reason(engine: str = "cuda") -> str:
    """Why ``engine`` has no usable device (empty when it has one)."""
    return registry.probe(engine).why_not


def describe_devices(engine: str = "cuda") -> list[dict]:
    """One dict per device of ``engine`` (a GPU): ``id``, ``name``, ``sms``, ``memory`` (bytes), ``arch``."""
    return registry.describe(engine)


def _names() -> str:
    choices = registry.device_choices()
    return f"{', '.join(choices[:-1])} or {choices[-1]}"


def resolve_device(device: str = "auto") -> str:
    """Turn ``auto`` or an engine name (:func:`~swgpu.engines.registry.device_choices`) into the engine to use.

    ``auto`` picks the first registered accelerator with a usable device
    (``cuda`` when a GPU and CuPy are present), else ``cpu``; a named
    accelerator without a device is an :class:`~swgpu.exceptions.EngineError`.
    """
    device = (device or "auto").lower()
    if device == "auto":
        return next((n for n in registry.names() if registry.is_accelerator(n) and registry.probe(n).available),
                    "cpu")
    entry = registry.lookup(device)
    if entry is None:
        raise EngineError(f"unknown device {device!r}: use {_names()}", param="device")
    found = registry.probe(entry.name)
    if not found.available:
        lack = "no usable GPU" if entry.accelerator else "unavailable"
        raise EngineError(f"{entry.name}: {lack} ({found.why_not}); use cpu", param="device")
    return entry.name


_cache: dict = {}


def get_engine(device: str = "auto", gpu_id: int = 0, threads: int | None = None) -> Engine:
    """The engine for ``device`` (``auto``, ``cpu``, ``cuda``, ...) on device ``gpu_id``
    (an accelerator's; the CPU has one).

    ``threads``: CPU threads the engine may use (default: all cores).
    Engines are kept, one per (engine, device, threads).
    """
    entry = registry.lookup(resolve_device(device))
    if entry.accelerator:
        count = registry.probe(entry.name).count
        if not 0 <= int(gpu_id) < count:
            raise EngineError(f"GPU {gpu_id}: this machine has {count} GPU(s)", param="gpus")
    key = (entry, int(gpu_id) if entry.accelerator else 0, threads)
    engine = _cache.get(key)
    if engine is None:
        engine = registry.load(entry.name)(device_id=key[1], threads=threads)
        _cache[key] = engine
    return engine
