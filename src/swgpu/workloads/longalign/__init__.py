"""Genome-scale ``align``: a long query against long targets, the top end
points and the alignments of the best (:mod:`.long_aligner`; the windows and
Dask tasks it shares with ``scan`` are in :mod:`swgpu.workloads.genome`)."""

from .long_aligner import SEPARATION, TOP, EndPoint, LongAligner, LongResult

__all__ = ["LongAligner", "LongResult", "EndPoint", "SEPARATION", "TOP"]
