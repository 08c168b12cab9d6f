"""Writing alignments: BLAST tabular, SAM, JSON lines and a pairwise view.

Four formats exist (:data:`FORMATS`):

``blast6``
    BLAST ``-outfmt 6``: the 12 standard tab-separated columns
    ``qseqid sseqid pident length mismatch gapopen qstart qend sstart send
    evalue bitscore``, then four extra columns: ``score`` (raw score),
    ``qlen``, ``slen`` and ``cigar``. No header line unless asked for.
``sam``
    SAM 1.6, one record per alignment, the query as the read and the target
    as the reference. The header lists every target, so the targets must be
    given up front.
``json``
    JSON lines: one object per alignment with every key of
    :meth:`Alignment.to_dict <swgpu.align.alignment.Alignment.to_dict>`.
``pairwise``
    A human-readable view in the style of EMBOSS ``water``.

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

>>> from swgpu.scoring import Scoring
>>> from swgpu.io.sequence import Sequence
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

import errno
import io
import json
import math
import os
import secrets
import sys
from typing import IO, Iterable

from ..._version import __version__
from ...align.alignment import Alignment
from ...exceptions import InputError
from ...scoring import Scoring

__all__ = [
    "FORMATS",
    "BLAST6_COLUMNS",
    "AlignmentWriter",
    "OutputFile",
    "format_evalue",
    "format_blast6",
    "blast6_header",
    "sam_header",
    "format_sam",
    "format_json",
    "format_pairwise",
]

#: Output formats understood by :class:`AlignmentWriter`.
FORMATS = ("blast6", "sam", "json", "pairwise")

#: Column names of the ``blast6`` format: BLAST's 12, then swgpu's 4 extras.
BLAST6_COLUMNS = (
    "qseqid", "sseqid", "pident", "length", "mismatch", "gapopen",
    "qstart", "qend", "sstart", "send", "evalue", "bitscore",
    "score", "qlen", "slen", "cigar",
)

_COMPLEMENT = str.maketrans("ACGTUNRYSWKMBDHVacgtunryswkmbdhv", "TGCAANYRSWMKVHDBtgcaanyrswmkvhdb")
_PAIRWISE_WIDTH = 60
_NAME_WIDTH = 13
_RULE = "#" + "=" * 39


def _finite(x) -> float | None:
    """``x`` as a float, or ``None`` when it is missing or not finite."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def format_evalue(x: float | None) -> str:
    """An E-value as BLAST's tabular output prints it; ``NA`` when unknown.

    The rules are BLAST's: below 1e-180 is ``0.0``; below 0.0009 one significant
    digit in exponent form; below 0.1 three decimals; below 1 two; below 10 one;
    otherwise no decimals. ``None`` and NaN give ``NA``.

    >>> [format_evalue(x) for x in (0.0, 1e-200, 2.3e-45, 3e-150, 4.4e-4, 0.00123, 0.5, 2.54, 123.4)]
    ['0.0', '0.0', '2e-45', '3e-150', '4e-04', '0.001', '0.50', '2.5', '123']
    >>> format_evalue(None), format_evalue(float("nan")), format_evalue(float("inf"))
    ('NA', 'NA', 'inf')
    """
    if x is None:
        return "NA"
    x = float(x)
    if math.isnan(x):
        return "NA"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if x < 1.0e-180:
        return "0.0"
    if x < 0.0009:
        return "%.0e" % x
    if x < 0.1:
        return "%.3f" % x
    if x < 1.0:
        return "%.2f" % x
    if x < 10.0:
        return "%.1f" % x
    return "%.0f" % x


def _format_bitscore(x: float | None) -> str:
    x = _finite(x)
    return "NA" if x is None else "%.1f" % x


def _forward_query_range(a: Alignment) -> tuple[int, int]:
    """1-based inclusive query start and end on the query as given."""
    if a.strand == "-":
        return a.query_length - a.query_end + 1, a.query_length - a.query_start
    return a.query_start + 1, a.query_end


def blast6_header() -> str:
    """The comment line naming the ``blast6`` columns (``header=True``).

    >>> blast6_header()[:40]
    '# Fields: qseqid, sseqid, pident, length'
    """
    return "# Fields: " + ", ".join(BLAST6_COLUMNS)


def format_blast6(a: Alignment) -> str:
    """One ``blast6`` line (no newline) for a non-empty alignment.

    Columns: ``qseqid sseqid pident length mismatch gapopen qstart qend sstart
    send evalue bitscore score qlen slen cigar``. ``pident`` is the percentage
    of identical columns over the alignment length (gaps included), with three
    decimals; positions are 1-based inclusive; ``evalue`` follows
    :func:`format_evalue`; ``bitscore`` has one decimal (BLAST itself drops the
    decimal above 99.9); unknown statistics are ``NA``. For ``strand == "-"``
    ``sstart > send``, as in BLAST.

    >>> from swgpu.scoring import Scoring
    >>> from swgpu.io.sequence import Sequence
    >>> q, t = Sequence.from_text("q", "ACGTACGT"), Sequence.from_text("t", "ACGACGT")
    >>> a = Alignment.from_ops(q, t, Scoring.default("dna"), 0, 0, "===I====")
    >>> a.evalue, a.bitscore = 2.3e-5, 15.04
    >>> format_blast6(a).split("\\t")
    ['q', 't', '87.500', '8', '0', '1', '1', '8', '1', '7', '2e-05', '15.0', '9', '8', '7', '3=1I4=']
    """
    if a.empty:
        raise ValueError(f"empty alignment of {a.query} and {a.target} has no blast6 line")
    qstart, qend = _forward_query_range(a)
    sstart, send = a.target_start + 1, a.target_end
    if a.strand == "-":
        sstart, send = send, sstart
    fields = (
        a.query, a.target, "%.3f" % (100.0 * a.matches / a.length), a.length, a.mismatches, a.gap_opens,
        qstart, qend, sstart, send, format_evalue(_finite(a.evalue)), _format_bitscore(a.bitscore),
        a.score, a.query_length, a.target_length, a.cigar,
    )
    return "\t".join(str(f) for f in fields)


def _sam_targets(targets) -> list[tuple[str, int]]:
    """``(name, length)`` pairs from pairs or sequence-like objects, duplicates merged."""
    out: list[tuple[str, int]] = []
    seen: dict[str, int] = {}
    for item in targets:
        if isinstance(item, (tuple, list)):
            name, length = item
        else:
            name, length = item.name, len(item)
        name, length = str(name), int(length)
        if name in seen:
            if seen[name] != length:
                raise ValueError(f"target {name!r} given twice with lengths {seen[name]} and {length}")
            continue
        seen[name] = length
        out.append((name, length))
    return out


def sam_header(targets: Iterable, program_line: str | None = None) -> str:
    """The SAM header (with a final newline): ``@HD``, one ``@SQ`` per target, ``@PG``.

    ``targets`` holds ``(name, length)`` pairs or objects with a ``name`` and a
    length (such as :class:`~swgpu.io.sequence.Sequence`).

    >>> print(sam_header([("chr1", 100), ("chr2", 50)], "swgpu align q.fa t.fa"), end="")  # doctest: +ELLIPSIS +NORMALIZE_WHITESPACE
    @HD	VN:1.6	SO:unsorted
    @SQ	SN:chr1	LN:100
    @SQ	SN:chr2	LN:50
    @PG	ID:swgpu	PN:swgpu	VN:...	CL:swgpu align q.fa t.fa
    """
    lines = ["@HD\tVN:1.6\tSO:unsorted"]
    lines += [f"@SQ\tSN:{name}\tLN:{length}" for name, length in _sam_targets(targets)]
    pg = f"@PG\tID:swgpu\tPN:swgpu\tVN:{__version__}"
    if program_line:
        pg += "\tCL:" + " ".join(str(program_line).split())
    lines.append(pg)
    return "\n".join(lines) + "\n"


def _query_letters(a: Alignment, query_text) -> str | None:
    """The query as SAM's SEQ wants it (reverse-complemented for strand ``-``)."""
    if query_text is None:
        return None
    text = query_text if isinstance(query_text, str) else query_text.text
    if len(text) != a.query_length:
        raise ValueError(
            f"query text of {a.query} has {len(text)} letters but the alignment says {a.query_length}"
        )
    if a.strand == "-" and not a.empty:
        text = text.translate(_COMPLEMENT)[::-1]
    if not a.empty:
        aligned = a.query_aligned.replace("-", "")
        if text[a.query_start:a.query_end].upper() != aligned.upper():
            raise ValueError(
                f"query text of {a.query} does not match the aligned query "
                "(give the query as read; it is reverse-complemented here for strand '-')"
            )
    return text


def format_sam(a: Alignment, query_text=None) -> str:
    """One SAM record (no newline).

    ``query_text`` is the whole query as read (a ``str`` or a
    :class:`~swgpu.io.sequence.Sequence`; for ``strand == "-"`` give the forward
    query, it is reverse-complemented here). With it, SEQ is the whole query
    and the unaligned ends are soft-clipped (``S``); without it SEQ is ``*``
    and the ends are hard-clipped (``H``). POS is ``target_start + 1``, MAPQ
    255, QUAL ``*``; tags ``AS:i`` (score), ``NM:i`` (mismatches + gap
    columns) and ``ZE:f`` (E-value, when known). An empty alignment gives an
    unmapped record (FLAG 4, RNAME ``*``, POS 0, MAPQ 0, CIGAR ``*``).

    >>> from swgpu.scoring import Scoring
    >>> from swgpu.io.sequence import Sequence
    >>> q, t = Sequence.from_text("q", "TTACGTACGTG"), Sequence.from_text("t", "ACGACGT")
    >>> a = Alignment.from_ops(q, t, Scoring.default("dna"), 2, 0, "===I====")
    >>> format_sam(a, q.text).split("\\t")
    ['q', '0', 't', '1', '255', '2S3=1I4=1S', '*', '0', '0', 'TTACGTACGTG', '*', 'AS:i:9', 'NM:i:1']
    >>> format_sam(a).split("\\t")[5]
    '2H3=1I4=1H'
    """
    seq = _query_letters(a, query_text)
    if a.empty:
        fields = [a.query or "*", "4", "*", "0", "0", "*", "*", "0", "0", seq or "*", "*"]
        return "\t".join(fields)
    clip = "S" if seq is not None else "H"
    left, right = a.query_start, a.query_length - a.query_end
    cigar = (f"{left}{clip}" if left else "") + a.cigar + (f"{right}{clip}" if right else "")
    flag = 16 if a.strand == "-" else 0
    fields = [
        a.query or "*", str(flag), a.target, str(a.target_start + 1), "255", cigar, "*", "0", "0",
        seq if seq else "*", "*", f"AS:i:{a.score}", f"NM:i:{a.mismatches + a.gaps}",
    ]
    evalue = _finite(a.evalue)
    if evalue is not None:
        fields.append(f"ZE:f:{evalue:.6g}")
    return "\t".join(fields)


def _json_dict(a: Alignment) -> dict:
    d = a.to_dict()
    if a.empty:
        for key in ("query_start", "query_end", "target_start", "target_end"):
            d[key] = None
    else:
        d["query_start"] = a.query_start + 1
        d["target_start"] = a.target_start + 1
    d["evalue"] = _finite(d.get("evalue"))
    d["bitscore"] = _finite(d.get("bitscore"))
    return d


def format_json(a: Alignment) -> str:
    """One JSON object (no newline): :meth:`Alignment.to_dict` with 1-based inclusive coordinates.

    Unknown or non-finite ``evalue``/``bitscore`` are ``null``; an empty alignment
    has ``null`` coordinates.

    >>> from swgpu.scoring import Scoring
    >>> from swgpu.io.sequence import Sequence
    >>> q, t = Sequence.from_text("q", "ACGTACGT"), Sequence.from_text("t", "ACGACGT")
    >>> d = json.loads(format_json(Alignment.from_ops(q, t, Scoring.default("dna"), 0, 0, "===I====")))
    >>> d["query_start"], d["query_end"], d["target_start"], d["target_end"], d["evalue"]
    (1, 8, 1, 7, None)
    """
    return json.dumps(_json_dict(a), separators=(",", ":"), ensure_ascii=False)


def _percent(n: int, total: int) -> str:
    return f"{n}/{total} ({100.0 * n / total if total else 0.0:.1f}%)"


def format_pairwise(a: Alignment, scoring: Scoring | None = None, width: int = _PAIRWISE_WIDTH) -> str:
    """A header block and the alignment in blocks of ``width`` columns (ends with a blank line).

    Each block has a query line (``name start ALIGNED end``), the match line
    (``|`` identical, ``:`` positive-scoring substitution, ``.`` other
    substitution, space for gaps) and a target line; ``start`` and ``end`` are the
    1-based positions of the first and last residue on the line (a line of gaps
    only shows the last residue before it). Names are cut or padded to 13
    characters as in EMBOSS ``water``. For ``strand == "-"`` the query is shown
    reverse-complemented with forward-strand positions, which count down.

    >>> from swgpu.scoring import Scoring
    >>> from swgpu.io.sequence import Sequence
    >>> q, t = Sequence.from_text("q", "ACGTACGT"), Sequence.from_text("t", "ACGACGT")
    >>> a = Alignment.from_ops(q, t, Scoring.default("dna"), 0, 0, "===I====")
    >>> print(format_pairwise(a, Scoring.default("dna")), end="")
    #=======================================
    # Query: q (8)
    # Target: t (7)
    # Score: 9
    # Length: 8
    # Identity: 7/8 (87.5%)
    # Similarity: 7/8 (87.5%)
    # Gaps: 1/8 (12.5%)
    # Scoring: match2/mismatch-3, gap open 5, gap extend 2
    #=======================================
    <BLANKLINE>
    q                  1 ACGTACGT      8
                         ||| ||||
    t                  1 ACG-ACGT      7
    <BLANKLINE>
    """
    if width < 1:
        raise ValueError(f"line width must be positive, got {width}")
    similar = a.match_line.count("|") + a.match_line.count(":")
    lines = [
        _RULE,
        f"# Query: {a.query} ({a.query_length})",
        f"# Target: {a.target} ({a.target_length})",
        f"# Score: {a.score}",
        f"# Length: {a.length}",
        f"# Identity: {_percent(a.matches, a.length)}",
        f"# Similarity: {_percent(similar, a.length)}",
        f"# Gaps: {_percent(a.gaps, a.length)}",
    ]
    if a.evalue is not None and not math.isnan(float(a.evalue)):
        lines.append(f"# E-value: {format_evalue(a.evalue)}")
    if _finite(a.bitscore) is not None:
        lines.append(f"# Bit score: {_format_bitscore(a.bitscore)}")
    if a.strand == "-":
        lines.append("# Strand: - (query reverse-complemented)")
    if scoring is not None:
        lines.append(f"# Scoring: {scoring.describe()}")
    if a.empty:
        lines.append("# No local alignment with a positive score.")
    lines += [_RULE, ""]
    if a.empty:
        return "\n".join(lines) + "\n"

    minus = a.strand == "-"
    qlen = a.query_length
    digits = max(6, len(str(max(a.query_end, a.target_end, qlen if minus else 0))))
    indent = " " * (_NAME_WIDTH + 1 + digits + 1)
    qname = f"{a.query[:_NAME_WIDTH]:<{_NAME_WIDTH}}"
    tname = f"{a.target[:_NAME_WIDTH]:<{_NAME_WIDTH}}"
    qpos, tpos = a.query_start, a.target_start  # residues consumed, 0-based next index
    for off in range(0, a.length, width):
        qseg = a.query_aligned[off:off + width]
        tseg = a.target_aligned[off:off + width]
        nq = len(qseg) - qseg.count("-")
        nt = len(tseg) - tseg.count("-")
        if nq:
            qfirst, qlast = qpos + 1, qpos + nq
        else:
            qfirst = qlast = qpos
        if minus:  # rc index k (0-based) is forward position qlen - k (1-based)
            qfirst, qlast = (qlen - qpos, qlen - qpos - nq + 1) if nq else (qlen - qpos + 1,) * 2
        tfirst, tlast = (tpos + 1, tpos + nt) if nt else (tpos, tpos)
        qpos += nq
        tpos += nt
        lines.append(f"{qname} {qfirst:>{digits}} {qseg} {qlast:>{digits}}")
        lines.append(indent + a.match_line[off:off + width])
        lines.append(f"{tname} {tfirst:>{digits}} {tseg} {tlast:>{digits}}")
        lines.append("")
    return "\n".join(lines) + "\n"


class _AtomicOutput:
    """``with`` support: :meth:`close` on success, :meth:`abort` on an exception."""

    def close(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def abort(self) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.close()
        else:
            self.abort()


class OutputFile(_AtomicOutput):
    """A text output that appears whole or not at all.

    ``path`` ``None`` or ``"-"`` is standard output, an object with ``write`` is
    written to (never closed); a file path is written through a temporary file
    in the same directory, renamed onto ``path`` by :meth:`close`. :meth:`abort`
    (or an exception inside ``with``) removes the temporary file and leaves an
    existing ``path`` as it was.
    """

    def __init__(self, path: str | os.PathLike | IO[str] | None):
        self.path: str | None = None
        self._tmp: str | None = None
        self._own = False
        if path is None or (isinstance(path, str) and path == "-"):
            self._fh: IO[str] = sys.stdout
        elif hasattr(path, "write"):
            self._fh = path  # type: ignore[assignment]
        else:
            self.path = os.fspath(path)
            self._fh, self._tmp = self._open_temp(self.path)
            self._own = True
        self._closed = False

    @staticmethod
    def _open_temp(path: str) -> tuple[IO[str], str]:
        directory, base = os.path.split(os.path.abspath(path))
        if os.path.isdir(path):
            raise IsADirectoryError(errno.EISDIR, "is a directory, not a file", path)
        if not os.path.isdir(directory):
            raise FileNotFoundError(errno.ENOENT, "the output folder does not exist", path)
        while True:
            tmp = os.path.join(directory, f".{base}.{secrets.token_hex(4)}.tmp")
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            except FileExistsError:
                continue
            break
        return io.open(fd, "w", encoding="utf-8", newline="\n"), tmp

    @property
    def closed(self) -> bool:
        return self._closed

    def write(self, text: str) -> None:
        try:
            self._fh.write(text)
        except BaseException:
            self.abort()
            raise

    def close(self) -> None:
        if self._closed:
            return
        if not self._own:
            self._closed = True
            self._fh.flush()
            return
        fh, tmp = self._fh, self._tmp
        try:
            fh.flush()
            os.fsync(fh.fileno())
            fh.close()
            os.replace(tmp, self.path)  # type: ignore[arg-type]
            self._tmp = None
        except BaseException:
            self.abort()
            raise
        self._closed = True

    def abort(self) -> None:
        if self._closed:
            return
        self._closed = True
        if not self._own:
            try:
                self._fh.flush()
            except Exception:
                pass
            return
        try:
            self._fh.close()
        except Exception:
            pass
        try:
            if self._tmp is not None:
                os.unlink(self._tmp)
        except FileNotFoundError:
            pass
        self._tmp = None


class AlignmentWriter(_AtomicOutput):
    """Write alignments in one of :data:`FORMATS`, atomically when writing a file.

    ``path`` is a file path, ``None`` or ``"-"`` for standard output, or an open
    text file (written to, never closed). A file path is written through a
    temporary file in the same directory that replaces ``path`` only when
    :meth:`close` succeeds; if the ``with`` block raises (or :meth:`abort` is
    called) the temporary file is removed and ``path``, if it existed, is left
    as it was.

    ``scoring`` is shown in the ``pairwise`` headers. ``program_line`` (the
    command line) goes into SAM's ``@PG CL:`` field and the ``pairwise``
    file header. ``targets`` (``(name, length)`` pairs or sequences) is required
    for ``sam``, whose header lists every reference. ``header=True`` writes a
    ``#`` comment line naming the ``blast6`` columns, or a program header for
    ``pairwise``; ``json`` ignores it and ``sam`` always has its header.
    ``blast6`` writes no line for an empty alignment (as BLAST writes none
    without a hit); the other formats do write one.

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
    swgpu.exceptions.InputError: unknown output format 'xml': choose one of blast6, sam, json, pairwise
    """

    def __init__(
        self,
        path: str | os.PathLike | IO[str] | None,
        fmt: str,
        scoring: Scoring | None = None,
        program_line: str | None = None,
        targets: Iterable | None = None,
        *,
        header: bool = False,
    ):
        fmt_norm = str(fmt).strip().lower()
        if fmt_norm not in FORMATS:
            raise InputError(f"unknown output format {fmt!r}: choose one of {', '.join(FORMATS)}")
        self.fmt = fmt_norm
        self.scoring = scoring
        self.program_line = program_line
        self.header = header
        self._targets: set[str] | None = None
        preamble = ""
        if fmt_norm == "sam":
            if targets is None:
                raise ValueError("the sam format needs the targets (name, length) up front for its @SQ header")
            pairs = _sam_targets(targets)
            self._targets = {name for name, _ in pairs}
            preamble = sam_header(pairs, program_line)
        elif header and fmt_norm == "blast6":
            preamble = blast6_header() + "\n"
        elif header and fmt_norm == "pairwise":
            preamble = f"# Program: swgpu {__version__}\n"
            if program_line:
                preamble += f"# Commandline: {program_line}\n"
            if scoring is not None:
                preamble += f"# Scoring: {scoring.describe()}\n"
            preamble += "\n"

        self._out = OutputFile(path)
        self.path = self._out.path
        self.count = 0
        if preamble:
            self._out.write(preamble)

    @property
    def closed(self) -> bool:
        return self._out.closed

    def write(self, alignment: Alignment, query_text=None) -> None:
        """Write one alignment. ``query_text`` (``str`` or sequence, the query as
        read) only matters for ``sam``: with it SEQ is the whole query."""
        if self._out.closed:
            raise ValueError("write to a closed AlignmentWriter")
        if self.fmt == "blast6":
            if alignment.empty:
                return
            text = format_blast6(alignment) + "\n"
        elif self.fmt == "sam":
            if not alignment.empty and self._targets is not None and alignment.target not in self._targets:
                raise ValueError(f"target {alignment.target!r} is not among the targets of the SAM header")
            text = format_sam(alignment, query_text) + "\n"
        elif self.fmt == "json":
            text = format_json(alignment) + "\n"
        else:
            text = format_pairwise(alignment, self.scoring)
        self._out.write(text)
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

    def close(self) -> None:
        """Finish: flush, and for a file path move the temporary file onto the path."""
        self._out.close()

    def abort(self) -> None:
        """Stop without producing output: a temporary file is removed, ``path`` left alone."""
        self._out.abort()

    def __repr__(self) -> str:
        where = self.path if self.path is not None else "<stream>"
        return f"AlignmentWriter({where!r}, {self.fmt!r})"
