"""The :class:`Sequence` record: a name, the letters as read, and their codes.

>>> s = Sequence.from_text("seq1", "ACGTNacgt")
>>> s.alphabet.name, len(s), s.codes.tolist()
('dna', 9, [0, 1, 2, 3, 4, 0, 1, 2, 3])
>>> Sequence.from_text("p", "MKV").alphabet.name
'protein'
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .alphabet import Alphabet, get_alphabet, guess_alphabet, reverse_complement

__all__ = ["Sequence"]


@dataclass(frozen=True, eq=False)
class Sequence:
    """One sequence record.

    ``name`` is the identifier (the header up to the first whitespace),
    ``description`` the rest of the header, ``text`` the letters as read (case
    kept, so aligned text shows what the file said) and ``codes`` the
    ``uint8`` codes every engine works on.
    """

    name: str
    text: str = field(repr=False)
    codes: np.ndarray = field(repr=False)
    alphabet: Alphabet
    description: str = ""

    @classmethod
    def from_text(cls, name: str, text: str, alphabet: str | Alphabet | None = None, description: str = "") -> "Sequence":
        alpha = guess_alphabet(text) if alphabet is None else get_alphabet(alphabet)
        return cls(name, text, alpha.encode(text, record=name), alpha, description)

    def __len__(self) -> int:
        return int(self.codes.shape[0])

    def reverse_complement(self) -> "Sequence":
        """The reverse complement (DNA only); the name is kept."""
        if self.alphabet.name != "dna":
            raise ValueError("reverse complement needs a DNA sequence")
        text = reverse_complement(self.text)
        codes = self.codes[::-1].copy()
        known = codes < 4
        codes[known] = 3 - codes[known]
        return Sequence(self.name, text, codes, self.alphabet, self.description)
