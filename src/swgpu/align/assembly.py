"""Many alignments assembled at once from their paths (NumPy over all of them).

:meth:`~swgpu.align.alignment.Alignment.from_ops` builds one alignment; a
batched traceback returns thousands of paths, and building them one by one
costs far more than finding them. :func:`alignments_from_paths` gives the same
alignments, field for field, from the concatenated paths in one pass.

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

__all__ = ["alignments_from_paths"]

_RESOLVED = np.frombuffer(b"=XID", dtype=np.uint8)  # same pair, other pair, query gap, target gap


def _concat_text(seqs: Seq[Sequence]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Letters and codes of all sequences end to end, and each one's first position."""
    base = np.zeros(len(seqs) + 1, dtype=np.int64)
    np.cumsum([len(s) for s in seqs], out=base[1:])
    text = np.frombuffer("".join(s.text for s in seqs).encode("latin-1"), dtype=np.uint8)
    codes = np.concatenate([s.codes for s in seqs]) if seqs else np.zeros(0, np.uint8)
    return text, codes, base


def _within(flags: np.ndarray, seg: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """For each column, how many columns of its own path before it have ``flags``."""
    c = np.cumsum(flags, dtype=np.int64) - flags
    return c - c[starts][seg]


def alignments_from_paths(queries: Seq[Sequence], targets: Seq[Sequence], scoring: Scoring, query_starts,
                          target_starts, ops: np.ndarray, offsets, scores) -> list[Alignment]:
    """Alignment ``k`` of ``queries[k]`` against ``targets[k]`` starts at
    ``(query_starts[k], target_starts[k])`` and follows the path
    ``ops[offsets[k]:offsets[k + 1]]`` (0 a pair, 1 a query residue against a
    gap, 2 a target residue against a gap), scoring ``scores[k]``; the same
    result as :meth:`Alignment.from_ops` for each."""
    n = len(queries)
    off = np.asarray(offsets, dtype=np.int64)
    counts = np.diff(off)
    ops = np.asarray(ops, dtype=np.uint8)[off[0]: off[-1]] if n else np.zeros(0, np.uint8)
    seg = np.repeat(np.arange(n, dtype=np.int64), counts)
    starts = off[:-1] - off[0]
    is_pair, uses_q, uses_t = ops == 0, ops != 2, ops != 1
    qtext, qcodes, qbase = _concat_text(queries)
    ttext, tcodes, tbase = _concat_text(targets)
    qi = np.asarray(query_starts, dtype=np.int64)[seg] + _within(uses_q, seg, starts)
    tj = np.asarray(target_starts, dtype=np.int64)[seg] + _within(uses_t, seg, starts)
    qpos = np.minimum(qbase[seg] + qi, max(qtext.size - 1, 0))
    tpos = np.minimum(tbase[seg] + tj, max(ttext.size - 1, 0))
    gap = np.uint8(ord("-"))
    qa = np.where(uses_q, qtext[qpos] if qtext.size else gap, gap)
    ta = np.where(uses_t, ttext[tpos] if ttext.size else gap, gap)
    qc = qcodes[qpos] if qcodes.size else np.zeros_like(ops)
    tc = tcodes[tpos] if tcodes.size else np.zeros_like(ops)
    unknown = queries[0].alphabet.unknown_code if n else 0
    same = is_pair & (qc == tc) & (qc != unknown)
    positive = scoring.matrix.values[qc, tc] > 0
    ml = np.where(same, ord("|"), np.where(positive, ord(":"), ord("."))).astype(np.uint8)
    ml[~is_pair] = ord(" ")
    kind = np.where(is_pair, np.where(same, 0, 1), ops + 1).astype(np.int64)
    letters = _RESOLVED[kind]
    new_op = np.ones(ops.size, dtype=bool)
    new_op[1:] = ops[1:] != ops[:-1]
    new_op[starts[counts > 0]] = True
    new_run = np.ones(ops.size, dtype=bool)
    new_run[1:] = letters[1:] != letters[:-1]
    new_run[starts[counts > 0]] = True
    run_at = np.flatnonzero(new_run)
    run_len = np.diff(np.append(run_at, ops.size))
    pieces = np.char.add(run_len.astype(str), letters[run_at].view("S1").astype(str)).tolist()
    run_off = np.searchsorted(run_at, starts).tolist() + [len(pieces)]
    q_used = np.bincount(seg, weights=uses_q, minlength=n).astype(np.int64)
    t_used = np.bincount(seg, weights=uses_t, minlength=n).astype(np.int64)
    n_same = np.bincount(seg, weights=same, minlength=n).astype(np.int64)
    n_pair = np.bincount(seg, weights=is_pair, minlength=n).astype(np.int64)
    n_opens = np.bincount(seg, weights=~is_pair & new_op, minlength=n).astype(np.int64)
    qa_s, ta_s, ml_s = (x.tobytes().decode("latin-1") for x in (qa, ta, ml))
    out = []
    for k in range(n):
        a, b = int(starts[k]), int(starts[k] + counts[k])
        q, t, qs, ts = queries[k], targets[k], int(query_starts[k]), int(target_starts[k])
        out.append(Alignment(
            query=q.name, target=t.name, score=int(scores[k]), query_length=len(q), target_length=len(t),
            query_start=qs, query_end=qs + int(q_used[k]), target_start=ts, target_end=ts + int(t_used[k]),
            cigar="".join(pieces[run_off[k]: run_off[k + 1]]), query_aligned=qa_s[a:b], target_aligned=ta_s[a:b],
            match_line=ml_s[a:b], matches=int(n_same[k]), mismatches=int(n_pair[k] - n_same[k]),
            gap_opens=int(n_opens[k]), gaps=int(counts[k] - n_pair[k])))
    return out
