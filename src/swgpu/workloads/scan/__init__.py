"""The ``scan`` workload: short queries along long sequences, the best hits
of each with alignments (:mod:`.scanner`; the windows and Dask tasks it
shares with genome-scale align are in :mod:`swgpu.workloads.genome`)."""

from .hits import cull_columns, trace_rounds
from .scanner import CANDIDATES_PER_HIT, METHODS, ScanResult, Scanner

__all__ = ["Scanner", "ScanResult", "cull_columns", "trace_rounds", "CANDIDATES_PER_HIT", "METHODS"]
