"""Reading sequences: FASTA or FASTQ, plain or compressed (gzip, bz2, xz, zstd).

The input is a path, ``"-"`` (standard input) or a stream that has a path: a
FIFO, ``/dev/stdin``, ``/dev/fd/N`` (a shell's ``<(...)``). A stream is read
once, whole, into memory; compression is recognised from the first bytes.

Headers are cut as BLAST+ cuts them (:func:`~swgpu.io.sequence.split_header`:
the identifier ends at the first whitespace of any kind, the rest is the
description). They are read as UTF-8 (a leading byte order mark is skipped),
and as Latin-1 when they are not UTF-8. Control characters (other than tab and
line ends) mean binary data, an error. Windows (CRLF) line endings are read
like Unix ones.

Every problem becomes one :class:`~swgpu.exceptions.InputError` whose message
names the file (and the record and position where that applies).

>>> from importlib import resources
>>> path = resources.files("swgpu").joinpath("data/examples/queries.fasta")
>>> seqs = read_sequences(path)
>>> [s.name for s in seqs][:2], seqs[0].alphabet.name
(['P02232', 'P09187_fragment'], 'protein')
"""

from __future__ import annotations

import io
import os
import stat
import sys
from itertools import chain, islice
from pathlib import Path
from typing import BinaryIO, Iterator

from ..exceptions import InputError
from .alphabet import SAMPLE_LETTERS, Alphabet, check_alphabet, get_alphabet, guess_alphabet
from .batches import RecordBatch, fasta_batches
from .encoding import encode_batches, encode_block
from .scanner import read_columns
from .sequence import Sequence, decode_header
from .sequence_batch import SequenceBatch

__all__ = ["STDIN", "read_sequences", "read_sequence_batch", "iter_sequences", "detect_alphabet", "input_lines",
           "source_name"]

#: The path that means standard input.
STDIN = "-"

_FASTA_SUFFIXES = {".fa", ".fasta", ".fna", ".faa", ".ffn", ".frn", ".fas", ".fsa", ".mpfa"}
_COMPRESSED = {".gz", ".bz2", ".xz", ".zst"}
_BOM = b"\xef\xbb\xbf"
_BLOCK = 1 << 20
_CONTROL = bytes([*range(0x00, 0x09), *range(0x0E, 0x20), 0x7F])  # control characters but \t \n \v \f \r

# Streams that detect_alphabet read, kept for the read that follows it:
# key -> (the stream object or None, its bytes).
_KEPT: dict = {}


def source_name(path) -> str:
    """How messages name an input: its path, or ``standard input`` for ``"-"``."""
    path = os.fspath(path)
    return "standard input" if path == STDIN else path


def _binary(name: str) -> InputError:
    return InputError(f"{name}: not a text FASTA/FASTQ file (binary data; "
                      "not gzip, bzip2, xz or zstd compressed either)")


def _stream_bytes(key, holder, keep: bool, read) -> bytes:
    """The bytes of a stream: those kept by an earlier ``keep`` read, or ``read()``."""
    kept = _KEPT.get(key)
    if kept is not None and kept[0] is holder:
        if not keep:
            del _KEPT[key]
        return kept[1]
    data = read()
    if keep:
        _KEPT[key] = (holder, data)
    return data


def _open_file(path: str) -> BinaryIO | None:
    """A regular file opened as ``xopen(path, "rb", threads=0)`` opens it when
    that is a plain file or ISA-L's gzip reader, without importing xopen (and
    all it imports); ``None`` for the other cases (bzip2, xz, zstd, no ISA-L)."""
    if path.endswith((".bz2", ".xz", ".zst")):
        return None
    gz = path.endswith(".gz")
    if not gz:  # xopen looks at the first bytes
        fh = open(path, "rb")
        magic = fh.peek(6)[:6]
        if magic[:2] != _GZIP_MAGIC and not magic.startswith(_OTHER_MAGIC):
            return fh
        fh.close()
        if magic[:2] != _GZIP_MAGIC:
            return None
    try:  # what xopen imports to choose ISA-L
        from isal import igzip, igzip_threaded, isal_zlib  # noqa: F401
    except ImportError:
        return None
    fh = open(path, "rb")
    try:
        stream = igzip.IGzipFile(fileobj=fh, filename="", mode="rb", mtime=0, compresslevel=1)
    except BaseException:
        fh.close()
        raise
    stream.myfileobj = fh  # closed with the stream
    return stream


_GZIP_MAGIC = b"\x1f\x8b"
_OTHER_MAGIC = (b"\x42\x5a\x68", b"\xfd\x37\x7a\x58\x5a\x00", b"\x28\xb5\x2f\xfd")  # bzip2, xz, zstd


def _xopen(source) -> BinaryIO:
    from xopen import xopen

    return xopen(source, "rb", threads=0)


def _open(path: str, keep: bool) -> BinaryIO:
    """``path`` decompressed, as a binary stream."""
    if path == STDIN:
        source = getattr(sys.stdin, "buffer", sys.stdin)
        if source is None:
            raise InputError("standard input: there is none (the process has no stdin)")
        data = _stream_bytes(STDIN, source, keep, source.read)
    else:
        try:
            st = os.stat(path)
        except FileNotFoundError:
            raise InputError(f"{path}: no such file") from None
        if stat.S_ISDIR(st.st_mode):
            raise InputError(f"{path}: is a directory, not a sequence file")
        if stat.S_ISREG(st.st_mode):
            if st.st_size == 0:
                raise InputError(f"{path}: file is empty")
            return _open_file(path) or _xopen(path)
        data = _stream_bytes((st.st_dev, st.st_ino), None, keep, Path(path).read_bytes)
    if not data:
        raise InputError(f"{source_name(path)}: the input is empty (nothing was read)")
    return _xopen(io.BytesIO(data))


def _blocks(path: str, keep: bool) -> Iterator[bytes]:
    """The decompressed input in blocks of about 1 MiB, each ending at a line end.

    Errors of opening and decompressing, and control characters (binary data),
    become :class:`InputError`.
    """
    name = source_name(path)
    try:
        with _open(path, keep) as stream:
            while block := stream.read(_BLOCK):
                block = block if block.endswith(b"\n") else block + stream.readline()
                if len(block.translate(None, _CONTROL)) != len(block):
                    raise _binary(name)
                yield block
    except InputError:
        raise
    except EOFError:
        raise InputError(f"{name}: the compressed file is truncated") from None
    except OSError as exc:
        if exc.strerror and exc.filename:  # cannot open: permissions, ...
            raise InputError(f"{name}: cannot open ({exc.strerror})") from None
        raise InputError(f"{name}: cannot read ({_first_line(exc)}); is the file corrupt?") from None
    except Exception as exc:  # corrupt compressed data: zlib, isal, lzma, bz2 and zstd errors
        raise InputError(f"{name}: cannot read ({type(exc).__name__}: {_first_line(exc)}); "
                         "is the file corrupt?") from None


def input_lines(path) -> Iterator[bytes]:
    """The lines of a file, ``"-"`` or a stream, decompressed, as bytes without line ends
    (a leading byte order mark dropped); problems raise :class:`InputError`."""
    blocks = _blocks(os.fspath(path), keep=False)
    for k, block in enumerate(blocks):
        yield from (block.removeprefix(_BOM) if k == 0 else block).splitlines()


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _claims_fasta(path: str) -> bool:
    suffixes = [s.lower() for s in Path(path).suffixes]
    while suffixes and suffixes[-1] in _COMPRESSED:
        suffixes.pop()
    return bool(suffixes) and suffixes[-1] in _FASTA_SUFFIXES


def _start(blocks: Iterator[bytes]) -> bytes:
    """The first block from the first record on: byte order mark, blank and ``#`` lines dropped."""
    for k, block in enumerate(blocks):
        block = block.removeprefix(_BOM) if k == 0 else block
        while block:
            line_end = block.find(b"\n") + 1 or len(block)
            line = block[:line_end].strip()
            if line and line[:1] != b"#":
                return block.lstrip()
            block = block[line_end:]
    return b""


def _records(path: str, keep: bool = False) -> Iterator[RecordBatch]:
    """The records, in file order, in batches (:class:`~swgpu.io.batches.RecordBatch`)."""
    name = source_name(path)
    blocks = _blocks(path, keep)
    start = _start(blocks)
    if not start:
        return
    blocks = chain([start], blocks)
    if start[:1] == b">":
        yield from fasta_batches(blocks)
    elif start[:1] == b"@":
        if _claims_fasta(path):
            raise InputError(f"{name}: this is FASTQ, but the file name says FASTA; rename it (e.g. .fastq)")
        yield from _fastq(blocks, name)
    else:
        first = decode_header(start[:40].split(b"\n")[0].strip())
        if _claims_fasta(path):
            raise InputError(f"{name}: not a valid FASTA file (expected '>' at the start, got {first!r})")
        raise InputError(f"{name}: not a FASTA or FASTQ file (it starts with {first!r})")


def _fastq(blocks: Iterator[bytes], name: str) -> Iterator[RecordBatch]:
    """The records of FASTQ ``blocks``, a batch per block (the records before a bad one come first)."""
    lines: list[bytes] = []
    number = 0
    for block in blocks:
        lines = lines + block.splitlines()
        whole = len(lines) - len(lines) % 4
        records = []
        for header, letters, plus, quality in zip(*(lines[k:whole:4] for k in range(4))):
            number += 1
            if header[:1] != b"@" or plus[:1] != b"+" or len(letters) != len(quality):
                if records:
                    yield RecordBatch.from_records(records)
                raise _fastq_error(name, number, header, plus, letters, quality)
            records.append((header[1:], letters.decode("latin-1")))
        if records:
            yield RecordBatch.from_records(records)
        lines = lines[whole:]
    if any(line.strip() for line in lines):
        raise InputError(f"{name}: not a valid FASTQ file (record {number + 1}: it ends inside the record; "
                         "a record is 4 lines: @name, letters, +, qualities)")


def _fastq_error(name: str, number: int, header: bytes, plus: bytes, letters: bytes, quality: bytes) -> InputError:
    if header[:1] != b"@":
        problem = "does not start with '@'" + (" (FASTQ has no blank lines)" if not header.strip() else "")
    elif plus[:1] != b"+":
        problem = "its third line does not start with '+'"
    else:
        problem = f"{len(letters)} letters but {len(quality)} quality values"
    return InputError(f"{name}: not a valid FASTQ file (record {number}: {problem})")


def _head(batches: Iterator[RecordBatch]) -> tuple[list[RecordBatch], int, bytes]:
    """The first batches, up to the record where :data:`SAMPLE_LETTERS` letters are reached;
    how many records that is, and their letters: the sample the alphabet is guessed from."""
    head, count, total = [], 0, 0
    for batch in batches:
        head.append(batch)
        lengths = list(map(len, batch.texts))
        if total + sum(lengths) < SAMPLE_LETTERS:
            total += sum(lengths)
            count += len(lengths)
            continue
        for length in lengths:
            count, total = count + 1, total + length
            if total >= SAMPLE_LETTERS:
                break
        break
    # the letters of those records (with the marks between them, which are no letters)
    sample = b"".join(batch.joined for batch in head)[:total + count]
    return head, count, sample


def detect_alphabet(path) -> Alphabet:
    """Guess the alphabet from the first records' letters (up to 100,000).

    A stream (``"-"``, a pipe) is read whole and kept for the next read of it.
    """
    batches = _records(os.fspath(path), keep=True)
    try:
        _, _, sample = _head(batches)
    finally:
        batches.close()
    return guess_alphabet(sample)


def _prepared(path: str, alphabet: str | Alphabet | None,
              expect: str | Alphabet | None) -> tuple[Iterator[RecordBatch], Alphabet, int]:
    """The record batches of ``path``, the alphabet to encode them with, and how
    many of the first records the alphabet check must look at (0: none).

    The check counts the letters of the records the alphabet was guessed from,
    by the same rule: it is needed only when that guess is not ``expect``."""
    batches = _records(path)
    head, count, sample = _head(batches)
    guessed = guess_alphabet(sample)
    alpha = get_alphabet(alphabet) if alphabet is not None else guessed
    check = count if expect is not None and guessed is not get_alphabet(expect) else 0
    return chain(head, batches), alpha, check


def _sequence_groups(path, alphabet: str | Alphabet | None, expect: str | Alphabet | None,
                     what: str) -> Iterator[list[Sequence]]:
    """The records of ``path`` as :class:`Sequence` objects, a list per group (see :func:`iter_sequences`)."""
    path = os.fspath(path)
    batches, alpha, count = _prepared(path, alphabet, expect)
    groups = encode_batches(batches, alpha, source_name(path))
    if count:
        first: list[list[Sequence]] = []
        while sum(map(len, first)) < count and (group := next(groups, None)) is not None:
            first.append(group)
        check_alphabet(list(islice(chain.from_iterable(first), count)), expect, what, source=source_name(path))
        groups = chain(first, groups)
    return groups


def iter_sequences(path, alphabet: str | Alphabet | None = None, *, expect: str | Alphabet | None = None,
                   what: str = "the expected alphabet") -> Iterator[Sequence]:
    """Yield the records of a FASTA/FASTQ file (or ``"-"``, a pipe) as :class:`Sequence` objects.

    The input is read once. ``alphabet`` (``dna``, ``rna``, ``protein``) is
    guessed from the first records when not given. With ``expect``, the letters
    of those records must look like that alphabet (see
    :func:`~swgpu.io.alphabet.check_alphabet`; ``what`` names whose alphabet it
    is, e.g. ``"the database"``); pass ``expect=None`` when the user chose the
    alphabet. Empty records and invalid letters are errors.
    """
    for group in _sequence_groups(path, alphabet, expect, what):
        yield from group


def read_sequences(path, alphabet: str | Alphabet | None = None, *, expect: str | Alphabet | None = None,
                   what: str = "the expected alphabet") -> list[Sequence]:
    """All records of a FASTA/FASTQ file, ``"-"`` or a pipe (see :func:`iter_sequences`)."""
    out: list[Sequence] = []
    for group in _sequence_groups(path, alphabet, expect, what):
        out += group
    return out


def read_sequence_batch(path, alphabet: str | Alphabet | None = None, *, expect: str | Alphabet | None = None,
                        what: str = "the expected alphabet") -> SequenceBatch:
    """All records of a file as one :class:`~swgpu.io.sequence_batch.SequenceBatch`
    (codes end to end; the :class:`Sequence` objects made only when asked for):
    the records, alphabet and error messages of :func:`read_sequences`. The
    alphabet is checked once every record has been read, so of a letter that
    is not of the alphabet and letters that look like another alphabet, the
    first is reported."""
    path = os.fspath(path)
    fast = read_columns(path, alphabet) if path != STDIN else None
    if fast is not None:  # a FASTA file of the common case, read in one compiled pass
        block, guessed = fast
        if expect is not None and guessed is not get_alphabet(expect):
            check_alphabet(block.records(), expect, what, source=source_name(path))
        return block
    batches, alpha, count = _prepared(path, alphabet, expect)
    block = encode_block(batches, alpha, source_name(path))
    if count:  # (check_alphabet stops at the sample's last record)
        check_alphabet(block.records(), expect, what, source=source_name(path))
    return block
