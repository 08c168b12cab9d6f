"""``swgpu align``: every query record against every target record, with traceback."""

from __future__ import annotations

from .options import add_device, add_output, add_scoring, finish, progress, scoring_from, write_alignments

__all__ = ["add_parser", "run"]


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("align", help="align every query record against every target record, with traceback")
    p.add_argument("query", help="FASTA/FASTQ file (plain or compressed)")
    p.add_argument("target", help="FASTA/FASTQ file (plain or compressed)")
    add_scoring(p)
    add_output(p, "pairwise")
    add_device(p, cpu_only=True)
    p.add_argument("--min-score", type=int, default=1, help="report alignments scoring at least this (default 1)")
    finish(p, run)


def run(args) -> int:
    from ..io.readers import detect_alphabet, read_sequences
    from ..workloads.align import align_all

    alphabet = args.alphabet or detect_alphabet(args.query)
    queries = read_sequences(args.query, alphabet)
    targets = read_sequences(args.target, alphabet)
    scoring = scoring_from(args, queries[0].alphabet)
    total = sum(len(q) for q in queries) * sum(len(t) for t in targets)
    bar = progress(total, "aligning")
    task = bar.add_task("align", total=total)
    results = align_all(queries, targets, scoring, device=args.device, threads=args.threads,
                        on_done=lambda cells: bar.advance(task, cells))
    rows = ((aln, queries[k // len(targets)].text)  # query-major order
            for k, aln in enumerate(results) if aln.score >= args.min_score)
    with bar:
        write_alignments(args, scoring, rows, targets=targets)
    return 0
