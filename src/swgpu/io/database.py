"""Sequence databases for search: encoded residues, sorted by length, names and
descriptions, stored in one memory-mappable, self-checking file.

``swgpu makedb DB.fasta OUT.swdb`` writes the file; :meth:`Database.open`
checks and maps it without copying it into memory. A :class:`Database` can also
be built straight from a FASTA file. Sequences are kept **sorted by length**
(ties in file order); ``index`` is each sequence's position in the original
file, used to order equal scores deterministically.

File layout, format 2 (little-endian; docs/search.md): the magic ``SWGPUDB2``,
a uint64 header length, the header's CRC-32 (uint32), four zero bytes, the JSON
header (counts, the file's ``size``, ``sections``: name → ``[offset, length,
CRC-32]``), then 64-byte aligned sections ``offsets``, ``index``,
``residues``, ``names`` and ``descriptions`` (one per line).

>>> from importlib import resources
>>> db = Database.from_fasta(resources.files("swgpu").joinpath("data/examples/targets.fasta"))
>>> len(db), db.alphabet.name, db.lengths[:3].tolist() == sorted(db.lengths.tolist())[:3]
(40, 'protein', True)
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import struct
import warnings
from pathlib import Path

import numpy as np

from .alphabet import Alphabet, get_alphabet
from ..exceptions import InputError
from .readers import detect_alphabet
from .sequence import Sequence
from .sequence_batch import SequenceBatch
from .texts import Texts, hash_groups
from .writers.output import COMPRESSED, OutputFile

__all__ = ["Database", "length_order", "FORMAT"]

MAGIC_PREFIX = b"SWGPUDB"
FORMAT = 2
MAGIC = MAGIC_PREFIX + str(FORMAT).encode()
_PREAMBLE = 24  # magic, header length (uint64), header CRC-32 (uint32), four zero bytes
_ALIGN = 64
_REBUILD = "rebuild it with `swgpu makedb`"


class _Damaged(Exception):
    """What is wrong inside a database file; :meth:`Database.open` names the file."""


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


class Database:
    """Encoded sequences sorted by length.

    ``residues[offsets[i]:offsets[i+1]]`` are the codes of sequence ``i`` (in
    sorted order), ``names[i]`` its name, ``descriptions[i]`` the rest of its
    FASTA header (``""`` when none), ``index[i]`` its position in the source
    file. ``names`` and ``descriptions`` are given as lists of ``str`` or as
    :class:`~swgpu.io.texts.Texts` columns; either form is made from the other
    when first asked for (:attr:`names`, :attr:`name_texts`), so that a
    database of millions of sequences makes no string per sequence unless a
    caller wants them all.
    """

    def __init__(self, alphabet: Alphabet, names: list[str] | Texts, offsets: np.ndarray, residues: np.ndarray,
                 index: np.ndarray, source: str = "", descriptions: list[str] | Texts | None = None):
        self.alphabet, self.offsets, self.residues, self.index, self.source = alphabet, offsets, residues, index, source
        count = len(names)
        if descriptions is None:
            descriptions = Texts(np.zeros(0, dtype=np.uint8), np.zeros(count + 1, dtype=np.int64))
        elif len(descriptions) != count:
            raise InputError(f"{len(descriptions)} descriptions for {count} sequences", param="descriptions")
        given = {"names": names, "descriptions": descriptions}
        self._lists = {k: None if isinstance(v, Texts) else list(v) for k, v in given.items()}
        self._texts = {k: v if isinstance(v, Texts) else None for k, v in given.items()}
        self._count = count

    def _list(self, key: str) -> list[str]:
        if self._lists[key] is None:
            self._lists[key] = self._texts[key].strings()
        return self._lists[key]

    def _column(self, key: str) -> Texts:
        if self._texts[key] is None:
            self._texts[key] = Texts.from_strings(self._lists[key])
        return self._texts[key]

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
        name, description = (self._lists[k][i] if self._lists[k] is not None else
                             self._texts[k].slice(i, i + 1).strings()[0] for k in ("names", "descriptions"))
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
        offsets = np.zeros(count + 1, dtype=np.int64)
        np.cumsum(np.concatenate(lengths), out=offsets[1:])
        order = length_order(offsets)
        whole = np.concatenate(codes) if len(codes) > 1 else codes[0]
        del codes  # (the parts' codes: freed before the sorted copy is made)
        residues = Texts(whole, offsets).take(order)
        del whole
        return cls(alphabet, file_names.take(order), residues.offsets, residues.buffer, order, source,
                   Texts.concat(descriptions).take(order))

    @classmethod
    def from_fasta(cls, path, alphabet: str | Alphabet | None = None) -> "Database":
        """Read and encode a FASTA/FASTQ file (plain or compressed), in parts
        (:func:`~swgpu.io.chunks.file_batches`); a database file is an error
        that says so."""
        from .chunks import file_batches

        if _is_database(path):
            raise InputError(f"{os.fspath(path)}: already a swgpu database (made by `swgpu makedb`), not a "
                             "FASTA/FASTQ file: give it to `swgpu search -d` as it is")
        alpha = get_alphabet(alphabet) if alphabet is not None else detect_alphabet(path)
        return cls.from_batches(file_batches(path, alpha, ahead=1), os.fspath(path))

    @classmethod
    def load(cls, path, alphabet: str | Alphabet | None = None) -> "Database":
        """A ``.swdb`` file (memory-mapped) or a FASTA/FASTQ file, whichever ``path`` is."""
        if _is_database(path):
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
        """Write the database file (format 2, see above): to a temporary name,
        renamed when complete, with the umask's mode (as :class:`OutputFile`);
        :meth:`check_path` first."""
        self.check_path(path)
        sections = {"offsets": self.offsets.astype("<i8"), "index": self.index.astype("<i8"),
                    "residues": np.ascontiguousarray(self.residues, dtype=np.uint8),
                    "names": _lines(self.name_texts, "name"),
                    "descriptions": _lines(self.description_texts, "description")}
        crcs = {name: _crc32(arr) for name, arr in sections.items()}
        header = {"format": FORMAT, "alphabet": self.alphabet.name, "sequences": len(self),
                  "residues": self.total_residues, "source": self.source, "size": 0, "sections": {}}
        raw = b""
        while True:  # the header's length decides where the sections start, and it holds their places
            pos = _aligned(_PREAMBLE + len(raw))
            for name, arr in sections.items():
                header["sections"][name] = [pos, int(arr.nbytes), crcs[name]]
                header["size"] = pos + int(arr.nbytes)
                pos = _aligned(header["size"])
            new = json.dumps(header).encode("utf-8")
            if new == raw:
                break
            raw = new
        with OutputFile(path, binary=True) as out:
            out.write(MAGIC + struct.pack("<QII", len(raw), _crc32(raw), 0) + raw)
            at = _PREAMBLE + len(raw)
            for name, arr in sections.items():
                start = header["sections"][name][0]
                out.write(b"\0" * (start - at))
                out.write(memoryview(arr).cast("B"))
                at = start + arr.nbytes

    @classmethod
    def open(cls, path) -> "Database":
        """Memory-map a database file written by :meth:`save`, after checking it:
        magic, format, size, and the CRC-32 of the header and of every section.
        A file that is not a database, is of another format or is damaged is an
        :class:`~swgpu.exceptions.InputError` (``param="db"``)."""
        path = Path(path)
        try:
            if path.stat().st_size < _PREAMBLE:
                mm = np.frombuffer(path.read_bytes(), dtype=np.uint8)
            else:
                mm = np.memmap(path, dtype=np.uint8, mode="r")
        except OSError as exc:
            raise InputError(f"{path}: {exc.strerror or exc}", param="db") from None
        try:
            header, end = _read_header(path, mm)
            parts = _read_sections(header, mm, end)
            return cls._from_sections(header, parts)
        except _Damaged as exc:
            raise InputError(f"{path} is damaged ({exc}); {_REBUILD}", param="db") from None

    @classmethod
    def _from_sections(cls, header: dict, parts: dict) -> "Database":
        """The database of checked sections, after checking what they hold."""
        n, total = _count(header, "sequences"), _count(header, "residues")
        try:
            alphabet = get_alphabet(header.get("alphabet"))
        except (InputError, ValueError, KeyError, TypeError, AttributeError):
            raise _Damaged(f"unknown alphabet {header.get('alphabet')!r}") from None
        if (parts["offsets"].size, parts["index"].size, parts["residues"].size) != (8 * (n + 1), 8 * n, total):
            raise _Damaged("section sizes do not match the sequence and residue counts")
        offsets, index, residues = parts["offsets"].view("<i8"), parts["index"].view("<i8"), parts["residues"]
        if offsets[0] != 0 or offsets[-1] != total or bool(np.any(np.diff(offsets) < 0)):
            raise _Damaged("sequence offsets out of order")
        if n and (int(index.min()) < 0 or int(index.max()) >= n):
            raise _Damaged("sequence index out of range")
        if total and int(residues.max()) >= alphabet.size:
            raise _Damaged(f"residue codes outside the {alphabet.name} alphabet")
        names, descriptions = _split_lines(parts["names"], n, "names"), _split_lines(parts["descriptions"], n, "descriptions")
        return cls(alphabet, names, offsets, residues, index, str(header.get("source", "")), descriptions)


def _crc32_function():
    """zlib's CRC-32 at its fastest here: ISA-L's or zlib-ng's (both installed with
    xopen on x86; 7x zlib's speed, 12 ms instead of 85 for the 360 MB of a
    million proteins), else zlib's. The values are zlib's."""
    try:
        from isal.isal_zlib import crc32
    except ImportError:
        try:
            from zlib_ng.zlib_ng import crc32
        except ImportError:
            from zlib import crc32
    return crc32


_crc32 = _crc32_function()


def _is_database(path) -> bool:
    """Whether ``path`` is a regular file that starts as a database file does."""
    p = Path(path)
    if not p.is_file():
        return False
    with open(p, "rb") as fh:
        return fh.read(len(MAGIC_PREFIX)) == MAGIC_PREFIX


def _aligned(pos: int) -> int:
    return (pos + _ALIGN - 1) // _ALIGN * _ALIGN


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
        bad = texts.slice(k, k + 1).strings()[0]
        raise InputError(f"{what} {bad!r} has a line break; it cannot be stored in a database file", param="database")
    out = np.empty(buf.size + ends.size, dtype=np.uint8)
    at = ends + np.arange(ends.size)  # each line's newline
    keep = np.ones(out.size, dtype=bool)
    keep[at] = False
    out[keep] = buf
    out[at] = 10
    return out


def _count(header: dict, key: str) -> int:
    """A count from the header (a non-negative ``int``)."""
    value = header.get(key)
    if type(value) is not int or value < 0:
        raise _Damaged(f"no valid {key!r} in the header")
    return value


def _read_header(path: Path, mm: np.ndarray) -> tuple[dict, int]:
    """The checked JSON header and where it ends."""
    size = mm.size
    if bytes(mm[:len(MAGIC_PREFIX)]) != MAGIC_PREFIX:
        raise InputError(f"{path}: not a swgpu database (make one with `swgpu makedb`)", param="db")
    version = bytes(mm[len(MAGIC_PREFIX):len(MAGIC)])
    if version != MAGIC[len(MAGIC_PREFIX):]:
        if version.isdigit() and int(version) < FORMAT:
            raise InputError(f"{path}: database format {int(version)}, written by an older swgpu; this one reads "
                             f"format {FORMAT}: {_REBUILD}", param="db")
        if version.isdigit():
            raise InputError(f"{path}: database format {int(version)} is newer than this swgpu reads ({FORMAT}); "
                             f"upgrade swgpu or {_REBUILD}", param="db")
        raise _Damaged("bad format number")
    if size < _PREAMBLE:
        raise _Damaged(f"only {size} bytes")
    length, crc, _ = struct.unpack("<QII", bytes(mm[len(MAGIC):_PREAMBLE]))
    if length > size - _PREAMBLE:
        raise _Damaged(f"{size:,} bytes, too short for its header: truncated?")
    raw = bytes(mm[_PREAMBLE:_PREAMBLE + length])
    if _crc32(raw) != crc:
        raise _Damaged("header checksum mismatch")
    try:
        header = json.loads(raw)
    except ValueError:
        raise _Damaged("the header is not JSON") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise _Damaged("the header is not a format 2 header")
    expected = _count(header, "size")
    if expected != size:
        raise _Damaged(f"{size:,} bytes where {expected:,} were written: " + ("truncated?" if size < expected else "data appended?"))
    return header, _PREAMBLE + length


def _read_sections(header: dict, mm: np.ndarray, floor: int) -> dict[str, np.ndarray]:
    """The sections (views of the map), each checked: in order, inside the file, checksum."""
    table = header.get("sections")
    if not isinstance(table, dict):
        raise _Damaged("no section table")
    parts = {}
    for name in ("offsets", "index", "residues", "names", "descriptions"):
        entry = table.get(name)
        if not (isinstance(entry, list) and len(entry) == 3 and all(type(v) is int and v >= 0 for v in entry)):
            raise _Damaged(f"section {name!r} missing from the header")
        start, nbytes, crc = entry
        if start < floor or start + nbytes > mm.size:
            raise _Damaged(f"section {name!r} lies outside its place in the file")
        part = mm[start:start + nbytes]
        if _crc32(part) != crc:
            raise _Damaged(f"checksum mismatch in section {name!r}")
        parts[name] = part
        floor = start + nbytes
    return parts


def _split_lines(part: np.ndarray, n: int, what: str) -> Texts:
    """``n`` lines of UTF-8 text, as a column (no string made)."""
    buf = np.asarray(part)
    ends = np.flatnonzero(buf == 10)
    if ends.size != n or (buf.size and buf[-1] != 10):
        raise _Damaged(f"{ends.size} {what} for {n} sequences")
    if buf.size and int(buf.max()) >= 0x80:
        try:
            buf.tobytes().decode("utf-8")
        except UnicodeDecodeError:
            raise _Damaged(f"{what} are not UTF-8") from None
    offsets = np.zeros(n + 1, dtype=np.int64)
    offsets[1:] = ends - np.arange(n)  # (the newlines before each end dropped)
    return Texts(buf[buf != 10], offsets)
