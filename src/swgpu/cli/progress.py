"""What a command reports on standard error while it works: a progress bar
(on a terminal, for work expected to take over a second) and, at the end, one
summary line (always, unless ``--quiet``)."""

from __future__ import annotations

import sys
import time

__all__ = ["Report", "plural", "process_start"]

#: When the ``swgpu`` process started, on :func:`time.perf_counter`'s clock (set by
#: :func:`swgpu.cli.main.entry` before any work; a detached child inherits it).
#: A :class:`Report` then counts its time from there, with a ``start`` phase.
PROCESS_START: float | None = None


def process_start() -> float | None:
    """When this process started, on :func:`time.perf_counter`'s clock (Linux's
    ``/proc``; None elsewhere)."""
    import os

    try:
        with open("/proc/self/stat", "rb") as fh:
            ticks = int(fh.read().rsplit(b")", 1)[1].split()[19])
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return None
    return time.perf_counter() - max(age, 0.0)

# a bar only for jobs of more DP cells than this (about a second on a CPU)
BAR_CELLS = 200_000_000

_PLURALS = {"query": "queries"}


def plural(n: int, word: str) -> str:
    """``n`` and ``word``, in the plural unless ``n`` is 1.

    >>> plural(1, "query"), plural(2, "query"), plural(0, "hit"), plural(1200, "pair")
    ('1 query', '2 queries', '0 hits', '1,200 pairs')
    """
    return f"{n:,} {word if n == 1 else _PLURALS.get(word, word + 's')}"


class Report:
    """The progress bar and summary line of one command run, timed from its creation.

    :meth:`progress` (a ``with`` block around the work) shows the bar for
    ``total_cells`` DP cells, which :meth:`advance` moves; :meth:`summary`
    prints the last line. With ``quiet`` nothing is printed; when standard
    error is not a terminal only the summary line is.

    >>> import io
    >>> report = Report("swgpu search", stream=io.StringIO())
    >>> report.start -= 1.5
    >>> with report.progress(3_000_000_000, "searching"):
    ...     report.advance(3_000_000_000)
    >>> report.summary("2 queries, 20 hits written")  # doctest: +ELLIPSIS
    'swgpu search: 2 queries, 20 hits written, 1.5... s, ... GCUPS'
    """

    def __init__(self, command: str, quiet: bool = False, stream=None, timings: bool = False):
        self.command = command
        self.quiet = quiet
        self.timings = timings
        #: Seconds per phase (read, upload, compile, score, traceback, write), in order.
        self.phases: dict[str, float] = {}
        #: Seconds each stage of a streamed run was busy (:meth:`busy`).
        self.stages: dict[str, float] = {}
        self._mark: float | None = None
        self.stream = sys.stderr if stream is None else stream
        self.start = time.perf_counter()
        if PROCESS_START is not None and PROCESS_START < self.start:  # the interpreter's start and the imports
            self.phases["start"] = self.start - PROCESS_START
            self._mark, self.start = self.start, PROCESS_START
        self.cells = 0
        self._bar = None
        self._task = None

    def progress(self, total_cells: int, label: str, moving: bool = True) -> Report:
        """Expect ``total_cells`` DP cells of work (for the bar and the GCUPS of the
        summary). ``moving=False``: the work reports no progress, so the bar
        shows the elapsed time only. Returns ``self``, to use in ``with``."""
        self.cells = total_cells
        isatty = getattr(self.stream, "isatty", None)
        if not self.quiet and callable(isatty) and isatty() and total_cells > BAR_CELLS:
            self._bar = self._make_bar(label, total_cells if moving else None)
        return self

    def _make_bar(self, label: str, total: int | None):
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        columns = [TextColumn(label), BarColumn()]
        if total is not None:
            columns += [TextColumn("{task.percentage:>3.0f}%  ETA"), TimeRemainingColumn()]
        else:
            columns += [TimeElapsedColumn()]
        bar = Progress(*columns, console=Console(file=self.stream), transient=True,
                       redirect_stdout=False, redirect_stderr=False)
        self._task = bar.add_task(label, total=total)
        return bar

    def __enter__(self) -> Report:
        if self._bar is not None:
            self._bar.start()
        return self

    def __exit__(self, *exc) -> None:
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    def advance(self, cells: int) -> None:
        """``cells`` more DP cells done (from any thread)."""
        if self._bar is not None:
            self._bar.advance(self._task, cells)

    def phase(self, name: str, seconds: float | None = None, rest_to_next: bool = False) -> None:
        """Close phase ``name``: ``seconds`` given, or the time since the last
        phase closed (or the start). ``rest_to_next``: of the time since the
        last phase closed, what ``seconds`` leave goes to the next phase."""
        now = time.perf_counter()
        last = self._mark if self._mark is not None else self.start
        if seconds is None:
            seconds = now - last
        self.phases[name] = self.phases.get(name, 0.0) + seconds
        self._mark = min(now, last + seconds) if rest_to_next else now

    def busy(self, name: str, seconds: float) -> None:
        """Seconds a stage of a streamed run was busy, overlapped with the
        others (printed with ``timings`` after the phases, not added to them)."""
        self.stages[name] = self.stages.get(name, 0.0) + seconds

    def summary(self, what: str) -> str:
        """Print (unless quiet) and return the summary line: ``what``, the wall
        time since the start and, when cells were expected, GCUPS over it."""
        seconds = time.perf_counter() - self.start
        line = f"{self.command}: {what}, {seconds:.2f} s"
        if self.cells:
            line += f", {self.cells / max(seconds, 1e-9) / 1e9:.3g} GCUPS"
        if not self.quiet:
            print(line, file=self.stream, flush=True)
        if self.timings:  # one line per phase, as CUDASW++'s --verbose, the seconds in one column
            rows = [*self.phases.items(), ("total", seconds)]
            width = max(10, *(len(name) for name, _ in rows))
            for name, sec in rows:
                print(f"{self.command}: {name:<{width}s} {sec:9.3f} s", file=self.stream, flush=name == "total")
            for name, sec in self.stages.items():
                print(f"{self.command}: {name:<{width}s} {sec:9.3f} s busy, overlapped", file=self.stream)
        return line
