"""The ``.swdb`` file of a :class:`~swgpu.io.database.Database`: its layout,
writing, and reading with every check.

File layout, format 2 (little-endian; docs/search.md): the magic ``SWGPUDB2``,
a uint64 header length, the header's CRC-32 (uint32), four zero bytes, the JSON
header (counts, the file's ``size``, ``sections``: name → ``[offset, length,
CRC-32]``), then 64-byte aligned sections ``offsets``, ``index``,
``residues``, ``names`` and ``descriptions`` (one per line).

A file is read by mapping it into memory: nothing is copied, but every byte
is read once by the checks. The large sections' checksums and bounds are
worked out in parts on threads (a database of ten million proteins is 3.9 GB),
and the names and descriptions stay where they lie (:class:`Lines`) until a
caller wants them as a column.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "x.swdb")
>>> write(path, {"alphabet": "dna", "sequences": 1, "residues": 2},
...       {"offsets": np.array([0, 2], "<i8"), "index": np.zeros(1, "<i8"), "residues": np.zeros(2, np.uint8),
...        "names": np.frombuffer(b"a\\n", np.uint8), "descriptions": np.frombuffer(b"\\n", np.uint8)})
>>> contents = read(path)
>>> contents["offsets"].tolist(), contents["names"].texts().strings()
([0, 2], ['a'])
"""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np

from ..exceptions import InputError
from .alphabet import get_alphabet
from .ranges import largest, ranges, run_ranges
from .texts import Texts, take_segments
from .writers.output import OutputFile

__all__ = ["FORMAT", "MAGIC", "MAGIC_PREFIX", "REBUILD", "Lines", "crc32", "is_database", "read", "write"]

MAGIC_PREFIX = b"SWGPUDB"
FORMAT = 2
MAGIC = MAGIC_PREFIX + str(FORMAT).encode()
REBUILD = "rebuild it with `swgpu makedb`"
SECTIONS = ("offsets", "index", "residues", "names", "descriptions")
_PREAMBLE = 24  # magic, header length (uint64), header CRC-32 (uint32), four zero bytes
_ALIGN = 64
_PART = 256 << 20  # bytes of a section checked by a thread of its own


class _Damaged(Exception):
    """What is wrong inside a database file; :func:`read` names the file."""


def _crc32_functions():
    """zlib's CRC-32 at its fastest here, and its combination of two parts':
    ISA-L's or zlib-ng's (both installed with xopen on x86; 7x zlib's speed),
    else zlib's (no combination: one part). The values are zlib's."""
    try:
        from isal.isal_zlib import crc32, crc32_combine
    except ImportError:
        try:
            from zlib_ng.zlib_ng import crc32, crc32_combine
        except ImportError:
            from zlib import crc32
            crc32_combine = None
    return crc32, crc32_combine


_crc32, _combine = _crc32_functions()


def _parts(data: np.ndarray) -> list[tuple[int, int]]:
    return ranges(data.size, least=_PART) if data.size > 2 * _PART else [(0, data.size)]


def crc32(data) -> int:
    """The CRC-32 of ``data`` (bytes or a ``uint8`` array); of a large array, by
    parts on threads, combined."""
    if isinstance(data, bytes) or _combine is None or data.size <= 2 * _PART:
        return _crc32(data)
    cuts = _parts(data)
    found = run_ranges(lambda a, b: _crc32(data[a:b]), cuts)
    value = found[0]
    for (a, b), part in zip(cuts[1:], found[1:]):
        value = _combine(value, part, b - a)
    return value


class Lines:
    """Lines of UTF-8 text where they lie (a section of a mapped file): line ``k``
    is ``blob[starts[k]:ends[k]]``, its newline at ``ends[k]``."""

    __slots__ = ("blob", "ends")

    def __init__(self, blob: np.ndarray, ends: np.ndarray):
        self.blob, self.ends = blob, ends

    def __len__(self) -> int:
        return self.ends.size

    def take(self, index: np.ndarray) -> Texts:
        """Lines ``index`` (in that order) as a column."""
        index = np.asarray(index, dtype=np.int64)
        starts = np.where(index > 0, self.ends[np.maximum(index - 1, 0)] + 1, 0)
        return take_segments(self.blob, starts, self.ends[index])

    def string(self, k: int) -> str:
        """Line ``k``, decoded."""
        return self.blob[int(self.ends[k - 1]) + 1 if k > 0 else 0:int(self.ends[k])].tobytes().decode("utf-8")

    def texts(self) -> Texts:
        """Every line as a column (the newlines dropped: one copy)."""
        offsets = np.zeros(self.ends.size + 1, dtype=np.int64)
        offsets[1:] = self.ends - np.arange(self.ends.size)  # (the newlines before each end dropped)
        return Texts(self.blob[self.blob != 10], offsets)


def is_database(path) -> bool:
    """Whether ``path`` is a regular file that starts as a database file does."""
    p = Path(path)
    if not p.is_file():
        return False
    with open(p, "rb") as fh:
        return fh.read(len(MAGIC_PREFIX)) == MAGIC_PREFIX


def _aligned(pos: int) -> int:
    return (pos + _ALIGN - 1) // _ALIGN * _ALIGN


def write(path, fields: dict, sections: dict[str, np.ndarray]) -> None:
    """Write a database file: the header's ``fields`` (alphabet, counts, source)
    and the ``sections`` (:data:`SECTIONS`, in that order), to a temporary name,
    renamed when complete (:class:`~swgpu.io.writers.output.OutputFile`)."""
    crcs = {name: crc32(arr) for name, arr in sections.items()}
    header = {"format": FORMAT, **fields, "size": 0, "sections": {}}
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
        out.write(MAGIC + struct.pack("<QII", len(raw), crc32(raw), 0) + raw)
        at = _PREAMBLE + len(raw)
        for name, arr in sections.items():
            start = header["sections"][name][0]
            out.write(b"\0" * (start - at))
            out.write(memoryview(arr).cast("B"))
            at = start + arr.nbytes


def read(path) -> dict:
    """Map a database file and check it: magic, format, size, the CRC-32 of the
    header and of every section, and what the sections hold. Returns the
    database's fields (``alphabet``, ``names`` and ``descriptions`` as
    :class:`Lines`, ``offsets``, ``residues``, ``index``, ``source``). A file
    that is not a database, is of another format or is damaged is an
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
        return _contents(header, _read_sections(header, mm, end))
    except _Damaged as exc:
        raise InputError(f"{path} is damaged ({exc}); {REBUILD}", param="db") from None


def _contents(header: dict, parts: dict) -> dict:
    """The fields of checked sections, after checking what they hold."""
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
    if largest(residues, _PART) >= alphabet.size:
        raise _Damaged(f"residue codes outside the {alphabet.name} alphabet")
    return {"alphabet": alphabet, "names": _lines(parts["names"], n, "names"), "offsets": offsets,
            "residues": residues, "index": index, "source": str(header.get("source", "")),
            "descriptions": _lines(parts["descriptions"], n, "descriptions")}


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
                             f"format {FORMAT}: {REBUILD}", param="db")
        if version.isdigit():
            raise InputError(f"{path}: database format {int(version)} is newer than this swgpu reads ({FORMAT}); "
                             f"upgrade swgpu or {REBUILD}", param="db")
        raise _Damaged("bad format number")
    if size < _PREAMBLE:
        raise _Damaged(f"only {size} bytes")
    length, crc, _ = struct.unpack("<QII", bytes(mm[len(MAGIC):_PREAMBLE]))
    if length > size - _PREAMBLE:
        raise _Damaged(f"{size:,} bytes, too short for its header: truncated?")
    raw = bytes(mm[_PREAMBLE:_PREAMBLE + length])
    if crc32(raw) != crc:
        raise _Damaged("header checksum mismatch")
    try:
        header = json.loads(raw)
    except ValueError:
        raise _Damaged("the header is not JSON") from None
    if not isinstance(header, dict) or header.get("format") != FORMAT:
        raise _Damaged("the header is not a format 2 header")
    expected = _count(header, "size")
    if expected != size:
        raise _Damaged(f"{size:,} bytes where {expected:,} were written: "
                       + ("truncated?" if size < expected else "data appended?"))
    return header, _PREAMBLE + length


def _read_sections(header: dict, mm: np.ndarray, floor: int) -> dict[str, np.ndarray]:
    """The sections (views of the map), each checked: in order, inside the file, checksum."""
    table = header.get("sections")
    if not isinstance(table, dict):
        raise _Damaged("no section table")
    parts = {}
    for name in SECTIONS:
        entry = table.get(name)
        if not (isinstance(entry, list) and len(entry) == 3 and all(type(v) is int and v >= 0 for v in entry)):
            raise _Damaged(f"section {name!r} missing from the header")
        start, nbytes, crc = entry
        if start < floor or start + nbytes > mm.size:
            raise _Damaged(f"section {name!r} lies outside its place in the file")
        part = mm[start:start + nbytes]
        if crc32(part) != crc:
            raise _Damaged(f"checksum mismatch in section {name!r}")
        parts[name] = part
        floor = start + nbytes
    return parts


def _lines(part: np.ndarray, n: int, what: str) -> Lines:
    """``n`` lines of UTF-8 text, checked, left where they lie."""
    buf = np.asarray(part)
    ends = np.flatnonzero(buf == 10)
    if ends.size != n or (buf.size and buf[-1] != 10):
        raise _Damaged(f"{ends.size} {what} for {n} sequences")
    if largest(buf, _PART) >= 0x80:
        try:
            buf.tobytes().decode("utf-8")
        except UnicodeDecodeError:
            raise _Damaged(f"{what} are not UTF-8") from None
    return Lines(buf, ends)
