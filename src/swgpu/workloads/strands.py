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

from ..exceptions import InputError
from ..io.alphabet import DNA, Alphabet
from ..io.sequence import Sequence

__all__ = ["STRANDS", "strands_for", "job_strand", "oriented"]

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


def job_strand(strand: str, alphabet: Alphabet) -> str:
    """The strand of a pair's traceback job: ``"both"`` (the better one), ``"+"`` or ``"-"``."""
    signs = strands_for(strand, alphabet)
    return "both" if len(signs) == 2 else signs[0]
