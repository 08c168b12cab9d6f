"""How ``swgpu screen`` reads its pairs: in parts of :func:`part_size` pairs
(:func:`read_parts`), each file's blocks scanned :func:`blocks_ahead` at once."""

from __future__ import annotations

import os

from ..exceptions import InputError
from .screen_scan import on_cpu, scans_on_gpu

__all__ = ["read_parts", "part_size", "blocks_ahead", "PART", "CPU_PART", "CPU_FIRST_PART", "TABLE_PART"]

#: Pairs of a part: read, scored, traced and written together, while the next part is read, scored and traced.
PART = 1 << 17
#: Pairs of a part on the CPU: its scoring and tracing take the same cores, so smaller parts keep them both
#: busy from the start to the end (200,000 pairs with SAM on 2 cores: 3.58 s against 4.07 s with PART).
CPU_PART = 1 << 15
#: Pairs of the first part on the CPU with alignments: scored alone before the first tracing can start, on the
#: cores the tracing takes after it (200,000 pairs with SAM on 2 cores, ``--threads 2``: see BENCHMARKS).
CPU_FIRST_PART = 1 << 13
#: Pairs of a part of a score table whose files the GPU scans (:func:`~.screen_scan.scans_on_gpu`): the reading
#: then keeps ahead, and the scoring of smaller parts starts sooner (1M pairs on an H200, medians of 7 runs:
#: 1.16 s, with each part's codes joined where it is read, against 1.28 s with PART joined where scored).
TABLE_PART = 1 << 16


def part_size(args) -> int:
    """Pairs of a part: :data:`CPU_PART` on the CPU (``cpu``, or ``auto`` with no NVIDIA driver),
    :data:`TABLE_PART` for a score table the GPU scans, else :data:`PART`."""
    if on_cpu(args):
        return CPU_PART
    return TABLE_PART if scans_on_gpu(args) else PART


def read_parts(args):
    """The pairs, in parts of :func:`part_size` pairs (a pairs TSV: one part). A score table the GPU scans has
    each part's codes joined on the reading thread (else where the part is first scored)."""
    from ..io.pairs import pair_file_parts, read_pairs

    if args.pairs and (args.query or args.target):
        raise InputError("give either --pairs or -q/-t, not both")
    if args.pairs:
        return (part for part in [read_pairs(args.pairs, expect="dna")])
    if args.query and args.target:
        ahead = blocks_ahead(args)
        return pair_file_parts(args.query, args.target, part_size(args), expect="dna", ahead=ahead,
                               later=bool(ahead) and not scans_on_gpu(args),
                               first=CPU_FIRST_PART if on_cpu(args) and args.threshold is not None else None)
    raise InputError("give -q QUERIES -t TARGETS (record i with record i) or --pairs PAIRS.tsv")


def blocks_ahead(args) -> int:
    """Blocks of each file scanned ahead, at once: one per GPU of several, two for a score table (what waits on the
    reading), none for one GPU's alignments (its tracing is slower; < 2 GB at 10M pairs) nor for the CPU's scoring."""
    from .options import gpu_ids

    if args.device == "cpu" or (os.cpu_count() or 1) < 8:  # (the scan's threads would take the scoring's cores)
        return 0
    ids = gpu_ids(args.gpus)
    if ids is None or len(set(ids)) > 1:
        return 4 if ids is None else len(set(ids))
    return 2 if args.threshold is None else 0
