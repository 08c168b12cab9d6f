"""FASTA files read in whole-array passes or one compiled pass, straight into columns.

:func:`scan_fasta` reads a whole FASTA text (a file's decompressed bytes) on
threads: below 32 MiB by array operations (:mod:`.scan_arrays`, nothing to
load), else in a Numba pass (2-3x faster; the byte-by-byte compiled scan
also takes letter lines with whitespace or comments among the letters):
where each record's header lies, its name and description
(cut as :func:`~swgpu.io.sequence.split_header` cuts an ASCII header), and
its letters with the whitespace dropped, end to end. :func:`read_columns`
turns a file into a :class:`~swgpu.io.sequence_batch.SequenceBatch` of
columns that way, with no object per record -- the letters are encoded with
one table look-up.

It takes the common case only: a file that starts with ``>``, ASCII headers
that each begin with a name, no comment lines, no control characters, every
record with letters, every letter of the alphabet. Anything else gives
``None``, and the caller reads the file record by record
(:mod:`swgpu.io.readers`), which reports each problem as it always has: the
records and messages are the same either way.

>>> found = scan_fasta(np.frombuffer(b">r1 first read\\nAC GT\\r\\n\\n>r2\\nTTA\\n", dtype=np.uint8))
>>> names, descriptions, letters, codes = found
>>> names.strings(), descriptions.strings(), letters.strings(), bytes(codes)
(['r1', 'r2'], ['first read', ''], ['ACGT', 'TTA'], b'ACGTTTA')
"""

from __future__ import annotations

import mmap
import os
import stat

import numpy as np
from .alphabet import SAMPLE_LETTERS, Alphabet, get_alphabet, guess_alphabet
from .compiled import read_only, worth_bytes
from .ranges import ranges, run_ranges
from .scan_arrays import RECHECK, REJECT, checked as _checked, scan_part
from .texts import Texts, gather_segments

__all__ = ["scan_fasta", "read_columns", "use_device_scan", "LARGEST"]

#: Files larger than this (decompressed) are read record by record.
LARGEST = 1 << 34
_PART_LEAST = 16 << 20  # bytes of a part scanned by a thread of its own

_WS, _HEAD, _COMMENT, _CONTROL = 1, 2, 8, 16  # byte classes (kernels.WS, ...)
_CLASS = np.zeros(256, dtype=np.uint8)
_CLASS[[ord(c) for c in " \t\r\v\f"]] = _WS
_CLASS[[*range(0x00, 0x09), *range(0x0E, 0x20), 0x7F]] = _CONTROL  # (\n ends lines; it is never looked up)
_CLASS[0x80:] = _HEAD  # not ASCII: fine in letters (refused there later), not in a header here
_CLASS[ord("#")] = _COMMENT


_device = None  # the scan of large texts on a GPU (use_device_scan)


def use_device_scan(scan) -> None:
    """Scan the texts that :func:`scan_fasta` would scan in compiled code with
    ``scan`` instead -- a function of ``(data, check, cls)`` that gives what
    :func:`scan_fasta` gives, or ``None`` where the host should scan that text
    (:class:`swgpu.engines.cuda.fasta_scan.DeviceScan`); ``None``: the host again."""
    global _device
    _device = scan


def _column(data: np.ndarray, starts: np.ndarray, ends: np.ndarray, compiled: bool = False) -> Texts:
    """The bytes ``data[starts[k]:ends[k]]`` as a column (in a compiled loop
    with ``compiled``: the array passes cost about 0.25 us a record)."""
    if not compiled or starts.size < 1024:
        return Texts(*gather_segments(data, starts, ends))
    from . import kernels as K

    starts = np.ascontiguousarray(starts, dtype=np.int64)
    ends = np.ascontiguousarray(ends, dtype=np.int64)
    out = np.empty(int((ends - starts).sum()), dtype=np.uint8)
    offsets = np.empty(starts.size + 1, dtype=np.int64)
    K.gather(read_only(data), starts, ends, out, offsets)  # (one compiled version: columns' buffers are read-only)
    return Texts(out, offsets)


def scan_fasta(data: np.ndarray, table: bytes | None = None, threads: int | None = None, least: int = _PART_LEAST,
               compiled: bool = False):
    """Names, descriptions and letters of the FASTA text ``data`` (``uint8``),
    and the letters' codes by ``table`` (an alphabet's 256-byte table: 255 for
    a letter not of the alphabet; without it the codes are the letters); or
    ``None`` when it is not of the common case (see the module notes). Parts
    of at least ``least`` bytes are scanned on threads of their own; in
    compiled code with ``compiled``, else by array passes (Numba loaded or not:
    on a machine's first run the compiled scan's compile, 1-2 s, costs more than
    the array passes over a file below :data:`~.compiled.COMPILED_BYTES`)."""
    if data.size == 0 or data[0] != ord(">"):
        return None
    lut = np.frombuffer(table, dtype=np.uint8) if table is not None else np.arange(256, dtype=np.uint8)
    compiled = table is not None and compiled
    if compiled and _device is not None:  # (on a GPU; what it does not take, here as before)
        found = _device(data, _checked(lut, _CLASS), _CLASS)
        if found is not None:
            return found
    found = _scan_parts(data, lut, threads, least, compiled=compiled)
    if found is REJECT:
        return None
    if found is RECHECK:  # looked at byte by byte, in compiled code (what is not the common case gives None)
        from . import kernels as K

        letters = np.empty(data.size, dtype=np.uint8)
        codes = np.empty(data.size, dtype=np.uint8)
        fields, loff, used, bad = K.scan(data, _CLASS, lut.copy(), letters, codes, True)
        if bad:
            return None
        found = fields, loff, letters[:used], codes[:used]
    fields, loff, letters, codes = found
    return (_column(data, fields[:, 0], fields[:, 1], compiled), _column(data, fields[:, 2], fields[:, 3], compiled),
            Texts(letters, loff), codes)


def _scan_parts(data: np.ndarray, lut: np.ndarray, threads: int | None, least: int = _PART_LEAST,
                compiled: bool = False):
    """:func:`~.scan_arrays.scan_part` of parts of ``data`` that each begin
    with a record, on threads, joined; :data:`~.scan_arrays.REJECT` or
    :data:`~.scan_arrays.RECHECK` when a part says so (a rejection first).
    ``compiled``: each part by the compiled scan of whole lines instead (the
    same result, 2-3x faster once Numba is loaded; any problem a RECHECK), its
    letters and codes written where its bytes lie, then moved down to lie end
    to end (in place: a part has at most as many letters as bytes)."""
    raw = memoryview(data)
    cuts = [0]
    for a, _ in ranges(data.size, threads, least=least)[1:]:
        found = bytes(raw[a:a + (1 << 20)]).find(b"\n>")  # (a record longer than that: one part fewer)
        if found >= 0 and a + found + 1 > cuts[-1]:
            cuts.append(a + found + 1)
    cuts.append(data.size)
    parts = list(zip(cuts[:-1], cuts[1:]))
    if compiled:
        from . import kernels as K

        letters = np.empty(data.size, dtype=np.uint8)
        codes = np.empty(data.size, dtype=np.uint8)
        table = lut.copy()  # (writable: one compiled version of the scan)

        def one(a: int, b: int):
            fields, loff, used, bad = K.scan(data[a:b], _CLASS, table, letters[a:b], codes[a:b], False)
            return RECHECK if bad else (fields, loff, letters[a:a + used], codes[a:a + used])

        got = run_ranges(one, parts)
    else:
        got = run_ranges(lambda a, b: scan_part(data[a:b], lut, _CLASS), parts)
    for verdict in (REJECT, RECHECK):
        if any(g is verdict for g in got):
            return verdict
    if len(got) == 1:
        return got[0]
    fields = np.concatenate([f + a for (a, _), (f, _, _, _) in zip(parts, got)])
    shift = np.cumsum([0] + [int(lo[-1]) for _, lo, _, _ in got])
    loff = np.concatenate([lo[:-1] + sh for (_, lo, _, _), sh in zip(got, shift[:-1].tolist())] + [shift[-1:]])
    if not compiled:
        return fields, loff, np.concatenate([g[2] for g in got]), np.concatenate([g[3] for g in got])
    for (a, _), g, to in zip(parts, got, shift[:-1].tolist()):
        used = g[2].size
        if to != a:
            letters[to:to + used] = letters[a:a + used]
            codes[to:to + used] = codes[a:a + used]
    return fields, loff, letters[:shift[-1]], codes[:shift[-1]]


def read_columns(path: str, alphabet: str | Alphabet | None):
    """The records of the FASTA file ``path`` as a
    :class:`~swgpu.io.sequence_batch.SequenceBatch` of columns, with
    ``alphabet`` (guessed from the first records as
    :func:`~swgpu.io.readers.read_sequence_batch` guesses it, when ``None``),
    and the alphabet guessed; ``None`` for anything but a regular FASTA file
    of the common case (read it record by record)."""
    from .readers import _open
    from .sequence_batch import SequenceBatch

    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode) or st.st_size == 0:
        return None
    try:
        raw = _mapped(path)
        if raw is None:
            with _open(path, False) as stream:
                raw = stream.read(LARGEST + 1)
    except Exception:  # errors are reported by the record-by-record reader
        return None
    if len(raw) > LARGEST or raw[:1] != b">":
        return None
    data = np.frombuffer(raw, dtype=np.uint8)
    guessed = _guess(raw)
    if guessed is None:
        return None
    found = scan_fasta(data, get_alphabet(alphabet if alphabet is not None else guessed).table,
                       compiled=worth_bytes(len(raw)))
    del raw, data
    if found is None:  # (a letter not of the alphabet, ...: said record by record)
        return None
    names, descriptions, letters, codes = found
    return SequenceBatch.from_columns(names, descriptions, letters, codes,
                                      alphabet if alphabet is not None else guessed), guessed


def _mapped(path: str):
    """A plain (not compressed) file mapped into memory, read-only (no copy:
    its pages are read as the scan reaches them); ``None`` for a compressed one."""
    from .readers import _GZIP_MAGIC, _OTHER_MAGIC

    if path.endswith((".gz", ".bz2", ".xz", ".zst")):
        return None
    with open(path, "rb") as fh:
        magic = fh.read(6)
        if magic[:2] == _GZIP_MAGIC or magic.startswith(_OTHER_MAGIC):
            return None
        return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)


def guess_head(path) -> Alphabet | None:
    """The alphabet guessed from the first records of a plain FASTA file (``None``:
    not of the common case), as a file read in parts guesses it."""
    with open(path, "rb") as fh:
        return _guess(fh.read(4 << 20))


def _guess(raw: bytes) -> Alphabet | None:
    """The alphabet guessed from the first records' letters (those of whole
    records up to :data:`SAMPLE_LETTERS` letters), scanning only as much of
    ``raw`` as they need."""
    size = 4 * SAMPLE_LETTERS
    while True:
        found = raw.find(b"\n>", size) if size < len(raw) else -1
        end = found + 1 if found >= 0 else len(raw)
        first = scan_fasta(np.frombuffer(raw, dtype=np.uint8, count=end))
        if first is None:
            return None
        if end == len(raw) or first[2].offsets[-1] >= SAMPLE_LETTERS:
            return guess_alphabet(_sample(first[2]))
        size = 2 * end


def _sample(letters: Texts) -> bytes:
    """The letters the alphabet is guessed from: the first records up to the one
    that reaches :data:`SAMPLE_LETTERS` letters, each after a ``\\0``
    (:func:`swgpu.io.readers._head`)."""
    count = int(np.searchsorted(letters.offsets[1:], SAMPLE_LETTERS)) + 1
    count = min(count, len(letters))
    parts = [b""]
    buf = letters.buffer
    for k in range(count):
        parts.append(buf[letters.offsets[k]:letters.offsets[k + 1]].tobytes())
    return b"\0".join(parts)
