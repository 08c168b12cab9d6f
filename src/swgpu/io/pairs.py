r"""Pair files for screening: a TSV of pairs, or two FASTA/FASTQ files whose
record ``i`` pairs with record ``i``.

>>> import tempfile, os
>>> with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as fh:
...     _ = fh.write("# pairs\nACGT\tACGA\nr2\tGGCC\tt2\tGGCA\n")
>>> qs, ts = read_pairs(fh.name)
>>> [(q.name, q.text, t.name, t.text) for q, t in zip(qs, ts)]
[('pair1_q', 'ACGT', 'pair1_t', 'ACGA'), ('r2', 'GGCC', 't2', 'GGCA')]
>>> os.unlink(fh.name)
"""

from __future__ import annotations

import os

from ..exceptions import InputError
from .alphabet import DNA
from .readers import iter_sequences
from .sequence import Sequence

__all__ = ["read_pairs", "read_pair_files"]


def read_pairs(path) -> tuple[list[Sequence], list[Sequence]]:
    """Pairs from a TSV file: ``query_seq<TAB>target_seq`` or
    ``query_name<TAB>query_seq<TAB>target_name<TAB>target_seq`` per line; lines
    starting with ``#`` and empty lines are skipped."""
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise InputError(f"{path}: no such file")
    queries, targets = [], []
    try:
        with open(path, encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, 1):
                line = line.rstrip("\r\n")
                if not line.strip() or line.startswith("#"):
                    continue
                cols = line.split("\t")
                if len(cols) == 2:
                    qn, qs, tn, ts = f"pair{len(queries) + 1}_q", cols[0], f"pair{len(queries) + 1}_t", cols[1]
                elif len(cols) == 4:
                    qn, qs, tn, ts = cols
                else:
                    raise InputError(f"{path}: line {lineno}: expected 2 or 4 tab-separated columns, got {len(cols)}")
                try:
                    queries.append(Sequence(qn, qs, DNA.encode(qs, record=qn), DNA))
                    targets.append(Sequence(tn, ts, DNA.encode(ts, record=tn), DNA))
                except InputError as exc:
                    raise InputError(f"{path}: line {lineno}: {exc.message}", param=exc.param) from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a text file") from None
    if not queries:
        raise InputError(f"{path}: no pairs found")
    return queries, targets


def read_pair_files(query_path, target_path) -> tuple[list[Sequence], list[Sequence]]:
    """Record ``i`` of the query file paired with record ``i`` of the target file."""
    queries = list(iter_sequences(query_path, DNA))
    targets = list(iter_sequences(target_path, DNA))
    if len(queries) != len(targets):
        raise InputError(f"{query_path} has {len(queries)} records but {target_path} has {len(targets)}; "
                         "screen pairs record i with record i")
    return queries, targets
