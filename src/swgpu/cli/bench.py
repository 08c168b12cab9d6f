"""``swgpu bench search`` and ``swgpu bench screen``: benchmarks that write JSON and PNG plots."""

from __future__ import annotations

from ..engines.kernel_names import PAIR_KERNELS
from ..engines.registry import device_choices
from ..exceptions import InputError
from .checks import gap_penalty, memory_size, positive_int
from .options import Parser, finish, gpu_ids
from .paths import check_folder

__all__ = ["add_parser", "run"]


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("bench", help="benchmarks that write JSON and PNG plots (search, screen)")
    p.set_defaults(func=lambda args: p.print_help() or 2)
    bsub = p.add_subparsers(dest="bench", metavar="BENCH", parser_class=Parser)
    _add_search(bsub)
    _add_screen(bsub)


def _add_search(bsub) -> None:
    b = bsub.add_parser("search", help="GCUPS of protein database search per query")
    b.add_argument("-q", "--query", required=True, help="query FASTA (e.g. the CUDASW++ 20-query set)")
    b.add_argument("-d", "--db", help="database FASTA or .swdb")
    b.add_argument("--random-db", help="instead of -d: COUNTxLENGTH random proteins, e.g. 1000000x256")
    b.add_argument("--matrix", default="BLOSUM62")
    b.add_argument("--gap-open", type=gap_penalty(1), default=11)
    b.add_argument("--gap-extend", type=gap_penalty(0), default=1)
    b.add_argument("--top", type=positive_int, default=10, help="hits aligned per query, >= 1 (default 10)")
    b.add_argument("--repeats", type=positive_int, default=3, help="timings of each measurement, >= 1 (default 3)")
    b.add_argument("--label", default="search", help="name of the JSON/PNG files")
    b.add_argument("--out", default="bench-out", help="folder for JSON and PNG (default bench-out)")
    b.add_argument("--device", default="auto", choices=list(device_choices()))
    b.add_argument("--gpus", default="all")
    b.add_argument("--gpu-memory", type=memory_size, default=None, metavar="SIZE",
                   help="GPU memory the database may take on each GPU (below its size: streamed in parts)")
    finish(b, run)


def _add_screen(bsub) -> None:
    b = bsub.add_parser("screen", help="per-phase times and GCUPS of bulk pair screening")
    b.add_argument("--pairs", type=positive_int, default=32768, help="number of pairs, >= 1 (default 32768)")
    b.add_argument("-m", type=positive_int, default=128, help="query length, >= 1 (default 128)")
    b.add_argument("-n", default="1024,2048,4096,8192,16384,32768,65536", help="target lengths, comma-separated")
    b.add_argument("--scoring", choices=["linear", "affine"], default="linear",
                   help="linear: match 2, mismatch -1, gap 1 (the seed); affine: 2/-3, open 5, extend 2")
    b.add_argument("--kernels", default="bitwise,wordwise", help="comma-separated: bitwise, wordwise, group (GPU)")
    b.add_argument("--transpose", choices=["ballot", "swap"], default="ballot",
                   help="bit transpose of the bitwise kernel on the GPU: warp ballots or block swaps")
    b.add_argument("--out", default="bench-out")
    b.add_argument("--device", default="auto", choices=list(device_choices()))
    finish(b, run)


def run(args) -> int:
    """Run ``bench search`` or ``bench screen``, as ``args.bench`` says."""
    check_folder(args.out, "out")  # before the benchmark, not after it
    return run_search(args) if args.bench == "search" else run_screen(args)


def run_search(args) -> int:
    from ..workloads.bench import bench_search

    if bool(args.db) == bool(args.random_db):
        raise InputError("give either -d DB or --random-db COUNTxLENGTH")
    random_db = None
    if args.random_db:
        try:
            count, length = (int(x) for x in args.random_db.lower().split("x"))
        except ValueError:
            count = length = 0
        if count < 1 or length < 1:
            raise InputError(f"--random-db {args.random_db!r}: write COUNTxLENGTH, both >= 1, e.g. 1000000x256")
        random_db = (count, length)
    bench_search(args.query, args.db, random_db=random_db, device=args.device, matrix=args.matrix,
                 gap_open=args.gap_open, gap_extend=args.gap_extend, top=args.top, repeats=args.repeats,
                 gpus=gpu_ids(args.gpus), out=args.out, label=args.label, gpu_memory=args.gpu_memory)
    return 0


def run_screen(args) -> int:
    from ..workloads.bench import bench_screen

    try:
        ns = [int(x) for x in args.n.split(",") if x.strip()]
    except ValueError:
        ns = []
    if not ns or min(ns) < 1:
        raise InputError(f"-n {args.n!r}: give lengths >= 1 such as 1024,2048")
    kernels = [k for k in args.kernels.split(",") if k]
    bad = [k for k in kernels if k not in PAIR_KERNELS]
    if bad:
        raise InputError(f"--kernels: unknown {','.join(bad)} (use bitwise, wordwise, group)")
    bench_screen(args.pairs, args.m, ns, args.scoring, args.device, kernels, args.out, transpose=args.transpose)
    return 0
