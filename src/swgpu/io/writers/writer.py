"""Writing alignments: :class:`AlignmentWriter` and the formats it knows (:data:`FORMATS`).

``blast6``
    BLAST ``-outfmt 6``: the 12 standard tab-separated columns
    ``qseqid sseqid pident length mismatch gapopen qstart qend sstart send
    evalue bitscore``, then four extra columns: ``score`` (raw score),
    ``qlen``, ``slen`` and ``cigar``; or the columns named by ``columns``
    (:data:`~swgpu.io.writers.blast6.COLUMNS`). No header line unless asked for.
``blast7``
    BLAST ``-outfmt 7``: the same lines (by default BLAST's 12 standard
    columns) with BLAST's comment lines around each query's rows
    (:mod:`~swgpu.io.writers.blast7`).
``sam``
    SAM 1.6, one record per alignment, the query as the read and the target
    as the reference. The header lists every target, so the targets must be
    given up front.
``bam``
    The records of ``sam`` as BAM, through pysam (:mod:`~swgpu.io.writers.bam`).
``json``
    JSON lines: one object per alignment with every key of
    :meth:`Alignment.to_dict <swgpu.align.alignment.Alignment.to_dict>`.
``pairwise``
    A human-readable view in the style of EMBOSS ``water``.

Any object with the attributes of
:class:`~swgpu.io.writers.record.AlignmentRecord` can be written.

Coordinates
-----------
The Python API uses 0-based, half-open coordinates. **Every output format
here uses 1-based, inclusive coordinates**, as BLAST, SAM and EMBOSS do: an
alignment covering ``query.text[2:10]`` is written as query positions 3 to 10.
In JSON this means ``query_start`` and ``target_start`` are one more than in
the API while ``query_end`` and ``target_end`` are unchanged (the end of a
half-open range is the inclusive 1-based end). An empty alignment has no
coordinates: its four coordinates are ``null`` in JSON.

Minus strand
------------
An alignment with ``strand == "-"`` aligns the reverse complement of the query
to the target, and its API query coordinates count along that reverse
complement. The formats handle it as follows:

* ``blast6`` follows BLAST: ``qstart < qend`` are positions on the query as
  given (forward strand) and the subject coordinates are swapped, so
  ``sstart > send``. The ``cigar`` column stays in target order (as in SAM).
* ``sam`` sets FLAG 16 and writes SEQ reverse-complemented, as SAM requires.
* ``json`` keeps the API's view (coordinates along the reverse complement,
  made 1-based) and has ``"strand": "-"``.
* ``pairwise`` shows the reverse-complemented query against the target with
  query positions on the forward strand, so they count down.

>>> from swgpu.align.alignment import Alignment
>>> from swgpu.scoring import Scoring
>>> from swgpu.io.sequence import Sequence
>>> from swgpu.io.writers import format_blast6
>>> q = Sequence.from_text("q", "TTACGTACGT")
>>> t = Sequence.from_text("t", "ACGACGTCC")
>>> a = Alignment.from_ops(q, t, Scoring.default("dna"), 2, 0, "===I====")
>>> format_blast6(a).split("\\t")
['q', 't', '87.500', '8', '0', '1', '3', '10', '1', '7', 'NA', 'NA', '9', '10', '9', '3=1I4=']
>>> with AlignmentWriter(None, "json") as w:
...     w.write(a)  # doctest: +ELLIPSIS
{"query":"q","target":"t","score":9,...,"query_start":3,"query_end":10,"target_start":1,"target_end":7,...}
"""

from __future__ import annotations

import os
from typing import IO, Collection, Iterable, Mapping

from ...exceptions import InputError
from .blast6 import STD_COLUMNS, blast6_header, format_blast6, outfmt_number, parse_columns, subject_title
from .blast7 import Blast7Report
from .jsonl import format_json
from .output import AtomicOutput, OutputFile
from .pairwise import format_pairwise, pairwise_file_header
from .bam import BamOutput, require_pysam
from .record import AlignmentRecord, ScoringLike, is_primary
from .sam import _header, _target_lengths, sam_record

__all__ = ["FORMATS", "AlignmentWriter"]

#: Output formats understood by :class:`AlignmentWriter`.
FORMATS = ("blast6", "blast7", "sam", "bam", "json", "pairwise")
_TABULAR = ("blast6", "blast7")
_SAM = ("sam", "bam")
_CHUNK = 4096  # records handed to a temporary file at once


def _descriptions(given: Mapping[str, str] | None, targets: Iterable | None) -> Mapping[str, str]:
    """Target name -> description: ``given``, else those of the sequence-like ``targets``."""
    if given is not None:
        return given
    found = {}
    for item in targets or ():
        description = getattr(item, "description", None)
        if description:
            found.setdefault(str(item.name), str(description))
    return found


class AlignmentWriter(AtomicOutput):
    """Write alignments in one of :data:`FORMATS`, atomically when writing a file.

    ``path`` is a file path, ``None`` or ``"-"`` for standard output, or an open
    text file (written to, never closed). A file path is written through a
    temporary file in the same directory that replaces ``path`` only when
    :meth:`close` succeeds; if the ``with`` block raises (or :meth:`abort` is
    called) the temporary file is removed and ``path``, if it existed, is left
    as it was.

    ``scoring`` (anything with a ``describe()``) is shown in the ``pairwise``
    headers. ``program_line`` (the command line) goes into SAM's ``@PG CL:``
    field and the ``pairwise`` file header. ``targets`` (``(name, length)``
    pairs or sequences) is required for ``sam``, whose header lists every
    reference. ``header=True`` writes a ``#`` comment line naming the
    ``blast6`` columns, or a program header for ``pairwise``; ``json`` ignores
    it and ``sam`` always has its header, unless ``body_only=True``: then
    ``targets`` may be left out, and the caller writes the header
    (:class:`~.sam_targets.HeaderTargets`) before these records. ``blast6`` writes no line for an
    empty alignment (as BLAST writes none without a hit); the other formats do
    write one.

    ``columns`` (``blast6`` only): the column names to write, a sequence or a
    string as :func:`~swgpu.io.writers.blast6.parse_columns` reads it
    (``"qseqid sseqid evalue stitle"``); default the 16 of
    :data:`~swgpu.io.writers.blast6.BLAST6_COLUMNS`. ``descriptions``: target
    name -> description, for the ``stitle`` column; without it the
    descriptions of ``targets`` given as sequences are used, and a target
    without one is shown by its name alone. ``secondary`` (``sam``): the
    records of a query after its first are flagged 256 (secondary), as for
    the further hits of ``scan``; a record whose alignment has ``primary``
    false is flagged 256 too (:mod:`~swgpu.io.writers.record`).

    ``blast7``: ``queries`` (sequences, a batch of them, ``(name,
    description)`` pairs or names) are the queries in order, each with its
    block of comment lines, ``# 0 hits found`` for one without rows (more
    with :meth:`add_queries`; without them, the queries of the rows);
    ``database`` is the text of the ``# Database:`` lines (``None``: none).
    The rows of a query are held until it is finished
    (:meth:`finish_queries`, :meth:`finish_query`, or :meth:`close`), then
    written after its comment lines. ``bam`` needs pysam.

    >>> from swgpu.align.alignment import Alignment
    >>> from swgpu.scoring import Scoring
    >>> from swgpu.io.sequence import Sequence
    >>> q, t = Sequence.from_text("q", "ACGTACGT"), Sequence.from_text("t", "ACGACGT")
    >>> a = Alignment.from_ops(q, t, Scoring.default("dna"), 0, 0, "===I====")
    >>> with AlignmentWriter(None, "sam", targets=[t]) as w:
    ...     w.write(a, query_text=q.text)  # doctest: +ELLIPSIS +NORMALIZE_WHITESPACE
    @HD	VN:1.6	SO:unsorted
    @SQ	SN:t	LN:7
    @PG	ID:swgpu	PN:swgpu	VN:...
    q	0	t	1	255	3=1I4=	*	0	0	ACGTACGT	*	AS:i:9	NM:i:1
    >>> AlignmentWriter(None, "xml")
    Traceback (most recent call last):
    ...
    swgpu.exceptions.InputError: format: unknown format 'xml': choose one of blast6, blast7, sam, bam, json, pairwise
    """

    def __init__(
        self,
        path: str | os.PathLike | IO[str] | None,
        fmt: str,
        scoring: ScoringLike | None = None,
        program_line: str | None = None,
        targets: Iterable | None = None,
        *,
        header: bool = False,
        columns: str | Iterable[str] | None = None,
        descriptions: Mapping[str, str] | None = None,
        secondary: bool = False,
        body_only: bool = False,
        queries: Iterable | None = None,
        database: str | None = None,
    ):
        fmt_norm = str(fmt).strip().lower()
        if fmt_norm not in FORMATS:
            raise InputError(f"unknown format {fmt!r}: choose one of {', '.join(FORMATS)}", param="format")
        if columns is not None and fmt_norm not in _TABULAR:
            raise InputError(f"columns apply to the blast6 and blast7 formats, not {fmt_norm}", param="columns")
        number = outfmt_number(columns)
        if number is not None and fmt_norm in _TABULAR and number in (6, 7) and fmt_norm != f"blast{number}":
            raise InputError(f"the {fmt_norm} format is BLAST's tabular format {fmt_norm[-1]}, not {number}: give "
                             f"column names, optionally after {fmt_norm[-1]} (or write blast{number})",
                             param="columns")
        if fmt_norm == "bam":
            if body_only:
                raise InputError("body_only writes SAM records: give the sam format", param="format")
            require_pysam()
        self.fmt = fmt_norm
        self.scoring = scoring
        self.program_line = program_line
        self.header = header
        self.columns = None
        if fmt_norm in _TABULAR:
            self.columns = parse_columns(STD_COLUMNS if columns is None and fmt_norm == "blast7" else columns)
        #: blast7: the queries, their rows and comment lines
        self._report = Blast7Report(self.columns, database) if fmt_norm == "blast7" else None
        if self._report is not None and queries is not None:
            self._report.add_queries(queries)
        self.descriptions = None
        if self.columns is not None and {"stitle", "salltitles"} & set(self.columns):
            self.descriptions = _descriptions(descriptions, targets)
        self._targets: Collection[str] | None = None
        #: sam: the queries written so far, when their further records are flagged secondary
        self._seen: set[str] | None = set() if secondary else None
        preamble = ""
        if fmt_norm in _SAM and not body_only:
            if targets is None:
                raise InputError("the sam format needs the targets (name, length) up front for its @SQ header",
                                 param="targets")
            lengths = _target_lengths(targets)
            self._targets = lengths.keys()
            preamble = _header(lengths, program_line)
        elif header and fmt_norm == "blast6":
            preamble = blast6_header(self.columns) + "\n"
        elif header and fmt_norm == "pairwise":
            preamble = pairwise_file_header(program_line, scoring)

        self._out = BamOutput(path) if fmt_norm == "bam" else OutputFile(path)
        self.path = self._out.path
        self.count = 0
        #: records not yet handed to a temporary file (nothing else reads or writes it before close)
        self._pending: list[str] | None = [] if self._out.atomic else None
        if preamble:
            self._out.write(preamble)

    @property
    def closed(self) -> bool:
        return self._out.closed

    def _format(self, alignment: AlignmentRecord, query_text) -> str | None:
        """The text for one alignment in this writer's format; ``None`` when nothing is written."""
        if self.fmt in _SAM:
            empty = alignment.empty
            if not empty and self._targets is not None and alignment.target not in self._targets:
                raise ValueError(f"target {alignment.target!r} is not among the targets of the SAM header")
            later = False
            if self._seen is not None and not empty:
                later = alignment.query in self._seen
                self._seen.add(alignment.query)
            return sam_record(alignment, query_text, later or not is_primary(alignment), empty, "\n")
        if self.fmt in _TABULAR:
            return None if alignment.empty else format_blast6(alignment, self.columns, self.descriptions) + "\n"
        if self.fmt == "json":
            return format_json(alignment) + "\n"
        return format_pairwise(alignment, self.scoring)

    def write(self, alignment: AlignmentRecord, query_text=None, query: int | None = None) -> None:
        """Write one alignment. ``query_text`` (``str`` or sequence, the query as
        read) only matters for ``sam``: with it SEQ is the whole query.
        ``query`` (``blast7``): the index of its query among the queries
        (default: the first not finished query of its name)."""
        if self._out.closed:
            raise ValueError("write to a closed AlignmentWriter")
        text = self._format(alignment, query_text)
        if text is None:
            return
        if self._report is not None:
            self._report.add_rows(text.encode("utf-8"), 1, name=alignment.query, index=query)
            self.count += 1
            return
        pending = self._pending
        if pending is None:
            self._out.write(text)
        else:
            pending.append(text)
            if len(pending) >= _CHUNK:
                self._flush()
        self.count += 1

    def write_many(self, alignments: Iterable) -> int:
        """Write every alignment (or ``(alignment, query_text)`` pair); returns how many were given."""
        n = 0
        for item in alignments:
            if isinstance(item, tuple):
                self.write(*item)
            else:
                self.write(item)
            n += 1
        return n

    @property
    def letters(self) -> tuple[bool, bool]:
        """Whether :meth:`write_columns` needs the query letters and the target letters."""
        columns = set(self.columns or ())
        aligned = self.fmt in ("json", "pairwise") or bool({"qseq", "sseq", "btop", "positive", "ppos"} & columns)
        return self.fmt in _SAM or aligned, aligned

    @property
    def array_columns(self) -> bool:
        """Whether :meth:`write_columns` runs without compiled code for a batch
        too small to pay for loading it (SAM, BAM, ``blast6``/``blast7``
        without ``qseq``, ``sseq``, ``btop``: array operations, :mod:`.arrays`)."""
        return self.fmt in _SAM or self.fmt in _TABULAR and not self.letters[1]

    def write_columns(self, batch, qnames, tnames, qletters=None, tletters=None, query_offset=None,
                      rendered=None) -> bool:
        """Write a whole batch of alignments given as columns (the arrays of
        :class:`~swgpu.align.batch.AlignmentBatch`; names and letters as
        :class:`~swgpu.io.texts.Texts` indexed by its query and target indexes), as
        :meth:`write` would write each, in compiled code (``sam``, ``bam``,
        ``blast6``, ``blast7``, ``json``, ``pairwise``; :attr:`letters` says which letters are needed).
        ``query_offset`` (``blast7``): alignment ``k`` belongs to the query
        ``query_offset + batch.query_index[k]`` of the writer's queries (default:
        to the first not finished query of its name). ``rendered``: the batch's
        bytes as :meth:`render_columns` made them (on another thread). Returns
        False, having written nothing, when this format or batch needs the
        record-by-record writer (then :meth:`write` each alignment)."""
        import numpy as np

        from .columns import group_lines

        if self._out.closed:
            raise ValueError("write to a closed AlignmentWriter")
        flagged = self._seen is None or getattr(batch, "primary", None) is not None  # (SAM's secondary flags known)
        if self.fmt in _SAM and flagged and self._targets is not None:
            # a header of names: every target must be among them (each distinct target looked at once)
            if any(name not in self._targets for name in tnames.take(np.unique(batch.target_index)).strings()):
                return False
        data = rendered if rendered is not None else self._render(batch, qnames, tnames, qletters, tletters)
        if data is None:
            return False
        if self._report is not None:
            live = batch.run_offset[1:] != batch.run_offset[:-1]  # (no line for an empty alignment)
            for qi, lines, count in group_lines(data, batch.query_index[live]):
                index = None if query_offset is None else query_offset + qi
                name = None if index is not None else qnames.string(qi)
                self._report.add_rows(lines, count, name=name, index=index)
            self.count += int(live.sum())
            return True
        self._flush()
        self._out.write_bytes(data)
        self.count += self.counted(batch)
        if self.fmt in _SAM and self._seen is not None and len(batch):  # (records after these: secondary)
            self._seen.update(qnames.take(np.unique(batch.query_index)).strings())
        return True

    def counted(self, batch) -> int:
        """How many records :meth:`write_columns` writes for ``batch`` (``blast6``: none for an empty alignment)."""
        if self.fmt in _SAM or self.fmt in ("json", "pairwise"):
            return len(batch)
        return int((batch.run_offset[1:] != batch.run_offset[:-1]).sum())

    def batch_columns(self, batch, queries, targets, force: bool = False):
        """The names and letters :meth:`write_columns` takes for ``batch`` (indexing
        ``queries`` and ``targets``, two :class:`~swgpu.io.sequence_batch.SequenceBatch`),
        or ``None`` where a batch this small is written record by record (``force``: never)."""
        from ..compiled import worth

        if not (force or worth(len(batch)) or self.array_columns):
            return None
        wanted = self.letters  # (SEQ of SAM; qseq, sseq, btop)
        return (queries.name_texts(), targets.name_texts(), queries.letter_texts() if wanted[0] else None,
                targets.letter_texts() if wanted[1] else None)

    def render_columns(self, batch, qnames, tnames, qletters=None, tletters=None):
        """The bytes :meth:`write_columns` writes for ``batch`` (or ``None``:
        the record-by-record writer's), made from the batch and this writer's
        settings alone, so that other threads can make them for it; ``None``
        also where the writer's own state decides (a SAM header of names,
        ``blast7``'s reports)."""
        if self._report is not None or self.fmt in _SAM and self._targets is not None:
            return None
        return self._render(batch, qnames, tnames, qletters, tletters)

    def _render(self, batch, qnames, tnames, qletters, tletters):
        from .columns import blast6_lines, sam_lines
        from .rows import Texts

        primary = getattr(batch, "primary", None)
        if self.fmt in _SAM and (self._seen is None or primary is not None):
            return sam_lines(batch, qnames, tnames, qletters, secondary=None if primary is None else ~primary)
        if self.fmt in _TABULAR:
            titles = None
            if self.descriptions is not None:  # (stitle asked for): each target's, once
                titles = Texts.from_strings([subject_title(name, self.descriptions.get(name))
                                             for name in tnames.strings()])
            matrix = getattr(getattr(self.scoring, "matrix", None), "values", None)
            table = getattr(getattr(self.scoring, "alphabet", None), "table", None)
            return blast6_lines(batch, qnames, tnames, self.columns, qletters, tletters, ttitles=titles,
                                matrix=matrix, table=table)
        if self.fmt == "json" and qletters is not None and tletters is not None:
            from .json_columns import json_lines

            return json_lines(batch, qnames, tnames, qletters, tletters)
        if self.fmt == "pairwise" and qletters is not None and tletters is not None:
            from .pairwise_columns import pairwise_lines

            return pairwise_lines(batch, qnames, tnames, qletters, tletters, self.scoring)
        return None

    # ------------------------------------------------------------- blast7: the queries
    def add_queries(self, queries) -> int:
        """``blast7``: more queries, after those known (sequences, a batch of them,
        ``(name, description)`` pairs or names); returns the index of the first
        (other formats: nothing to do, 0)."""
        return 0 if self._report is None else self._report.add_queries(queries)

    def finish_queries(self, count: int) -> None:
        """``blast7``: the first ``count`` queries have all their alignments: their
        blocks are written (other formats: nothing to do)."""
        if self._report is not None:
            self._report.finish_first(count)
            self._write_ready()

    def finish_query(self, query: str | int) -> None:
        """``blast7``: query ``query`` (an index, or the first not finished query of
        that name) has all its alignments; its block is written once those
        of the queries before it are."""
        if self._report is not None:
            if isinstance(query, str):
                self._report.finish_name(query)
            else:
                self._report.finish(int(query))
            self._write_ready()

    def _write_ready(self) -> None:
        data = self._report.ready()
        if data:
            self._out.write_bytes(data)

    def _flush(self) -> None:
        if self._pending:
            text = "".join(self._pending)
            self._pending.clear()
            self._out.write(text)

    def close(self) -> None:
        """Finish: flush, and for a file path move the temporary file onto the path."""
        self._flush()  # a failed write removes the temporary file (OutputFile.write)
        if self._report is not None and not self._out.closed:
            self._out.write_bytes(self._report.end())
        self._out.close()

    def abort(self) -> None:
        """Stop without producing output: a temporary file is removed, ``path`` left alone."""
        if self._pending:
            self._pending.clear()
        self._out.abort()

    def __repr__(self) -> str:
        where = self.path if self.path is not None else "<stream>"
        return f"AlignmentWriter({where!r}, {self.fmt!r})"
