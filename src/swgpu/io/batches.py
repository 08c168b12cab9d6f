"""Records read together: :class:`RecordBatch`, and FASTA blocks cut into batches.

The readers hand records on in batches (one per block read), so that names,
letters and codes are made for many records at once. A block's whole FASTA
records are cut with array operations (:func:`whole_records`): record starts,
header ends and line ends are found with NumPy, headers and letters are
gathered in one pass each and decoded in bulk, and names are cut from
descriptions with array operations too. Records that this cannot take --
comment lines, headers that are not ASCII -- are read one by one as before
(:func:`fasta_record`), with the same result.

>>> batch = whole_records(b">r1 first read\\nAC\\nGT\\n>r2\\nTTA\\n")
>>> batch.names, batch.descriptions, batch.texts, bytes(batch.joined)
(['r1', 'r2'], ['first read', ''], ['ACGT', 'TTA'], b'\\x00ACGT\\x00TTA')
>>> whole_records(b">r1\\nAC\\n# a comment\\nGT\\n") is None
True
"""

from __future__ import annotations

from typing import Iterator, Sequence as Seq

import numpy as np

from .sequence import split_header

__all__ = ["RecordBatch", "SEP", "WHITESPACE", "fasta_batches", "fasta_record", "whole_records"]

#: What is dropped from a record's letters (and ends a name in an ASCII header).
WHITESPACE = b" \t\r\n\v\f"
_INSIDE_HEADER = b" \t\r\v\f"  # whitespace that is not a line end
_GT, _NL, _HASH = ord(">"), ord("\n"), ord("#")
#: Before each record's letters in :attr:`RecordBatch.joined`: never in a block
#: (control characters are binary data, refused when read).
SEP = b"\0"


class RecordBatch:
    """Records in file order: ``names``, ``descriptions`` and ``texts`` (the
    letters as read, whitespace dropped) are lists of ``str``; ``joined`` is
    every text as Latin-1 bytes, each after a ``\\0`` (:data:`SEP`), made from
    the texts when not given."""

    __slots__ = ("names", "descriptions", "texts", "_joined")

    def __init__(self, names: list[str], descriptions: list[str], texts: list[str],
                 joined: bytes | bytearray | None = None):
        self.names, self.descriptions, self.texts, self._joined = names, descriptions, texts, joined

    def __len__(self) -> int:
        return len(self.names)

    @property
    def joined(self) -> bytes | bytearray:
        if self._joined is None:
            self._joined = ("\0" + "\0".join(self.texts) if self.texts else "").encode("latin-1")
        return self._joined

    @classmethod
    def from_records(cls, records: Seq[tuple[bytes, str]]) -> "RecordBatch":
        """A batch of ``(header, text)`` records (the header as bytes, without ``>``/``@``)."""
        split = [split_header(header) for header, _ in records]
        return cls([s[0] for s in split], [s[1] for s in split], [text for _, text in records])


def fasta_record(pieces: list[bytes]) -> tuple[bytes, str]:
    """``(header, letters)`` of one record given as pieces of its text (without its ``>``)."""
    header, _, body = b"".join(pieces).partition(b"\n")
    if b"#" in body:  # comment lines
        body = b"\n".join(line for line in body.split(b"\n") if line.strip()[:1] != b"#")
    return header, body.translate(None, WHITESPACE).decode("latin-1")


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The positions ``starts[k] .. starts[k] + lengths[k] - 1`` of every range, in order."""
    ends = np.cumsum(lengths)
    return np.repeat(starts - (ends - lengths), lengths) + np.arange(int(ends[-1]) if ends.size else 0)


def _inside(positions: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> bool:
    """Whether any of ``positions`` lies in a range ``[starts[k], ends[k])`` (ranges sorted, disjoint)."""
    k = np.searchsorted(starts, positions, "right") - 1
    return bool(np.any((k >= 0) & (positions < ends[np.maximum(k, 0)])))


def _split_names(blob: bytes, n: int) -> tuple[list[str], list[str]]:
    """Names and descriptions of ``n`` ASCII headers, each a line of ``blob``:
    as :func:`~swgpu.io.sequence.split_header` cuts them."""
    headers = blob.decode("ascii").split("\n", n)[:n]
    if len(blob.translate(None, _INSIDE_HEADER)) == len(blob):  # no whitespace in any header
        return headers, [""] * n
    split = list(map(split_header, headers))
    return [s[0] for s in split], [s[1] for s in split]


def whole_records(region: bytes) -> RecordBatch | None:
    """The records of ``region``: whole FASTA records, the first at its start,
    each line ending in ``\\n``; ``None`` when it has comment lines or headers
    that are not ASCII (read those one by one, :func:`fasta_record`)."""
    a = np.frombuffer(region, dtype=np.uint8)
    gt = np.flatnonzero(a == _GT)
    starts = gt[a[gt - 1] == _NL]  # a '>' after a line end (the region ends with one, so gt[0] == 0 counts)
    lines = np.flatnonzero(a == _NL)
    header_end = lines[np.searchsorted(lines, starts)]
    if b"#" in region and _inside(np.flatnonzero(a == _HASH), header_end, np.append(starts[1:], a.size)):
        return None  # a '#' in letters: maybe comment lines
    if not region.isascii() and _inside(np.flatnonzero(a >= 0x80), starts, header_end):
        return None  # a header to decode as UTF-8 or Latin-1
    header_len = header_end - starts  # each header's text and its line end
    at = _ranges(starts + 1, header_len)
    blob = a[at].tobytes()  # every header, each ending in "\n"
    letters = bytearray(region)
    codes = np.frombuffer(letters, dtype=np.uint8)
    codes[at] = 32  # headers become whitespace, dropped with it, ...
    codes[starts] = 0  # ... their '>' a mark where each record's letters begin
    joined = letters.translate(None, WHITESPACE)
    texts = joined.decode("latin-1").split("\0")
    texts.pop(0)
    names, descriptions = _split_names(blob, starts.size)
    return RecordBatch(names, descriptions, texts, joined)


def fasta_batches(blocks: Iterator[bytes]) -> Iterator[RecordBatch]:
    """The records of FASTA ``blocks`` (each ending at a line end, the first
    starting with ``>``) in batches: for each block, the record it completes
    (read one by one), then its whole records."""
    pieces: list[bytes] = []  # the record being read, without its '>'
    for block in blocks:
        if block[:1] == b">":
            first = 0
        else:  # the block goes on with the record being read
            found = block.find(b"\n>")
            if found < 0:
                pieces.append(block)
                continue
            pieces.append(block[:found])
            first = found + 1
        single = [fasta_record(pieces)] if pieces else []
        last = max(block.rfind(b"\n>") + 1, first)  # where the last record of the block starts
        region = block[first:last]
        whole = whole_records(region) if region else None
        if region and whole is None:
            single += [fasta_record([part]) for part in region[1:].split(b"\n>")]
        if single:
            yield RecordBatch.from_records(single)
        if whole is not None:
            yield whole
        pieces = [block[last + 1:]]
    if pieces:
        yield RecordBatch.from_records([fasta_record(pieces)])
