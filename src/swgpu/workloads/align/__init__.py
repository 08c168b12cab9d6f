"""The ``align`` workload: pairs of sequences with full traceback
(:mod:`.aligner`). Genome-scale align is :mod:`swgpu.workloads.longalign`."""

from .aligner import Aligner, align_all, align_batches

__all__ = ["Aligner", "align_all", "align_batches"]
