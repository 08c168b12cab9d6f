"""Sequences and files: alphabets, sequences, FASTA/FASTQ readers, pair files,
search databases and the output writers.

Nothing here knows about scoring or engines; the writers format any object with
the fields of an alignment (see :mod:`swgpu.io.writers`).
"""

from .alphabet import DNA, PROTEIN, Alphabet, get_alphabet, guess_alphabet
from .database import Database
from .readers import detect_alphabet, iter_sequences, read_sequences
from .sequence import Sequence

__all__ = ["DNA", "PROTEIN", "Alphabet", "Database", "Sequence", "detect_alphabet", "get_alphabet",
           "guess_alphabet", "iter_sequences", "read_sequences"]
