"""``swgpu makedb``: encode a FASTA file into a memory-mappable database for ``search``."""

from __future__ import annotations

import sys

from .options import finish

__all__ = ["add_parser", "run"]


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("makedb", help="encode a FASTA file into a memory-mappable database for `search`")
    p.add_argument("fasta", help="FASTA/FASTQ file (plain or compressed)")
    p.add_argument("out", help="database file to write (e.g. db.swdb)")
    p.add_argument("--alphabet", choices=["dna", "rna", "protein"], help="sequence type (default: guessed)")
    finish(p, run)


def run(args) -> int:
    from ..io.database import Database

    db = Database.from_fasta(args.fasta, args.alphabet)
    db.save(args.out)
    print(f"{args.out}: {len(db):,} {db.alphabet.name} sequences, {db.total_residues:,} residues", file=sys.stderr)
    return 0
