"""Writing alignments: BLAST tabular (``blast6``, ``blast7``), SAM (and BAM), JSON lines and a pairwise view.

One module per concept: :mod:`.writer` (:class:`AlignmentWriter`,
:data:`FORMATS`, and the conventions shared by all formats: 1-based inclusive
coordinates, the minus strand), :mod:`.blast6` (with :mod:`.aligned`: ``qseq``,
``sseq``, ``btop``), :mod:`.blast7` (BLAST's comment lines), :mod:`.sam`,
:mod:`.bam`, :mod:`.jsonl`, :mod:`.pairwise`, :mod:`.choice` (the format a
command line asks for), :mod:`.common` (E-value and bit-score formatting),
:mod:`.output` (:class:`OutputFile`, atomic text output) and :mod:`.record`
(:class:`AlignmentRecord`, :class:`ScoringLike`: what the writers read).
Every public name is importable from here.
"""

from .blast6 import BLAST6_COLUMNS, blast6_header, format_blast6
from .common import format_evalue
from .jsonl import format_json
from .output import OutputFile
from .pairwise import format_pairwise
from .record import AlignmentRecord, ScoringLike
from .sam import format_sam, sam_header
from .writer import FORMATS, AlignmentWriter

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
    "AlignmentRecord",
    "ScoringLike",
]
