"""Sequence databases for search: encoded residues, sorted by length, names,
stored in one memory-mappable file.

``swgpu makedb DB.fasta OUT.swdb`` writes the file; :meth:`Database.open`
maps it without reading it into memory. A :class:`Database` can also be built
straight from a FASTA file. Sequences are kept **sorted by length** (ties in
file order); ``index`` is each sequence's position in the original file, used
to order equal scores deterministically.

File layout (little-endian): the magic ``SWGPUDB1``, a uint64 header length, a
JSON header (alphabet, counts, section offsets), then 64-byte aligned sections:
``offsets`` (int64, n+1), ``index`` (int64, n), ``residues`` (uint8) and
``names`` (UTF-8, one per line).

>>> from importlib import resources
>>> db = Database.from_fasta(resources.files("swgpu").joinpath("data/examples/targets.fasta"))
>>> len(db), db.alphabet.name, db.lengths[:3].tolist() == sorted(db.lengths.tolist())[:3]
(40, 'protein', True)
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .alphabet import Alphabet, get_alphabet
from ..exceptions import InputError
from .readers import detect_alphabet, iter_sequences
from .sequence import Sequence

__all__ = ["Database", "length_order"]

MAGIC = b"SWGPUDB1"
_ALIGN = 64


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
    return np.argsort(-lengths if descending else lengths, kind="stable").astype(np.int64)


@dataclass(eq=False)
class Database:
    """Encoded sequences sorted by length.

    ``residues[offsets[i]:offsets[i+1]]`` are the codes of sequence ``i`` (in
    sorted order), ``names[i]`` its name, ``index[i]`` its position in the
    source file.
    """

    alphabet: Alphabet
    names: list[str]
    offsets: np.ndarray
    residues: np.ndarray
    index: np.ndarray
    source: str = ""

    def __len__(self) -> int:
        return len(self.names)

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    @property
    def total_residues(self) -> int:
        return int(self.offsets[-1])

    def sequence(self, i: int) -> Sequence:
        """Sequence ``i`` (sorted order) as a :class:`Sequence` (letters decoded)."""
        codes = np.asarray(self.residues[self.offsets[i]:self.offsets[i + 1]])
        return Sequence(self.names[i], self.alphabet.decode(codes), codes, self.alphabet)

    def select(self, members: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(residues, offsets)`` of the sequences ``members`` (positions), in that order."""
        lengths = np.diff(self.offsets)[members]
        offsets = np.zeros(len(members) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        residues = np.empty(int(offsets[-1]), dtype=np.uint8)
        for k, i in enumerate(members):
            residues[offsets[k]:offsets[k + 1]] = self.residues[self.offsets[i]:self.offsets[i + 1]]
        return residues, offsets

    @classmethod
    def from_sequences(cls, seqs: list[Sequence], source: str = "") -> "Database":
        if not seqs:
            raise InputError(f"{source or 'database'}: no sequences")
        alphabet = seqs[0].alphabet
        lengths = np.array([len(s) for s in seqs], dtype=np.int64)
        order = length_order(np.concatenate([[0], np.cumsum(lengths)]))
        offsets = np.zeros(len(seqs) + 1, dtype=np.int64)
        np.cumsum(lengths[order], out=offsets[1:])
        residues = np.empty(int(offsets[-1]), dtype=np.uint8)
        for k, i in enumerate(order):
            residues[offsets[k]:offsets[k + 1]] = seqs[i].codes
        return cls(alphabet, [seqs[i].name for i in order], offsets, residues, order.astype(np.int64), source)

    @classmethod
    def from_fasta(cls, path, alphabet: str | Alphabet | None = None) -> "Database":
        """Read and encode a FASTA/FASTQ file (plain or compressed)."""
        alpha = get_alphabet(alphabet) if alphabet is not None else detect_alphabet(path)
        return cls.from_sequences(list(iter_sequences(path, alpha)), os.fspath(path))

    @classmethod
    def load(cls, path, alphabet: str | Alphabet | None = None) -> "Database":
        """A ``.swdb`` file (memory-mapped) or a FASTA/FASTQ file, whichever ``path`` is."""
        p = Path(path)
        if p.is_file():
            with open(p, "rb") as fh:
                if fh.read(len(MAGIC)) == MAGIC:
                    db = cls.open(p)
                    if alphabet is not None and get_alphabet(alphabet) is not db.alphabet:
                        raise InputError(f"{path}: database is {db.alphabet.name}, not {get_alphabet(alphabet).name}")
                    return db
        return cls.from_fasta(path, alphabet)

    def save(self, path) -> None:
        """Write the database file (to a temporary name, then renamed)."""
        path = Path(path)
        names_blob = ("\n".join(self.names) + "\n").encode("utf-8")
        sections = [("offsets", self.offsets.astype("<i8")), ("index", self.index.astype("<i8")),
                    ("residues", np.asarray(self.residues, dtype=np.uint8)),
                    ("names", np.frombuffer(names_blob, dtype=np.uint8))]
        header = {"format": 1, "alphabet": self.alphabet.name, "sequences": len(self),
                  "residues": self.total_residues, "source": self.source, "sections": {}}
        # two passes: the header's length decides where the sections start
        for _ in range(2):
            raw = json.dumps(header).encode("utf-8")
            pos = _aligned(len(MAGIC) + 8 + len(raw))
            for name, arr in sections:
                header["sections"][name] = [pos, int(arr.nbytes)]
                pos = _aligned(pos + arr.nbytes)
        raw = json.dumps(header).encode("utf-8")
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent if str(path.parent) else ".")
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(MAGIC + np.uint64(len(raw)).tobytes() + raw)
                for name, arr in sections:
                    start = header["sections"][name][0]
                    fh.write(b"\0" * (start - fh.tell()))
                    fh.write(arr.tobytes())
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    @classmethod
    def open(cls, path) -> "Database":
        """Memory-map a database file written by :meth:`save`."""
        path = Path(path)
        try:
            with open(path, "rb") as fh:
                if fh.read(len(MAGIC)) != MAGIC:
                    raise InputError(f"{path}: not a swgpu database (make one with `swgpu makedb`)")
                size = int(np.frombuffer(fh.read(8), dtype="<u8")[0])
                if size > path.stat().st_size:
                    raise ValueError("header length beyond the end of the file")
                header = json.loads(fh.read(size))
            mm = np.memmap(path, dtype=np.uint8, mode="r")

            def section(name, dtype):
                start, nbytes = header["sections"][name]
                return mm[start:start + nbytes].view(dtype)

            names = bytes(section("names", np.uint8)).decode("utf-8").split("\n")[: header["sequences"]]
            return cls(get_alphabet(header["alphabet"]), names, section("offsets", "<i8"), section("residues", np.uint8),
                       section("index", "<i8"), header.get("source", ""))
        except InputError:
            raise
        except (OSError, ValueError, KeyError, TypeError, IndexError, UnicodeDecodeError) as exc:
            raise InputError(f"{path}: damaged swgpu database ({type(exc).__name__}); rebuild it with `swgpu makedb`") from None


def _aligned(pos: int) -> int:
    return (pos + _ALIGN - 1) // _ALIGN * _ALIGN
