"""``swgpu search``: queries against a database; ranked hits, E-values, alignments."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from functools import partial

from .batches import write_found
from .checks import memory_size, positive_float, positive_int
from .cluster import wants_cluster
from .options import (add_cluster, add_device, add_output, add_quiet, add_strand, add_scoring, check_scoring,
                      cluster_of, finish, gpu_ids, resolve_output, scoring_from, write_alignments)
from .paths import declare
from .progress import Report, plural

__all__ = ["add_parser", "run", "DEFAULT_EVALUE"]

#: E-value cut-off when none is given and the scoring has E-values (BLAST's default).
DEFAULT_EVALUE = 10.0


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("search", help="search queries against a database: ranked hits, E-values, alignments")
    p.add_argument("-q", "--query", required=True, help="query FASTA/FASTQ file")
    p.add_argument("-d", "--db", required=True, help="database: a FASTA/FASTQ file or a file made by `swgpu makedb`")
    p.add_argument("--top", "--max-target-seqs", type=positive_int, default=10,
                   help="hits reported per query, >= 1 (default 10)")
    p.add_argument("--evalue", type=positive_float, default=None,
                   help="report only hits with E-value at most this, > 0 (default 10 when the scoring has "
                        "E-values, as in BLAST; without E-values no cut-off, and giving it is an error)")
    p.add_argument("--max-hsps", type=positive_int, default=1, metavar="N",
                   help="alignments per query and database sequence (and strand), >= 1 (default 1): the best, then "
                        "the next best sharing no aligned pair with one before it (Waterman-Eggert), within --evalue")
    p.add_argument("--evalue-method", choices=["search", "karlin"], default="search",
                   help="E-values from each query's own scores against the database, where there are enough "
                        "unrelated ones (search, as SSEARCH; default), or always from lambda and K (karlin, as BLAST)")
    add_scoring(p, "the database")
    add_output(p, "blast6")
    add_device(p)
    add_strand(p, "both")
    p.add_argument("--gpus", default="all", help="GPUs to use: all, or ids such as 0,1 (default all)")
    p.add_argument("--gpu-memory", type=memory_size, default=None, metavar="SIZE",
                   help="GPU memory the database may take on each GPU, such as 8G (default 70%% of what is free); "
                        "a larger database is streamed to the GPU in parts for every batch of queries")
    add_cluster(p)
    add_quiet(p)
    declare(p, inputs=("query", "db"), outputs=("output",))
    finish(p, run)


def _descriptions(db, wanted: bool, found=None) -> dict | None:
    """Target name -> description for ``stitle`` (only when asked): of the targets hit
    when ``found`` (the hits as columns) is given, else of the whole database."""
    if not wanted:
        return None
    if found is not None:
        out: dict = {}
        for part in found:
            for name, text in zip(part.targets.names, part.targets.descriptions):
                if text:
                    out.setdefault(name, text)
        return out
    return {name: text for name, text in zip(db.names, db.descriptions) if text}


def _start_engine(device: str) -> None:
    from ..engines import resolve_device

    try:
        resolve_device(device)
    except Exception:  # said again, in one line, where the engine is asked for
        pass


def run(args) -> int:
    report = Report("swgpu search", args.quiet, timings=args.timings)
    resolve_output(args)
    check_scoring(args)
    if args.gpu_memory is not None and wants_cluster(args):
        from ..exceptions import InputError

        raise InputError("applies to the GPUs of this process, not to a cluster's workers", param="gpu_memory")
    pool = ThreadPoolExecutor(1, thread_name_prefix="swgpu-start")
    try:  # the engine starts (CuPy, a GPU's context) while NumPy is imported and the database and queries read
        local = args.device != "cpu" and not wants_cluster(args)
        starting = pool.submit(_start_engine, args.device) if local else None
        from ..io.database import Database
        from ..io.readers import read_sequences

        db = Database.load(args.db, args.alphabet)
        queries = read_sequences(args.query, db.alphabet, what="the database",
                                 expect=None if args.alphabet else db.alphabet)
        scoring = scoring_from(args, db.alphabet)
        report.phase("read")
        if starting is not None:
            starting.result()
    finally:  # (an error while reading does not wait for the engine)
        pool.shutdown(wait=False, cancel_futures=True)
    with cluster_of(args) as executor:  # a Dask cluster, with --scheduler or --workers
        return _search(args, report, db, queries, scoring, executor)


def _search(args, report, db, queries, scoring, executor) -> int:
    from ..workloads.search import Searcher
    from ..workloads.strands import strands_for

    gpus = gpu_ids(args.gpus)
    gpus = gpus if executor is None else None  # the cluster's workers have their GPUs
    searcher = Searcher(db, scoring, device=args.device, gpus=gpus, threads=args.threads, executor=executor,
                        evalues=args.evalue_method, gpu_memory=args.gpu_memory)
    report.phase("upload")  # engine start and the database on the device
    searcher.compile(queries, args.strand)
    report.phase("compile")  # the kernels these queries need, compiled or loaded from the disk cache
    evalue = args.evalue
    if evalue is None and searcher.statistics.available:
        evalue = DEFAULT_EVALUE
    cells_per_letter = db.total_residues * len(strands_for(args.strand, db.alphabet))  # cells
    total = sum(len(q) for q in queries) * cells_per_letter
    # the CPU engine scores queries one by one anyway: batches of one query a thread move the bar often and
    # trace the hits of a batch together on all threads (on a cluster, a batch is one round of tasks: keep them large)
    batch = {"batch": searcher.threads} if searcher.device == "cpu" and executor is None else {}
    columns = args.max_hsps == 1  # (further alignments come as objects)
    run = searcher.search_columns if columns else partial(searcher.search, max_hsps=args.max_hsps)
    with searcher, report.progress(total, f"searching {plural(len(db), 'sequence')}"):
        results = list(run(queries, top=args.top, evalue=evalue, strand=args.strand, **batch,
                           on_done=lambda q: report.advance(len(q) * cells_per_letter)))
    report.phase("score", searcher.score_seconds, rest_to_next=True)
    report.phase("rank", searcher.rank_seconds, rest_to_next=True)  # hits ranked, E-values fitted
    report.phase("traceback")  # (and what the searcher does around its steps)
    titles = bool({"stitle", "salltitles"} & set(args.columns or ()))
    descriptions = _descriptions(db, titles, results if columns else None)
    if columns:
        written = write_found(args, scoring, results, queries, descriptions)
    else:
        written = write_alignments(args, scoring, [(h, r.query.text, k) for k, r in enumerate(results)
                                                   for h in r.hits], descriptions=descriptions,
                                   queries=[r.query for r in results])
    report.phase("write")
    report.summary(f"{plural(len(queries), 'query')} against {plural(len(db), 'sequence')}, "
                   f"{plural(written, 'hit')} written")
    return 0
