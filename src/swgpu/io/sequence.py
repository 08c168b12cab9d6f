"""The :class:`Sequence` record: a name, the letters as read, and their codes.

>>> s = Sequence.from_text("seq1", "ACGTNacgt")
>>> s.alphabet.name, len(s), s.codes.tolist()
('dna', 9, [0, 1, 2, 3, 4, 0, 1, 2, 3])
>>> Sequence.from_text("p", "MKV").alphabet.name
'protein'
>>> split_header("gi|123\\tE. coli 16S  rRNA ")
('gi|123', 'E. coli 16S  rRNA')
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import repeat

import numpy as np

from .alphabet import Alphabet, get_alphabet, guess_alphabet, reverse_complement

__all__ = ["Sequence", "code_views", "decode_header", "make_sequences", "split_header"]


def decode_header(raw: bytes) -> str:
    """Header bytes as text: UTF-8, or Latin-1 when they are not UTF-8 (never an error).

    >>> decode_header("café".encode("utf-8")), decode_header("café".encode("latin-1"))
    ('café', 'café')
    """
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def split_header(header: str | bytes) -> tuple[str, str]:
    """The identifier and the description of a FASTA/FASTQ header (without ``>``/``@``;
    bytes are decoded with :func:`decode_header`).

    As BLAST+ does: the identifier ends at the first whitespace of any kind
    (space, tab, or any other Unicode whitespace, as ``str.split()`` sees it);
    the rest, stripped, is the description. A header that starts with
    whitespace has no identifier (``""``).

    >>> split_header("sp|P02232|LEHB_LUPLU Leghemoglobin II")
    ('sp|P02232|LEHB_LUPLU', 'Leghemoglobin II')
    >>> split_header("x\\u00a0y"), split_header(" x")
    (('x', 'y'), ('', 'x'))
    """
    if isinstance(header, bytes):
        header = decode_header(header)
    if not header or header[0].isspace():
        return "", header.strip()
    parts = header.split(None, 1)
    return parts[0], parts[1].strip() if len(parts) > 1 else ""


@dataclass(frozen=True, eq=False)
class Sequence:
    """One sequence record.

    ``name`` is the identifier (the header up to the first whitespace of any
    kind, see :func:`split_header`), ``description`` the rest of the header, ``text`` the letters as read (case
    kept, so aligned text shows what the file said) and ``codes`` the
    ``uint8`` codes every engine works on.
    """

    name: str
    text: str = field(repr=False)
    codes: np.ndarray = field(repr=False)
    alphabet: Alphabet
    description: str = ""

    @classmethod
    def from_header(cls, header: str, text: str, alphabet: str | Alphabet | None = None) -> "Sequence":
        """A record from its header (name and description, :func:`split_header`) and letters."""
        name, description = split_header(header)
        return cls.from_text(name, text, alphabet, description)

    @classmethod
    def from_text(cls, name: str, text: str, alphabet: str | Alphabet | None = None, description: str = "") -> "Sequence":
        alpha = guess_alphabet(text) if alphabet is None else get_alphabet(alphabet)
        return cls(name, text, alpha.encode(text, record=name), alpha, description)

    def __len__(self) -> int:
        return len(self.text)  # the codes have one entry per letter

    def reverse_complement(self) -> "Sequence":
        """The reverse complement (DNA only); the name is kept."""
        if self.alphabet.name != "dna":
            raise ValueError("reverse complement needs a DNA sequence")
        text = reverse_complement(self.text)
        codes = self.codes[::-1].copy()
        known = codes < 4
        codes[known] = 3 - codes[known]
        return Sequence(self.name, text, codes, self.alphabet, self.description)


def _sequence(name: str, text: str, codes: np.ndarray, alphabet: Alphabet, description: str,
              new=object.__new__, set_=object.__setattr__) -> Sequence:
    """``Sequence(name, text, codes, alphabet, description)`` without the frozen
    dataclass's ``__init__`` (the same fields, set the same way, with less overhead)."""
    seq = new(Sequence)
    set_(seq, "name", name)
    set_(seq, "text", text)
    set_(seq, "codes", codes)
    set_(seq, "alphabet", alphabet)
    set_(seq, "description", description)
    return seq


def code_views(codes: bytes | bytearray, ends: list[int], lengths: list[int]) -> list[np.ndarray]:
    """Read-only ``uint8`` views of ``codes``: ``codes[ends[k] - lengths[k]:ends[k]]`` for each ``k``."""
    array = np.frombuffer(codes, dtype=np.uint8)
    if array.flags.writeable:
        array = array.view()
        array.flags.writeable = False
    return [array[end - length:end] for end, length in zip(ends, lengths)]


def make_sequences(names: list[str], texts: list[str], codes: list[np.ndarray], alphabet: Alphabet,
                   descriptions: list[str]) -> list[Sequence]:
    """``Sequence(names[k], texts[k], codes[k], alphabet, descriptions[k])`` for each ``k``, made faster.

    >>> a, b = make_sequences(["a", "b"], ["AC", "gtA"], code_views(bytes([0, 1, 2, 3, 0]), [2, 5], [2, 3]), "dna",
    ...                       ["", "x"])
    >>> (b.name, b.text, b.codes.tolist(), b.alphabet.name, b.description), a.codes.flags.writeable
    (('b', 'gtA', [2, 3, 0], 'dna', 'x'), False)
    """
    return list(map(_sequence, names, texts, codes, repeat(get_alphabet(alphabet)), descriptions))
