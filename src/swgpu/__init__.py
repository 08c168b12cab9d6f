"""swgpu: exact Smith-Waterman local alignment on GPUs and CPUs.

The public API is a few nouns:

* :class:`Alphabet` (:data:`DNA`, :data:`PROTEIN`), :class:`Sequence` and
  :class:`Database`; :func:`read_sequences` / :func:`iter_sequences` read files;
* :class:`ScoreMatrix` and :class:`Scoring` (matrix + affine gaps);
* :class:`Aligner` for pairs, :class:`Searcher` for database search,
  :class:`Screener` for bulk pair screening;
* :class:`Alignment`, the one result type of every workload, and
  :class:`AlignmentWriter` / :class:`OutputFile` to write results.

>>> import swgpu
>>> aln = swgpu.Aligner(swgpu.Scoring.default("dna")).align("ACGTACGTAC", "TTACGTTCGTAA")
>>> aln.score, aln.cigar
(13, '4=1X4=')
"""

from ._version import __version__
from .align.alignment import Alignment
from .exceptions import EngineError, InputError, ScoringError, SwgpuError
from .io.alphabet import DNA, PROTEIN, Alphabet
from .io.database import Database
from .io.readers import iter_sequences, read_sequences
from .io.sequence import Sequence
from .io.writers import AlignmentWriter, OutputFile
from .scoring import ScoreMatrix, Scoring
from .workloads.align import Aligner
from .workloads.screen import Screener
from .workloads.search import Searcher

__all__ = [
    "__version__",
    "Alignment",
    "Aligner",
    "AlignmentWriter",
    "Alphabet",
    "DNA",
    "PROTEIN",
    "Database",
    "EngineError",
    "InputError",
    "OutputFile",
    "ScoringError",
    "SwgpuError",
    "ScoreMatrix",
    "Scoring",
    "Screener",
    "Searcher",
    "Sequence",
    "read_sequences",
    "iter_sequences",
]
