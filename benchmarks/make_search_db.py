"""Protein databases of database scale from the Swiss-Prot 100k sample.

The database is the sample repeated: copy ``c`` of record ``name`` is named
``name_c`` (copy 0 keeps the name), so every record is distinct by name while
the letters, and with them the cells and the scores, are exactly ``copies``
times those of the sample. 10 copies give the 1,000,170-sequence database
(360.6 M residues), 100 copies 10M sequences (3.6 G residues).

    python benchmarks/make_search_db.py SAMPLE.fasta[.gz] OUT.fasta --copies 10

writes OUT.fasta (60 letters a line, as the sample) and prints its size; it is
the input of both ``swgpu makedb`` and CUDASW++'s ``makedb``.
"""

from __future__ import annotations

import argparse
import sys
import time


def records(path: str) -> list[tuple[bytes, bytes]]:
    """(header line without '>' and newline, sequence block with its newlines) of every record."""
    import gzip

    with (gzip.open if path.endswith(".gz") else open)(path, "rb") as f:
        text = f.read()
    out = []
    for chunk in text.split(b"\n>"):
        chunk = chunk.lstrip(b">")
        if not chunk.strip():
            continue
        head, _, body = chunk.partition(b"\n")
        out.append((head.rstrip(b"\r"), body.rstrip(b"\n") + b"\n"))
    return out


def write(recs: list[tuple[bytes, bytes]], out: str, copies: int) -> int:
    size = 0
    with open(out, "wb") as f:
        for c in range(copies):
            suffix = b"" if c == 0 else b"_%d" % c
            parts = []
            for head, body in recs:
                name, sep, rest = head.partition(b" ")
                parts.append(b">" + name + suffix + sep + rest + b"\n" + body)
            block = b"".join(parts)
            f.write(block)
            size += len(block)
    return size


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sample")
    ap.add_argument("out")
    ap.add_argument("--copies", type=int, default=10)
    args = ap.parse_args(argv)
    t = time.perf_counter()
    recs = records(args.sample)
    size = write(recs, args.out, args.copies)
    residues = sum(len(b) - b.count(b"\n") for _, b in recs) * args.copies
    print(f"{args.out}: {len(recs) * args.copies:,} sequences, {residues:,} residues, {size / 1e6:.1f} MB "
          f"in {time.perf_counter() - t:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
