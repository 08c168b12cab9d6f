"""``swgpu screen`` on several GPUs: one process per GPU (:class:`~swgpu.workloads.screen.processes.ProcessScreen`).

A GPU's host work on a screen's part -- reading it, tracing its alignments,
making its output bytes -- is larger than the GPU's; threads driving several
GPUs from one process wait on each other for the interpreter, processes do
not. Each process appends its parts' bytes to a file of its own; this one
writes them to the output in input order (copied by the system where it can),
after the SAM header, which lists the targets of every record.
"""

from __future__ import annotations

import os

from .batches import spill_folder
from .options import program_line

__all__ = ["process_devices", "run_processes", "input_bytes", "PART"]

#: Bytes of the two files from which a screen on several GPUs runs on processes by default (below, their start
#: costs more than they save: 1M pairs of 150 against 250 bp, 420 MB, ran 3.1 s on one GPU and 5.2 s on four).
LEAST_BYTES = 1 << 30
#: Processes a screen runs on, over all its GPUs: the host's work, not the GPUs', sets the time. 10M pairs with SAM
#: on a host of 64 cores: one process on one GPU 21.9 s; 2, 4 processes on it 12.4, 10.4 s; 4 processes on 4 GPUs
#: 9.9 s, 8 processes on 4 GPUs 11.3-11.8 s.
PROCESSES = 4
#: Host cores each process needs (its reading, tracing and output bytes on threads).
CORES_PER_PROCESS = 8
#: Pairs of a part handed to a process (smaller than one process's parts: the last parts of the processes end together).
PART = 1 << 16


def process_devices(args) -> list[int] | None:
    """The GPU of each process a screen runs on (``--processes``, spread over the
    GPUs of ``--gpus``, or on the CPU; by default :func:`default_processes` on
    several GPUs, one process on one GPU or the CPU), for two FASTA files
    the compiled scan reads in parts (plain files, DNA) and records a process
    can make alone (not ``blast7``, every column made for a batch); else None
    (one process: its threads drive the GPUs)."""
    if args.format == "blast7" or not _batch_columns(args):  # (the format is known late: looked at each time)
        return None
    if not hasattr(args, "_process_lanes"):  # (the files and GPUs: looked at once a command)
        args._process_lanes = _lanes(args)
    return args._process_lanes


def _lanes(args) -> list[int] | None:
    """:func:`process_devices` but for the output's format."""
    from .options import gpu_ids

    wanted = getattr(args, "processes", None)
    if args.pairs or not (args.query and args.target) or wanted == 1 or args.device == "cpu" and wanted is None:
        return None
    ids = gpu_ids(args.gpus)
    if wanted is None and (ids is not None and len(set(ids)) < 2
                           or input_bytes(args) < LEAST_BYTES):
        return None
    if not (_own_file(args.query) and _own_file(args.target) and _dna(args.query) and _dna(args.target)):
        return None
    if args.device == "cpu":  # (asked for: the CPU's cores shared by the processes)
        return [0] * wanted
    if ids is None or args.device != "cuda":  # (every GPU, or the device to resolve: the machine is asked)
        from .cluster import accelerator_gpus

        ids = accelerator_gpus(args)
        if ids is None or wanted is None and len(ids) < 2:
            return None
    ids = list(dict.fromkeys(ids))  # (an id past the machine's GPUs: its process says so)
    count = max(len(ids), wanted or default_processes())
    return [ids[k % len(ids)] for k in range(count)]


def default_processes() -> int:
    """Processes of a screen on several GPUs by default: :data:`PROCESSES`, fewer with
    fewer than :data:`CORES_PER_PROCESS` host cores each (at least one a GPU)."""
    return max(1, min(PROCESSES, (os.cpu_count() or 1) // CORES_PER_PROCESS))


def _batch_columns(args) -> bool:
    """Whether every ``--outfmt`` column is made for a whole batch (:data:`~swgpu.io.writers.columns.BATCH_COLUMNS`)."""
    if getattr(args, "columns", None) is None:
        return True
    from ..io.writers.blast6 import parse_columns
    from ..io.writers.columns import BATCH_COLUMNS, LETTER_COLUMNS, POSITIVE_COLUMNS, TITLE_COLUMNS

    return set(parse_columns(args.columns)) <= BATCH_COLUMNS | LETTER_COLUMNS | POSITIVE_COLUMNS | TITLE_COLUMNS


def _own_file(path) -> bool:
    """A plain FASTA file the processes can open by its name (not a descriptor of this process's, ``/dev/fd/N``)."""
    from ..io.cuts import plain_fasta

    return plain_fasta(path) and not os.path.abspath(path).startswith(("/dev/", "/proc/"))


def input_bytes(args) -> int:
    """Bytes of a screen's input files (0 for streams and what cannot be seen)."""
    total = 0
    for path in (args.pairs,) if args.pairs else (args.query, args.target):
        try:
            total += os.path.getsize(path)
        except (OSError, TypeError):
            pass
    return total


def _dna(path) -> bool:
    """Whether the file's first records look like DNA (else one process reads it, and says what it is)."""
    from ..io.alphabet import DNA
    from ..io.scanner import guess_head

    return guess_head(path) is DNA


def run_processes(args, report, devices: list[int]) -> dict | None:
    """Screen ``args``' files on one process per GPU of ``devices`` and write the
    output; returns the counts of ``pairs``, ``cells``, pairs ``selected`` and
    alignments ``written``, or None, having written nothing, where a part is not
    of the common case."""
    from ..parallel.heap import LARGE_INPUT
    from ..scoring import Scoring
    from ..workloads.screen.processes import LaneConfig, NotCommon, ProcessScreen

    scoring = Scoring.build("dna", match=args.match, mismatch=args.mismatch, gap_open=args.gap_open,
                            gap_extend=args.gap_extend)
    threads = args.threads or max(1, (os.cpu_count() or 1) // len(devices))
    config = LaneConfig(scoring, args.query, args.target, device=args.device,
                        kernel=args.kernel, strand=args.strand, threads=threads, threshold=args.threshold,
                        fmt=args.format, columns=getattr(args, "columns", None), folder=spill_folder(args.output),
                        map_large=input_bytes(args) > LARGE_INPUT)
    counts = {"pairs": 0, "cells": 0, "selected": 0, "written": 0}

    def counted(run):
        for k, piece in enumerate(run.pieces()):
            if k == 0:
                report.phase("read+score")  # (the processes' start, and the first part's reading and scoring)
            for name in counts:
                counts[name] += getattr(piece, name)
            report.advance(piece.cells)
            yield piece

    try:
        with ProcessScreen(config, devices, PART) as run:
            if args.threshold is None:
                _write_table(args, counted(run))
            else:  # (the SAM records wait for the header: written once the last part is traced)
                _write_alignments(args, scoring, run, counted(run), lambda: report.phase("traceback"))
            report.phase("write")
            for stage, seconds in run.busy.items():
                report.busy(stage, seconds)
    except NotCommon:
        return None
    return counts


def _write_table(args, pieces) -> None:
    _write_in_order(args, pieces, "query\ttarget\tscore\n")


def _write_in_order(args, pieces, preamble: str) -> None:
    """``preamble``, then the pieces' bytes in order: as they come to a file put in place
    at the end, else (standard output, a pipe, a device) once all came -- a part
    not of the common case then leaves the whole output to one process."""
    from ..io.writers import OutputFile
    from ..io.writers.spill import copy_range

    with OutputFile(args.output) as out:
        held = list(pieces) if not out.atomic else pieces
        out.write(preamble)
        for piece in held:
            copy_range(piece.source, piece.offset, piece.size, out.write_bytes, out.descriptor())


def _write_alignments(args, scoring, run, pieces, traced) -> None:
    """The pieces' records in order; SAM (and BAM) behind a header of every record's
    target. ``traced()`` is called once the last piece came."""
    from contextlib import closing

    from ..io.writers import OutputFile
    from ..io.writers.bam import BamOutput
    from ..io.writers.pairwise import pairwise_file_header
    from ..io.writers.sam_targets import HeaderTargets
    from ..io.writers.spill import copy_range

    if args.format not in ("sam", "bam"):
        preamble = pairwise_file_header(program_line(args), scoring) if args.format == "pairwise" else ""
        _write_in_order(args, pieces, preamble)
        traced()
        return
    with closing(HeaderTargets(spill_folder(args.output))) as listed:
        held = []
        for piece in pieces:
            if piece.targets is not None:
                listed.add_prepared(run.targets(piece))
            held.append(piece)
        traced()
        with (BamOutput if args.format == "bam" else OutputFile)(args.output) as out:
            descriptor = getattr(out, "descriptor", lambda: None)  # (BAM: none; the system copies to a file)
            listed.write(out.write_bytes, program_line(args), descriptor)
            for piece in held:
                copy_range(piece.source, piece.offset, piece.size, out.write_bytes, descriptor())
