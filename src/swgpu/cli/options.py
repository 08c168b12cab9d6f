"""What the commands share: the parser class, option groups (scoring, output, engine), the
library-parameter → flag table of a command, the scoring and output format of the options, and
writing alignments. The checked number types of the options are in :mod:`.checks`, which options
a command line gave in :mod:`.flags`, the progress bar and summary line in :mod:`.progress`."""

from __future__ import annotations

import argparse
import os
import shlex

from ..engines.registry import device_choices
from ..exceptions import InputError
from ..io.writers.output import COMPRESSED as _COMPRESSED
from .checks import gap_penalty, non_positive_int, positive_int
from .cluster import add_cluster, cluster_of, executor_from  # noqa: F401  (the cluster options, with the others)
from .flags import command_options

__all__ = ["Parser", "UsageError", "add_scoring", "add_output", "add_device", "add_quiet", "add_cluster", "finish",
           "param_flags", "gpu_ids", "executor_from", "cluster_of", "scoring_from", "check_scoring", "resolve_output",
           "format_from_name", "program_line", "write_alignments", "report_options"]

# Library parameter names that are not the ``dest`` of the option they come from.
PARAM_ALIASES = {
    "database": "db", "db_path": "db",
    "queries": "query", "queries_path": "query", "query_path": "query",
    "targets": "target", "target_path": "target",
    "outfmt": "columns", "memory_limit": "gpu_memory",
}

#: Output format by file extension (after a ``.gz``/``.bz2``/``.xz``/``.zst``); others: the command's default.
EXTENSION_FORMATS = {".sam": "sam", ".bam": "bam", ".json": "json", ".jsonl": "json",
                     ".tsv": "blast6", ".blast6": "blast6", ".m8": "blast6", ".blast7": "blast7"}


class UsageError(Exception):
    """A command line argparse refused; the message is the one line to print."""


class Parser(argparse.ArgumentParser):
    """argparse that reports a usage error on one line (exit 2), naming the
    (sub)command whose options were wrong and pointing to its ``--help``."""

    def error(self, message: str):  # noqa: D401
        raise UsageError(f"{self.prog}: error: {message} (see {self.prog} --help)")

    def parse_known_args(self, args=None, namespace=None):
        # a subcommand parser is called with parse_known_args by its parent: refuse
        # unknown options here, so that the message names this command, not `swgpu`;
        # and before a missing required option (`swgpu search --bogus`)
        try:
            namespace, extras = super().parse_known_args(args, namespace)
        except UsageError:
            if self._unknown(args):
                self.error(f"unrecognized arguments: {' '.join(self._unknown(args))}")
            raise
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras

    def _unknown(self, args) -> list[str]:
        """The arguments argparse leaves over once no argument is required."""
        required = [(a, a.nargs) for a in self._actions if a.required and (a.option_strings or a.nargs is None)]
        if not required:
            return []
        for a, nargs in required:
            a.required, a.nargs = False, nargs if a.option_strings else "?"
        try:
            return super().parse_known_args(args, None)[1]
        except UsageError:
            return []
        finally:
            for a, nargs in required:
                a.required, a.nargs = True, nargs


# ------------------------------------------------------------------ option groups

def add_scoring(p: argparse.ArgumentParser, guessed_from: str = "the query file") -> None:
    g = p.add_argument_group("scoring (a gap of length k costs open + (k-1)*extend)")
    g.add_argument("--alphabet", choices=["dna", "rna", "protein"], help=f"sequence type (default: guessed from {guessed_from})")
    g.add_argument("--matrix", help="substitution matrix: BLOSUM45/50/62/80/90, PAM30/70/250, NUC.4.4 or an "
                                    "NCBI-format file (protein default BLOSUM62); none: --match/--mismatch scoring")
    g.add_argument("--match", type=positive_int, help="match score, >= 1, given with --mismatch (DNA default 2)")
    g.add_argument("--mismatch", type=non_positive_int, help="mismatch score, <= 0, given with --match (DNA default -3)")
    g.add_argument("--gap-open", type=gap_penalty(1), help="cost of a gap's first residue, >= 1 (protein 11, DNA 5)")
    g.add_argument("--gap-extend", type=gap_penalty(0),
                   help="cost of each further gap residue, 0 to --gap-open (protein 1, DNA 2)")


def add_output(p: argparse.ArgumentParser, default: str, columns: bool = True) -> None:
    """``-f``, ``-o`` and (with ``columns``) ``--outfmt``; ``default`` is the
    format when neither ``-f`` nor ``-o``'s extension says (:func:`resolve_output`)."""
    from ..io.writers import FORMATS

    p.add_argument("--format", "-f", choices=FORMATS,
                   help=f"output format (blast7: blast6 with BLAST's comment lines; bam needs pysam; default: from "
                        f"-o's extension: .sam, .bam, .json/.jsonl, .tsv/.blast6/.m8, .blast7; else {default})")
    p.add_argument("-o", "--output", help="output file (default: standard output; .gz/.bz2/.xz/.zst: compressed)")
    if columns:
        p.add_argument("--outfmt", dest="columns", metavar="COLUMNS",
                       help="blast6 columns by BLAST's names, space- or comma-separated, e.g. "
                            "'6 qseqid sseqid evalue stitle' (default: std score qlen slen cigar); '7 ...': blast7")
    p.set_defaults(default_format=default)


def add_device(p: argparse.ArgumentParser, cpu_only: bool = False) -> None:
    if cpu_only:
        p.add_argument("--device", default="auto", choices=["auto", "cpu"],
                       help="compute engine (default auto: the CPU)")
    else:
        p.add_argument("--device", default="auto", choices=list(device_choices()),
                       help="compute engine (default auto: the GPU when CuPy sees one, else the CPU)")
    p.add_argument("--threads", type=positive_int, default=None,
                   help="CPU threads, >= 1, for the CPU kernels and the tracebacks (default: all cores)")


def add_strand(p: argparse.ArgumentParser, default: str) -> None:
    p.add_argument("--strand", default=default, choices=["both", "plus", "minus"],
                   help=f"DNA strands of the query to align: both, plus or minus (default {default}; "
                        "protein has one strand)")


def add_quiet(p: argparse.ArgumentParser) -> None:
    p.add_argument("--quiet", action="store_true",
                   help="no progress bar and no summary line on standard error")
    p.add_argument("--timings", action="store_true",
                   help="at the end, one line per phase on standard error (read, upload, compile, score, "
                        "traceback, write) and the total")


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
    p.set_defaults(func=run, param_flags=param_flags(p), **command_options(p))


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


# ------------------------------------------------------------------ scoring

def _no_matrix(args) -> bool:
    return getattr(args, "matrix", None) is not None and args.matrix.strip().lower() == "none"


def check_scoring(args) -> None:
    """Refuse a match/mismatch scoring given in part: ``--match`` and
    ``--mismatch`` come together, and ``--matrix none`` needs both."""
    given = [flag for flag, value in (("--match", args.match), ("--mismatch", args.mismatch)) if value is not None]
    if given and getattr(args, "matrix", None) is not None and not _no_matrix(args):
        raise InputError(f"give either --matrix or {'/'.join(given)}, not both")
    if len(given) == 1:
        other = "--mismatch" if given == ["--match"] else "--match"
        raise InputError(f"{given[0]} needs {other}: give both (the DNA default is --match 2 --mismatch -3)")
    if _no_matrix(args) and not given:
        raise InputError("--matrix none scores by match/mismatch: give --match and --mismatch")


def scoring_from(args, alphabet):
    """The Scoring of the options, for ``alphabet``: proteins are scored by
    --match/--mismatch only with ``--matrix none`` (never in place of BLOSUM62
    by accident: those scores have no E-values)."""
    from ..io.alphabet import PROTEIN, get_alphabet
    from ..scoring import Scoring

    check_scoring(args)
    alphabet = get_alphabet(alphabet)
    if alphabet is PROTEIN and args.match is not None and args.matrix is None:
        raise InputError("--match/--mismatch would replace BLOSUM62 for proteins (and give no E-values): "
                         "add --matrix none to score proteins by match/mismatch, or choose a --matrix")
    return Scoring.build(alphabet, matrix=None if _no_matrix(args) else args.matrix, match=args.match,
                         mismatch=args.mismatch, gap_open=args.gap_open, gap_extend=args.gap_extend)


# ------------------------------------------------------------------ output

def format_from_name(path: str | None) -> str | None:
    """The format an output file's name asks for, or None (no name, ``-``, another extension).

    >>> format_from_name("hits.sam"), format_from_name("hits.JSONL.gz"), format_from_name("hits.txt")
    ('sam', 'json', None)
    """
    if not path or path == "-":
        return None
    stem, ext = os.path.splitext(os.path.basename(str(path)).lower())
    if ext in _COMPRESSED:
        ext = os.path.splitext(stem)[1]
    return EXTENSION_FORMATS.get(ext)


def resolve_output(args) -> None:
    """Set ``args.format`` and ``args.columns`` (:func:`~swgpu.io.writers.choice.choose_format`), refusing
    what cannot be written (``--outfmt`` for another format, BAM without pysam). Call before any work."""
    from ..io.writers.choice import choose_format

    args.format, args.columns = choose_format(args.format, getattr(args, "columns", None),
                                              format_from_name(args.output), args.default_format, args.output)


def report_options(args, queries=None) -> dict:
    """blast7's writer arguments (none for another format): ``queries`` in order, the ``# Database:`` text."""
    from ..io.writers.choice import database_line

    files = [getattr(args, d, None) for d in ("db", "target", "genome", "pairs")]
    return {"queries": queries, "database": database_line(*files)} if args.format == "blast7" else {}


def program_line(args) -> str:
    """The command line as run, for the SAM @PG line and the pairwise header."""
    return "swgpu " + " ".join(shlex.quote(a) for a in args.argv)


def write_alignments(args, scoring, rows, targets=None, descriptions=None, secondary=False, queries=None) -> int:
    """Write ``(alignment, query_text)`` rows to ``args.output`` in ``args.format``
    (:func:`resolve_output` first); returns how many alignments were written. ``targets`` (for the SAM header): the targets to list; by default those of
    the rows, in order of first appearance (the rows are then read up front).
    ``descriptions``: target name -> description, for ``--outfmt stitle``. ``queries`` (blast7):
    the queries in order; a row ``(alignment, query_text, k)`` is of ``queries[k]``.
    """
    from ..io.writers import AlignmentWriter

    if targets is None:  # every (name, length): the SAM header refuses one name with two lengths
        rows = list(rows)
        targets = [(row[0].target, row[0].target_length) for row in rows]
    with AlignmentWriter(args.output, args.format, scoring=scoring, program_line=program_line(args),
                         targets=targets, header=args.format == "pairwise", columns=getattr(args, "columns", None),
                         descriptions=descriptions, secondary=secondary, **report_options(args, queries)) as writer:
        for aln, query_text, *index in rows:
            writer.write(aln, query_text=query_text, query=index[0] if index else None)
    return writer.count
