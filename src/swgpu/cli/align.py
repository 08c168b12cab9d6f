"""``swgpu align``: every query record against every target record, with traceback."""

from __future__ import annotations

from .checks import non_negative_int
from .options import (add_device, add_output, add_quiet, add_scoring, add_strand, check_scoring, finish, resolve_output,
                      scoring_from, write_alignments)
from .progress import Report, plural

__all__ = ["add_parser", "run"]


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("align", help="align every query record against every target record, with traceback")
    p.add_argument("query", help="FASTA/FASTQ file (plain or compressed)")
    p.add_argument("target", help="FASTA/FASTQ file (plain or compressed)")
    add_scoring(p)
    add_output(p, "pairwise")
    add_device(p)
    add_strand(p, "both")
    p.add_argument("--min-score", type=non_negative_int, default=1,
                   help="report alignments scoring at least this, >= 0 (default 1; 0 also writes empty ones)")
    add_quiet(p)
    finish(p, run)


def run(args) -> int:
    from ..io.readers import read_sequences
    from ..workloads.align import align_all

    report = Report("swgpu align", args.quiet, timings=args.timings)
    resolve_output(args)
    check_scoring(args)
    queries = read_sequences(args.query, args.alphabet)  # read once: the query may be standard input
    targets = read_sequences(args.target, queries[0].alphabet, what="the query file",
                             expect=None if args.alphabet else queries[0].alphabet)
    scoring = scoring_from(args, queries[0].alphabet)
    report.phase("read")
    total = sum(len(q) for q in queries) * sum(len(t) for t in targets)
    results = align_all(queries, targets, scoring, device=args.device, threads=args.threads,
                        on_done=report.advance, strand=args.strand)
    rows = ((aln, queries[k // len(targets)].text)  # query-major order
            for k, aln in enumerate(results) if aln.score >= args.min_score)
    with report.progress(total, "aligning"):
        written = write_alignments(args, scoring, rows, targets=targets)
    report.phase("traceback+write")  # streamed together
    pairs = len(queries) * len(targets)
    report.summary(f"{plural(len(queries), 'query')} x {plural(len(targets), 'target')} = {plural(pairs, 'pair')}, "
                   f"{plural(written, 'alignment')} written")
    return 0
