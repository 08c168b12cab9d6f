"""JSON lines of a whole batch of alignments, in compiled code.

The lines :func:`.jsonl.format_json` writes, byte for byte, for a batch given
as columns (the arrays of :class:`~swgpu.align.batch.AlignmentBatch`), through
:class:`~.rows.Rows`: integers and the aligned letters in compiled passes,
E-values, bit scores and identities formatted once per distinct value as
Python's ``json`` writes them. ``None`` where a batch needs the
record-by-record writer: an empty alignment (its coordinates are ``null``),
or a name that JSON would escape.
"""

from __future__ import annotations

import json

import numpy as np

from ..alphabet import COMPLEMENT_BYTES
from .columns import _by_value, _stat_texts, aligned_texts, cigar_texts
from .rows import Rows, Texts

__all__ = ["json_lines"]

_ESCAPED = np.zeros(256, dtype=bool)
_ESCAPED[:0x20] = True
_ESCAPED[[ord('"'), ord("\\")]] = True


def _plain(names: Texts) -> bool:
    """Whether ``json`` writes every name as it is (no quote, backslash or control character)."""
    return not _ESCAPED[names.buffer].any()


def json_lines(batch, qnames: Texts, tnames: Texts, qletters: Texts, tletters: Texts,
               complement: bytes = COMPLEMENT_BYTES) -> np.ndarray | None:
    """JSON lines (each ending in a line end) of the alignments of ``batch``,
    as :func:`.jsonl.format_json` writes them; ``qletters``, ``tletters``: the
    queries and targets as read. ``None``: see the module notes."""
    n = len(batch)
    if batch.empty.any() or not (_plain(qnames) and _plain(tnames)):
        return None
    index = np.arange(n, dtype=np.int64)
    qaligned, taligned = aligned_texts(batch, index, qletters, tletters, complement, blast=False)
    length = batch.length
    rows = Rows(n)

    def key(name: str, first: bool = False) -> None:
        rows.const(("{" if first else ",") + f'"{name}":')

    def text(name: str, texts: Texts, which=None) -> None:
        key(name, name == "query")
        rows.const('"')
        rows.text(texts, which)
        rows.const('"')

    def number(name: str, values) -> None:
        key(name)
        rows.int(values)

    def stat(name: str) -> None:
        key(name)
        rows.text(*_stat_texts(getattr(batch, name), lambda xs: [json.dumps(x) for x in xs.tolist()], "null"))

    text("query", qnames, batch.query_index)
    text("target", tnames, batch.target_index)
    number("score", batch.score)
    stat("evalue")
    stat("bitscore")
    number("query_start", batch.query_start + 1)
    number("query_end", batch.query_end)
    number("target_start", batch.target_start + 1)
    number("target_end", batch.target_end)
    number("query_length", batch.query_length)
    number("target_length", batch.target_length)
    key("strand")
    rows.text(Texts.from_strings(['"+"', '"-"']), batch.strand.astype(np.int64))
    text("cigar", cigar_texts(batch))
    key("identity")
    top = int(length.max()) + 1 if n else 1
    rows.text(*_by_value(batch.matches * top + length,
                         lambda v: json.dumps(round(v // top / (v % top), 6) if v % top else 0.0)))
    for name in ("matches", "mismatches", "gap_opens", "gaps"):
        number(name, getattr(batch, name))
    number("length", length)
    text("query_aligned", qaligned)
    text("target_aligned", taligned)
    rows.const("}\n")
    return rows.render_array()
