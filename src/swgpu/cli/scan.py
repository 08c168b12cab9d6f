"""``swgpu scan``: short queries against long sequences (chromosomes, genomes):
the best hits of each query on both strands, with alignments."""

from __future__ import annotations

from .batches import write_hits
from .checks import positive_float, positive_int
from .options import (add_cluster, add_device, add_output, add_quiet, add_scoring, add_strand, check_scoring,
                      cluster_of, finish, resolve_output, scoring_from)
from .paths import declare
from .progress import Report, plural

__all__ = ["add_parser", "run"]


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("scan", help="short queries against chromosomes or genomes: the best hits of each "
                                           "query on both strands, with alignments")
    p.add_argument("-q", "--query", required=True, help="query FASTA/FASTQ file (probes, primers, reads, genes)")
    p.add_argument("-g", "--genome", required=True,
                   help="the long sequences: a FASTA file of one or more records (compressed too)")
    p.add_argument("--top", type=positive_int, default=10,
                   help="hits reported per query over both strands, >= 1 (default 10)")
    p.add_argument("--min-score", type=positive_int, default=None,
                   help="report only hits scoring at least this, >= 1 (default: every hit the E-value allows)")
    p.add_argument("--evalue", type=positive_float, default=None,
                   help="report only hits with E-value at most this, > 0 (default 10 when the scoring has "
                        "E-values and no --min-score is given; without E-values giving it is an error)")
    p.add_argument("--max-hsps", type=positive_int, default=None, metavar="N",
                   help="hits per query on one sequence of the genome file, both strands together, >= 1 "
                        "(default: no limit but --top)")
    p.add_argument("--method", choices=["auto", "rowscan"], default="auto",
                   help="how end points are found: auto (the fastest exact method) or rowscan (the row-parallel "
                        "scan); both report the same hits")
    add_scoring(p, "the genome file")
    add_output(p, "blast6")
    add_device(p)
    add_strand(p, "both")
    p.add_argument("--gpus", default="all", help="GPUs to use, all or ids such as 0,1 (default all: every GPU, "
                   "in this process; with --workers, the GPUs of the local cluster)")
    add_cluster(p)
    add_quiet(p)
    declare(p, inputs=("query", "genome"), outputs=("output",))
    finish(p, run)


def run(args) -> int:
    with cluster_of(args, devices=True) as executor:  # a Dask cluster (--scheduler, --workers), or the GPUs
        return _scan(args, executor)


def _scan(args, executor) -> int:
    from ..io.readers import read_sequences
    from ..workloads.scan import Scanner
    from ..workloads.strands import strands_for
    from .search import DEFAULT_EVALUE

    report = Report("swgpu scan", args.quiet, timings=args.timings)
    resolve_output(args)
    check_scoring(args)
    genome = read_sequences(args.genome, args.alphabet, what="the genome file")
    alphabet = genome[0].alphabet
    queries = read_sequences(args.query, alphabet, what="the genome file",
                             expect=None if args.alphabet else alphabet)
    scoring = scoring_from(args, alphabet)
    report.phase("read")
    scanner = Scanner(scoring, device=args.device, method=args.method, threads=args.threads, executor=executor)
    report.phase("upload")
    evalue = args.evalue
    if evalue is None and args.min_score is None and scanner.statistics.available:
        evalue = DEFAULT_EVALUE
    letters = sum(len(r) for r in genome)
    strands = len(strands_for(args.strand, alphabet))
    total = sum(len(q) for q in queries) * letters * strands
    with report.progress(total, f"scanning {plural(len(genome), 'sequence')}"):
        hits = scanner.scan_columns(queries, genome, top=args.top, min_score=args.min_score, evalue=evalue,
                                    strand=args.strand, on_progress=report.advance, max_hsps=args.max_hsps)
    report.phase("score", scanner.score_seconds)
    report.phase("traceback", scanner.traceback_seconds)
    written = write_hits(args, scoring, hits, queries, genome)
    report.phase("write")
    report.summary(f"{plural(len(queries), 'query')} against {plural(letters, 'letter')} "
                   f"in {plural(len(genome), 'sequence')}, {plural(written, 'hit')} written")
    return 0
