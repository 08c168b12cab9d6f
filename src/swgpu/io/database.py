"""Sequence databases for search: encoded residues, sorted by length, names and
descriptions, stored in one memory-mappable, self-checking file.

``swgpu makedb DB.fasta OUT.swdb`` writes the file; :meth:`Database.open`
checks and maps it without copying it into memory. A :class:`Database` can also
be built straight from a FASTA file. Sequences are kept **sorted by length**
(ties in file order); ``index`` is each sequence's position in the original
file, used to order equal scores deterministically.

The file (:mod:`.database_file`) is checked when opened; its names and
descriptions stay in the map until a caller wants them.

>>> from importlib import resources
>>> db = Database.from_fasta(resources.files("swgpu").joinpath("data/examples/targets.fasta"))
>>> len(db), db.alphabet.name, db.lengths[:3].tolist() == sorted(db.lengths.tolist())[:3]
(40, 'protein', True)
"""

from __future__ import annotations

import functools
import hashlib
import os
import warnings

import numpy as np

from .alphabet import Alphabet, get_alphabet
from . import database_file as dbfile
from .database_file import FORMAT, Lines
from ..exceptions import InputError
from .readers import detect_alphabet
from .sequence import Sequence
from .sequence_batch import SequenceBatch
from .texts import Texts, hash_groups, scatter_parts
from .writers.output import COMPRESSED

__all__ = ["Database", "length_order", "FORMAT"]


def length_order(offsets: np.ndarray, descending: bool = False) -> np.ndarray:
    """Sequence indices by length (ties in index order) of the sequences
    ``offsets[i]:offsets[i + 1]``; the order of a database and of the engines'
    layouts.

    >>> length_order(np.array([0, 3, 4, 7])).tolist()   # lengths 3, 1, 3
    [1, 0, 2]
    >>> length_order(np.array([0, 3, 4, 7]), descending=True).tolist()
    [0, 2, 1]
    """
    lengths = np.diff(np.asarray(offsets, dtype=np.int64))
    if lengths.size and int(lengths.max()) < 1 << 16:  # (NumPy sorts 16-bit keys stably by radix: 4x faster)
        key = lengths.astype(np.uint16)
        return np.argsort(np.uint16(0xFFFF) - key if descending else key, kind="stable").astype(np.int64)
    return np.argsort(-lengths if descending else lengths, kind="stable").astype(np.int64)


class Database:
    """Encoded sequences sorted by length.

    ``residues[offsets[i]:offsets[i+1]]`` are the codes of sequence ``i`` (in
    sorted order), ``names[i]`` its name, ``descriptions[i]`` the rest of its
    FASTA header (``""`` when none), ``index[i]`` its position in the source
    file. ``names`` and ``descriptions`` are given as lists of ``str``, as
    :class:`~swgpu.io.texts.Texts` columns or as the
    :class:`~swgpu.io.database_file.Lines` of a mapped file; the other forms
    are made when first asked for (:attr:`names`, :attr:`name_texts`), so that
    a database of millions of sequences makes no string per sequence unless a
    caller wants them all (:meth:`columns` gives those of a few).
    """

    def __init__(self, alphabet: Alphabet, names: list[str] | Texts | Lines, offsets: np.ndarray,
                 residues: np.ndarray, index: np.ndarray, source: str = "",
                 descriptions: list[str] | Texts | Lines | None = None):
        self.alphabet, self.offsets, self.residues, self.index, self.source = alphabet, offsets, residues, index, source
        count = len(names)
        if descriptions is None:
            descriptions = Texts(np.zeros(0, dtype=np.uint8), np.zeros(count + 1, dtype=np.int64))
        elif len(descriptions) != count:
            raise InputError(f"{len(descriptions)} descriptions for {count} sequences", param="descriptions")
        given = {"names": names, "descriptions": descriptions}
        columns = (Texts, Lines)
        self._lists = {k: None if isinstance(v, columns) else list(v) for k, v in given.items()}
        self._texts = {k: v if isinstance(v, columns) else None for k, v in given.items()}
        self._count = count

    def _list(self, key: str) -> list[str]:
        if self._lists[key] is None:
            self._lists[key] = self._column(key).strings()
        return self._lists[key]

    def _column(self, key: str) -> Texts:
        held = self._texts[key]
        if held is None or isinstance(held, Lines):
            held = self._texts[key] = Texts.from_strings(self._lists[key]) if held is None else held.texts()
        return held

    def columns(self, members: np.ndarray) -> tuple[Texts, Texts]:
        """The names and descriptions of the sequences ``members`` (positions, in that order)."""
        members = np.asarray(members, dtype=np.int64)
        return tuple(self._texts[k].take(members) if self._texts[k] is not None else
                     Texts.from_strings([self._lists[k][i] for i in members.tolist()])
                     for k in ("names", "descriptions"))

    @property
    def names(self) -> list[str]:
        """Each sequence's name (sorted order), as a list (made once)."""
        return self._list("names")

    @property
    def descriptions(self) -> list[str]:
        """Each sequence's description (sorted order; ``""`` when none), as a list (made once)."""
        return self._list("descriptions")

    @property
    def name_texts(self) -> Texts:
        """The names as one column of UTF-8 bytes (made once)."""
        return self._column("names")

    @property
    def description_texts(self) -> Texts:
        """The descriptions as one column of UTF-8 bytes (made once)."""
        return self._column("descriptions")

    def __len__(self) -> int:
        return self._count

    @functools.cached_property
    def lengths(self) -> np.ndarray:
        """Length of each sequence (sorted order), read-only; made once."""
        lengths = np.diff(self.offsets)
        lengths.setflags(write=False)
        return lengths

    @property
    def total_residues(self) -> int:
        return int(self.offsets[-1])

    def sequence(self, i: int) -> Sequence:
        """Sequence ``i`` (sorted order) as a :class:`Sequence` (letters decoded, description set)."""
        codes = np.asarray(self.residues[self.offsets[i]:self.offsets[i + 1]])
        name, description = (self._texts[k].string(i) if self._texts[k] is not None else self._lists[k][i]
                             for k in ("names", "descriptions"))
        return Sequence(name, self.alphabet.decode(codes), codes, self.alphabet, description)

    def digest(self) -> str:
        """A name of the sequences' contents (BLAKE2b, 128 bits, of the codes and
        the offsets): equal for databases that score alike, whatever their
        names or files, and for no two others in practice (how cluster workers
        keep a loaded database for the next command)."""
        h = hashlib.blake2b(digest_size=16)
        h.update(np.ascontiguousarray(self.offsets, dtype=np.int64).data)
        h.update(np.ascontiguousarray(self.residues).data)
        return h.hexdigest()

    def select(self, members: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(residues, offsets)`` of the sequences ``members`` (positions), in that order."""
        got = Texts(self.residues, self.offsets).take(members)  # compiled for many, by array operations for few
        return got.buffer, got.offsets

    @classmethod
    def from_sequences(cls, seqs: list[Sequence], source: str = "") -> "Database":
        """A database of ``seqs``; IDs given more than once are kept as they are,
        with one ``UserWarning`` ("N duplicate IDs, first 'X'")."""
        return cls.from_batches([SequenceBatch.from_sequences(seqs)] if seqs else [], source)

    @classmethod
    def from_batches(cls, batches, source: str = "") -> "Database":
        """A database of the records of ``batches``
        (:class:`~swgpu.io.sequence_batch.SequenceBatch` es of one alphabet, in
        file order), by array passes over their columns: no object per
        record. IDs given more than once are kept, with one warning (as
        :meth:`from_sequences`)."""
        names, descriptions, codes, lengths, alphabet = [], [], [], [], None
        for batch in batches:
            alphabet = batch.alphabet
            names.append(batch.name_texts())
            descriptions.append(batch.description_texts())
            codes.append(batch.codes)
            lengths.append(batch.lengths)
        count = sum(part.size for part in lengths)
        if not count:
            raise InputError(f"{source or 'database'}: no sequences")
        file_names = Texts.concat(names)
        _warn_duplicates(file_names, source)
        sizes = np.concatenate(lengths)
        offsets = np.zeros(count + 1, dtype=np.int64)
        np.cumsum(sizes, out=offsets[1:])
        order = length_order(offsets)
        sorted_offsets = np.zeros(count + 1, dtype=np.int64)
        np.cumsum(sizes[order], out=sorted_offsets[1:])
        at = np.empty(count, dtype=np.int64)
        at[order] = sorted_offsets[:-1]  # (where each record's codes go)
        residues = np.empty(int(offsets[-1]), dtype=np.uint8)
        scatter_parts(codes, offsets, at, residues)  # (from the parts as read: no join of them first)
        del codes
        return cls(alphabet, file_names.take(order), sorted_offsets, residues, order, source,
                   Texts.concat(descriptions).take(order))

    @classmethod
    def from_fasta(cls, path, alphabet: str | Alphabet | None = None) -> "Database":
        """Read and encode a FASTA/FASTQ file (plain or compressed), in parts
        (:func:`~swgpu.io.chunks.file_batches`); a database file is an error
        that says so."""
        from .chunks import file_batches

        if dbfile.is_database(path):
            raise InputError(f"{os.fspath(path)}: already a swgpu database (made by `swgpu makedb`), not a "
                             "FASTA/FASTQ file: give it to `swgpu search -d` as it is")
        alpha = get_alphabet(alphabet) if alphabet is not None else detect_alphabet(path)
        return cls.from_batches(file_batches(path, alpha, ahead=1), os.fspath(path))

    @classmethod
    def load(cls, path, alphabet: str | Alphabet | None = None) -> "Database":
        """A ``.swdb`` file (memory-mapped) or a FASTA/FASTQ file, whichever ``path`` is."""
        if dbfile.is_database(path):
            db = cls.open(path)
            if alphabet is not None and get_alphabet(alphabet) is not db.alphabet:
                raise InputError(f"{path}: database is {db.alphabet.name}, not {get_alphabet(alphabet).name}")
            return db
        return cls.from_fasta(path, alphabet)

    @staticmethod
    def check_path(path) -> None:
        """Refuse a name a database cannot be saved under: ``-`` (it is a binary
        file that ``search`` maps into memory, not a stream) and a compressed
        name (``.gz``, ...: it is never compressed)."""
        text = os.fspath(path)
        if text == "-":
            raise InputError("a database is a file that search maps into memory, not standard output (-): "
                             "give a file name such as db.swdb")
        ext = next((e for e in COMPRESSED if text.lower().endswith(e)), None)
        if ext:
            raise InputError(f"{text!r}: a database file is not compressed (search maps it into memory): "
                             f"give a name without {ext}, such as db.swdb")

    def save(self, path) -> None:
        """Write the database file (format 2, :mod:`.database_file`): to a
        temporary name, renamed when complete, with the umask's mode (as
        :class:`OutputFile`); :meth:`check_path` first."""
        self.check_path(path)
        sections = {"offsets": self.offsets.astype("<i8"), "index": self.index.astype("<i8"),
                    "residues": np.ascontiguousarray(self.residues, dtype=np.uint8),
                    "names": _lines(self.name_texts, "name"),
                    "descriptions": _lines(self.description_texts, "description")}
        dbfile.write(path, {"alphabet": self.alphabet.name, "sequences": len(self),
                            "residues": self.total_residues, "source": self.source}, sections)

    @classmethod
    def open(cls, path) -> "Database":
        """Memory-map a database file written by :meth:`save`, after checking it:
        magic, format, size, the CRC-32 of the header and of every section, and
        what the sections hold. A file that is not a database, is of another
        format or is damaged is an :class:`~swgpu.exceptions.InputError` (``param="db"``)."""
        return cls(**dbfile.read(path))


def _warn_duplicates(names: Texts, source: str) -> None:
    """One ``UserWarning`` when some ID appears more than once: how many
    records repeat an earlier ID, and the first of them. The IDs that share a
    hash with another (:func:`~swgpu.io.texts.hash_groups`) are the only ones
    compared as strings."""
    candidates = hash_groups(names)
    if candidates.size == 0:
        return
    seen: set[str] = set()
    strings = names.take(candidates).strings() if candidates.size < len(names) else names.strings()
    again = [name for name in strings if name in seen or seen.add(name)]  # add() is None: first sightings drop out
    if again:
        where = f"{source}: " if source else ""
        warnings.warn(f"{where}{len(again):,} duplicate IDs, first {again[0]!r} (kept as they are)", UserWarning,
                      stacklevel=4)


def _lines(texts: Texts, what: str) -> np.ndarray:
    """The strings of ``texts`` (UTF-8), one per line (an item with a line break cannot be stored)."""
    lo, hi = int(texts.offsets[0]), int(texts.offsets[-1])
    buf, ends = texts.buffer[lo:hi], texts.offsets[1:] - lo
    breaks = np.flatnonzero(buf == 10)
    if breaks.size:
        k = int(np.searchsorted(ends, breaks[0], side="right"))
        bad = texts.string(k)
        raise InputError(f"{what} {bad!r} has a line break; it cannot be stored in a database file", param="database")
    out = np.empty(buf.size + ends.size, dtype=np.uint8)
    at = ends + np.arange(ends.size)  # each line's newline
    keep = np.ones(out.size, dtype=bool)
    keep[at] = False
    out[keep] = buf
    out[at] = 10
    return out


