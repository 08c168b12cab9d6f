"""Genome-scale ``align``: a long query against long targets, the top end
points and the alignments of the best (:mod:`.long_aligner`; its table of
end points, written and read back, :mod:`.ends_table`; the windows and
Dask tasks it shares with ``scan`` are in :mod:`swgpu.workloads.genome`)."""

from .ends_table import read_end_points, write_end_points
from .long_aligner import SEPARATION, TOP, EndPoint, LongAligner, LongResult

__all__ = ["LongAligner", "LongResult", "EndPoint", "SEPARATION", "TOP", "read_end_points", "write_end_points"]
