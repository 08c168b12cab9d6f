"""What the writers read: the protocols of an alignment and of a scoring.

The writers sit in the ``io`` layer, below scoring and alignment, so they name
no class of those layers. Any object with the read-only attributes of
:class:`AlignmentRecord` can be written (``swgpu.align.alignment.Alignment``
is one), and any object with the ``describe()`` of :class:`ScoringLike` can be
shown in ``pairwise`` headers (``swgpu.scoring.Scoring`` is one).

>>> from swgpu.align.alignment import Alignment
>>> from swgpu.scoring import Scoring
>>> from swgpu.io.sequence import Sequence
>>> q, t = Sequence.from_text("q", "ACGT"), Sequence.from_text("t", "ACGT")
>>> isinstance(Alignment.empty_for(q, t), AlignmentRecord), isinstance(Scoring.default("dna"), ScoringLike)
(True, True)
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

__all__ = ["AlignmentRecord", "ScoringLike", "is_primary"]


@runtime_checkable
class AlignmentRecord(Protocol):
    """The attributes of a local alignment that the writers read.

    Coordinates are 0-based and half-open, along the reverse complement of the
    query when ``strand == "-"``. ``length`` is the number of alignment columns
    and ``empty`` is true when there are none. ``to_dict()`` gives the plain
    JSON fields, coordinates as in the API.

    Two attributes are optional (not part of the protocol's check):
    ``primary`` (read with :func:`is_primary`), false for an alignment that
    is not the best of its query -- a further HSP of a query-target pair, or
    a further hit -- which SAM flags secondary (256); without it an alignment
    is primary. ``query_covered``: the query residues in any alignment of
    this query and target (``qcovs``), where there are several.
    """

    @property
    def query(self) -> str: ...

    @property
    def target(self) -> str: ...

    @property
    def score(self) -> int: ...

    @property
    def query_length(self) -> int: ...

    @property
    def target_length(self) -> int: ...

    @property
    def query_start(self) -> int: ...

    @property
    def query_end(self) -> int: ...

    @property
    def target_start(self) -> int: ...

    @property
    def target_end(self) -> int: ...

    @property
    def cigar(self) -> str: ...

    @property
    def query_aligned(self) -> str: ...

    @property
    def target_aligned(self) -> str: ...

    @property
    def match_line(self) -> str: ...

    @property
    def matches(self) -> int: ...

    @property
    def mismatches(self) -> int: ...

    @property
    def gap_opens(self) -> int: ...

    @property
    def gaps(self) -> int: ...

    @property
    def evalue(self) -> float | None: ...

    @property
    def bitscore(self) -> float | None: ...

    @property
    def strand(self) -> str: ...

    @property
    def length(self) -> int: ...

    @property
    def empty(self) -> bool: ...

    def to_dict(self) -> dict[str, Any]: ...


def is_primary(a) -> bool:
    """The optional ``primary`` attribute of an alignment record (default true).

    >>> class Hsp: primary = False
    >>> is_primary(Hsp()), is_primary(object())
    (False, True)
    """
    return bool(getattr(a, "primary", True))


@runtime_checkable
class ScoringLike(Protocol):
    """A scoring scheme as the writers use it: only its one-line description."""

    def describe(self) -> str:
        """Matrix and gap costs in one line, e.g. ``match2/mismatch-3, gap open 5, gap extend 2``."""
        ...
