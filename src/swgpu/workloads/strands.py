"""The ``strand`` parameter of the workloads: which strands of a DNA query are
aligned.

``"plus"`` aligns the query as given, ``"minus"`` its reverse complement and
``"both"`` the two (the reverse complement is one more query of the same
scoring pass). Alignments of the reverse complement have ``strand == "-"``;
their query coordinates count along the reverse complement (see
:mod:`swgpu.io.writers.writer` for how each format prints them). Protein has
one strand: ``"both"`` means ``"plus"`` there and ``"minus"`` is an error.

>>> from swgpu.io.alphabet import DNA, PROTEIN
>>> strands_for("both", DNA), strands_for("minus", DNA), strands_for("both", PROTEIN)
(('+', '-'), ('-',), ('+',))
>>> strands_for("minus", PROTEIN)
Traceback (most recent call last):
    ...
swgpu.exceptions.InputError: strand: protein has one strand: use plus (both means plus for protein)
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InputError
from ..io.alphabet import DNA, Alphabet
from ..io.sequence import Sequence
from ..io.texts import reversed_segments

__all__ = ["STRANDS", "strands_for", "job_strand", "oriented", "reverse_complements", "both_strands"]

#: Values of the ``strand`` parameter.
STRANDS = ("both", "plus", "minus")

_SIGNS = {"both": ("+", "-"), "plus": ("+",), "minus": ("-",)}


def strands_for(strand: str, alphabet: Alphabet) -> tuple[str, ...]:
    """The strands (``"+"``, ``"-"``) that ``strand`` aligns for ``alphabet``, plus first."""
    if strand not in _SIGNS:
        raise InputError(f"unknown strand {strand!r}: use {', '.join(STRANDS)}", param="strand")
    if alphabet is not DNA:
        if strand == "minus":
            raise InputError(f"{alphabet.name} has one strand: use plus (both means plus for {alphabet.name})",
                             param="strand")
        return ("+",)
    return _SIGNS[strand]


def oriented(query: Sequence, sign: str) -> Sequence:
    """``query`` as aligned on strand ``sign``: itself for ``"+"``, its reverse complement for ``"-"``."""
    return query if sign == "+" else query.reverse_complement()


#: DNA codes to their complements (A, C, G, T: 0-3; every other code kept, as :meth:`Sequence.reverse_complement`).
_COMPLEMENT = np.arange(256, dtype=np.uint8)
_COMPLEMENT[:4] = (3, 2, 1, 0)


def reverse_complements(codes: np.ndarray, offsets: np.ndarray,
                        picked: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """The reverse complements of the records ``picked`` (default: all) of
    ``codes`` laid end to end (record ``k``: ``codes[offsets[k]:offsets[k + 1]]``),
    end to end in that order, and their offsets (from 0): no object per
    record (:func:`~swgpu.io.texts.reversed_segments`).

    >>> rc, off = reverse_complements(np.array([0, 0, 1, 2, 4, 3], np.uint8), np.array([0, 3, 6]))
    >>> rc.tolist(), off.tolist()
    ([2, 3, 3, 0, 4, 1], [0, 3, 6])
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    picked = np.arange(offsets.size - 1) if picked is None else np.asarray(picked, dtype=np.int64)
    return reversed_segments(codes, offsets[picked], offsets[picked + 1], _COMPLEMENT)


def both_strands(codes: np.ndarray, offsets: np.ndarray, signs: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """The records of ``codes``/``offsets`` (from 0) on each strand of ``signs``
    in turn (``"+"`` as they are, ``"-"`` their reverse complements), end to
    end, with their offsets: one scoring pass for every strand.

    >>> c, o = both_strands(np.array([0, 1, 2], np.uint8), np.array([0, 2, 3]), ("+", "-"))
    >>> c.tolist(), o.tolist()
    ([0, 1, 2, 2, 3, 1], [0, 2, 3, 5, 6])
    """
    offsets = np.asarray(offsets, dtype=np.int64)
    if signs == ("+",):
        return codes, offsets
    codes_of, offsets_of, at = [], [], 0
    for sign in signs:
        c, o = (codes[:offsets[-1]], offsets) if sign == "+" else reverse_complements(codes, offsets)
        codes_of.append(c)
        offsets_of.append(o[:-1] + at)
        at += int(o[-1])
    return np.concatenate(codes_of), np.concatenate(offsets_of + [np.array([at], np.int64)])


def job_strand(strand: str, alphabet: Alphabet) -> str:
    """The strand of a pair's traceback job: ``"both"`` (the better one), ``"+"`` or ``"-"``."""
    signs = strands_for(strand, alphabet)
    return "both" if len(signs) == 2 else signs[0]
