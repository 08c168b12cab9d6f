"""The ``align`` workload: every query record against every target record,
each pair with a full traceback in linear memory.

>>> from swgpu import Scoring, Sequence
>>> qs = [Sequence.from_text("q1", "ACGTACGTAC")]
>>> ts = [Sequence.from_text("t1", "TTACGTTCGTAA"), Sequence.from_text("t2", "GGGG")]
>>> [(a.target, a.score) for a in align_all(qs, ts, Scoring.default("dna"))]
[('t1', 13), ('t2', 2)]
"""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterator, Sequence as Seq

from .aligner import Aligner
from ..align.alignment import Alignment
from ..scoring import Scoring
from ..io.sequence import Sequence
from ..scoring.statistics import Statistics

__all__ = ["align_all"]


def align_all(
    queries: Seq[Sequence],
    targets: Seq[Sequence],
    scoring: Scoring,
    device: str = "auto",
    threads: int | None = None,
    on_done: Callable[[int], None] | None = None,
) -> Iterator[Alignment]:
    """Yield the alignment of each (query, target) pair, query-major, in input order.

    Pairs run on ``threads`` CPU threads (the kernels release the GIL); empty
    alignments (score 0) are yielded too. ``on_done(cells)`` is called after each
    pair with its number of DP cells (for progress bars). With statistics for the
    scoring (see :mod:`swgpu.scoring.statistics`), E-values use the pair's lengths as the
    search space.
    """
    aligner = Aligner(scoring, device=device)  # engine errors surface here, before any output
    stats = Statistics.for_scoring(scoring)
    pairs = [(q, t) for q in queries for t in targets]
    threads = max(1, threads or os.cpu_count() or 1)
    return _run(aligner, stats, pairs, threads, on_done)


def _run(aligner, stats, pairs, threads, on_done) -> Iterator[Alignment]:
    def run(pair):
        q, t = pair
        aln = aligner.align(q, t)
        stats.annotate([aln], len(q), len(t), 1)
        if on_done is not None:
            on_done(len(q) * len(t))
        return aln

    if threads == 1 or len(pairs) <= 1:
        yield from map(run, pairs)
        return
    with ThreadPoolExecutor(max_workers=threads) as pool:
        # bounded look-ahead keeps memory flat on huge pair lists
        window = threads * 4
        futures = [pool.submit(run, p) for p in pairs[:window]]
        nxt = len(futures)
        for k in range(len(pairs)):
            aln = futures[k].result()
            futures[k] = None
            if nxt < len(pairs):
                futures.append(pool.submit(run, pairs[nxt]))
                nxt += 1
            yield aln
