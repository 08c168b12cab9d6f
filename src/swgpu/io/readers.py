"""Reading sequences: FASTA or FASTQ, plain or compressed (gzip, bz2, xz, zstd),
through dnaio.

Every problem becomes one :class:`~swgpu.exceptions.InputError` whose message
names the file (and the record and position where that applies). Windows (CRLF)
line endings are read like Unix ones.

>>> from importlib import resources
>>> path = resources.files("swgpu").joinpath("data/examples/queries.fasta")
>>> seqs = read_sequences(path)
>>> [s.name for s in seqs][:2], seqs[0].alphabet.name
(['P02232', 'P09187_fragment'], 'protein')
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

from .alphabet import Alphabet, get_alphabet, guess_alphabet
from ..exceptions import InputError
from .sequence import Sequence

__all__ = ["read_sequences", "iter_sequences", "detect_alphabet"]

_FASTA_SUFFIXES = {".fa", ".fasta", ".fna", ".faa", ".ffn", ".frn", ".fas", ".fsa", ".mpfa"}
_COMPRESSED = {".gz", ".bz2", ".xz", ".zst"}


def _path_str(path) -> str:
    return os.fspath(path)


def _check_file(path: str) -> None:
    p = Path(path)
    if not p.exists():
        raise InputError(f"{path}: no such file")
    if p.is_dir():
        raise InputError(f"{path}: is a directory, not a sequence file")
    if p.stat().st_size == 0:
        raise InputError(f"{path}: file is empty")


def _records(path: str) -> Iterator[tuple[str, str]]:
    import dnaio

    _check_file(path)
    suffixes = [s.lower() for s in Path(path).suffixes]
    while suffixes and suffixes[-1] in _COMPRESSED:
        suffixes.pop()
    claims_fasta = bool(suffixes) and suffixes[-1] in _FASTA_SUFFIXES
    try:
        with dnaio.open(path) as reader:
            for rec in reader:
                yield rec.name, rec.sequence
    except InputError:
        raise
    except dnaio.exceptions.FastaFormatError as exc:
        if "got '@" in str(exc) and claims_fasta:
            raise InputError(f"{path}: this is FASTQ, but the file name says FASTA; rename it (e.g. .fastq)") from None
        raise InputError(f"{path}: not a valid FASTA file ({_first_line(exc)})") from None
    except dnaio.exceptions.UnknownFileFormat:
        raise InputError(f"{path}: not a FASTA or FASTQ file") from None
    except dnaio.exceptions.FileFormatError as exc:
        raise InputError(f"{path}: not a valid sequence file ({_first_line(exc)})") from None
    except UnicodeDecodeError:
        raise InputError(f"{path}: not a text FASTA/FASTQ file (binary data; is it compressed without a .gz suffix?)") from None
    except EOFError:
        raise InputError(f"{path}: the compressed file is truncated") from None
    except Exception as exc:  # corrupt compressed data: zlib, isal, lzma, bz2 and zstd errors
        raise InputError(f"{path}: cannot read ({type(exc).__name__}: {_first_line(exc)}); is the file corrupt?") from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def detect_alphabet(path) -> Alphabet:
    """Guess the alphabet from the first records' letters (up to 100,000)."""
    sample = []
    total = 0
    for _, seq in _records(_path_str(path)):
        sample.append(seq)
        total += len(seq)
        if total >= 100_000:
            break
    return guess_alphabet("".join(sample))


def iter_sequences(path, alphabet: str | Alphabet | None = None) -> Iterator[Sequence]:
    """Yield the records of a FASTA/FASTQ file as :class:`Sequence` objects.

    ``alphabet`` (``dna``, ``rna``, ``protein``) is guessed from the file when not
    given. Empty records and invalid letters are errors.
    """
    path = _path_str(path)
    alpha = get_alphabet(alphabet) if alphabet is not None else detect_alphabet(path)
    count = 0
    for header, text in _records(path):
        name, _, description = header.partition(" ")
        if not name:
            raise InputError(f"{path}: record {count + 1} has no name")
        if not text:
            raise InputError(f"{path}: record {name!r} is empty (no sequence letters)")
        try:
            codes = alpha.encode(text, record=name)
        except InputError as exc:
            raise InputError(f"{path}: {exc.message}", param=exc.param) from None
        count += 1
        yield Sequence(name, text, codes, alpha, description.strip())
    if count == 0:
        raise InputError(f"{path}: no sequence records found")


def read_sequences(path, alphabet: str | Alphabet | None = None) -> list[Sequence]:
    """All records of a FASTA/FASTQ file (see :func:`iter_sequences`)."""
    return list(iter_sequences(path, alphabet))
