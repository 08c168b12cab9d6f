r"""Pair files for screening: a TSV of pairs, or two FASTA/FASTQ files whose
record ``i`` pairs with record ``i``.

Either may be ``"-"`` (standard input), a pipe or compressed, as for
:func:`~swgpu.io.readers.read_sequences`. Names are cut at the first whitespace,
as in FASTA headers.

>>> import tempfile, os
>>> with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as fh:
...     _ = fh.write("# pairs\nACGT\tACGA\nr2 read two\tGGCC\tt2\tGGCA\n")
>>> qs, ts = read_pairs(fh.name)
>>> [(q.name, q.text, t.name, t.text) for q, t in zip(qs, ts)]
[('pair1_q', 'ACGT', 'pair1_t', 'ACGA'), ('r2', 'GGCC', 't2', 'GGCA')]
>>> qs[1].description
'read two'
>>> os.unlink(fh.name)
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Iterator

from ..exceptions import InputError
from .alphabet import DNA, DNA_LETTER_HINT, Alphabet, check_alphabet
from .readers import STDIN, input_lines, read_sequence_batch, source_name
from .sequence import Sequence, decode_header
from .sequence_batch import SequenceBatch

__all__ = ["read_pairs", "read_pair_files", "pair_file_parts"]

_WHAT = "screen's alphabet"
_DNA_ONLY = " (screen compares DNA only)"


def _dna_only(exc: InputError, prefix: str = "") -> InputError:
    """``exc`` (a letter that is not DNA) worded for screen, which has no other alphabet."""
    return InputError(prefix + exc.message.replace(DNA_LETTER_HINT, _DNA_ONLY))


def _header_like(cols: list[str]) -> bool:
    """Whether the columns of a file's first line look like column names
    (``qseq<TAB>tseq``): each sequence column has a letter that is not DNA,
    and one has a lower-case letter or an underscore (sequences seldom do)."""
    seqs = cols if len(cols) == 2 else cols[1::2]
    not_dna = all(any(ord(c) > 255 or DNA.table[ord(c)] == 255 for c in x) for x in seqs)
    return not_dna and any(c.islower() or c == "_" for x in seqs for c in x)


def _pair(cols: list[str], number: int) -> tuple[Sequence, Sequence]:
    if len(cols) == 2:
        cols = [f"pair{number}_q", cols[0], f"pair{number}_t", cols[1]]
    q_header, q_text, t_header, t_text = cols
    for header in (q_header, t_header):
        if not header.strip() or header[0].isspace():
            raise InputError(f"the name {header!r} is empty or starts with a space")
    pair = Sequence.from_header(q_header, q_text, DNA), Sequence.from_header(t_header, t_text, DNA)
    for seq in pair:  # as a FASTA record without letters is refused
        if not len(seq):
            raise InputError(f"record {seq.name!r} is empty (no sequence letters)")
    return pair


def read_pairs(path, *, expect: str | Alphabet | None = None) -> tuple[list[Sequence], list[Sequence]]:
    """Pairs from a TSV file: ``query_seq<TAB>target_seq`` or
    ``query_name<TAB>query_seq<TAB>target_name<TAB>target_seq`` per line; lines
    starting with ``#`` and empty lines are skipped. With ``expect`` (``DNA``),
    the letters must look like DNA (:func:`~swgpu.io.alphabet.check_alphabet`)."""
    path = os.fspath(path)
    name = source_name(path)
    queries, targets = [], []
    for lineno, raw in enumerate(input_lines(path), 1):
        line = decode_header(raw)
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.split("\t")
        if len(cols) not in (2, 4):
            raise InputError(f"{name}: line {lineno}: expected 2 or 4 tab-separated columns, got {len(cols)}")
        try:
            query, target = _pair(cols, len(queries) + 1)
        except InputError as exc:
            if exc.param != "alphabet":
                raise InputError(f"{name}: line {lineno}: {exc.message}", param=exc.param) from None
            if not queries and _header_like(cols):
                raise InputError(f"{name}: line {lineno} looks like a header line ({line.strip()!r}): a pairs file "
                                 "has none; remove it or start it with #") from None
            raise _dna_only(exc, f"{name}: line {lineno}: ") from None
        queries.append(query)
        targets.append(target)
    if not queries:
        raise InputError(f"{name}: no pairs found")
    if expect is not None:
        check_alphabet(queries + targets, expect, _WHAT, source=name, hint=None)
    return queries, targets


def read_pair_files(query_path, target_path, *,
                    expect: str | Alphabet | None = None) -> tuple[SequenceBatch, SequenceBatch]:
    """Record ``i`` of the query file paired with record ``i`` of the target file,
    each file as a :class:`~swgpu.io.sequence_batch.SequenceBatch` (a sequence
    of :class:`Sequence` whose codes lie end to end, as bulk scoring reads them).

    One of the two may be standard input (``"-"``). With ``expect`` (``DNA``),
    each file's letters must look like DNA (:func:`~swgpu.io.alphabet.check_alphabet`).
    """
    if os.fspath(query_path) == os.fspath(target_path) == STDIN:
        raise InputError("only one of the query and target files can be standard input (-)")
    pool = ThreadPoolExecutor(2)  # both files at once (the reading and the scan release the lock)
    try:
        reads = [pool.submit(read_sequence_batch, path, DNA) for path in (query_path, target_path)]
        queries, targets = (r.result() for r in reads)  # (the query file's error first)
    except InputError as exc:
        raise (_dna_only(exc) if exc.param == "alphabet" else exc) from None
    finally:  # (an interrupt does not wait for the other file)
        pool.shutdown(wait=False, cancel_futures=True)
    if expect is not None:  # both files read first, then checked (a letter that is not DNA is found first)
        for path, batch in ((query_path, queries), (target_path, targets)):
            check_alphabet(batch.records(), expect, _WHAT, source=source_name(path), hint=None)
    if len(queries) != len(targets):
        raise InputError(f"{source_name(query_path)} has {len(queries)} records but {source_name(target_path)} "
                         f"has {len(targets)}; screen pairs record i with record i")
    return queries, targets


def pair_file_parts(query_path, target_path, records: int, *, expect: str | Alphabet | None = None,
                    ahead: int = 0, later: bool | None = None,
                    first: int | None = None) -> Iterator[tuple[SequenceBatch, SequenceBatch]]:
    """:func:`read_pair_files` a part at a time: pairs of batches of ``records``
    records each (the last may be shorter), read as the caller takes them, so
    that memory holds the parts in flight and not the files
    (:func:`~swgpu.io.chunks.paired_batches`, with its ``ahead``, ``later`` and ``first``). The same records and
    messages."""
    from .chunks import paired_batches

    parts = paired_batches(query_path, target_path, records, alphabet=DNA, expect=expect, what=_WHAT, hint=None,
                           ahead=ahead, later=later, first=first)
    try:
        yield from parts
    except InputError as exc:
        raise (_dna_only(exc) if exc.param == "alphabet" else exc) from None
    finally:
        parts.close()
