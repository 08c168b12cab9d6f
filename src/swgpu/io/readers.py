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
from typing import BinaryIO, Iterable, Iterator

from ..exceptions import InputError
from .alphabet import SAMPLE_LETTERS, Alphabet, check_alphabet, get_alphabet, guess_alphabet
from .sequence import Sequence, decode_header, split_header

__all__ = ["STDIN", "read_sequences", "iter_sequences", "detect_alphabet", "input_lines", "source_name"]

#: The path that means standard input.
STDIN = "-"

_FASTA_SUFFIXES = {".fa", ".fasta", ".fna", ".faa", ".ffn", ".frn", ".fas", ".fsa", ".mpfa"}
_COMPRESSED = {".gz", ".bz2", ".xz", ".zst"}
_BOM = b"\xef\xbb\xbf"
_BLOCK = 1 << 20
_WHITESPACE = b" \t\r\n\v\f"
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


def _open(path: str, keep: bool) -> BinaryIO:
    """``path`` decompressed, as a binary stream."""
    from xopen import xopen

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
            return xopen(path, "rb", threads=0)
        data = _stream_bytes((st.st_dev, st.st_ino), None, keep, Path(path).read_bytes)
    if not data:
        raise InputError(f"{source_name(path)}: the input is empty (nothing was read)")
    return xopen(io.BytesIO(data), "rb", threads=0)


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


def _records(path: str, keep: bool = False) -> Iterator[tuple[bytes, str]]:
    """``(header, letters)`` of each record, in file order (the header as bytes, without ``>``/``@``)."""
    name = source_name(path)
    blocks = _blocks(path, keep)
    start = _start(blocks)
    if not start:
        return
    blocks = chain([start], blocks)
    if start[:1] == b">":
        yield from _fasta(blocks)
    elif start[:1] == b"@":
        if _claims_fasta(path):
            raise InputError(f"{name}: this is FASTQ, but the file name says FASTA; rename it (e.g. .fastq)")
        yield from _fastq(blocks, name)
    else:
        first = decode_header(start[:40].split(b"\n")[0].strip())
        if _claims_fasta(path):
            raise InputError(f"{name}: not a valid FASTA file (expected '>' at the start, got {first!r})")
        raise InputError(f"{name}: not a FASTA or FASTQ file (it starts with {first!r})")


def _fasta_record(pieces: list[bytes]) -> tuple[bytes, str]:
    header, _, body = b"".join(pieces).partition(b"\n")
    if b"#" in body:  # comment lines
        body = b"\n".join(line for line in body.split(b"\n") if line.strip()[:1] != b"#")
    return header, body.translate(None, _WHITESPACE).decode("latin-1")


def _fasta(blocks: Iterator[bytes]) -> Iterator[tuple[bytes, str]]:
    pieces: list[bytes] = []  # the record being read, without its '>'
    for block in blocks:
        parts = block.split(b"\n>")
        if block[:1] == b">":  # blocks end at line ends: a record starts here
            if pieces:
                yield _fasta_record(pieces)
            pieces, parts[0] = [], parts[0][1:]
        pieces.append(parts[0])
        if len(parts) > 1:
            yield _fasta_record(pieces)
            if b"#" in block:  # comment lines: record by record
                yield from (_fasta_record([part]) for part in parts[1:-1])
            else:  # whole records inside the block
                for header, _, body in (part.partition(b"\n") for part in parts[1:-1]):
                    yield header, body.translate(None, _WHITESPACE).decode("latin-1")
            pieces = [parts[-1]]
    yield _fasta_record(pieces)


def _fastq(blocks: Iterator[bytes], name: str) -> Iterator[tuple[bytes, str]]:
    lines: list[bytes] = []
    number = 0
    for block in blocks:
        lines = lines + block.splitlines()
        whole = len(lines) - len(lines) % 4
        for header, letters, plus, quality in zip(*(lines[k:whole:4] for k in range(4))):
            number += 1
            if header[:1] != b"@" or plus[:1] != b"+" or len(letters) != len(quality):
                raise _fastq_error(name, number, header, plus, letters, quality)
            yield header[1:], letters.decode("latin-1")
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


def _head(records: Iterator[tuple[bytes, str]]) -> list[tuple[bytes, str]]:
    """The first records, up to :data:`SAMPLE_LETTERS` letters: the sample the alphabet is guessed from."""
    head, total = [], 0
    for record in records:
        head.append(record)
        total += len(record[1])
        if total >= SAMPLE_LETTERS:
            break
    return head


def detect_alphabet(path) -> Alphabet:
    """Guess the alphabet from the first records' letters (up to 100,000).

    A stream (``"-"``, a pipe) is read whole and kept for the next read of it.
    """
    records = _records(os.fspath(path), keep=True)
    try:
        head = _head(records)
    finally:
        records.close()
    return guess_alphabet("".join(text for _, text in head))


#: Records encoded together (one table look-up for their letters).
ENCODE_GROUP = 4096


def _encode(records: Iterable[tuple[bytes, str]], alpha: Alphabet, name: str) -> Iterator[Sequence]:
    count = 0
    it = iter(records)
    while True:
        group = list(islice(it, ENCODE_GROUP))
        if not group:
            break
        meta = []
        for header, text in group:
            seq_name, description = split_header(header)
            if not seq_name:
                raise InputError(f"{name}: record {count + len(meta) + 1} has no name")
            if not text:
                raise InputError(f"{name}: record {seq_name!r} is empty (no sequence letters)")
            meta.append((seq_name, description))
        texts = [text for _, text in group]
        try:
            codes = alpha.encode("".join(texts))
        except InputError:  # again record by record, for the record's name and position
            for (seq_name, _), text in zip(meta, texts):
                try:
                    alpha.encode(text, record=seq_name)
                except InputError as exc:
                    raise InputError(f"{name}: {exc.message}", param=exc.param) from None
            raise
        codes.flags.writeable = False  # the records' code arrays are views of one buffer
        end = 0
        for (seq_name, description), text in zip(meta, texts):
            start, end = end, end + len(text)
            yield Sequence(seq_name, text, codes[start:end], alpha, description)
        count += len(group)
    if count == 0:
        raise InputError(f"{name}: no sequence records found")


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
    path = os.fspath(path)
    records = _records(path)
    head = _head(records)
    alpha = get_alphabet(alphabet) if alphabet is not None else guess_alphabet("".join(t for _, t in head))
    sequences = _encode(chain(head, records), alpha, source_name(path))
    if expect is not None:
        first = list(islice(sequences, len(head)))
        check_alphabet(first, expect, what, source=source_name(path))
        sequences = chain(first, sequences)
    yield from sequences


def read_sequences(path, alphabet: str | Alphabet | None = None, *, expect: str | Alphabet | None = None,
                   what: str = "the expected alphabet") -> list[Sequence]:
    """All records of a FASTA/FASTQ file, ``"-"`` or a pipe (see :func:`iter_sequences`)."""
    return list(iter_sequences(path, alphabet, expect=expect, what=what))
