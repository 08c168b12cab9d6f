"""Sequences and files: alphabets, sequences, FASTA/FASTQ readers, pair files,
search databases and the output writers.

Nothing here knows about scoring or engines; the writers format any object with
the fields of an alignment (see :mod:`swgpu.io.writers`). Names are imported on
first use (the writers need no NumPy).
"""

import importlib

_PUBLIC = {
    "DNA": "alphabet", "PROTEIN": "alphabet", "Alphabet": "alphabet", "get_alphabet": "alphabet",
    "guess_alphabet": "alphabet", "Database": "database", "detect_alphabet": "readers",
    "iter_sequences": "readers", "read_sequences": "readers", "read_sequence_batch": "readers",
    "Sequence": "sequence", "SequenceBatch": "sequence_batch",
}


def __getattr__(name: str):
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'swgpu.io' has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{module}"), name)


__all__ = sorted(_PUBLIC)
