"""What the commands share: the parser class, option groups (scoring, output,
engine), the library-parameter → flag table of a command, the progress bar and
writing alignments."""

from __future__ import annotations

import argparse
import shlex
import sys

from ..exceptions import InputError

__all__ = ["Parser", "UsageError", "add_scoring", "add_output", "add_device", "finish", "param_flags",
           "gpu_ids", "scoring_from", "progress", "program_line", "write_alignments"]

# Library parameter names that are not the ``dest`` of the option they come from.
PARAM_ALIASES = {
    "database": "db", "db_path": "db",
    "queries": "query", "queries_path": "query", "query_path": "query",
    "targets": "target", "target_path": "target",
}


class UsageError(Exception):
    """A command line argparse refused; the message is the one line to print."""


class Parser(argparse.ArgumentParser):
    """argparse that reports a usage error on one line (exit 2)."""

    def error(self, message: str):  # noqa: D401
        raise UsageError(f"{self.prog}: {message} (see {self.prog} --help)")


def add_scoring(p: argparse.ArgumentParser, guessed_from: str = "the query file") -> None:
    g = p.add_argument_group("scoring (a gap of length k costs open + (k-1)*extend)")
    g.add_argument("--alphabet", choices=["dna", "rna", "protein"], help=f"sequence type (default: guessed from {guessed_from})")
    g.add_argument("--matrix", help="substitution matrix: BLOSUM45/50/62/80/90, PAM30/70/250, NUC.4.4 or an NCBI-format file (protein default BLOSUM62)")
    g.add_argument("--match", type=int, help="match score for match/mismatch scoring (DNA default 2)")
    g.add_argument("--mismatch", type=int, help="mismatch score, zero or negative (DNA default -3)")
    g.add_argument("--gap-open", type=int, help="cost of a gap's first residue (protein 11, DNA 5)")
    g.add_argument("--gap-extend", type=int, help="cost of each further gap residue (protein 1, DNA 2)")


def add_output(p: argparse.ArgumentParser, default: str) -> None:
    from ..io.writers import FORMATS

    p.add_argument("--format", "-f", default=default, choices=FORMATS, help=f"output format (default {default})")
    p.add_argument("-o", "--output", help="output file (default: standard output)")


def add_device(p: argparse.ArgumentParser, cpu_only: bool = False) -> None:
    if cpu_only:
        p.add_argument("--device", default="auto", choices=["auto", "cpu"],
                       help="compute engine: pairwise traceback runs on the CPU engine")
    else:
        p.add_argument("--device", default="auto", choices=["auto", "cpu", "cuda"],
                       help="compute engine (default auto: the GPU when CuPy sees one, else the CPU)")
    p.add_argument("--threads", type=int, default=None, help="CPU threads (default: all cores)")


def param_flags(p: argparse.ArgumentParser) -> dict[str, str]:
    """``{library parameter: flag}`` of a command: each option's dest names its
    first flag (``gap_open`` → ``--gap-open``, ``query`` → ``-q``), plus
    :data:`PARAM_ALIASES`. Positionals have no flag and are left out."""
    flags = {a.dest: a.option_strings[0] for a in p._actions  # argparse lists no actions publicly
             if a.option_strings and a.dest not in (argparse.SUPPRESS, "help", "version")}
    flags.update({name: flags[dest] for name, dest in PARAM_ALIASES.items() if dest in flags})
    return flags


def finish(p: argparse.ArgumentParser, run) -> None:
    """Make ``run`` the command of ``p``; call once all its options are added."""
    p.set_defaults(func=run, param_flags=param_flags(p))


def gpu_ids(text: str) -> list[int] | None:
    """``--gpus``: ``all`` → None, else the list of ids."""
    if text.strip().lower() == "all":
        return None
    try:
        ids = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise InputError(f"--gpus {text!r}: give 'all' or GPU ids such as 0,1") from None
    if not ids or min(ids) < 0:
        raise InputError(f"--gpus {text!r}: give 'all' or GPU ids such as 0,1")
    return ids


def scoring_from(args, alphabet):
    from ..scoring import Scoring

    return Scoring.build(alphabet, matrix=args.matrix, match=args.match, mismatch=args.mismatch,
                         gap_open=args.gap_open, gap_extend=args.gap_extend)


def progress(total_cells: int, label: str):
    """A rich progress bar on a terminal for work expected to take over a second."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    enabled = sys.stderr.isatty() and total_cells > 200_000_000
    return Progress(TextColumn(label), BarColumn(), TextColumn("{task.percentage:>3.0f}%"), TimeRemainingColumn(),
                    transient=True, disable=not enabled)


def program_line(args) -> str:
    """The command line as run, for the SAM @PG line and the pairwise header."""
    return "swgpu " + " ".join(shlex.quote(a) for a in args.argv)


def write_alignments(args, scoring, rows, targets=None) -> None:
    """Write ``(alignment, query_text)`` rows to ``args.output`` in ``args.format``.

    ``targets`` (for the SAM header): the targets to list; by default those of
    the rows, in order of first appearance (the rows are then read up front).
    """
    from ..io.writers import AlignmentWriter

    if targets is None:
        rows = list(rows)
        seen: dict = {}
        for aln, _ in rows:
            seen.setdefault(aln.target, aln.target_length)
        targets = list(seen.items())
    with AlignmentWriter(args.output, args.format, scoring=scoring, program_line=program_line(args),
                         targets=targets, header=args.format == "pairwise") as writer:
        for aln, query_text in rows:
            writer.write(aln, query_text=query_text)
