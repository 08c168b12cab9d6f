"""``swgpu info`` (version, engines, GPUs) and ``swgpu demo`` (``search`` on the shipped example)."""

from __future__ import annotations

import os
import shlex
import sys
from importlib import resources

from .options import add_device, add_output, add_quiet, finish, resolve_output
from .paths import check_files, declare

__all__ = ["add_parser", "run", "example_path"]


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("demo", help="run `search` on the small example shipped with swgpu")
    add_output(p, "pairwise", columns=False)
    add_device(p)
    add_quiet(p)
    declare(p, outputs=("output",))
    finish(p, run)

    p = subparsers.add_parser("info", help="show version, engines and GPUs")
    finish(p, run)


def run(args) -> int:
    """Run ``demo`` or ``info``, as ``args.command`` says."""
    return run_demo(args) if args.command == "demo" else run_info(args)


def example_path(name: str) -> str:
    """Path of a file shipped in ``swgpu/data/examples``."""
    return str(resources.files("swgpu").joinpath("data", "examples", name))


def run_demo(args) -> int:
    from .main import build_parser

    resolve_output(args)
    q, t = example_path("queries.fasta"), example_path("targets.fasta")
    argv = ["search", "-q", q, "-d", t, "--top", "3", "--format", args.format, "--device", args.device]
    if args.output:
        argv += ["-o", args.output]
    if args.threads:
        argv += ["--threads", str(args.threads)]
    if args.quiet:
        argv += ["--quiet"]
    if args.timings:
        argv += ["--timings"]
    if not args.quiet:
        print("# swgpu " + " ".join(shlex.quote(a) for a in argv), file=sys.stderr)
    ns = build_parser().parse_args(argv)
    ns.argv = argv
    check_files(ns)  # the output is not one of the shipped examples
    return ns.func(ns)


def run_info(args) -> int:
    import numba
    import numpy

    from .. import __version__
    from ..engines import describe_devices, gpu_unavailable_reason
    from ..engines.registry import is_accelerator, names

    print(f"swgpu {__version__}")
    print(f"python {sys.version.split()[0]}, numpy {numpy.__version__}, numba {numba.__version__}")
    print(f"cpu engine: available ({os.cpu_count()} cores)")
    for name in filter(is_accelerator, names()):
        gpus = describe_devices(name)
        for d in gpus:
            print(f"{name} engine: GPU {d['id']}: {d['name']}, {d['sms']} SMs, "
                  f"{d['memory'] / 2**30:.0f} GiB, {d['arch']}")
        if not gpus:
            print(f"{name} engine: unavailable ({gpu_unavailable_reason(name)})")
    return 0
