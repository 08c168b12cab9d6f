"""Alphabets: letters to small integer codes, once, for every engine.

Two alphabets exist, each a fixed ordering of letters to codes 0..size-1:

* :data:`DNA` -- ``A C G T`` get codes 0-3; ``N`` and every other IUPAC
  ambiguity code (``R Y S W K M B D H V``) get code 4, the *unknown* code,
  which scores as a mismatch against everything (itself included) under
  match/mismatch scoring. ``U`` is read as ``T`` (RNA). Lowercase is accepted.
* :data:`PROTEIN` -- the 20 standard amino acids, then ``B Z X * U O``.
  ``X`` is the unknown code.

>>> DNA.encode("ACGTN").tolist()
[0, 1, 2, 3, 4]
>>> DNA.encode("acgu").tolist()
[0, 1, 2, 3]
>>> DNA.decode(DNA.encode("ACGTR"))
'ACGTN'
>>> PROTEIN.encode("MKV").tolist()
[12, 11, 19]
>>> guess_alphabet("ACGTTGCA").name
'dna'
>>> guess_alphabet("MKVLAAGIV").name
'protein'
>>> reverse_complement("ACGTNacgtRY")
'RYacgtNACGT'
"""

from __future__ import annotations

import numpy as np

from ..exceptions import InputError

__all__ = ["Alphabet", "COMPLEMENT", "DNA", "PROTEIN", "get_alphabet", "guess_alphabet", "reverse_complement"]


class Alphabet:
    """An ordered set of residue letters and the codes they encode to.

    Parameters
    ----------
    name:
        ``"dna"`` or ``"protein"``.
    letters:
        The canonical letters; ``letters[c]`` is the letter shown for code ``c``.
    unknown:
        The letter whose code stands for "any / unknown residue".
    aliases:
        Extra accepted letters and the canonical letter each maps to.
    """

    def __init__(self, name: str, letters: str, unknown: str, aliases: dict[str, str]):
        self.name = name
        self.letters = letters
        self.size = len(letters)
        self.unknown_code = letters.index(unknown)
        lut = np.full(256, 255, dtype=np.uint8)
        for code, letter in enumerate(letters):
            lut[ord(letter)] = code
            lut[ord(letter.lower())] = code
        for alias, target in aliases.items():
            lut[ord(alias)] = letters.index(target)
            lut[ord(alias.lower())] = letters.index(target)
        self._lut = lut
        self._letters_arr = np.frombuffer(letters.encode("ascii"), dtype=np.uint8)

    def __repr__(self) -> str:
        return f"Alphabet({self.name!r})"

    def __reduce__(self):
        return (get_alphabet, (self.name,))

    def encode(self, text: str | bytes, record: str | None = None) -> np.ndarray:
        """Encode letters to a ``uint8`` code array.

        Raises :class:`InputError` naming the record, the 1-based position and the
        letter for the first invalid character.
        """
        raw = text.encode("latin-1") if isinstance(text, str) else bytes(text)
        codes = self._lut[np.frombuffer(raw, dtype=np.uint8)]
        if codes.size and codes.max() == 255:
            pos = int(np.argmax(codes == 255))
            where = f"record {record!r}, " if record is not None else ""
            char = raw[pos : pos + 1].decode("latin-1")
            raise InputError(
                f"{where}position {pos + 1}: {char!r} is not a valid {self.name} letter"
                + (" (is this a protein file? give the protein alphabet)" if self.name == "dna" else ""),
                param="alphabet",
            )
        return codes

    def decode(self, codes: np.ndarray) -> str:
        """Canonical letters for a code array."""
        return self._letters_arr[np.asarray(codes, dtype=np.intp)].tobytes().decode("ascii")


DNA = Alphabet(
    "dna",
    "ACGTN",
    unknown="N",
    aliases={"U": "T", **{c: "N" for c in "RYSWKMBDHVX"}},
)

PROTEIN = Alphabet(
    "protein",
    "ARNDCQEGHILKMFPSTWYVBZX*UO",
    unknown="X",
    aliases={"J": "X"},
)

_ALPHABETS = {"dna": DNA, "rna": DNA, "nucleotide": DNA, "protein": PROTEIN, "aa": PROTEIN}


def get_alphabet(name: str | Alphabet) -> Alphabet:
    """The alphabet called ``name`` (``dna``, ``rna`` or ``protein``)."""
    if isinstance(name, Alphabet):
        return name
    try:
        return _ALPHABETS[name.lower()]
    except KeyError:
        raise InputError(f"unknown alphabet {name!r}: use dna, rna or protein") from None


_NUCLEOTIDE_LETTERS = frozenset(b"ACGTUNacgtun")


def guess_alphabet(text: str | bytes) -> Alphabet:
    """Guess DNA or protein from a sample of letters.

    DNA when at least 90% of the letters are ``ACGTUN`` (any case), as BLAST and
    most tools decide; protein otherwise. Characters that are not letters are
    ignored (they are reported as invalid when the sequence is encoded).
    """
    raw = text.encode("latin-1") if isinstance(text, str) else bytes(text)
    if not raw:
        return DNA
    arr = np.frombuffer(raw, dtype=np.uint8)
    arr = arr[((arr | 0x20) >= ord("a")) & ((arr | 0x20) <= ord("z"))]  # letters only
    if not arr.size:
        return DNA
    nuc = np.isin(arr, np.frombuffer(bytes(_NUCLEOTIDE_LETTERS), dtype=np.uint8)).sum()
    return DNA if nuc >= 0.9 * arr.size else PROTEIN


#: ``str.translate`` table from each DNA/RNA letter (IUPAC codes included, either
#: case) to its complement; ``U`` complements to ``A``, other letters are kept.
COMPLEMENT = str.maketrans("ACGTUNRYSWKMBDHVacgtunryswkmbdhv", "TGCAANYRSWMKVHDBtgcaanyrswmkvhdb")


def reverse_complement(text: str) -> str:
    """The reverse complement of DNA letters, case kept (see :data:`COMPLEMENT`).

    >>> reverse_complement("AACGu")
    'aCGTT'
    """
    return text.translate(COMPLEMENT)[::-1]
