"""The end-point table of genome-scale ``align`` (``--ends-out``), written and
read back (``--ends-in``): one line per end point, ranked per query, after a
header line starting with ``#``::

    #rank	query	target	strand	target_end	score
    1	region	chr4	+	1207331	918004

``target_end`` is the 1-based position of the end point's last aligned target
letter in its record. Reading a table back lets a long job find its end points
in one run and trace them in another (the alignments are the same as one run's).

>>> import io
>>> text = io.StringIO()
>>> write_end_points(text, [("q", [EndPoint(40, "+", "t", 24), EndPoint(12, "-", "t", 23)])])
>>> print(text.getvalue().replace("\\t", " | "), end="")
#rank | query | target | strand | target_end | score
1 | q | t | + | 24 | 40
2 | q | t | - | 23 | 12
>>> read_end_points(io.StringIO(text.getvalue()), "ends.tsv")
{'q': [EndPoint(score=40, strand='+', target='t', target_end=24), EndPoint(score=12, strand='-', target='t', target_end=23)]}
"""

from __future__ import annotations

from typing import Iterable, TextIO

from ...exceptions import InputError
from .long_aligner import EndPoint

__all__ = ["COLUMNS", "write_end_points", "read_end_points"]

#: The table's columns, in order.
COLUMNS = ("rank", "query", "target", "strand", "target_end", "score")
_STRANDS = ("+", "-")


def write_end_points(out: TextIO, per_query: Iterable[tuple[str, list[EndPoint]]]) -> None:
    """The header, then each query's end points (``(query name, end points best first)``) ranked from 1."""
    out.write("#" + "\t".join(COLUMNS) + "\n")
    for query, points in per_query:
        for k, e in enumerate(points, 1):
            out.write(f"{k}\t{query}\t{e.target}\t{e.strand}\t{e.target_end}\t{e.score}\n")


def read_end_points(lines: Iterable[str], source: str) -> dict[str, list[EndPoint]]:
    """Query name -> its end points in rank order, from the lines of a table
    (``source`` names it in errors, with the line number). Lines starting with
    ``#`` and blank lines are skipped; a rank given twice for a query, a
    strand other than ``+``/``-``, or a position or score below 1 is an
    :class:`~swgpu.exceptions.InputError`."""
    ranked: dict[str, dict[int, EndPoint]] = {}
    for number, line in enumerate(lines, 1):
        line = line.rstrip("\r\n")
        if not line.strip() or line.startswith("#"):
            continue
        cols = line.split("\t")
        where = f"{source} line {number}"
        if len(cols) != len(COLUMNS):
            raise InputError(f"{where}: {len(cols)} tab-separated columns, expected {len(COLUMNS)} "
                             f"({', '.join(COLUMNS)}), as --ends-out writes them")
        rank, query, target, strand, end, score = cols
        try:
            rank_i, end_i, score_i = int(rank), int(end), int(score)
        except ValueError:
            raise InputError(f"{where}: rank, target_end and score must be whole numbers") from None
        if strand not in _STRANDS:
            raise InputError(f"{where}: strand {strand!r}, expected + or -")
        if min(rank_i, end_i, score_i) < 1:
            raise InputError(f"{where}: rank, target_end and score must be at least 1")
        points = ranked.setdefault(query, {})
        if rank_i in points:
            raise InputError(f"{where}: rank {rank_i} of {query} given twice")
        points[rank_i] = EndPoint(score_i, strand, target, end_i)
    return {query: [points[r] for r in sorted(points)] for query, points in ranked.items()}
