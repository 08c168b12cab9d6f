"""Which format an output is written in, from what a command line gives:
:func:`choose_format` (``-f``, ``--outfmt``, the output file's extension).

>>> choose_format(None, "7 qseqid sseqid", None, "blast6")
('blast7', ('qseqid', 'sseqid'))
>>> choose_format(None, None, "sam", "blast6")
('sam', None)
>>> choose_format("sam", "qseqid", None, "blast6")
Traceback (most recent call last):
...
swgpu.exceptions.InputError: columns: columns apply to blast6 and blast7 output, not sam (-f sam)
"""

from __future__ import annotations

from ...exceptions import InputError
from .bam import require_pysam
from .blast6 import outfmt_number, parse_columns

__all__ = ["choose_format", "database_line"]

_TABULAR = (None, "blast6", "blast7")


def choose_format(given: str | None, columns, named: str | None, default: str,
                  output: str | None = None) -> tuple[str, tuple[str, ...] | None]:
    """``(format, columns)``: ``given`` (``-f``), else the tabular format of
    ``columns`` (``--outfmt``: blast7 when it starts with 7, else blast6) unless
    the file's name asks for another format (``named``: the format of
    ``output``'s extension), else ``named``, else ``default``; ``columns``
    parsed (:func:`~.blast6.parse_columns`). Refused (:class:`InputError`):
    columns for a format other than blast6 and blast7, a format number that
    is not the format's (``-f blast6 --outfmt '7 ...'``), and ``bam`` without
    pysam (``param="format"``, or ``"output"`` when the name asked for it)."""
    number = None if columns is None else outfmt_number(columns)
    if given:
        fmt = given
    elif columns is not None and named in _TABULAR:
        fmt = f"blast{number}" if number in (6, 7) else named or "blast6"
    else:
        fmt = named or default
    if columns is not None:
        why = f"-f {fmt}" if given else f"-o {output}"
        if fmt not in _TABULAR:
            raise InputError(f"columns apply to blast6 and blast7 output, not {fmt} ({why})", param="columns")
        if number in (6, 7) and fmt != f"blast{number}":
            raise InputError(f"{number} asks for blast{number} output, not {fmt} ({why})", param="columns")
        columns = parse_columns(columns)
    if fmt == "bam":
        try:
            require_pysam()
        except InputError as exc:
            raise InputError(exc.message, param="format" if given else "output") from None
    return fmt, columns


def database_line(db: str | None = None, *subjects: str | None) -> str | None:
    """What blast7's ``# Database:`` lines say: the database path ``db``, else,
    as BLAST writes for ``-subject FILE``, ``User specified sequence set
    (Input: FILE)`` of the first target file of ``subjects`` that is not
    ``None``; ``None`` without any.

    >>> database_line("sp.swdb"), database_line(None, None, "t.fa")
    ('sp.swdb', 'User specified sequence set (Input: t.fa)')
    """
    from .blast7 import subject_set

    files = [s for s in subjects if s is not None]
    return db if db is not None else subject_set(files[0]) if files else None
