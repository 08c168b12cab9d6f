"""Many records read together, kept as flat arrays: :class:`SequenceBatch`.

A file of many short records (the reads of a screen) is mostly the cost of
its objects: making a :class:`~swgpu.io.sequence.Sequence` for each of 40,000
records takes about as long as reading and encoding them. A batch holds the
records' codes end to end with their offsets -- the form the bulk kernels
read -- and their names and letters as lists, and makes the
:class:`~swgpu.io.sequence.Sequence` objects only when one is asked for (then
all of them at once, each made once).

>>> from swgpu.io.sequence import Sequence
>>> batch = SequenceBatch.from_sequences([Sequence.from_text("r1", "ACGT"), Sequence.from_text("r2", "GGN")])
>>> len(batch), batch.names, batch.lengths.tolist(), batch.offsets.tolist(), batch.codes.tolist()
(2, ['r1', 'r2'], [4, 3], [0, 4, 7], [0, 1, 2, 3, 2, 2, 4])
>>> batch[1].name, batch[1].text, batch[1].codes.tolist(), [s.name for s in batch]
('r2', 'GGN', [2, 2, 4], ['r1', 'r2'])
"""

from __future__ import annotations

from collections.abc import Sequence as SequenceABC
from typing import Iterator, NamedTuple

import numpy as np

from .alphabet import Alphabet, get_alphabet
from .sequence import Sequence, code_views, make_sequences
from .texts import Texts

__all__ = ["SequenceBatch", "Record"]


class _Join:
    """A column (or the codes) of a joined batch not joined yet: its parts'."""

    __slots__ = ("parts",)

    def __init__(self, parts: list):
        self.parts = parts


class Record(NamedTuple):
    """A record's name and letters, without its codes (:meth:`SequenceBatch.records`)."""

    name: str
    text: str


class SequenceBatch(SequenceABC):
    """Records as flat arrays; a read-only sequence of :class:`Sequence`.

    ``names``, ``descriptions`` and ``texts`` (the letters as read) are lists of
    ``str``; ``codes`` is every record's codes end to end (``uint8``, read-only)
    and record ``k`` is ``codes[offsets[k]:offsets[k + 1]]`` (``offsets``:
    ``int64``, ``len + 1`` of them, from 0). Indexing or iterating makes the
    :class:`Sequence` objects (all at once, the first time); their ``codes``
    are views of ``codes``.
    """

    __slots__ = ("_names", "_descriptions", "_texts", "_codes", "offsets", "alphabet", "_items", "_columns")

    def __init__(self, names: list[str], descriptions: list[str], texts: list[str], codes: np.ndarray,
                 offsets: np.ndarray, alphabet: str | Alphabet):
        if not len(names) == len(descriptions) == len(texts) == offsets.size - 1:
            raise ValueError("SequenceBatch: names, descriptions, texts and offsets disagree on the count")
        if codes.dtype != np.uint8 or codes.ndim != 1 or offsets.dtype != np.int64 or offsets.ndim != 1 \
                or offsets[0] != 0 or offsets[-1] != codes.size or np.any(offsets[1:] < offsets[:-1]):
            raise ValueError("SequenceBatch: codes must be 1-D uint8, offsets int64 rising from 0 to their size")
        codes = np.ascontiguousarray(codes)
        if codes.flags.writeable:
            codes = codes.view()
            codes.flags.writeable = False
        self._names, self._descriptions, self._texts = names, descriptions, texts
        self.codes, self.offsets = codes, offsets
        self.alphabet = get_alphabet(alphabet)
        self._items: list[Sequence] | None = None
        self._columns: dict = {}

    @classmethod
    def from_columns(cls, names: Texts, descriptions: Texts, letters: Texts, codes: np.ndarray,
                     alphabet: str | Alphabet) -> "SequenceBatch":
        """A batch of records given as columns (names and descriptions UTF-8,
        letters as read, ``codes`` with the letters' offsets); the lists of
        ``str`` are made from them when first asked for."""
        batch = cls.__new__(cls)
        batch._names = batch._descriptions = batch._texts = None
        if not len(names) == len(descriptions) == len(letters):
            raise ValueError("SequenceBatch: names, descriptions and letters disagree on the count")
        codes = np.ascontiguousarray(codes, dtype=np.uint8).view()
        codes.flags.writeable = False
        batch.codes, batch.offsets = codes, letters.offsets
        batch.alphabet = get_alphabet(alphabet)
        batch._items = None
        batch._columns = {"names": names, "descriptions": descriptions, "letters": letters}
        return batch

    @property
    def codes(self) -> np.ndarray:
        """Every record's codes end to end (``uint8``, read-only)."""
        codes = self._codes
        if isinstance(codes, _Join):
            codes = np.concatenate(codes.parts)
            codes.flags.writeable = False
            self._codes = codes
        return codes

    @codes.setter
    def codes(self, value: np.ndarray) -> None:
        self._codes = value

    @property
    def names(self) -> list[str]:
        if self._names is None:
            self._names = self._col("names").strings()
        return self._names

    @property
    def descriptions(self) -> list[str]:
        if self._descriptions is None:
            self._descriptions = self._col("descriptions").strings()
        return self._descriptions

    @property
    def texts(self) -> list[str]:
        if self._texts is None:
            self._texts = self._col("letters").strings("latin-1")
        return self._texts

    @classmethod
    def from_sequences(cls, sequences: list[Sequence]) -> "SequenceBatch":
        """A batch of ``sequences``, all of one alphabet (DNA when there are none)."""
        if len({s.alphabet.name for s in sequences}) > 1:
            raise ValueError("SequenceBatch.from_sequences: the sequences have more than one alphabet")
        lengths = np.fromiter(map(len, sequences), dtype=np.int64, count=len(sequences))
        offsets = np.zeros(len(sequences) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        codes = np.concatenate([s.codes for s in sequences]).astype(np.uint8) if sequences else np.zeros(0, np.uint8)
        return cls([s.name for s in sequences], [s.description for s in sequences], [s.text for s in sequences],
                   codes, offsets, sequences[0].alphabet if sequences else "dna")

    @property
    def lengths(self) -> np.ndarray:
        """Each record's length (``int64``)."""
        return np.diff(self.offsets)

    def __len__(self) -> int:
        return self.offsets.size - 1

    def _col(self, key: str) -> Texts:
        """Column ``key`` as it is held, a join of parts made now (:meth:`concat`)."""
        column = self._columns[key]
        if isinstance(column, _Join):
            column = self._columns[key] = Texts.concat(column.parts)
        return column

    def _column(self, key: str) -> Texts:
        if key not in self._columns:
            self._columns[key] = Texts.from_strings(self.descriptions) if key == "descriptions" else \
                (self.name_texts() if key == "names" else self.letter_texts())
        return self._col(key)

    def slice(self, a: int, b: int) -> "SequenceBatch":
        """Records ``a`` to ``b`` as a batch of columns (views where they can be)."""
        if self._columns.keys() < {"names", "descriptions", "letters"} and self._names is not None:
            return SequenceBatch(self._names[a:b], self._descriptions[a:b], self._texts[a:b],
                                 self.codes[self.offsets[a]:self.offsets[b]], self.offsets[a:b + 1] - self.offsets[a],
                                 self.alphabet)
        lo, hi = int(self.offsets[a]), int(self.offsets[b])
        return SequenceBatch.from_columns(*(self._column(k).slice(a, b) for k in ("names", "descriptions", "letters")),
                                          self.codes[lo:hi], self.alphabet)

    @classmethod
    def concat(cls, parts: list["SequenceBatch"], later: bool = False) -> "SequenceBatch":
        """The records of ``parts`` (one alphabet), in order, as one batch of
        columns. ``later``: the offsets made now, the codes, names,
        descriptions and letters joined when first asked for, on the thread
        that asks (a score table never joins the letters); the parts' memory
        is then held until then."""
        if len(parts) == 1:
            return parts[0]
        if not later:
            columns = [Texts.concat([p._column(k) for p in parts]) for k in ("names", "descriptions", "letters")]
            return cls.from_columns(*columns, np.concatenate([p.codes for p in parts]), parts[0].alphabet)
        batch = cls.__new__(cls)
        batch._names = batch._descriptions = batch._texts = None
        shifts = np.cumsum([0] + [int(p.offsets[-1]) for p in parts]).tolist()
        batch._codes = _Join([p.codes for p in parts])
        batch.offsets = np.concatenate([p.offsets[:-1] + s for p, s in zip(parts, shifts)] + [shifts[-1:]]).astype(
            np.int64)
        batch.alphabet = parts[0].alphabet
        batch._items = None
        batch._columns = {k: _Join([p._column(k) for p in parts]) for k in ("names", "descriptions", "letters")}
        return batch

    def name_texts(self) -> Texts:
        """The names as one column of UTF-8 bytes (made once)."""
        if "names" not in self._columns:
            self._columns["names"] = Texts.from_strings(self.names)
        return self._col("names")

    def description_texts(self) -> Texts:
        """The descriptions as one column of UTF-8 bytes (made once)."""
        return self._column("descriptions")

    def letter_texts(self) -> Texts:
        """The letters as read, as one column of bytes (made once; the offsets are :attr:`offsets`)."""
        if "letters" not in self._columns:
            raw = "".join(self.texts).encode("latin-1")
            self._columns["letters"] = Texts(np.frombuffer(raw, dtype=np.uint8), self.offsets)
        return self._col("letters")

    def records(self) -> Iterator[Record]:
        """Each record's name and letters, in order, without making :class:`Sequence` objects
        (nor, for a batch made from columns, the lists of all names and letters)."""
        if self._names is not None and self._texts is not None:
            return map(Record, self._names, self._texts)
        return self._records_from_columns()

    def _records_from_columns(self) -> Iterator[Record]:
        names, letters = self.name_texts(), self.letter_texts()
        nb, lb = names.buffer, letters.buffer
        for k in range(len(self)):
            yield Record(nb[names.offsets[k]:names.offsets[k + 1]].tobytes().decode("utf-8"),
                         lb[letters.offsets[k]:letters.offsets[k + 1]].tobytes().decode("latin-1"))

    def __reduce__(self):
        return type(self), (self.names, self.descriptions, self.texts, self.codes, self.offsets, self.alphabet.name)

    def _made(self) -> list[Sequence]:
        if self._items is None:
            views = code_views(self.codes, self.offsets[1:].tolist(), self.lengths.tolist())
            self._items = make_sequences(self.names, self.texts, views, self.alphabet, self.descriptions)
        return self._items

    def __getitem__(self, index):
        return self._made()[index]

    def __iter__(self) -> Iterator[Sequence]:
        return iter(self._made())

    def __repr__(self) -> str:
        return f"SequenceBatch({len(self)} records, {self.codes.size} letters, {self.alphabet.name})"
