"""The ``swgpu`` command line.

Every user error (bad file, bad option, bad letter) is one line on stderr and
exit status 2; output files are written to a temporary name and renamed only
when complete.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import sys
from importlib import resources

from .._version import __version__
from ..exceptions import InputError, SwgpuError

__all__ = ["main", "build_parser"]


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error on one line (exit 2)."""

    def error(self, message: str):  # noqa: D401
        raise _UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


class _UsageError(Exception):
    pass


def _add_scoring(p: argparse.ArgumentParser, guessed_from: str = "the query file") -> None:
    g = p.add_argument_group("scoring (a gap of length k costs open + (k-1)*extend)")
    g.add_argument("--alphabet", choices=["dna", "rna", "protein"], help=f"sequence type (default: guessed from {guessed_from})")
    g.add_argument("--matrix", help="substitution matrix: BLOSUM45/50/62/80/90, PAM30/70/250, NUC.4.4 or an NCBI-format file (protein default BLOSUM62)")
    g.add_argument("--match", type=int, help="match score for match/mismatch scoring (DNA default 2)")
    g.add_argument("--mismatch", type=int, help="mismatch score, zero or negative (DNA default -3)")
    g.add_argument("--gap-open", type=int, help="cost of a gap's first residue (protein 11, DNA 5)")
    g.add_argument("--gap-extend", type=int, help="cost of each further gap residue (protein 1, DNA 2)")


def _add_output(p: argparse.ArgumentParser, default: str) -> None:
    from ..io.writers import FORMATS

    p.add_argument("--format", "-f", default=default, choices=FORMATS, help=f"output format (default {default})")
    p.add_argument("-o", "--output", help="output file (default: standard output)")


def _add_device(p: argparse.ArgumentParser, cpu_only: bool = False) -> None:
    if cpu_only:
        p.add_argument("--device", default="auto", choices=["auto", "cpu"],
                       help="compute engine: pairwise traceback runs on the CPU engine")
    else:
        p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"],
                       help="compute engine (default auto: the GPU when CuPy sees one, else the CPU)")
    p.add_argument("--threads", type=int, default=None, help="CPU threads (default: all cores)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="swgpu", description="Exact Smith-Waterman local alignment on GPUs and CPUs.")
    parser.add_argument("--version", action="version", version=f"swgpu {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("align", help="align every query record against every target record, with traceback")
    p.add_argument("query", help="FASTA/FASTQ file (plain or compressed)")
    p.add_argument("target", help="FASTA/FASTQ file (plain or compressed)")
    _add_scoring(p)
    _add_output(p, "pairwise")
    _add_device(p, cpu_only=True)
    p.add_argument("--min-score", type=int, default=1, help="report alignments scoring at least this (default 1)")
    p.set_defaults(func=cmd_align)

    p = sub.add_parser("search", help="search queries against a database: ranked hits, E-values, alignments")
    p.add_argument("-q", "--query", required=True, help="query FASTA/FASTQ file")
    p.add_argument("-d", "--db", required=True, help="database: a FASTA/FASTQ file or a file made by `swgpu makedb`")
    p.add_argument("--top", type=int, default=10, help="hits reported per query (default 10)")
    p.add_argument("--evalue", type=float, default=None, help="report only hits with E-value at most this")
    _add_scoring(p, "the database")
    _add_output(p, "blast6")
    _add_device(p)
    p.add_argument("--gpus", default="all", help="GPUs to use: all, or ids such as 0,1 (default all)")
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("screen", help="best score of many DNA pairs (record i with record i); alignments over a threshold")
    p.add_argument("-q", "--query", help="query FASTA/FASTQ (record i pairs with target record i)")
    p.add_argument("-t", "--target", help="target FASTA/FASTQ")
    p.add_argument("--pairs", help="TSV of pairs instead: qseq<TAB>tseq, or qname<TAB>qseq<TAB>tname<TAB>tseq")
    p.add_argument("--threshold", type=int, default=None,
                   help="align the pairs scoring at least this and write them in --format "
                        "(without it: a TSV of query, target, score for every pair; --format does not apply)")
    p.add_argument("--kernel", choices=["auto", "bitwise", "wordwise", "group"], default="auto",
                   help="bulk kernel: bit-sliced BPBC, word-wise (a pair per thread), group (threads share a pair; "
                        "GPU only), or auto (default: the fastest measured for the batch)")
    g = p.add_argument_group("scoring (a gap of length k costs open + (k-1)*extend)")
    g.add_argument("--match", type=int, help="match score (default 2)")
    g.add_argument("--mismatch", type=int, help="mismatch score, zero or negative (default -3)")
    g.add_argument("--gap-open", type=int, help="cost of a gap's first base (default 5)")
    g.add_argument("--gap-extend", type=int, help="cost of each further gap base (default 2)")
    _add_output(p, "blast6")
    _add_device(p)
    p.set_defaults(func=cmd_screen)

    p = sub.add_parser("makedb", help="encode a FASTA file into a memory-mappable database for `search`")
    p.add_argument("fasta", help="FASTA/FASTQ file (plain or compressed)")
    p.add_argument("out", help="database file to write (e.g. db.swdb)")
    p.add_argument("--alphabet", choices=["dna", "rna", "protein"], help="sequence type (default: guessed)")
    p.set_defaults(func=cmd_makedb)

    p = sub.add_parser("bench", help="benchmarks that write JSON and PNG plots (search, screen)")
    p.set_defaults(func=lambda args, _p=p: _p.print_help() or 2)
    bsub = p.add_subparsers(dest="bench", metavar="BENCH", parser_class=_Parser)
    b = bsub.add_parser("search", help="GCUPS of protein database search per query")
    b.add_argument("-q", "--query", required=True, help="query FASTA (e.g. the CUDASW++ 20-query set)")
    b.add_argument("-d", "--db", help="database FASTA or .swdb")
    b.add_argument("--random-db", help="instead of -d: COUNTxLENGTH random proteins, e.g. 1000000x256")
    b.add_argument("--matrix", default="BLOSUM62")
    b.add_argument("--gap-open", type=int, default=11)
    b.add_argument("--gap-extend", type=int, default=1)
    b.add_argument("--top", type=int, default=10)
    b.add_argument("--repeats", type=int, default=3)
    b.add_argument("--label", default="search", help="name of the JSON/PNG files")
    b.add_argument("--out", default="bench-out", help="folder for JSON and PNG (default bench-out)")
    b.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    b.add_argument("--gpus", default="all")
    b.set_defaults(func=cmd_bench_search)
    b = bsub.add_parser("screen", help="per-phase times and GCUPS of bulk pair screening")
    b.add_argument("--pairs", type=int, default=32768)
    b.add_argument("-m", type=int, default=128, help="query length (default 128)")
    b.add_argument("-n", default="1024,2048,4096,8192,16384,32768,65536", help="target lengths, comma-separated")
    b.add_argument("--scoring", choices=["linear", "affine"], default="linear",
                   help="linear: match 2, mismatch -1, gap 1 (the seed); affine: 2/-3, open 5, extend 2")
    b.add_argument("--kernels", default="bitwise,wordwise", help="comma-separated: bitwise, wordwise, group (GPU)")
    b.add_argument("--transpose", choices=["ballot", "swap"], default="ballot",
                   help="bit transpose of the bitwise kernel on the GPU: warp ballots or block swaps")
    b.add_argument("--out", default="bench-out")
    b.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"])
    b.set_defaults(func=cmd_bench_screen)

    p = sub.add_parser("demo", help="run `search` on the small example shipped with swgpu")
    _add_output(p, "pairwise")
    _add_device(p)
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser("info", help="show version, engines and GPUs")
    p.set_defaults(func=cmd_info)
    return parser


def _scoring_from(args, alphabet):
    from ..scoring import Scoring

    return Scoring.build(alphabet, matrix=args.matrix, match=args.match, mismatch=args.mismatch,
                         gap_open=args.gap_open, gap_extend=args.gap_extend)


def _progress(total_cells: int, label: str):
    """A rich progress bar on a terminal for work expected to take over a second."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    enabled = sys.stderr.isatty() and total_cells > 200_000_000
    progress = Progress(TextColumn(label), BarColumn(), TextColumn("{task.percentage:>3.0f}%"), TimeRemainingColumn(),
                        transient=True, disable=not enabled)
    return progress


def cmd_align(args) -> int:
    from ..io.readers import detect_alphabet, read_sequences
    from ..workloads.align import align_all
    from ..io.writers import AlignmentWriter

    alphabet = args.alphabet or detect_alphabet(args.query)
    queries = read_sequences(args.query, alphabet)
    targets = read_sequences(args.target, alphabet)
    scoring = _scoring_from(args, queries[0].alphabet)
    total = sum(len(q) for q in queries) * sum(len(t) for t in targets)
    progress = _progress(total, "aligning")
    task = progress.add_task("align", total=total)
    results = align_all(queries, targets, scoring, device=args.device, threads=args.threads,
                        on_done=lambda cells: progress.advance(task, cells))
    command_line = "swgpu " + " ".join(shlex.quote(a) for a in args.argv)
    with progress, AlignmentWriter(args.output, args.format, scoring=scoring, program_line=command_line,
                                   targets=targets, header=args.format == "pairwise") as writer:
        for k, aln in enumerate(results):  # query-major order
            if aln.score >= args.min_score:
                writer.write(aln, query_text=queries[k // len(targets)].text)
    return 0


def _gpu_ids(text: str) -> list[int] | None:
    if text.strip().lower() == "all":
        return None
    try:
        ids = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise InputError(f"--gpus {text!r}: give 'all' or GPU ids such as 0,1") from None
    if not ids or min(ids) < 0:
        raise InputError(f"--gpus {text!r}: give 'all' or GPU ids such as 0,1")
    return ids


def cmd_search(args) -> int:
    from ..io.database import Database
    from ..io.readers import read_sequences
    from ..workloads.search import Searcher
    from ..io.writers import AlignmentWriter

    if args.top < 1:
        raise InputError("--top must be at least 1")
    db = Database.load(args.db, args.alphabet)
    queries = read_sequences(args.query, db.alphabet)
    scoring = _scoring_from(args, db.alphabet)
    searcher = Searcher(db, scoring, device=args.device, gpus=_gpu_ids(args.gpus), threads=args.threads)
    total = sum(len(q) for q in queries) * db.total_residues
    progress = _progress(total, f"searching {len(db):,} sequences")
    task = progress.add_task("search", total=total)
    with progress:
        results = list(searcher.search(queries, top=args.top, evalue=args.evalue,
                                       on_done=lambda q: progress.advance(task, len(q) * db.total_residues)))
    hit_targets = {}
    for r in results:
        for h in r.hits:
            hit_targets.setdefault(h.target, h.target_length)
    command_line = "swgpu " + " ".join(shlex.quote(a) for a in args.argv)
    with AlignmentWriter(args.output, args.format, scoring=scoring, program_line=command_line,
                         targets=list(hit_targets.items()), header=args.format == "pairwise") as writer:
        for r in results:
            for h in r.hits:
                writer.write(h, query_text=r.query.text)
    return 0


def cmd_screen(args) -> int:
    from ..scoring import Scoring
    from ..io.pairs import read_pair_files, read_pairs
    from ..workloads.screen import Screener
    from ..io.writers import AlignmentWriter, OutputFile

    if args.pairs and (args.query or args.target):
        raise InputError("give either --pairs or -q/-t, not both")
    if args.pairs:
        queries, targets = read_pairs(args.pairs)
    elif args.query and args.target:
        queries, targets = read_pair_files(args.query, args.target)
    else:
        raise InputError("give -q QUERIES -t TARGETS (record i with record i) or --pairs PAIRS.tsv")
    scoring = Scoring.build("dna", match=args.match, mismatch=args.mismatch, gap_open=args.gap_open,
                            gap_extend=args.gap_extend)
    screener = Screener(scoring, device=args.device, kernel=args.kernel, threads=args.threads)
    result = screener.screen(queries, targets, args.threshold)
    if args.threshold is None:
        with OutputFile(args.output) as out:
            out.write("query\ttarget\tscore\n")
            out.write("".join(f"{q.name}\t{t.name}\t{s}\n" for q, t, s in zip(queries, targets, result.scores.tolist())))
        return 0
    command_line = "swgpu " + " ".join(shlex.quote(a) for a in args.argv)
    hit_targets = {}
    for aln in result.alignments:
        hit_targets.setdefault(aln.target, aln.target_length)
    with AlignmentWriter(args.output, args.format, scoring=scoring, program_line=command_line,
                         targets=list(hit_targets.items()), header=args.format == "pairwise") as writer:
        for i, aln in zip(result.selected, result.alignments):
            writer.write(aln, query_text=queries[int(i)].text)
    return 0


def cmd_bench_search(args) -> int:
    from ..workloads.bench import bench_search

    if bool(args.db) == bool(args.random_db):
        raise InputError("give either -d DB or --random-db COUNTxLENGTH")
    random_db = None
    if args.random_db:
        try:
            count, length = (int(x) for x in args.random_db.lower().split("x"))
        except ValueError:
            raise InputError(f"--random-db {args.random_db!r}: write COUNTxLENGTH, e.g. 1000000x256") from None
        random_db = (count, length)
    bench_search(args.query, args.db, random_db=random_db, device=args.device, matrix=args.matrix,
                 gap_open=args.gap_open, gap_extend=args.gap_extend, top=args.top, repeats=args.repeats,
                 gpus=_gpu_ids(args.gpus), out=args.out, label=args.label)
    return 0


def cmd_bench_screen(args) -> int:
    from ..workloads.bench import bench_screen

    try:
        ns = [int(x) for x in args.n.split(",") if x]
    except ValueError:
        raise InputError(f"-n {args.n!r}: give lengths such as 1024,2048") from None
    kernels = [k for k in args.kernels.split(",") if k]
    bad = [k for k in kernels if k not in ("bitwise", "wordwise", "group")]
    if bad:
        raise InputError(f"--kernels: unknown {','.join(bad)} (use bitwise, wordwise, group)")
    bench_screen(args.pairs, args.m, ns, args.scoring, args.device, kernels, args.out, transpose=args.transpose)
    return 0


def cmd_makedb(args) -> int:
    from ..io.database import Database

    db = Database.from_fasta(args.fasta, args.alphabet)
    db.save(args.out)
    print(f"{args.out}: {len(db):,} {db.alphabet.name} sequences, {db.total_residues:,} residues", file=sys.stderr)
    return 0


def example_path(name: str) -> str:
    """Path of a file shipped in ``swgpu/data/examples``."""
    return str(resources.files("swgpu").joinpath("data", "examples", name))


def cmd_demo(args) -> int:
    q, t = example_path("queries.fasta"), example_path("targets.fasta")
    argv = ["search", "-q", q, "-d", t, "--top", "3", "--format", args.format, "--device", args.device]
    if args.output:
        argv += ["-o", args.output]
    if args.threads:
        argv += ["--threads", str(args.threads)]
    print("# swgpu " + " ".join(shlex.quote(a) for a in argv), file=sys.stderr)
    ns = build_parser().parse_args(argv)
    ns.argv = argv
    return ns.func(ns)


def cmd_info(args) -> int:
    import numba
    import numpy

    from ..engines.cuda import runtime

    print(f"swgpu {__version__}")
    print(f"python {sys.version.split()[0]}, numpy {numpy.__version__}, numba {numba.__version__}")
    print(f"cpu engine: available ({os.cpu_count()} cores)")
    if runtime.available():
        cp = runtime.cupy()
        for d in range(runtime.device_count()):
            props = cp.cuda.runtime.getDeviceProperties(d)
            name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
            print(f"cuda engine: GPU {d}: {name}, {props['multiProcessorCount']} SMs, "
                  f"{props['totalGlobalMem'] / 2**30:.0f} GiB, sm_{props['major']}{props['minor']}")
    else:
        print(f"cuda engine: unavailable ({runtime.why_unavailable()})")
    return 0


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        args.argv = argv
        if getattr(args, "threads", None):
            if args.threads < 1:
                raise InputError("--threads must be at least 1")
            import numba

            numba.set_num_threads(min(args.threads, numba.config.NUMBA_NUM_THREADS))
        if not getattr(args, "func", None):
            parser.print_help()
            return 2
        return int(args.func(args) or 0)
    except _UsageError as exc:
        print(str(exc), file=sys.stderr)
        return 2
    except BrokenPipeError:  # output piped into e.g. `head`: stop quietly, as SIGPIPE would
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except SwgpuError as exc:
        print(f"swgpu: error: {exc}", file=sys.stderr)
        return 2
    except (OSError, MemoryError) as exc:
        detail = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc) or type(exc).__name__
        where = f"{exc.filename}: " if isinstance(exc, OSError) and exc.filename else ""
        print(f"swgpu: error: {where}{detail}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("swgpu: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
