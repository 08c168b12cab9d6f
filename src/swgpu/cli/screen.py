"""``swgpu screen``: best score of many DNA pairs; alignments of those over a threshold."""

from __future__ import annotations

import gc
import time
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

from ..engines.kernel_names import GPU_ONLY_KERNELS, KERNEL_CHOICES
from ..exceptions import InputError
from .batches import write_parts
from . import screen_scan
from .screen_parts import read_parts
from .checks import gap_penalty, non_negative_int, non_positive_int, positive_int
from .options import (add_device, add_output, add_quiet, add_strand, check_scoring, finish, format_from_name,
                      resolve_output)
from .paths import declare
from .progress import Report, plural
from .screen_lanes import input_bytes

__all__ = ["add_parser", "run"]


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("screen", help="best score of many DNA pairs (record i with record i); alignments over a threshold")
    p.add_argument("-q", "--query", help="query FASTA/FASTQ (record i pairs with target record i)")
    p.add_argument("-t", "--target", help="target FASTA/FASTQ")
    p.add_argument("--pairs", help="TSV of pairs instead: qseq<TAB>tseq, or qname<TAB>qseq<TAB>tname<TAB>tseq")
    p.add_argument("--threshold", type=non_negative_int, default=None,
                   help="align the pairs scoring at least this (>= 0) and write them in --format "
                        "(without it: a TSV of query, target, score for every pair, and no -f or --outfmt)")
    p.add_argument("--kernel", choices=list(KERNEL_CHOICES), default="auto",
                   help="bulk kernel: bit-sliced BPBC, word-wise (a pair per thread), group (threads share a pair; "
                        "GPU only), or auto (default: the fastest measured for the batch)")
    g = p.add_argument_group("scoring (a gap of length k costs open + (k-1)*extend)")
    g.add_argument("--match", type=positive_int, help="match score, >= 1, given with --mismatch (default 2)")
    g.add_argument("--mismatch", type=non_positive_int, help="mismatch score, <= 0, given with --match (default -3)")
    g.add_argument("--gap-open", type=gap_penalty(1), help="cost of a gap's first base, >= 1 (default 5)")
    g.add_argument("--gap-extend", type=gap_penalty(0), help="cost of each further gap base, 0 to --gap-open "
                                                             "(default 2)")
    add_output(p, "blast6")
    add_device(p)
    p.add_argument("--gpus", default="0", help="GPUs to use: ids such as 0,1, or all; with several, each takes the "
                                               "next part of the pairs, the output in input order (default 0: at a "
                                               "million read pairs the host's work sets the time)")
    p.add_argument("--processes", type=positive_int, default=None,
                   help="processes over the GPUs (or the CPU), each reading, tracing and formatting its parts "
                        "(default: 4, fewer below 8 host cores each, from 1 GiB of FASTA on several GPUs; else 1)")
    add_strand(p, "plus")
    add_quiet(p)
    declare(p, inputs=("query", "target", "pairs"), outputs=("output",))
    p.set_defaults(gpus_elsewhere=_on_processes, without_numba=screen_scan.scans_on_gpu)
    finish(p, run)


def _on_processes(args) -> bool:
    """Whether the screen will run on processes of their own (no GPU of this process to start early)."""
    from .screen_lanes import process_devices

    return process_devices(args) is not None


def _check_table_output(args) -> None:
    """Without --threshold screen writes its score table: refuse options that ask for alignments."""
    if args.format is not None:
        raise InputError(f"-f {args.format} needs --threshold: without it screen writes a table of query, target, "
                         "score (leave out -f for it)", param="format")
    if args.columns is not None:
        raise InputError("needs --threshold: without it screen writes a table of query, target, score",
                         param="columns")
    named = format_from_name(args.output)
    if named not in (None, "blast6"):
        raise InputError(f"{args.output} names a {named} file, but without --threshold screen writes a table of "
                         "query, target, score: give --threshold, or a .tsv name", param="output")


@contextmanager
def _rare_collections(gen0: int = 100_000):
    """The cyclic garbage collector run rarely (after ``gen0`` allocations, not
    700): screen holds many long-lived objects (sequences, alignments) and makes
    almost no reference cycles, so frequent collections -- each full one walks
    every object -- cost much and find nothing. The thresholds are restored after."""
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], gen0), *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)


def run(args) -> int:
    with _rare_collections(), screen_scan.gpu_scan(args):
        return _run(args)


def _run(args) -> int:
    from ..io.writers import OutputFile
    from ..scoring import Scoring
    from ..workloads.screen import Screener, pair_cells
    from ..workloads.screen.output import score_table

    report = Report("swgpu screen", args.quiet, timings=args.timings)
    if args.threshold is None:
        _check_table_output(args)
    else:
        resolve_output(args)
    check_scoring(args)
    if args.kernel in GPU_ONLY_KERNELS:
        from ..engines import resolve_device
        from ..engines.registry import is_accelerator

        if not is_accelerator(resolve_device(args.device)):
            raise InputError("group runs on the GPU only, and this run uses the CPU: choose bitwise, wordwise or "
                             "auto", param="kernel")

    from .screen_lanes import process_devices, run_processes

    devices = process_devices(args)
    counts = None
    if devices is not None:
        with report.progress(_expected_cells(args), "screening pairs", moving=False):
            counts = run_processes(args, report, devices)
    if counts is not None:  # (None: one process reads the files, as they are not of the common case)
        return _summary(args, report, counts)

    def start():  # the engine starts (a GPU's context) while the pairs are read
        from .cluster import local_gpus

        scoring = Scoring.build("dna", match=args.match, mismatch=args.mismatch, gap_open=args.gap_open,
                                gap_extend=args.gap_extend)
        return scoring, Screener(scoring, device=args.device, kernel=args.kernel, threads=args.threads,
                                 strand=args.strand, gpus=local_gpus(args), traced=args.threshold is not None)

    from ..io.chunks import read_ahead
    from ..parallel.heap import LARGE_INPUT, map_large_blocks

    if input_bytes(args) > LARGE_INPUT:  # memory bounded by the parts, not by the files
        map_large_blocks()

    from ..io import compiled

    if screen_scan.on_cpu(args) and compiled.preloading():  # the CPU's kernels need Numba, whose load began at
        compiled.wait_preload()  # the start: it ends here, before the reading, as a phase of its own
        report.phase("load")
    pool = ThreadPoolExecutor(1, thread_name_prefix="swgpu-start")
    parts = None
    try:
        starting = pool.submit(start)
        parts = read_parts(args)
        if args.threshold is None:  # (with alignments, the parts are read on the scoring thread, one ahead)
            parts = read_ahead(parts)
        first = next(parts, None)
        report.phase("read")
        scoring, screener = starting.result()
    except BaseException:
        if parts is not None:
            parts.close()
        raise
    finally:  # (an error or an interrupt while reading does not wait for the engine)
        pool.shutdown(wait=False, cancel_futures=True)
    report.phase("upload")  # engine start, what of it the reading did not cover
    rest = _chain(first, parts)
    counts = {"pairs": 0, "selected": 0, "cells": 0}

    def counted(items):
        for k, part in enumerate(items):
            counts["pairs"] += len(part.queries)
            counts["cells"] += pair_cells(part.queries, part.targets)
            counts["selected"] += 0 if part.batch is None else len(part.result.selected)
            if k == 0:  # the first part's scoring (the later parts' overlaps the writing; its tracing is counted there)
                report.phase("score", screener.busy["score"], rest_to_next=True)
            t0 = time.perf_counter()
            yield part
            report.busy("write", time.perf_counter() - t0)

    with report.progress(_expected_cells(args), "screening pairs", moving=False):
        if args.threshold is None:
            with OutputFile(args.output) as out:
                out.write("query\ttarget\tscore\n")
                for part in counted(screener.stream(rest, None, render=score_table)):  # (made beside several GPUs)
                    out.write_bytes(part.rendered if part.rendered is not None else score_table(part))
            report.phase("write")
        else:
            written = write_parts(args, scoring, lambda render: counted(screener.stream(rest, args.threshold, render)))
            report.phase("traceback+write")  # streamed together: a part traced while the one before is written
    for stage, seconds in screener.busy.items():
        report.busy(stage if stage != "read" else "read (waited)", seconds)
    counts["written"] = 0 if args.threshold is None else written
    return _summary(args, report, counts)


def _summary(args, report, counts) -> int:
    report.cells = counts["cells"]
    pairs = plural(counts["pairs"], "pair")
    if args.threshold is None:
        report.summary(f"{pairs} scored, score table written")
    else:
        report.summary(f"{pairs}, {counts['selected']:,} scoring >= {args.threshold}, "
                       f"{plural(counts['written'], 'alignment')} written")
    return 0


def _chain(first, rest):
    """``first``, then the items of ``rest`` (closed with it)."""
    try:
        if first is not None:
            yield first
            yield from rest
    finally:
        rest.close()


def _expected_cells(args) -> int:
    """About how many DP cells the files hold (for the progress bar: ~ 100 cells per byte of the pairs)."""
    return input_bytes(args) * 100
