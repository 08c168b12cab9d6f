"""The ``scan`` workload: short queries along long sequences, the best hits
of each with alignments (:mod:`.scanner`; the windows and Dask tasks it
shares with genome-scale align are in :mod:`swgpu.workloads.genome`)."""

from .scanner import CANDIDATES_PER_HIT, METHODS, ScanResult, Scanner, cull, trace_best

__all__ = ["Scanner", "ScanResult", "cull", "trace_best", "CANDIDATES_PER_HIT", "METHODS"]
