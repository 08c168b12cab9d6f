"""Many alignments assembled at once from their paths (NumPy over all of them).

:meth:`~swgpu.align.alignment.Alignment.from_ops` builds one alignment; a
batched traceback returns thousands of paths, and building them one by one
costs far more than finding them. :func:`alignments_from_paths` gives the same
alignments, field for field, from the concatenated paths, with array
operations over many paths at a time.

The paths of a group lie end to end, each followed by one *mark* column.
Every column's letters, match-line character and CIGAR letter come from
table look-ups; the mark columns put a separator after each alignment in the
aligned texts, the match lines and the CIGARs, so that one ``split`` cuts each
into the alignments' strings. Counts per alignment (matches, mismatches, gap
columns, gap opens) are sums over its runs of equal CIGAR letters. Paths are
taken in groups of about :data:`GROUP_COLUMNS` columns, whose arrays stay in
the processor's caches.

>>> from swgpu import Scoring, Sequence
>>> q = Sequence.from_text("q", "ACGTACGT")
>>> t = Sequence.from_text("t", "ACGACGT")
>>> ops = np.array([0, 0, 0, 1, 0, 0, 0, 0], dtype=np.uint8)   # 0 pair, 1 query gap column, 2 target
>>> [a] = alignments_from_paths([q], [t], Scoring.default("dna"), [0], [0], ops, [0, 8], [9])
>>> a.cigar, a.query_aligned, a.target_aligned, a.gap_opens
('3=1I4=', 'ACGTACGT', 'ACG-ACGT', 1)
"""

from __future__ import annotations

from typing import Sequence as Seq

import numpy as np

from ..io.sequence import Sequence
from ..scoring import Scoring
from .alignment import Alignment
from .cigars import MARK, RUN_KIND, cigar_texts

__all__ = ["alignments_from_paths", "GROUP_COLUMNS"]

#: Columns of the paths assembled together (a group ends at a path's end).
GROUP_COLUMNS = 1 << 18

_MARK_OP = 3  # the op of the mark column after each path
_GAP = np.uint8(ord("-"))


class _Letters:
    """The letters and codes of sequences end to end (one entry more: a ``-``
    for the column after the last letter), each one's length and first
    position, and whether the letters hold the separator :data:`~.cigars.MARK`."""

    def __init__(self, seqs: Seq[Sequence], starts: np.ndarray):
        texts = [s.text for s in seqs]
        self.lengths = list(map(len, texts))
        texts.append("-")
        raw = "".join(texts).encode("latin-1")
        self.text = np.frombuffer(raw, dtype=np.uint8)
        codes = [s.codes for s in seqs]
        codes.append(np.zeros(1, np.uint8))
        try:  # the codes' bytes end to end: uint8 arrays, each in one piece
            joined = b"".join(codes)
        except (BufferError, TypeError):
            joined = b""
        if len(joined) == len(raw):
            self.codes = np.frombuffer(joined, dtype=np.uint8)
        else:
            self.codes = np.concatenate(codes).astype(np.uint8, copy=False)
        self.first = np.zeros(len(seqs), dtype=np.int64)
        np.cumsum(self.lengths[:-1], out=self.first[1:])
        self.first += starts
        self.has_mark = bytes([MARK]) in raw


class _Tables:
    """CIGAR letter and match-line character of each ``(op, query code, target
    code)``, at ``(op * size + query code) * size + target code``."""

    def __init__(self, scoring: Scoring, unknown: int):
        m = np.asarray(scoring.matrix.values)
        size = self.size = m.shape[0]
        a, b = np.meshgrid(np.arange(size), np.arange(size), indexing="ij")
        same = (a == b) & (a != unknown)
        cigar = np.empty((4, size, size), dtype=np.uint8)
        line = np.empty((4, size, size), dtype=np.uint8)
        cigar[0] = np.where(same, ord("="), ord("X"))
        line[0] = np.where(same, ord("|"), np.where(m > 0, ord(":"), ord(".")))
        cigar[1], cigar[2], cigar[_MARK_OP] = ord("I"), ord("D"), MARK
        line[1], line[2], line[_MARK_OP] = ord(" "), ord(" "), MARK
        self.dtype = np.uint8 if cigar.size <= 256 else np.uint16
        self.cigar, self.line = cigar.ravel(), line.ravel()
        self._bytes = {}  # each table as a 256-byte translation, for look_up
        if self.dtype is np.uint8:
            for which, table in (("cigar", self.cigar), ("line", self.line)):
                full = np.zeros(256, dtype=np.uint8)
                full[:table.size] = table
                self._bytes[which] = full.tobytes()

    def look_up(self, which: str, index: np.ndarray) -> np.ndarray:
        """Entries ``index`` of the ``"cigar"`` or ``"line"`` table."""
        if self.dtype is np.uint8:  # bytes.translate: no index conversion
            return np.frombuffer(index.tobytes().translate(self._bytes[which]), dtype=np.uint8)
        return getattr(self, which)[index]


def alignments_from_paths(queries: Seq[Sequence], targets: Seq[Sequence], scoring: Scoring, query_starts,
                          target_starts, ops: np.ndarray, offsets, scores) -> list[Alignment]:
    """Alignment ``k`` of ``queries[k]`` against ``targets[k]`` starts at
    ``(query_starts[k], target_starts[k])`` and follows the path
    ``ops[offsets[k]:offsets[k + 1]]`` (0 a pair, 1 a query residue against a
    gap, 2 a target residue against a gap), scoring ``scores[k]``; the same
    result as :meth:`Alignment.from_ops` for each (the paths must lie inside
    their sequences)."""
    n = len(queries)
    if n == 0:
        return []
    off = np.asarray(offsets, dtype=np.int64)
    ops = np.asarray(ops, dtype=np.uint8)[off[0]:off[-1]]
    off = off - off[0]
    qs = np.asarray(query_starts, dtype=np.int64)
    ts = np.asarray(target_starts, dtype=np.int64)
    q, t = _Letters(queries, qs), _Letters(targets, ts)
    tables = _Tables(scoring, queries[0].alphabet.unknown_code)
    texts: list[list[str]] = [[], [], [], []]  # CIGARs, aligned query, aligned target, match lines
    counts: list[list[np.ndarray]] = [[], [], [], [], [], []]  # letters used of each, matches, ...
    start = 0
    for end in _group_ends(off):
        group = _Group(ops[off[start]:off[end]], np.diff(off[start:end + 1]))
        found = group.assemble(q, t, start, end, tables)
        for out, values in zip(texts, found):
            out += values
        for out, values in zip(counts, found[len(texts):]):
            out.append(values)
        start = end
    cigars, q_aligned, t_aligned, lines = texts
    q_used, t_used, matches, mismatches, gaps, opens = (np.concatenate(parts) for parts in counts)
    return list(map(Alignment, [s.name for s in queries], [s.name for s in targets],
                    np.asarray(scores, dtype=np.int64).tolist(), q.lengths, t.lengths,
                    qs.tolist(), (qs + q_used).tolist(), ts.tolist(), (ts + t_used).tolist(),
                    cigars, q_aligned, t_aligned, lines, matches.tolist(), mismatches.tolist(), opens.tolist(),
                    gaps.tolist()))


def _group_ends(off: np.ndarray) -> list[int]:
    """Where each group of paths ends (paths ``off``): about :data:`GROUP_COLUMNS` columns each."""
    columns = off + np.arange(off.size)  # with the marks
    ends = np.searchsorted(columns, np.arange(1, int(columns[-1]) // GROUP_COLUMNS + 1) * GROUP_COLUMNS)
    return sorted({*np.maximum(ends, 1).tolist(), off.size - 1} - {0})


class _Group:
    """Paths laid end to end, each followed by its mark column."""

    def __init__(self, ops: np.ndarray, counts: np.ndarray):
        self.counts = counts
        self.cols = np.insert(ops, np.cumsum(counts), np.uint8(_MARK_OP))
        self.marks = np.cumsum(counts + 1) - 1
        self.starts = self.marks - counts

    def _positions(self, uses: np.ndarray, first: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """For each column, ``first`` of its path plus the columns of its path
        before it that have ``uses`` (a mark uses nothing); and how many of
        each path's columns have it."""
        used = np.add.reduceat(uses.view(np.uint8), self.starts, dtype=np.int64)
        step = np.empty(uses.size, dtype=np.int64)  # the position moves on after a column that uses a letter ...
        step[0] = 0
        step[1:] = uses[:-1]
        jump = first.copy()  # ... and jumps to the first letter of each path
        jump[1:] -= first[:-1] + used[:-1]
        step[self.starts] += jump
        return np.cumsum(step, out=step), used

    def _aligned(self, letters: _Letters, pos: np.ndarray, uses: np.ndarray) -> list[str]:
        """Each path's letters of one sequence, with gaps."""
        column = np.where(uses, letters.text[pos], _GAP)
        if letters.has_mark:  # cut by position
            text = column.tobytes().decode("latin-1")
            return [text[a:a + c] for a, c in zip(self.starts.tolist(), self.counts.tolist())]
        column[self.marks] = MARK
        return _split(column, "latin-1")

    def assemble(self, q: _Letters, t: _Letters, start: int, end: int, tables: _Tables) -> tuple:
        """CIGARs, aligned query and target, match lines, and the letters used
        of the query and target, matches, mismatches, gap columns and gap opens
        of each path (paths ``start .. end - 1`` of ``q`` and ``t``)."""
        cols = self.cols
        uses_q, uses_t = cols < 2, (cols & 1) == 0  # pairs and query letters; pairs and target letters
        qpos, q_used = self._positions(uses_q, q.first[start:end])
        tpos, t_used = self._positions(uses_t, t.first[start:end])
        kind, size = tables.dtype, tables.size
        index = cols.astype(kind) * kind(size * size)  # (op, query code, target code) of each column
        index += q.codes[qpos].astype(kind) * kind(size)
        index += t.codes[tpos]
        run_len, run_letter = _runs(tables.look_up("cigar", index), self.marks)
        return (cigar_texts(run_len, run_letter), self._aligned(q, qpos, uses_q), self._aligned(t, tpos, uses_t),
                _split(tables.look_up("line", index)), q_used, t_used,
                *_per_path(run_len, run_letter, end - start))


def _runs(letters: np.ndarray, marks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Length and letter of each run of equal CIGAR letters (a mark column is a run of its own)."""
    new = np.empty(letters.size, dtype=bool)
    new[0] = True
    np.not_equal(letters[1:], letters[:-1], out=new[1:])
    new[marks] = True  # the marks of paths without columns are next to each other
    at = np.flatnonzero(new)
    return np.diff(at, append=letters.size), letters[at]


def _per_path(run_len: np.ndarray, run_letter: np.ndarray, n: int) -> tuple[np.ndarray, ...]:
    """Matches, mismatches, gap columns and gap opens of each of ``n`` paths
    (each path's runs end with its mark run)."""
    kind = RUN_KIND[run_letter].astype(np.int64)  # = X I D: 0-3, the mark: 4
    mark = kind == 4
    key = (np.cumsum(mark) - mark) * 5 + kind  # (path, kind) of each run
    columns = np.bincount(key, weights=run_len, minlength=5 * n).reshape(n, 5).astype(np.int64)
    runs = np.bincount(key, minlength=5 * n).reshape(n, 5)
    return columns[:, 0], columns[:, 1], columns[:, 2] + columns[:, 3], runs[:, 2] + runs[:, 3]


def _split(column_chars: np.ndarray, encoding: str = "ascii") -> list[str]:
    """The strings between the separators (one after each path)."""
    out = column_chars.tobytes().decode(encoding).split(chr(MARK))
    out.pop()
    return out
