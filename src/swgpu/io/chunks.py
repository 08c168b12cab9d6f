"""Files read a part at a time: :func:`file_batches` and :func:`paired_batches`.

A file of millions of records is read as :class:`~swgpu.io.sequence_batch.SequenceBatch`
es of about :data:`BLOCK` bytes each, so that the memory a command holds is
bounded by its parts in flight, not by the file. A FASTA file of the common
case (:mod:`~swgpu.io.scanner`) is read a block at a time (a plain file
read, not mapped: mapped pages would count as the process's memory; a
compressed one as it decompresses), cut at record starts, and each block
scanned in compiled code on threads. Anything else -- standard input,
FASTQ, a problem the compiled scan does not take -- is read record by record
(:mod:`~swgpu.io.readers`), in parts of the same size; a problem is reported
with the records, words and line numbers of :func:`~swgpu.io.readers.read_sequence_batch`.
The records are the same however the file is cut.

>>> import tempfile, os
>>> with tempfile.NamedTemporaryFile("w", suffix=".fa", delete=False) as fh:
...     _ = fh.write("".join(f">r{k}\\nACGTTG\\n" for k in range(10)))
>>> parts = list(file_batches(fh.name, "dna", block=40))
>>> len(parts) > 1, sum(map(len, parts)), parts[-1].names[-1]
(True, 10, 'r9')
>>> os.unlink(fh.name)
"""

from __future__ import annotations

import os
import stat
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from itertools import chain
from typing import Iterator

import numpy as np

from ..exceptions import InputError
from .alphabet import Alphabet, check_alphabet, get_alphabet
from .compiled import worth_bytes
from .sequence_batch import SequenceBatch

__all__ = ["BLOCK", "file_batches", "paired_batches", "read_ahead"]

#: Bytes of a file read as one part.
BLOCK = 16 << 20
_SCAN_LEAST = 2 << 20  # bytes of a block scanned by a thread of its own


_HINT = "give the alphabet explicitly to override"


def file_batches(path, alphabet: str | Alphabet, *, expect: str | Alphabet | None = None,
                 what: str = "the expected alphabet", hint: str | None = _HINT,
                 block: int | None = None, ahead: int = 0) -> Iterator[SequenceBatch]:
    """The records of ``path`` (a FASTA/FASTQ file, plain or compressed, ``"-"``,
    a pipe) as batches of about ``block`` bytes of the file each (:data:`BLOCK`), in order,
    encoded with ``alphabet``; with ``expect``, the first records' letters
    must look like it (as :func:`~swgpu.io.readers.read_sequence_batch` checks
    them; ``hint`` ends the message, as :func:`~swgpu.io.alphabet.check_alphabet`'s).
    ``ahead``: up to that many blocks of a scanned file past the one handed out
    are read and scanned at once, on threads of their own (that many blocks
    more in memory), while the caller handles it."""
    from .readers import STDIN, read_sequence_batch, source_name

    path = os.fspath(path)
    block = BLOCK if block is None else block
    alpha = get_alphabet(alphabet)
    size = _plain_size(path) if path != STDIN else None
    if size is not None and size <= block:  # one part: the whole-file reader
        whole = read_sequence_batch(path, alpha)
        if expect is not None:
            check_alphabet(whole.records(), expect, what, source=source_name(path), hint=hint)
        yield whole
        return
    done = 0
    if size is not None:
        batches = _scanned(path, alpha, expect, what, hint, block, ahead)
        try:
            for batch in batches:
                if batch is None:  # not the common case: record by record from here (the same records)
                    break
                done += len(batch)
                yield batch
            else:
                return
        finally:
            batches.close()
    yield from _record_batches(path, alpha, expect, what, hint, block, skip=done)


def _plain_size(path: str) -> int | None:
    """The size of a regular file (``None``: a stream, or not found -- the readers say why)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size * (4 if path.endswith((".gz", ".bz2", ".xz", ".zst")) else 1) \
        if stat.S_ISREG(st.st_mode) else None


def _texts(path: str, block: int) -> Iterator[np.ndarray]:
    """The file's text (``uint8``) in parts of about ``block`` bytes, each whole
    records (cut before a ``\\n>``). Read, not mapped: the pages of a mapped file
    would count in the process's memory until it ends."""
    from .readers import _open

    with _open(path, False) as stream:
        carry = np.zeros(0, dtype=np.uint8)
        while True:
            buf = np.empty(carry.size + block, dtype=np.uint8)
            buf[:carry.size] = carry
            got = _fill(stream, memoryview(buf)[carry.size:])
            size = carry.size + got
            if got == 0:
                if size:
                    yield buf[:size]
                return
            cut = _last_start(buf, size)
            if cut < 0:  # no record starts in it yet: read on
                carry = buf[:size]
                continue
            carry = buf[cut:size].copy()
            yield buf[:cut]


def _fill(stream, view: memoryview) -> int:
    """Read into ``view`` until it is full or the stream ends; how many bytes came."""
    got = 0
    readinto = getattr(stream, "readinto", None)
    while got < len(view):
        if readinto is not None:
            n = readinto(view[got:])
        else:
            data = stream.read(len(view) - got)
            n = len(data)
            view[got:got + n] = data
        if not n:
            break
        got += n
    return got


def _last_start(buf: np.ndarray, size: int) -> int:
    """Where the last record of ``buf[:size]`` starts (after its ``\\n``); -1 when none does past 0."""
    step = 1 << 20
    end = size
    while end > 0:
        a = max(0, end - step)
        found = buf[a:end].tobytes().rfind(b"\n>")
        if found >= 0:
            return a + found + 1
        end = a + 1  # (a ``\\n>`` across the boundary is found in the next window)
        if a == 0:
            break
    return -1


def _scanned(path: str, alpha: Alphabet, expect, what: str, hint, block: int,
             ahead: int = 0) -> Iterator[SequenceBatch | None]:
    """Parts scanned in compiled code; ``None`` for the first that is not of the
    common case. ``ahead``: after the first, up to that many blocks more are
    read and scanned at once, on threads of their own, and handed out in order."""
    from collections import deque

    from .readers import source_name
    from .scanner import _guess, scan_fasta

    size = _plain_size(path)
    compiled = size is None or worth_bytes(size)

    def scanned(held: list):
        data = held.pop()  # (the only reference: the text is freed once scanned, before the batch is made)
        found = scan_fasta(data, alpha.table, least=_SCAN_LEAST, compiled=compiled)
        del data
        return None if found is None else SequenceBatch.from_columns(*found, alpha)

    texts = _texts(path, block)
    data = next(texts, None)
    if data is None:
        return
    guessed = _guess(data[:4 << 20].tobytes())
    held = [data]
    del data
    batch = None if guessed is None else scanned(held)
    if batch is not None and expect is not None and guessed is not get_alphabet(expect):
        check_alphabet(batch.records(), expect, what, source=source_name(path), hint=hint)
    yield batch
    if batch is None:
        return
    pool = ThreadPoolExecutor(ahead, thread_name_prefix="swgpu-scan") if ahead else None

    def submit(held: list) -> Future:  # (no blocks ahead: scanned here, now)
        if pool is not None:
            return pool.submit(scanned, held)
        done = Future()
        done.set_result(scanned(held))
        return done

    pending: deque = deque()
    try:
        for data in chain(texts, [None]):
            end = data is None
            if not end:
                held = [data]
                del data
                pending.append(submit(held))
                if len(pending) <= ahead:
                    continue
            while pending and (end or len(pending) > ahead):
                batch = pending.popleft().result()
                yield batch
                if batch is None:
                    return
    finally:
        if pool is not None:
            pool.shutdown(wait=False, cancel_futures=True)
        texts.close()


def _record_batches(path: str, alpha: Alphabet, expect, what: str, hint, block: int,
                   skip: int) -> Iterator[SequenceBatch]:
    """Record by record (:mod:`~swgpu.io.readers`), in batches of about ``block`` letters, after the first ``skip``."""
    from .encoding import encode_block
    from .readers import _prepared, source_name

    batches, _, count = _prepared(path, alpha, expect)
    name = source_name(path)
    group, letters, first, before = [], 0, True, 0
    for batch in chain(batches, [None]):
        if batch is not None:
            group.append(batch)
            letters += len(batch.joined)
            if letters < block:
                continue
        if not group:
            break
        out = encode_block(group, alpha, name, before)
        group, letters = [], 0
        before += len(out)
        if first and count:
            check_alphabet(out.records(), expect, what, source=name, hint=hint)
        first = False
        if skip >= len(out):
            skip -= len(out)
            continue
        yield out.slice(skip, len(out)) if skip else out
        skip = 0


def read_ahead(items: Iterator, depth: int = 1) -> Iterator:
    """``items``, each made on a thread of its own while the caller handles the
    ones before: at most ``depth`` made and not yet taken (memory holds those
    and the caller's). Errors come in order; closing it stops the thread."""
    import queue

    q: queue.Queue = queue.Queue()
    slots = threading.Semaphore(depth)
    stop = threading.Event()
    end = object()

    def fill():
        try:
            while True:
                while not slots.acquire(timeout=0.1):
                    if stop.is_set():
                        return
                if stop.is_set():
                    return
                item = next(items, end)
                q.put((item, None))
                if item is end:
                    return
        except BaseException as exc:  # handed to the caller
            q.put((end, exc))
        finally:
            close = getattr(items, "close", None)
            if stop.is_set() and close is not None:
                close()

    thread = threading.Thread(target=fill, name="swgpu-read", daemon=True)
    thread.start()
    try:
        while True:
            item, exc = q.get()
            if exc is not None:
                raise exc
            if item is end:
                return
            slots.release()
            yield item
    finally:
        stop.set()


def paired_batches(query_path, target_path, records: int, *, alphabet: str | Alphabet,
                   expect: str | Alphabet | None = None, what: str = "the expected alphabet",
                   hint: str | None = _HINT, block: int | None = None,
                   ahead: int = 0, later: bool | None = None,
                   first: int | None = None) -> Iterator[tuple[SequenceBatch, SequenceBatch]]:
    """Record ``i`` of the query file with record ``i`` of the target file, in
    pairs of batches of ``records`` records each (the last may be shorter;
    the first of ``first`` records, when given: a pipeline's first stage starts sooner),
    both files read at once (``ahead``: blocks of each scanned ahead, :func:`file_batches`;
    ``later``: a part's records joined where first needed, :meth:`SequenceBatch.concat`,
    not here -- by default when ``ahead``).
    A file with more records than the other is an
    :class:`~swgpu.exceptions.InputError` that counts both, raised when the
    shorter one ends (after the pairs before it)."""
    from .readers import STDIN, source_name

    if os.fspath(query_path) == os.fspath(target_path) == STDIN:
        raise InputError("only one of the query and target files can be standard input (-)")
    sides = [file_batches(p, alphabet, expect=expect, what=what, hint=hint, block=block, ahead=ahead)
             for p in (query_path, target_path)]
    later = bool(ahead) if later is None else later
    pool = ThreadPoolExecutor(2, thread_name_prefix="swgpu-pairs")
    held: list[list[SequenceBatch]] = [[], []]
    ended = [False, False]
    seen = [0, 0]
    size = first or records
    try:
        while True:
            want = [not ended[s] and sum(map(len, held[s])) < size for s in (0, 1)]
            reads = {s: pool.submit(next, sides[s], None) for s in (0, 1) if want[s]}
            for s in (0, 1):  # (the query file's error first)
                if s in reads:
                    got = reads[s].result()
                    if got is None:
                        ended[s] = True
                    else:
                        held[s].append(got)
                        seen[s] += len(got)
            if any(want):
                continue
            n = min(size, *(sum(map(len, h)) for h in held))
            if n == 0:
                break
            yield _take(held[0], n, later), _take(held[1], n, later)
            size = records
        if seen[0] != seen[1]:
            for s in (0, 1):
                seen[s] += sum(map(len, sides[s]))
            raise InputError(f"{source_name(query_path)} has {seen[0]} records but {source_name(target_path)} "
                             f"has {seen[1]}; screen pairs record i with record i")
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        for side in sides:
            try:
                side.close()
            except ValueError:  # (still being read on the pool's thread: it ends with the process)
                pass


def _take(held: list[SequenceBatch], n: int, later: bool = False) -> SequenceBatch:
    """The first ``n`` records of the batches ``held`` (taken from it), copied
    only where they span two batches (what is left of a batch stays a view of
    it; ``later``: copied when first asked for, :meth:`SequenceBatch.concat`)."""
    pieces = []
    while n:
        batch = held[0]
        if len(batch) <= n:
            pieces.append(held.pop(0))
            n -= len(batch)
        else:
            pieces.append(batch.slice(0, n))
            held[0] = batch.slice(n, len(batch))
            n = 0
    return SequenceBatch.concat(pieces, later)
