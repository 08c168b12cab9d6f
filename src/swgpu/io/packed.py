"""Lists of sequences as one ``bytes`` object, and back: how a process that
has read an input hands it to another one.

Pickling 40,000 :class:`~swgpu.io.sequence.Sequence` objects one by one costs
about as much as reading them again; here each list goes as a few large
objects (names, descriptions and letters joined by newlines, which none of
them holds, and the codes end to end) and is rebuilt with
:func:`~swgpu.io.sequence.make_sequences`, as the readers build it.

>>> from swgpu.io.sequence import Sequence
>>> seqs = [Sequence.from_header("r1 first read", "ACGTN", "dna"), Sequence.from_text("r2", "gg", "dna")]
>>> [back] = unpack(pack([seqs]))
>>> [(s.name, s.description, s.text, s.codes.tolist(), s.alphabet.name) for s in back]
[('r1', 'first read', 'ACGTN', [0, 1, 2, 3, 4], 'dna'), ('r2', '', 'gg', [2, 2], 'dna')]
"""

from __future__ import annotations

import pickle
from itertools import accumulate

import numpy as np

from .alphabet import get_alphabet
from .sequence import Sequence, code_views, make_sequences

__all__ = ["pack", "unpack"]


def _joined(values: list[str]) -> str:
    text = "\n".join(values)
    if text.count("\n") != max(len(values) - 1, 0):
        raise ValueError("a name, description or sequence holds a newline")
    return text


def _split(text: str, count: int) -> list[str]:
    return text.split("\n") if count else []


def _codes(seqs: list[Sequence]) -> bytes:
    try:  # uint8 arrays each in one piece: joined without a copy of each
        return b"".join([s.codes for s in seqs])
    except (BufferError, TypeError):
        return np.concatenate([np.asarray(s.codes, dtype=np.uint8).ravel() for s in seqs] or
                              [np.zeros(0, np.uint8)]).tobytes()


def _named(name: str):
    try:
        return get_alphabet(name)
    except Exception:  # noqa: BLE001 - not a named alphabet
        return None


def pack(lists: list[list[Sequence]]) -> bytes:
    """``lists`` of sequences as bytes (:func:`unpack` gives them back).
    ValueError when a list mixes alphabets, an alphabet is not one of the
    named ones, or a field holds a newline."""
    parts = []
    for seqs in lists:
        alphabets = {id(s.alphabet): s.alphabet for s in seqs}
        if len(alphabets) > 1:
            raise ValueError("a list mixes alphabets")
        alphabet = next(iter(alphabets.values()), None)
        name = alphabet.name if alphabet is not None else "dna"
        if alphabet is not None and _named(name) is not alphabet:
            raise ValueError(f"alphabet {name!r} is not the named one")
        texts = [s.text for s in seqs]
        codes = _codes(seqs)
        if len(codes) != sum(map(len, texts)):
            raise ValueError("codes and letters differ in length")
        parts.append((len(seqs), name, _joined([s.name for s in seqs]), _joined([s.description for s in seqs]),
                      _joined(texts), codes))
    return pickle.dumps(parts, protocol=pickle.HIGHEST_PROTOCOL)


def unpack(data) -> list[list[Sequence]]:
    """The lists :func:`pack` made ``data`` of (bytes or a buffer of them)."""
    out = []
    for count, name, names, descriptions, texts, codes in pickle.loads(data):
        letters = _split(texts, count)
        lengths = list(map(len, letters))
        views = code_views(codes, list(accumulate(lengths)), lengths)
        out.append(make_sequences(_split(names, count), letters, views, get_alphabet(name),
                                  _split(descriptions, count)))
    return out
