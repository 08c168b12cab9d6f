"""``swgpu align``: every query record against every target record, with
traceback; with ``--ends``, genome scale: each query record against the
target records as one long sequence, the top end points and the alignments
of the best of them (:mod:`swgpu.workloads.longalign`)."""

from __future__ import annotations

from .checks import non_negative_int, positive_float, positive_int
from .flags import given
from .options import (add_cluster, add_device, add_output, add_quiet, add_scoring, add_strand, check_scoring,
                      cluster_of, finish, resolve_output, scoring_from, write_alignments)
from .paths import declare
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
    p.add_argument("--evalue", type=positive_float, default=None,
                   help="report only alignments with E-value at most this, > 0 (default: no cut, as EMBOSS water; "
                        "each pair is its own search space, with --ends the query against all targets)")
    p.add_argument("--max-hsps", type=positive_int, default=1, metavar="N",
                   help="alignments per query-target pair, >= 1 (default 1): the best, then the next best sharing "
                        "no aligned pair with one before it (Waterman-Eggert), on the strand of the best")
    g = p.add_argument_group("genome scale (long sequences; --ends turns it on)")
    g.add_argument("--ends", type=positive_int, default=None, metavar="K",
                   help="report the K best end points of each query along the targets (as one long sequence, "
                        "both strands; the seed method keeps 200) and align the best of them (--alignments)")
    g.add_argument("--alignments", type=non_negative_int, default=1, metavar="N",
                   help="with --ends: alignments traced back and written, from the best end point on (default 1)")
    g.add_argument("--ends-out", default=None, metavar="FILE",
                   help="with --ends: write the end points here as a table (rank, query, target, strand, "
                        "1-based target end, score; default: the summary only)")
    g.add_argument("--ends-in", default=None, metavar="FILE",
                   help="instead of --ends: trace the first --alignments end points of each query listed in FILE "
                        "(a table of --ends-out of the same sequences and scoring), without finding them again")
    g.add_argument("--separation", type=positive_int, default=None, metavar="COLUMNS",
                   help="with --ends: end points are local maxima within this many target columns (default 1000)")
    g.add_argument("--max-alignment-length", type=positive_int, default=None, metavar="LETTERS",
                   help="with --ends: the longest alignment of interest on the target (bounds the overlap of "
                        "parts and the traceback windows; default: what the score budget allows)")
    g.add_argument("--method", choices=["auto", "rowscan"], default="auto",
                   help="with --ends: how end points are found: auto (the fastest exact method) or rowscan (the "
                        "row-parallel scan of the GPU-cluster method; same end points)")
    g.add_argument("--gpus", default="all", help="with --ends: GPUs to use, all or ids such as 0,1 (default all: "
                                                 "every GPU, in this process; with --workers, the local cluster's)")
    add_cluster(p)
    add_quiet(p)
    declare(p, inputs=("query", "target", "ends_in"), outputs=("output", "ends_out"))
    finish(p, run)


#: The options of genome-scale alignment, which do nothing without --ends.
ENDS_OPTIONS = ("--alignments", "--ends-out", "--separation", "--max-alignment-length", "--method", "--gpus")


def run(args) -> int:
    from ..exceptions import InputError

    if args.query == args.target == "-":
        raise InputError("the query and the target cannot both be standard input (-)")
    if args.ends is not None and args.ends_in is not None:
        raise InputError("give either --ends (find the end points) or --ends-in (trace those of a table)",
                         param="ends_in")
    if args.ends is not None or args.ends_in is not None:
        if args.max_hsps > 1:
            raise InputError("applies to pairs, not with --ends: genome-scale alignment reports its end "
                             "points (--ends, --alignments)", param="max_hsps")
        with cluster_of(args, devices=True) as executor:  # a Dask cluster (--scheduler, --workers), or the GPUs
            return run_long(args, executor)
    if args.scheduler is not None or args.workers is not None:
        raise InputError("a Dask cluster runs genome-scale alignment only: give --ends too", param="workers")
    for flag in ENDS_OPTIONS:
        if given(args, flag):
            raise InputError(f"{flag} applies to genome-scale alignment only: give --ends too, or leave it out")
    from ..io.sequence_batch import SequenceBatch
    from ..workloads.align import align_batches

    report = Report("swgpu align", args.quiet, timings=args.timings)
    queries, targets, scoring = _read(args)
    report.phase("read")
    total = sum(len(q) for q in queries) * sum(len(t) for t in targets)
    if args.max_hsps > 1:
        with report.progress(total, "aligning"):
            written = _write_hsps(args, scoring, queries, targets, report)
        report.phase("traceback+write")
        report.summary(f"{plural(len(queries), 'query')} x {plural(len(targets), 'target')}, "
                       f"{plural(written, 'alignment')} written")
        return 0
    qb, tb = (SequenceBatch.from_sequences(seqs) for seqs in (queries, targets))
    batches = align_batches(qb, tb, scoring, device=args.device, threads=args.threads, on_done=report.advance,
                            strand=args.strand)
    with report.progress(total, "aligning"):
        written = _write(args, scoring, batches, qb, tb, targets)
    report.phase("traceback+write")  # streamed together
    pairs = len(queries) * len(targets)
    report.summary(f"{plural(len(queries), 'query')} x {plural(len(targets), 'target')} = {plural(pairs, 'pair')}, "
                   f"{plural(written, 'alignment')} written")
    return 0


def _write(args, scoring, batches, queries, targets, sequences) -> int:
    """Write the alignments scoring at least ``--min-score`` of ``batches``
    (:class:`~swgpu.align.batch.AlignmentBatch` es indexing ``queries`` and ``targets``,
    two :class:`~swgpu.io.sequence_batch.SequenceBatch`): SAM and blast6 lines
    in compiled code, the other formats one record at a time; the SAM header
    lists every target (``sequences``, which also give ``stitle``)."""
    from contextlib import closing

    import numpy as np

    from ..io.writers import AlignmentWriter
    from .batches import write_batch
    from .options import program_line, report_options

    with closing(batches), AlignmentWriter(args.output, args.format, scoring=scoring, program_line=program_line(args),
                                           targets=sequences, header=args.format == "pairwise",
                                           columns=getattr(args, "columns", None),
                                           **report_options(args, queries)) as writer:
        for batch in batches:
            done = int(batch.query_index[-1]) if len(batch) else 0  # query-major: the queries before it are complete
            if args.min_score > 0 or args.evalue is not None:
                ok = batch.score >= args.min_score
                if args.evalue is not None:
                    ok &= batch.evalue <= args.evalue
                keep = np.flatnonzero(ok)
                batch = batch.take(keep) if keep.size < len(batch) else batch
            if len(batch):
                write_batch(writer, batch, queries, targets, scoring, query_offset=0)
            writer.finish_queries(done)  # (blast7: their blocks are written)
    return writer.count


def _write_hsps(args, scoring, queries, targets, report) -> int:
    """Each pair's alignments (``--max-hsps``), record by record, those scoring at least ``--min-score``."""
    from ..workloads.align import align_all

    found = align_all(queries, targets, scoring, device=args.device, threads=args.threads, on_done=report.advance,
                      strand=args.strand, max_hsps=args.max_hsps)

    def rows():
        pair = -1
        for a in found:
            pair += a.primary  # a pair's alignments follow its first
            if a.score >= args.min_score and _within(a, args.evalue):
                k = pair // len(targets)
                yield a, queries[k].text, k

    return write_alignments(args, scoring, rows(), targets=targets, queries=queries)


def _read(args):
    """``(queries, targets, scoring)`` of the command line, its output format resolved first."""
    from ..io.readers import read_sequences

    resolve_output(args)
    check_scoring(args)
    queries = read_sequences(args.query, args.alphabet)  # read once: the query may be standard input
    targets = read_sequences(args.target, queries[0].alphabet, what="the query file",
                             expect=None if args.alphabet else queries[0].alphabet)
    scoring = scoring_from(args, queries[0].alphabet)
    if args.evalue is not None:
        from ..exceptions import InputError
        from ..scoring import Statistics

        if not Statistics.for_scoring(scoring).available:
            raise InputError(f"{scoring.describe()} has no E-values (see the scoring docs)", param="evalue")
    return queries, targets, scoring


def _within(a, evalue) -> bool:
    """Whether alignment ``a`` passes ``--evalue`` (always without one)."""
    return evalue is None or (a.evalue is not None and a.evalue <= evalue)


def run_long(args, executor=None) -> int:
    """``--ends``: genome-scale alignment of each query record against the targets."""
    from ..io.writers.output import OutputFile
    from ..workloads.longalign import SEPARATION, LongAligner, write_end_points
    from ..workloads.strands import strands_for

    report = Report("swgpu align", args.quiet, timings=args.timings)
    queries, targets, scoring = _read(args)
    report.phase("read")
    aligner = LongAligner(scoring, device=args.device, threads=args.threads, executor=executor,
                          separation=args.separation or SEPARATION, max_alignment_length=args.max_alignment_length,
                          method=args.method)
    letters = sum(len(t) for t in targets)
    strands = len(strands_for(args.strand, scoring.alphabet))
    results = []
    if args.ends_in is not None:  # traced from a table: no score pass
        listed = _listed_ends(args, queries)
        for q in queries:
            results.append(aligner.trace(q, targets, listed.get(q.name, []), alignments=args.alignments))
    else:
        with report.progress(sum(len(q) for q in queries) * letters * strands, "aligning"):
            for q in queries:
                results.append(aligner.align(q, targets, top=args.ends, alignments=args.alignments,
                                             min_score=max(1, args.min_score), strand=args.strand,
                                             on_progress=report.advance))
    report.phase("start-up", sum(r.setup_seconds for r in results))
    report.phase("score", sum(r.score_seconds for r in results))
    report.phase("traceback", sum(r.traceback_seconds for r in results))
    if args.ends_out is not None:
        with OutputFile(args.ends_out) as out:
            write_end_points(out, [(r.query.name, r.end_points) for r in results])
    written = write_alignments(args, scoring, [(a, r.query.text, k) for k, r in enumerate(results)
                                               for a in r.alignments if _within(a, args.evalue)],
                               targets=[(t.name, len(t)) for t in targets], queries=[r.query for r in results])
    report.phase("write")
    best = max((r.best_score for r in results), default=0)
    report.summary(f"{plural(len(queries), 'query')} against {plural(letters, 'letter')} in "
                   f"{plural(len(targets), 'sequence')}: best score {best}, "
                   f"{plural(sum(len(r.end_points) for r in results), 'end point')}, "
                   f"{plural(written, 'alignment')} written")
    return 0


def _listed_ends(args, queries) -> dict:
    """The end points of ``--ends-in``, by query name; a query the table names
    that the query file has not is an error."""
    from ..exceptions import InputError
    from ..workloads.longalign import read_end_points

    with open(args.ends_in, encoding="utf-8", errors="replace") as lines:
        listed = read_end_points(lines, args.ends_in)
    unknown = sorted(set(listed) - {q.name for q in queries})
    if unknown:
        raise InputError(f"{args.ends_in} lists end points of {unknown[0]!r}, which is not a record of {args.query}")
    return listed
