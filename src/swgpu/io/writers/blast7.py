"""The ``blast7`` format: BLAST ``-outfmt 7``, the tabular lines with comment lines.

For each query, in the order of the queries, as ``blastp -outfmt 7`` writes
them::

    # SWGPU 0.1.0
    # Query: P02232 Swiss-Prot P02232, 144 aa
    # Database: sp.swdb
    # Fields: query id, subject id, % identity, alignment length, ...
    # 5 hits found
    P02232	P02232	100.000	144	...            (the rows, as blast6 writes them)

then, at the end, ``# BLAST processed N queries``. A query without hits has
``# 0 hits found`` and no ``# Fields:`` line, as in BLAST. The first line names
swgpu and its version where BLAST names its program (``# BLASTP 2.12.0+``);
the ``# Fields:`` line names the columns as BLAST+ 2.12 does
(:data:`FIELD_NAMES`); ``# Database:`` is the database path, or, for targets
read from a FASTA file, BLAST's ``User specified sequence set (Input:
FILE)`` (:func:`subject_set`), as ``blastp -subject FILE`` writes.

:class:`Blast7Report` holds each query's rows until the query is finished
(the count goes before the rows), and gives the text of the finished queries
in order.
"""

from __future__ import annotations

from collections import deque
from typing import Iterable

from ..._version import __version__
from .blast6 import subject_title

__all__ = ["FIELD_NAMES", "Blast7Report", "fields_line", "subject_set", "PROGRAM"]

#: The first comment line of each query's block.
PROGRAM = f"SWGPU {__version__}"

#: Column name -> its name in BLAST+'s ``# Fields:`` line (swgpu's own: ``CIGAR``, ``query strand``).
FIELD_NAMES = {
    "qseqid": "query id", "qacc": "query acc.", "qaccver": "query acc.ver", "qlen": "query length",
    "sseqid": "subject id", "sallseqid": "subject ids", "sacc": "subject acc.", "saccver": "subject acc.ver",
    "sallacc": "subject accs.", "slen": "subject length", "qstart": "q. start", "qend": "q. end",
    "sstart": "s. start", "send": "s. end", "qseq": "query seq", "sseq": "subject seq", "evalue": "evalue",
    "bitscore": "bit score", "score": "score", "length": "alignment length", "pident": "% identity",
    "nident": "identical", "mismatch": "mismatches", "positive": "positives", "gapopen": "gap opens",
    "gaps": "gaps", "ppos": "% positives", "frames": "query/sbjct frames", "qframe": "query frame",
    "sframe": "sbjct frame", "btop": "BTOP", "stitle": "subject title", "salltitles": "subject titles",
    "sstrand": "subject strand", "qcovs": "% query coverage per subject", "qcovhsp": "% query coverage per hsp",
    "cigar": "CIGAR", "strand": "query strand",
}


def fields_line(columns: Iterable[str]) -> str:
    """BLAST's ``# Fields:`` line (no newline) for ``columns``.

    >>> fields_line(["qseqid", "sseqid", "pident", "btop"])
    '# Fields: query id, subject id, % identity, BTOP'
    """
    return "# Fields: " + ", ".join(FIELD_NAMES[c] for c in columns)


def subject_set(path: str) -> str:
    """What BLAST writes after ``# Database:`` for subjects read from a FASTA file.

    >>> subject_set("targets.fasta")
    'User specified sequence set (Input: targets.fasta)'
    """
    return f"User specified sequence set (Input: {path})"


def _query_items(queries) -> list[tuple[str, str]]:
    """``(name, description)`` of each query: sequences (``name``,
    ``description``), a batch of them (``names``, ``descriptions``), pairs or names."""
    names = getattr(queries, "names", None)
    if names is not None and not callable(names):
        return list(zip(names, getattr(queries, "descriptions", None) or [""] * len(names)))
    items = []
    for q in queries:
        if isinstance(q, str):
            items.append((q, ""))
        elif isinstance(q, tuple):
            items.append((str(q[0]), str(q[1] or "") if len(q) > 1 else ""))
        else:
            items.append((str(q.name), str(getattr(q, "description", "") or "")))
    return items


class _Query:
    """A query whose block is not written yet: its rows, held until it is finished."""

    __slots__ = ("name", "title", "rows", "count", "done")

    def __init__(self, name: str, title: str):
        self.name, self.title = name, title
        self.rows: list[bytes] = []
        self.count = 0
        self.done = False


class Blast7Report:
    """The ``blast7`` blocks of a list of queries, each written once the query
    is finished, in query order.

    ``columns``: the column names (for ``# Fields:``); ``database``: the text
    after ``# Database:`` (``None``: no such line). Queries are learnt with
    :meth:`add_queries`; rows of a query not among them add it (by name). Rows
    go to a query by index, or by name to the first not finished query of
    that name. :meth:`ready` gives the blocks of the finished queries not yet
    given (up to the first unfinished one), :meth:`end` those of all, then
    the ``# BLAST processed`` line.

    >>> r = Blast7Report(["qseqid", "sseqid"], "db")
    >>> r.add_queries([("q1", "first"), ("q2", "")])
    0
    >>> r.add_rows(b"q1\\tt1\\n", 1, name="q1")
    >>> print(r.end().decode(), end="")  # doctest: +ELLIPSIS +NORMALIZE_WHITESPACE
    # SWGPU ...
    # Query: q1 first
    # Database: db
    # Fields: query id, subject id
    # 1 hits found
    q1	t1
    # SWGPU ...
    # Query: q2
    # Database: db
    # 0 hits found
    # BLAST processed 2 queries
    """

    def __init__(self, columns: Iterable[str], database: str | None = None, program: str = PROGRAM):
        self.fields = fields_line(columns)
        self.database = database
        self.program = program
        self._queries: dict[int, _Query] = {}  # the queries whose blocks are not given yet
        self._open: dict[str, deque[int]] = {}  # name -> its unfinished queries, in order
        self._count = 0  # queries known
        self._written = 0  # queries whose blocks were given

    def __len__(self) -> int:
        return self._count

    def add_queries(self, queries) -> int:
        """Add queries (sequences, a batch of them, ``(name, description)``
        pairs or names) at the end of the list; returns the index of the first."""
        first = self._count
        for name, description in _query_items(queries):
            self._add(name, description)
        return first

    def _add(self, name: str, description: str = "") -> int:
        k = self._count
        self._queries[k] = _Query(name, subject_title(name, description))
        self._open.setdefault(name, deque()).append(k)
        self._count += 1
        return k

    def index(self, name: str) -> int:
        """The first not finished query named ``name`` (added when there is none)."""
        waiting = self._open.get(name)
        return waiting[0] if waiting else self._add(name)

    def _query(self, k: int) -> _Query:
        query = self._queries.get(k)
        if query is None:
            raise ValueError(f"query {k} is finished and written, or unknown ({self._count} queries)")
        return query

    def add_rows(self, data: bytes, count: int, *, name: str | None = None, index: int | None = None) -> None:
        """``count`` rows (``data``: their lines) of the query ``index``, or of the query named ``name``."""
        query = self._query(self.index(name) if index is None else index)
        if query.done:
            raise ValueError(f"rows of query {query.name!r} after it was finished")
        query.rows.append(bytes(data))
        query.count += count

    def finish(self, k: int) -> None:
        """Query ``k`` has all its rows (nothing to do once its block is given)."""
        query = self._queries.get(k) if k >= self._written else None
        if query is not None and not query.done:
            query.done = True
            waiting = self._open[query.name]
            waiting.remove(k)
            if not waiting:
                del self._open[query.name]

    def finish_first(self, count: int) -> None:
        """The first ``count`` queries have all their rows."""
        for k in range(self._written, min(int(count), self._count)):
            self.finish(k)

    def finish_name(self, name: str) -> None:
        """The first not finished query named ``name`` has all its rows."""
        self.finish(self.index(name))

    def ready(self) -> bytes:
        """The blocks of the finished queries from the first not given on, up to the first unfinished one."""
        parts: list[bytes] = []
        while self._written < self._count and self._queries[self._written].done:
            query = self._queries.pop(self._written)
            head = [f"# {self.program}", f"# Query: {query.title}"]
            if self.database is not None:
                head.append(f"# Database: {self.database}")
            if query.count:
                head.append(self.fields)
            head.append(f"# {query.count} hits found\n")
            parts.append("\n".join(head).encode("utf-8"))
            parts.extend(query.rows)
            self._written += 1
        return b"".join(parts)

    def end(self) -> bytes:
        """Every query finished: the blocks not yet given, then ``# BLAST processed N queries``."""
        self.finish_first(self._count)
        return self.ready() + f"# BLAST processed {self._count} queries\n".encode()
