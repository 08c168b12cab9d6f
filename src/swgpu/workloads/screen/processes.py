"""A screen of two paired FASTA files on one process per GPU: :class:`ProcessScreen`.

One process drives one GPU: it reads its parts of the files itself
(:func:`~swgpu.io.cuts.read_range`), scores and traces them with its own
:class:`~.screener.Screener` (read, scoring and tracing overlapped, as on one
GPU), makes their output bytes (:mod:`.output`) and appends them to a
temporary file of its own. This process only cuts the files into parts
(:func:`~swgpu.io.cuts.paired_cuts`: array passes, no parsing) and hands them
out -- whichever process is free takes the next -- and gets back, per part,
where its bytes lie (a :class:`Piece`), in the order they come; :meth:`ProcessScreen.pieces`
gives them in input order, so the output is one process's, byte for byte.
A part the compiled scan does not take (not the common case of FASTA) stops
the run with :class:`NotCommon`: the caller then reads the files as one process does.
"""

from __future__ import annotations

import io
import os
import tempfile
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np

from ...exceptions import SwgpuError
from ...scoring import Scoring

__all__ = ["LaneConfig", "Lane", "Piece", "ProcessScreen", "NotCommon"]

_OPENED, _DONE, _CUT = "opened", "done", "cut"


class NotCommon(SwgpuError):
    """A part of the files is not of the common case of FASTA: read them as one process does."""


@dataclass(frozen=True)
class LaneConfig:
    """What each process of a :class:`ProcessScreen` needs: the scoring and engine,
    the files, ``threshold`` (``None``: the score table) and the output's ``fmt``
    and ``columns``; ``folder``: where the processes' temporary files go; ``map_large``:
    each process gives its freed parts back to the system (large inputs, as one process does)."""

    scoring: Scoring
    query: str
    target: str
    device: str = "cuda"
    kernel: str = "auto"
    strand: str = "plus"
    threads: int | None = None
    threshold: int | None = None
    fmt: str | None = None
    columns: object = None
    folder: str | None = None
    map_large: bool = False  #: large blocks mapped on their own in each process (:func:`~swgpu.parallel.heap.map_large_blocks`)


class Lane(NamedTuple):
    """Process ``index`` of a :class:`ProcessScreen`, on GPU ``gpu`` (several processes may share a GPU),
    appending its bytes to the file ``path`` (made, and removed, by the :class:`ProcessScreen`)."""

    index: int
    gpu: int
    path: str = ""

    def __str__(self) -> str:
        return f"GPU {self.gpu} (process {self.index + 1})"


@dataclass
class Piece:
    """Part ``index``'s output: ``size`` bytes at ``offset`` of process ``lane``'s
    file; its ``pairs``, ``cells``, pairs ``selected`` and records ``written``;
    ``targets``: where its SAM ``@SQ`` lines and their names' hashes lie in that
    file (``(offset, bytes, offset, hashes)``; :meth:`ProcessScreen.targets` reads them)."""

    index: int
    lane: int
    offset: int
    size: int
    pairs: int
    cells: int
    selected: int = 0
    written: int = 0
    targets: tuple | None = None
    source: int = field(default=-1, repr=False)  # (the file's descriptor in this process)


def lane_main(lane: Lane, config: LaneConfig, tasks, results) -> None:
    """One process's work (:class:`~swgpu.parallel.processes.DeviceProcesses`): its
    parts of the files screened on its GPU, their bytes appended to its file.
    Its parts are read on a thread of their own, from the start (beside the
    engine's), then ahead of the scoring."""
    from ...io.alphabet import DNA
    from ...io.chunks import read_ahead
    from ...io.cuts import read_range
    from ...io.writers import AlignmentWriter
    from ...parallel.heap import map_large_blocks
    from .output import render_part, score_table
    from .screener import Screener, pair_cells

    if config.map_large:
        map_large_blocks()
    order: deque = deque()
    busy = {"tasks (waited)": 0.0, "read": 0.0, "render": 0.0}

    def parts():
        while True:
            t0 = time.perf_counter()
            cut = tasks.get()
            t1 = time.perf_counter()
            busy["tasks (waited)"] += t1 - t0
            if cut is None:
                return
            q, t = (read_range(p, *span, DNA, config.threads)
                    for p, span in ((config.query, cut.query), (config.target, cut.target)))
            if q is None or t is None or len(q) != cut.records or len(t) != cut.records:
                raise NotCommon(f"part {cut.index} is not of the common case")
            busy["read"] += time.perf_counter() - t1
            order.append(cut)
            yield q, t

    reads = read_ahead(parts(), 2)
    screener = Screener(config.scoring, device=config.device, kernel=config.kernel, threads=config.threads,
                        strand=config.strand, gpus=None if config.device == "cpu" else [lane.gpu],
                        traced=config.threshold is not None)
    sam = config.fmt in ("sam", "bam")
    writer = None if config.threshold is None else AlignmentWriter(
        io.StringIO(), "sam" if sam else config.fmt, scoring=config.scoring, body_only=sam, columns=config.columns)
    fd = os.open(lane.path, os.O_WRONLY | os.O_APPEND)
    results.put((_OPENED, lane.index))

    def write(data) -> int:
        view = memoryview(data).cast("B")
        done = 0
        while done < len(view):
            done += os.write(fd, view[done:])
        return len(view)

    offset = 0
    try:
        for part in screener.stream(reads, config.threshold):
            cut = order.popleft()
            t0 = time.perf_counter()
            if writer is None:
                data, targets, written = score_table(part), None, 0
            else:
                made = render_part(writer, part, sam, force=True)
                data, targets = made if made is not None else (b"", None)
                written = 0 if made is None else writer.counted(part.batch)
                if data is None:
                    raise NotCommon(f"{config.fmt} records of part {cut.index} are written one by one")
            size = write(data)
            where = None
            if targets is not None:  # (in the file too: what goes through the queue stays small)
                lines, hashes = targets
                at = offset + size
                length = write(lines)
                write(np.ascontiguousarray(hashes, dtype=np.uint64))
                where = (at, length, at + length, hashes.size)
            busy["render"] += time.perf_counter() - t0
            selected = 0 if config.threshold is None else len(part.result.selected)
            results.put(Piece(cut.index, lane.index, offset, size, cut.records, pair_cells(part.queries, part.targets),
                              selected, written, where))
            offset = os.lseek(fd, 0, os.SEEK_END)
        stages = {("read (waited)" if k == "read" else k): v for k, v in screener.busy.items()}
        results.put((_DONE, lane.index, {**stages, **busy}))
    finally:
        reads.close()
        os.close(fd)


class ProcessScreen:
    """A screen of ``config``'s files in parts of ``records`` pairs on one process per
    entry of ``devices`` (GPU ids; one GPU may come several times). :meth:`pieces` gives each part's :class:`Piece`
    in input order; its bytes stay readable (``piece.source``) until :meth:`close`. The
    processes' files are made here, in ``config.folder``, and removed once the processes
    opened them (or at :meth:`close`)."""

    def __init__(self, config: LaneConfig, devices: list, records: int):
        from ...parallel.processes import DeviceProcesses

        self.config, self.records = config, records
        #: Seconds each stage of the processes was busy, added over them (once :meth:`pieces` ended).
        self.busy: dict[str, float] = {}
        self._files: dict[int, int] = {}
        self._paths: dict[int, str] = {}
        self._pool = None
        self._stop = threading.Event()
        self._cutting = None
        try:
            for k in range(len(devices)):
                fd, self._paths[k] = tempfile.mkstemp(prefix=".swgpu-part-", dir=config.folder)
                self._files[k] = fd
            lanes = [Lane(k, gpu, self._paths[k]) for k, gpu in enumerate(devices)]
            self._pool = DeviceProcesses(lane_main, lanes, config, errors=(NotCommon,))
            self._cutting = threading.Thread(target=self._cut, name="swgpu-cut", daemon=True)
            self._cutting.start()
        except BaseException:
            self.close()
            raise

    def _cut(self) -> None:
        from ...io.cuts import paired_cuts

        count = 0
        try:
            try:
                for cut in paired_cuts(self.config.query, self.config.target, self.records):
                    if self._stop.is_set():
                        return
                    self._pool.put(cut)
                    count += 1
                self._pool.notify((_CUT, count, None))
            except BaseException as exc:  # (for the reader of the results)
                if not self._stop.is_set():
                    self._pool.notify((_CUT, None, exc))
            finally:
                if not self._stop.is_set():
                    self._pool.end()
        except (ValueError, OSError):  # (the pool closed meanwhile: the run has stopped)
            pass

    def pieces(self):
        """Each part's :class:`Piece`, in input order (waits for them)."""
        waiting: dict[int, Piece] = {}
        total, ended, k = None, 0, 0
        while total is None or k < total or ended < len(self._pool.devices):
            item = self._pool.get()
            if isinstance(item, Piece):
                item.source = self._files[item.lane]
                waiting[item.index] = item
                while k in waiting:
                    yield waiting.pop(k)
                    k += 1
            elif item[0] == _OPENED:
                self._remove(item[1])  # (its file lives on while it is open)
            elif item[0] == _DONE:
                ended += 1
                self._pool.finished(item[1])
                for stage, seconds in item[2].items():
                    self.busy[stage] = self.busy.get(stage, 0.0) + seconds
            else:
                _, total, exc = item
                if exc is not None:
                    raise exc

    def targets(self, piece: Piece):
        """A SAM piece's ``@SQ`` lines and their names' hashes, as
        :meth:`~swgpu.io.writers.sam_targets.HeaderTargets.prepare` makes them."""
        at, length, hashes_at, count = piece.targets
        lines = os.pread(piece.source, length, at)
        hashes = np.frombuffer(os.pread(piece.source, 8 * count, hashes_at), dtype=np.uint64)
        return lines, hashes

    def _remove(self, k: int) -> None:
        path = self._paths.pop(k, None)
        if path is not None:
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass

    def close(self) -> None:
        self._stop.set()
        if self._cutting is not None:
            self._cutting.join(timeout=2)
        if self._pool is not None:
            self._pool.close()
        for k in list(self._paths):
            self._remove(k)
        for fd in self._files.values():
            os.close(fd)
        self._files = {}

    def __enter__(self) -> ProcessScreen:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
