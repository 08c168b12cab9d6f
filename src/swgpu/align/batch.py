"""Many alignments as columns: :class:`AlignmentBatch`.

An engine's batched traceback finds thousands of paths at once; making an
:class:`~swgpu.align.alignment.Alignment` object (and its strings) for each
costs far more than finding them. A batch keeps the results as arrays -- the
query and target of each alignment (indexes into the sequences it was made
from), score, coordinates, strand, counts, E-value and bit score -- and every
alignment's CIGAR as runs (length and letter ``=``, ``X``, ``I``, ``D``), all
runs end to end with offsets. The compiled writers
(:mod:`swgpu.io.writers.columns`) format a batch as it lies; :meth:`AlignmentBatch.alignments`
makes the :class:`~swgpu.align.alignment.Alignment` objects of the Python API
from it when they are asked for.

Coordinates are those of :class:`~swgpu.align.alignment.Alignment`: 0-based,
half-open, along the reverse complement of the query on the minus strand.

>>> from swgpu import Scoring, Sequence
>>> q, t = Sequence.from_text("q", "ACGTACGT"), Sequence.from_text("t", "ACGACGT")
>>> ops = np.array([0, 0, 0, 1, 0, 0, 0, 0], dtype=np.uint8)   # 0 pair, 1 query gap column, 2 target
>>> b = AlignmentBatch.from_paths(q.codes, np.array([0, 8]), t.codes, np.array([0, 7]), [0], [0], [0], [0],
...                               ops, [0, 8], [9], q.alphabet.unknown_code)
>>> b.cigars(), b.query_end.tolist(), b.gap_opens.tolist(), b.matches.tolist()
(['3=1I4='], [8], [1], [7])
>>> [a.cigar for a in b.alignments([q], [t], Scoring.default("dna"))]
['3=1I4=']
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Sequence as Seq

import numpy as np

from .alignment import Alignment
from .cigars import MARK, cigar_texts

__all__ = ["AlignmentBatch", "Paths", "STRANDS"]

#: The strand codes of :attr:`AlignmentBatch.strand`.
STRANDS = ("+", "-")
_OP_OF_LETTER = np.zeros(256, dtype=np.uint8)  # CIGAR letter -> path op (0 pair, 1 I, 2 D)
_OP_OF_LETTER[np.frombuffer(b"ID", dtype=np.uint8)] = [1, 2]


@dataclass
class Paths:
    """What an engine's batched traceback gives, one entry per pair: ``best``
    (0: no alignment), the start ``(i0, j0)``, and the path
    ``ops[off[k]:off[k + 1]]`` (0 pair, 1 query residue vs gap, 2 target
    residue vs gap); :meth:`AlignmentBatch.from_paths` makes the alignments.
    ``runs``: the paths' CIGAR runs and counts as :func:`~swgpu.align.runs.path_runs`
    gives them, where the engine made them beside the paths (a GPU's tracer,
    on the device: ``ops`` is then empty, not copied back), else None."""

    best: np.ndarray
    i0: np.ndarray
    j0: np.ndarray
    ops: np.ndarray
    off: np.ndarray
    runs: tuple | None = None


@dataclass(eq=False)
class AlignmentBatch:
    """Alignments as arrays, one entry each (``int64`` unless said):

    ``query_index``, ``target_index`` (into the sequences the batch was made
    from), ``score``, ``query_start``, ``query_end``, ``target_start``,
    ``target_end``, ``query_length``, ``target_length``, ``strand`` (``uint8``:
    0 plus, 1 minus), ``matches``, ``mismatches``, ``gap_opens``, ``gaps``,
    ``evalue`` and ``bitscore`` (``float64``, NaN where unknown); and the
    CIGAR runs of alignment ``k``: ``run_length[run_offset[k]:run_offset[k + 1]]``
    with their letters in ``run_op`` (``uint8``: ``=``, ``X``, ``I``, ``D``).
    An alignment without runs is empty (no alignment scoring above 0).
    """

    query_index: np.ndarray
    target_index: np.ndarray
    score: np.ndarray
    query_start: np.ndarray
    query_end: np.ndarray
    target_start: np.ndarray
    target_end: np.ndarray
    query_length: np.ndarray
    target_length: np.ndarray
    strand: np.ndarray
    matches: np.ndarray
    mismatches: np.ndarray
    gap_opens: np.ndarray
    gaps: np.ndarray
    evalue: np.ndarray
    bitscore: np.ndarray
    run_length: np.ndarray
    run_op: np.ndarray
    run_offset: np.ndarray

    def __len__(self) -> int:
        return int(self.score.size)

    @property
    def length(self) -> np.ndarray:
        """Alignment columns of each."""
        return self.matches + self.mismatches + self.gaps

    @property
    def empty(self) -> np.ndarray:
        """Whether each alignment has no columns."""
        return self.run_offset[1:] == self.run_offset[:-1]

    # ------------------------------------------------------------- making
    @classmethod
    def from_paths(cls, qcodes: np.ndarray, qoffsets, tcodes: np.ndarray, toffsets, query_index, target_index,
                   query_start, target_start, ops: np.ndarray, offsets, scores, unknown: int,
                   strand=None, runs: tuple | None = None) -> "AlignmentBatch":
        """Alignment ``k`` of query ``query_index[k]`` (codes
        ``qcodes[qoffsets[i]:qoffsets[i + 1]]``, reverse-complemented already on
        the minus strand) against target ``target_index[k]`` starts at
        ``(query_start[k], target_start[k])`` and follows the path
        ``ops[offsets[k]:offsets[k + 1]]`` (0 a pair, 1 a query residue against
        a gap, 2 a target residue against a gap), scoring ``scores[k]``. A pair
        of equal codes is ``=`` unless it is the alphabet's ``unknown`` letter.
        ``runs``: the paths' runs and counts made already (:attr:`Paths.runs`; ``ops`` unused)."""
        from .runs import path_runs

        qi = np.asarray(query_index, dtype=np.int64)
        ti = np.asarray(target_index, dtype=np.int64)
        qoffsets, toffsets = np.asarray(qoffsets, dtype=np.int64), np.asarray(toffsets, dtype=np.int64)
        qs, ts = np.asarray(query_start, dtype=np.int64), np.asarray(target_start, dtype=np.int64)
        off = np.asarray(offsets, dtype=np.int64)
        if runs is None:
            runs = path_runs(np.asarray(ops, dtype=np.uint8), off, qcodes, qoffsets[qi] + qs, tcodes,
                             toffsets[ti] + ts, int(unknown))
        runs, counts = runs
        run_length, run_op, run_offset = runs
        matches, mismatches, gaps, gap_opens, q_used, t_used = counts
        n = qi.size
        nan = np.full(n, np.nan)
        return cls(qi, ti, np.asarray(scores, dtype=np.int64).copy(), qs, qs + q_used, ts, ts + t_used,
                   np.diff(qoffsets)[qi], np.diff(toffsets)[ti],
                   np.zeros(n, np.uint8) if strand is None else np.asarray(strand, dtype=np.uint8),
                   matches, mismatches, gap_opens, gaps, nan, nan.copy(), run_length, run_op, run_offset)

    @classmethod
    def from_alignments(cls, alignments: Seq[Alignment], query_index=None, target_index=None) -> "AlignmentBatch":
        """A batch of ``alignments`` (indexes default to ``0 .. n - 1``)."""
        n = len(alignments)
        idx = np.arange(n, dtype=np.int64)

        def col(name, dtype=np.int64):
            return np.fromiter((getattr(a, name) for a in alignments), dtype=dtype, count=n)

        def stat(name):
            return np.fromiter((np.nan if getattr(a, name) is None else getattr(a, name) for a in alignments),
                               dtype=np.float64, count=n)

        lengths, letters, offsets = _runs_of(a.cigar for a in alignments)
        return cls(idx if query_index is None else np.asarray(query_index, np.int64),
                   idx.copy() if target_index is None else np.asarray(target_index, np.int64),
                   col("score"), col("query_start"), col("query_end"), col("target_start"), col("target_end"),
                   col("query_length"), col("target_length"),
                   np.fromiter((a.strand == "-" for a in alignments), dtype=np.uint8, count=n),
                   col("matches"), col("mismatches"), col("gap_opens"), col("gaps"), stat("evalue"),
                   stat("bitscore"), lengths, letters, offsets)

    @classmethod
    def concat(cls, batches: Seq["AlignmentBatch"]) -> "AlignmentBatch":
        """The alignments of ``batches``, in order, as one batch."""
        if len(batches) == 1:
            return batches[0]
        if not batches:
            return cls(**{f.name: np.zeros(1 if f.name == "run_offset" else 0,
                                           np.float64 if f.name in ("evalue", "bitscore")
                                           else np.uint8 if f.name in ("strand", "run_op") else np.int64)
                          for f in fields(cls)})
        values = {}
        for f in fields(cls):
            parts = [getattr(b, f.name) for b in batches]
            if f.name == "run_offset":
                shift = np.cumsum([0] + [b.run_length.size for b in batches[:-1]])
                values[f.name] = np.concatenate([parts[0][:1]] + [p[1:] + s for p, s in zip(parts, shift)])
            else:
                values[f.name] = np.concatenate(parts)
        return cls(**values)

    def take(self, index) -> "AlignmentBatch":
        """The alignments ``index`` (an array of positions), in that order."""
        index = np.asarray(index, dtype=np.int64)
        values = {f.name: getattr(self, f.name)[index] for f in fields(self) if not f.name.startswith("run_")}
        first, count = self.run_offset[index], np.diff(self.run_offset)[index]
        offsets = np.zeros(index.size + 1, dtype=np.int64)
        np.cumsum(count, out=offsets[1:])
        at = np.repeat(first - offsets[:-1], count) + np.arange(int(offsets[-1]))
        return type(self)(**values, run_length=self.run_length[at], run_op=self.run_op[at], run_offset=offsets)

    # ------------------------------------------------------------- reading
    def cigars(self) -> list[str]:
        """The CIGAR of each alignment (``""`` for an empty one)."""
        n = len(self)
        if not n:
            return []
        marks = self.run_offset[1:] + np.arange(1, n + 1)  # each alignment's runs, then a mark run
        total = self.run_length.size + n
        length = np.zeros(total, dtype=np.int64)
        letter = np.full(total, MARK, dtype=np.uint8)
        keep = np.ones(total, dtype=bool)
        keep[marks - 1] = False
        length[keep], letter[keep] = self.run_length, self.run_op
        return cigar_texts(length, letter)

    def ops(self) -> tuple[np.ndarray, np.ndarray]:
        """Every alignment's path (0 a pair, 1 ``I``, 2 ``D``), end to end, and its offsets."""
        steps = _OP_OF_LETTER[self.run_op]
        path = np.repeat(steps, self.run_length)
        columns = np.zeros(self.run_length.size + 1, dtype=np.int64)  # columns before each run
        np.cumsum(self.run_length, out=columns[1:])
        return path, columns[self.run_offset]

    def alignments(self, queries: Seq, targets: Seq, scoring) -> list[Alignment]:
        """The :class:`Alignment` objects: alignment ``k`` of ``queries[query_index[k]]``
        (as read; reverse-complemented here on the minus strand) against
        ``targets[target_index[k]]``, field for field what the batch holds."""
        from .assembly import alignments_from_paths

        n = len(self)
        qs = [queries[i] for i in self.query_index.tolist()]
        ts = [targets[i] for i in self.target_index.tolist()]
        minus = np.flatnonzero(self.strand == 1).tolist()
        for k in minus:
            qs[k] = qs[k].reverse_complement()
        out: list = [None] * n
        live = np.flatnonzero(~self.empty)
        path, offsets = self.ops()
        if live.size:
            made = alignments_from_paths([qs[k] for k in live.tolist()], [ts[k] for k in live.tolist()], scoring,
                                         self.query_start[live], self.target_start[live], path,
                                         _sub_offsets(offsets, live), self.score[live])
            for k, aln in zip(live.tolist(), made):
                out[k] = aln
        for k in np.flatnonzero(self.empty).tolist():
            out[k] = Alignment.empty_for(qs[k], ts[k])
            out[k].score = int(self.score[k])
        evalue, bits = self.evalue.tolist(), self.bitscore.tolist()
        for k, aln in enumerate(out):
            aln.strand = STRANDS[int(self.strand[k])]
            if evalue[k] == evalue[k]:  # (NaN: unknown)
                aln.evalue = evalue[k]
            if bits[k] == bits[k]:
                aln.bitscore = bits[k]
        return out


def _sub_offsets(offsets: np.ndarray, live: np.ndarray) -> np.ndarray:
    """Offsets of the paths ``live`` alone, which lie end to end with nothing between (the others are empty)."""
    sizes = offsets[live + 1] - offsets[live]
    out = np.zeros(live.size + 1, dtype=np.int64)
    np.cumsum(sizes, out=out[1:])
    return out + offsets[live[0]]


def _runs_of(cigars) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Runs (lengths, letters) and offsets of CIGAR strings."""
    import re

    lengths: list[int] = []
    letters: list[int] = []
    counts: list[int] = []
    for cigar in cigars:
        found = re.findall(r"(\d+)([=XID])", cigar)
        counts.append(len(found))
        lengths += [int(n) for n, _ in found]
        letters += [ord(op) for _, op in found]
    offsets = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    return np.array(lengths, dtype=np.int64), np.array(letters, dtype=np.uint8), offsets
