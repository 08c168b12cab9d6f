"""The ``bam`` format: the records of the ``sam`` format, written as BAM through pysam.

The SAM text (header and records, byte for byte what ``sam`` writes) is held
back (:class:`~.spill.Spill`: in memory, past a limit in a temporary file)
and converted when the output is closed: pysam reads it and writes BAM into
a temporary file, whose bytes go to the output through
:class:`~.output.OutputFile` -- so a BAM file too appears whole or not at
all. BAM holds SEQ in 4-bit nucleotide codes: lowercase letters read back in
upper case, and a record whose SEQ has another letter (protein) is refused
(:class:`~swgpu.exceptions.InputError`: write SAM). pysam is optional (``pip install 'swgpu[bam]'``); without it the
format is refused up front (:func:`require_pysam`).
"""

from __future__ import annotations

import importlib.util
import os
import re
import tempfile

from ...exceptions import InputError
from .output import AtomicOutput, OutputFile
from .spill import Spill

__all__ = ["BamOutput", "bam_available", "require_pysam"]

_BLOCK = 16 << 20
_NUCLEOTIDE = "=ACMGRSVTWYHKDBNacmgrsvtwyhkdbn"  # (BAM's 4-bit letters)
#: A record (not a header line) whose SEQ (field 10, not ``*``) has another letter: its name and that letter.
_BAD_SEQ = re.compile(rf"^(?!@)([^\t\n]*)\t(?:[^\t\n]*\t){{8}}(?!\*\t)[{_NUCLEOTIDE}]*([^{_NUCLEOTIDE}\t\n])",
                      re.M)


def bam_available() -> bool:
    """Whether pysam can be imported (without importing it)."""
    return importlib.util.find_spec("pysam") is not None


def require_pysam() -> None:
    """Refuse the ``bam`` format when pysam is not installed (``param="format"``)."""
    if not bam_available():
        raise InputError("writing BAM needs pysam, which is not installed: pip install 'swgpu[bam]' "
                         "(or write SAM: -f sam)", param="format")


def _folder(path: str | None) -> str | None:
    if path is None:
        return None
    folder = os.path.dirname(os.path.abspath(path))
    return folder if os.path.isdir(folder) and os.access(folder, os.W_OK) else None


class BamOutput(AtomicOutput):
    """Takes SAM text (``write``, ``write_bytes``) and writes it as BAM to
    ``path`` (a file path, or ``None``/``"-"`` for standard output) on
    :meth:`close`; :meth:`abort` leaves nothing behind."""

    atomic = True  # (nothing reaches the path before close)

    def __init__(self, path):
        require_pysam()
        if path is not None and hasattr(path, "write"):
            raise InputError("BAM is binary: give a file path (or '-' for standard output)", param="output")
        self._out = OutputFile(path, binary=True)
        self.path = self._out.path
        self._folder = _folder(self.path)
        self._sam = Spill(self._folder)
        self._closed = False

    @property
    def closed(self) -> bool:
        return self._closed

    def write(self, text) -> None:
        self._sam.write(text)

    def write_bytes(self, data) -> None:
        self._sam.write(data)

    def close(self) -> None:
        if self._closed:
            return
        try:
            with tempfile.TemporaryDirectory(prefix="swgpu-bam-") as scratch:
                sam, bam = os.path.join(scratch, "in.sam"), os.path.join(scratch, "out.bam")
                with open(sam, "wb") as fh:
                    self._sam.replay(fh.write)
                self._sam.close()
                _convert(sam, bam)
                with open(bam, "rb") as fh:
                    while block := fh.read(_BLOCK):
                        self._out.write_bytes(block)
            self._out.close()
        except BaseException:
            self.abort()
            raise
        self._closed = True

    def abort(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._sam.close()
        self._out.abort()


def _convert(sam: str, bam: str) -> None:
    """The SAM file ``sam`` as the BAM file ``bam``: the same header and records
    (samtools through pysam, in compiled code). BAM holds SEQ in 4-bit codes
    (nucleotides, case lost): a SEQ with another letter (protein) is refused
    rather than written as ``N``."""
    import pysam

    _check_letters(sam)
    pysam.samtools.view("-b", "--no-PG", "-o", bam, sam, catch_stdout=False)


def _check_letters(sam: str) -> None:
    """InputError when a record's SEQ has a letter BAM cannot hold (one
    regular-expression search a block of whole lines)."""
    with open(sam, encoding="utf-8") as fh:
        while block := "".join(fh.readlines(_BLOCK)):
            bad = _BAD_SEQ.search(block)
            if bad:
                raise InputError(f"BAM stores sequences as nucleotides: {bad.group(2)!r} in the query of "
                                 f"{bad.group(1)!r} cannot be written (protein?): write SAM (-f sam)",
                                 param="format")
