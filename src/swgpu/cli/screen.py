"""``swgpu screen``: best score of many DNA pairs; alignments of those over a threshold."""

from __future__ import annotations

from ..exceptions import InputError
from .options import add_device, add_output, finish, write_alignments

__all__ = ["add_parser", "run"]


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("screen", help="best score of many DNA pairs (record i with record i); alignments over a threshold")
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
    add_output(p, "blast6")
    add_device(p)
    finish(p, run)


def _read_pairs(args):
    from ..io.pairs import read_pair_files, read_pairs

    if args.pairs and (args.query or args.target):
        raise InputError("give either --pairs or -q/-t, not both")
    if args.pairs:
        return read_pairs(args.pairs)
    if args.query and args.target:
        return read_pair_files(args.query, args.target)
    raise InputError("give -q QUERIES -t TARGETS (record i with record i) or --pairs PAIRS.tsv")


def run(args) -> int:
    from ..io.writers import OutputFile
    from ..scoring import Scoring
    from ..workloads.screen import Screener

    queries, targets = _read_pairs(args)
    scoring = Scoring.build("dna", match=args.match, mismatch=args.mismatch, gap_open=args.gap_open,
                            gap_extend=args.gap_extend)
    screener = Screener(scoring, device=args.device, kernel=args.kernel, threads=args.threads)
    result = screener.screen(queries, targets, args.threshold)
    if args.threshold is None:
        with OutputFile(args.output) as out:
            out.write("query\ttarget\tscore\n")
            out.write("".join(f"{q.name}\t{t.name}\t{s}\n" for q, t, s in zip(queries, targets, result.scores.tolist())))
        return 0
    write_alignments(args, scoring, [(aln, queries[int(i)].text) for i, aln in zip(result.selected, result.alignments)])
    return 0
