"""swgpu: exact Smith-Waterman local alignment on GPUs and CPUs.

The public API is a few nouns:

* :class:`Alphabet` (:data:`DNA`, :data:`PROTEIN`) and :class:`Sequence`;
* :class:`ScoreMatrix` and :class:`Scoring` (matrix + affine gaps);
* :class:`Aligner` for pairs, and the workloads built on it;
* :class:`Alignment`, the one result type of every workload;
* :func:`read_sequences` and :class:`~swgpu.io.writers.AlignmentWriter` for files.

>>> import swgpu
>>> aln = swgpu.Aligner(swgpu.Scoring.default("dna")).align("ACGTACGTAC", "TTACGTTCGTAA")
>>> aln.score, aln.cigar
(13, '4=1X4=')
"""

from ._version import __version__
from .align.alignment import Alignment
from .workloads.aligner import Aligner
from .io.alphabet import DNA, PROTEIN, Alphabet
from .exceptions import EngineError, InputError, ScoringError, SwgpuError
from .io.readers import iter_sequences, read_sequences
from .scoring import ScoreMatrix, Scoring
from .io.sequence import Sequence

__all__ = [
    "__version__",
    "Alignment",
    "Aligner",
    "Alphabet",
    "DNA",
    "PROTEIN",
    "EngineError",
    "InputError",
    "ScoringError",
    "SwgpuError",
    "ScoreMatrix",
    "Scoring",
    "Sequence",
    "read_sequences",
    "iter_sequences",
]
