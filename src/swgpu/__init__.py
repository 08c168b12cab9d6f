"""swgpu: exact Smith-Waterman local alignment on GPUs and CPUs.

The public API is a few nouns:

* :class:`Alphabet` (:data:`DNA`, :data:`PROTEIN`), :class:`Sequence` and
  :class:`Database`; :func:`read_sequences` / :func:`iter_sequences` read files;
* :class:`ScoreMatrix` and :class:`Scoring` (matrix + affine gaps);
* :class:`Aligner` for pairs, :class:`Searcher` for database search,
  :class:`Screener` for bulk pair screening, :class:`Scanner` for short
  queries along long sequences;
* :class:`Alignment`, the one result type of every workload, and
  :class:`AlignmentWriter` / :class:`OutputFile` to write results.

>>> import swgpu
>>> aln = swgpu.Aligner(swgpu.Scoring.default("dna")).align("ACGTACGTAC", "TTACGTTCGTAA")
>>> aln.score, aln.cigar
(13, '4=1X4=')
"""

import importlib

from ._version import __version__
from .exceptions import EngineError, InputError, ScoringError, SwgpuError

#: Public name -> module; imported on first use, so that ``swgpu --version``,
#: ``--help`` and the exceptions need neither NumPy nor Numba.
_PUBLIC = {
    "Alignment": "swgpu.align.alignment",
    "DNA": "swgpu.io.alphabet",
    "PROTEIN": "swgpu.io.alphabet",
    "Alphabet": "swgpu.io.alphabet",
    "Database": "swgpu.io.database",
    "iter_sequences": "swgpu.io.readers",
    "read_sequences": "swgpu.io.readers",
    "Sequence": "swgpu.io.sequence",
    "AlignmentWriter": "swgpu.io.writers",
    "OutputFile": "swgpu.io.writers",
    "ScoreMatrix": "swgpu.scoring",
    "Scoring": "swgpu.scoring",
    "Aligner": "swgpu.workloads.align",
    "Scanner": "swgpu.workloads.scan",
    "Screener": "swgpu.workloads.screen",
    "Searcher": "swgpu.workloads.search",
}


def __getattr__(name: str):
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'swgpu' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_PUBLIC))


__all__ = ["__version__", "EngineError", "InputError", "ScoringError", "SwgpuError", *_PUBLIC]
