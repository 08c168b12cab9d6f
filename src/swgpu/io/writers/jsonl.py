"""The ``json`` format: JSON lines, one object per alignment.

Every key of ``Alignment.to_dict()`` (see
:meth:`swgpu.align.alignment.Alignment.to_dict`), with 1-based inclusive
coordinates; for ``strand == "-"`` they count along the reverse complement of
the query, as in the API, and ``"strand"`` is ``"-"``.
"""

from __future__ import annotations

import json

from .common import finite_or_none
from .record import AlignmentRecord

__all__ = ["format_json"]


def _json_dict(a: AlignmentRecord) -> dict:
    d = a.to_dict()
    if a.empty:
        for key in ("query_start", "query_end", "target_start", "target_end"):
            d[key] = None
    else:
        d["query_start"] = a.query_start + 1
        d["target_start"] = a.target_start + 1
    d["evalue"] = finite_or_none(d.get("evalue"))
    d["bitscore"] = finite_or_none(d.get("bitscore"))
    return d


def format_json(a: AlignmentRecord) -> str:
    """One JSON object (no newline): ``a.to_dict()`` with 1-based inclusive coordinates.

    Unknown or non-finite ``evalue``/``bitscore`` are ``null``; an empty alignment
    has ``null`` coordinates.

    >>> from swgpu.align.alignment import Alignment
    >>> from swgpu.scoring import Scoring
    >>> from swgpu.io.sequence import Sequence
    >>> q, t = Sequence.from_text("q", "ACGTACGT"), Sequence.from_text("t", "ACGACGT")
    >>> d = json.loads(format_json(Alignment.from_ops(q, t, Scoring.default("dna"), 0, 0, "===I====")))
    >>> d["query_start"], d["query_end"], d["target_start"], d["target_end"], d["evalue"]
    (1, 8, 1, 7, None)
    """
    return json.dumps(_json_dict(a), separators=(",", ":"), ensure_ascii=False)
