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

from itertools import islice
from typing import Iterable

import numpy as np

from ..exceptions import InputError

__all__ = ["Alphabet", "COMPLEMENT", "COMPLEMENT_BYTES", "DNA", "PROTEIN", "SAMPLE_LETTERS", "check_alphabet",
           "get_alphabet", "guess_alphabet", "reverse_complement"]


#: What an invalid DNA letter's message suggests (a reader of DNA only words its own).
DNA_LETTER_HINT = " (is this a protein file? give the protein alphabet)"


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
        #: ``bytes.translate`` table from each byte to its code (255: not a letter of this alphabet).
        self.table = lut.tobytes()
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
                + (DNA_LETTER_HINT if self.name == "dna" else ""),
                param="alphabet",
            )
        return codes

    def decode(self, codes: np.ndarray) -> str:
        """Canonical letters for a code array."""
        return self.decode_array(codes).tobytes().decode("ascii")

    def decode_array(self, codes: np.ndarray) -> np.ndarray:
        """Canonical letters for a code array, as ASCII bytes (``uint8``)."""
        return self._letters_arr[np.asarray(codes, dtype=np.intp)]


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


#: How many letters of a file's first records decide its alphabet (guess and check).
SAMPLE_LETTERS = 100_000

_IS_LETTER = np.zeros(256, dtype=bool)
_IS_LETTER[[*range(ord("A"), ord("Z") + 1), *range(ord("a"), ord("z") + 1)]] = True
_IS_NUCLEOTIDE = np.zeros(256, dtype=bool)
_IS_NUCLEOTIDE[list(b"ACGTUNacgtun")] = True


def _counts(text: str | bytes) -> tuple[int, int]:
    """How many letters ``text`` has, and how many of them are ``ACGTUN`` (any case)."""
    raw = text.encode("latin-1") if isinstance(text, str) else bytes(text)
    arr = np.frombuffer(raw, dtype=np.uint8)
    return int(np.count_nonzero(_IS_LETTER[arr])), int(np.count_nonzero(_IS_NUCLEOTIDE[arr]))


#: Records whose letters :func:`check_alphabet` counts together.
_CHECK_CHUNK = 1024


def _record_counts(texts: list[str]) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_counts` of each of ``texts``, in one pass over all of them."""
    arr = np.frombuffer("".join(texts).encode("latin-1"), dtype=np.uint8)
    ends = np.cumsum([len(t) for t in texts], dtype=np.int64)
    out = []
    for table in (_IS_LETTER, _IS_NUCLEOTIDE):
        running = np.zeros(arr.size + 1, dtype=np.int64)
        np.cumsum(table[arr], out=running[1:])
        at = running[ends]
        out.append(np.diff(at, prepend=0))
    return out[0], out[1]


def _verdict(letters: int, nucleotides: int) -> Alphabet:
    return DNA if nucleotides >= 0.9 * letters else PROTEIN


def guess_alphabet(text: str | bytes) -> Alphabet:
    """Guess DNA or protein from a sample of letters.

    DNA when at least 90% of the letters are ``ACGTUN`` (any case), as BLAST and
    most tools decide; protein otherwise. Characters that are not letters are
    ignored (they are reported as invalid when the sequence is encoded).
    """
    return _verdict(*_counts(text))


def check_alphabet(sequences: Iterable, expected: str | Alphabet, what: str = "the expected alphabet", *,
                   source: str | None = None, hint: str | None = "give the alphabet explicitly to override") -> None:
    """Raise :class:`InputError` (``param="alphabet"``) when the letters of
    ``sequences`` look like another alphabet than ``expected``.

    The rule of :func:`guess_alphabet`, applied to the first records up to
    :data:`SAMPLE_LETTERS` letters taken together (the sample a file's alphabet
    is guessed from); the message names ``source`` (a file), the first of those
    records that looks wrong by itself, and ``what`` expects ``expected``.
    ``sequences`` are objects with ``name`` and ``text`` (:class:`Sequence`).

    >>> from swgpu.io.sequence import Sequence
    >>> check_alphabet([Sequence.from_text("p", "MKVLAAGIV")], "protein")
    >>> lam = Sequence.from_text("lam", "GGGCGGCGACCT", "protein")
    >>> try:
    ...     check_alphabet([lam], PROTEIN, "the database", source="lambda.fa")
    ... except InputError as exc:
    ...     print(exc.param, "|", exc.message)
    alphabet | lambda.fa: record 'lam': the letters look like dna, but the database is protein; give the alphabet explicitly to override
    """
    expected = get_alphabet(expected)
    records = iter(sequences)
    letters = nucleotides = 0
    first = odd = None
    while letters < SAMPLE_LETTERS and (chunk := list(islice(records, _CHECK_CHUNK))):
        if first is None:
            first = chunk[0]
        n, nuc = _record_counts([seq.text for seq in chunk])
        # the records up to the one where the sample's letters are reached
        take = min(int(np.searchsorted(letters + np.cumsum(n), SAMPLE_LETTERS)) + 1, len(chunk))
        n, nuc = n[:take], nuc[:take]
        if odd is None:
            looks_dna = nuc >= 0.9 * n  # the rule of _verdict, record by record
            wrong = np.flatnonzero((n > 0) & (looks_dna != (expected is DNA)))
            odd = chunk[int(wrong[0])] if wrong.size else None
        letters, nucleotides = letters + int(n.sum()), nucleotides + int(nuc.sum())
    looks = _verdict(letters, nucleotides)
    if not letters or looks is expected:
        return
    where = f"{source}: " if source else ""
    advice = f"; {hint}" if hint else ""
    raise InputError(f"{where}record {(odd or first).name!r}: the letters look like {looks.name}, "
                     f"but {what} is {expected.name}{advice}", param="alphabet")


#: ``str.translate`` table from each DNA/RNA letter (IUPAC codes included, either
#: case) to its complement; ``U`` complements to ``A``, other letters are kept.
COMPLEMENT = str.maketrans("ACGTUNRYSWKMBDHVacgtunryswkmbdhv", "TGCAANYRSWMKVHDBtgcaanyrswmkvhdb")
#: The same as a 256-byte table (other bytes unchanged), for ``bytes.translate`` and compiled code.
COMPLEMENT_BYTES = bytes(range(256)).decode("latin-1").translate(COMPLEMENT).encode("latin-1")


def reverse_complement(text: str) -> str:
    """The reverse complement of DNA letters, case kept (see :data:`COMPLEMENT`).

    >>> reverse_complement("AACGu")
    'aCGTT'
    """
    return text.translate(COMPLEMENT)[::-1]
