"""``swgpu makedb``: encode a FASTA file into a memory-mappable database for ``search``.

The file keeps each record's ID and description and checks itself when opened
(format, size, checksums: see :mod:`swgpu.io.database`). IDs given more than
once are kept as they are, with one warning line
(``swgpu: warning: DB.fasta: N duplicate IDs, first 'X' ...``).
"""

from __future__ import annotations

import sys

from .options import finish
from .paths import declare
from .progress import plural

__all__ = ["add_parser", "run"]


def add_parser(subparsers) -> None:
    p = subparsers.add_parser("makedb", help="encode a FASTA file into a memory-mappable database for `search`")
    p.add_argument("fasta", help="FASTA/FASTQ file (plain or compressed)")
    p.add_argument("out", help="database file to write (e.g. db.swdb); IDs and descriptions are kept")
    p.add_argument("--alphabet", choices=["dna", "rna", "protein"], help="sequence type (default: guessed)")
    declare(p, inputs=("fasta",), outputs=("out",))
    finish(p, run)


def run(args) -> int:
    from ..io.database import Database

    Database.check_path(args.out)  # before the FASTA file is read
    db = Database.from_fasta(args.fasta, args.alphabet)
    db.save(args.out)
    print(f"{args.out}: {plural(len(db), db.alphabet.name + ' sequence')}, {plural(db.total_residues, 'residue')}",
          file=sys.stderr)
    return 0
