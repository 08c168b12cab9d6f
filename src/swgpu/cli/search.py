"""``swgpu search``: queries against a database; ranked hits, E-values, alignments."""

from __future__ import annotations

from ..exceptions import InputError
from .options import add_device, add_output, add_scoring, finish, gpu_ids, progress, scoring_from, write_alignments

__all__ = ["add_parser", "run"]


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("search", help="search queries against a database: ranked hits, E-values, alignments")
    p.add_argument("-q", "--query", required=True, help="query FASTA/FASTQ file")
    p.add_argument("-d", "--db", required=True, help="database: a FASTA/FASTQ file or a file made by `swgpu makedb`")
    p.add_argument("--top", type=int, default=10, help="hits reported per query (default 10)")
    p.add_argument("--evalue", type=float, default=None, help="report only hits with E-value at most this")
    add_scoring(p, "the database")
    add_output(p, "blast6")
    add_device(p)
    p.add_argument("--gpus", default="all", help="GPUs to use: all, or ids such as 0,1 (default all)")
    finish(p, run)


def run(args) -> int:
    from ..io.database import Database
    from ..io.readers import read_sequences
    from ..workloads.search import Searcher

    if args.top < 1:
        raise InputError("--top must be at least 1")
    db = Database.load(args.db, args.alphabet)
    queries = read_sequences(args.query, db.alphabet)
    scoring = scoring_from(args, db.alphabet)
    searcher = Searcher(db, scoring, device=args.device, gpus=gpu_ids(args.gpus), threads=args.threads)
    total = sum(len(q) for q in queries) * db.total_residues
    bar = progress(total, f"searching {len(db):,} sequences")
    task = bar.add_task("search", total=total)
    with bar:
        results = list(searcher.search(queries, top=args.top, evalue=args.evalue,
                                       on_done=lambda q: bar.advance(task, len(q) * db.total_residues)))
    write_alignments(args, scoring, [(h, r.query.text) for r in results for h in r.hits])
    return 0
