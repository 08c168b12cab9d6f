"""Many search queries sliced from a protein FASTA file, for searches that
write many hits (the BENCHMARKS entry "2026-11-28 (search hits as columns)":
2,000 queries of 40-300 residues from the 12k Swiss-Prot set, seed 9).

    python benchmarks/make_search_queries.py uniprot_sprot12071.fasta.gz q2000.fa --queries 2000 --seed 9

Query ``k`` is ``m{k}_{name}``: a slice of a record (``name``, its header's
first word) chosen at random, of a length drawn from ``--min``-``--max``
(the whole record when it is shorter). The records are also written, one
line each, with ``--database OUT`` (the searched FASTA of that entry).
"""

from __future__ import annotations

import argparse
import gzip
import random
import sys


def records(path: str) -> list[tuple[str, str]]:
    """``(name, letters)`` of every record, in order."""
    out, name, parts = [], None, []
    with (gzip.open if path.endswith(".gz") else open)(path, "rt") as fh:
        for line in fh:
            if line.startswith(">"):
                if name is not None:
                    out.append((name, "".join(parts)))
                name, parts = line[1:].split()[0], []
            else:
                parts.append(line.strip())
    if name is not None:
        out.append((name, "".join(parts)))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for name in ("fasta", "out"):
        ap.add_argument(name)
    for flag, default in (("--queries", 2000), ("--min", 40), ("--max", 300), ("--seed", 9)):
        ap.add_argument(flag, type=int, default=default)
    ap.add_argument("--database", default=None, help="also write the records here, one line each")
    args = ap.parse_args(argv)
    recs = records(args.fasta)
    rng = random.Random(args.seed)
    with open(args.out, "w") as out:
        for k in range(args.queries):
            name, letters = rng.choice(recs)
            length = rng.randint(args.min, args.max)
            start = rng.randrange(max(1, len(letters) - length))
            out.write(f">m{k}_{name}\n{letters[start:start + length]}\n")
    if args.database:
        with open(args.database, "w") as out:
            out.writelines(f">{name}\n{letters}\n" for name, letters in recs)
    print(f"{args.out}: {args.queries:,} queries from {len(recs):,} records of {args.fasta}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
