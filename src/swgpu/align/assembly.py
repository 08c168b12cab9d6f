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


def _positions(flags: np.ndarray, seg: np.ndarray, bounds: np.ndarray, first: np.ndarray,
               size: int) -> tuple[np.ndarray, np.ndarray]:
    """For each column, ``first`` of its path (paths: ``bounds``) plus the
    number of columns of its path before it that have ``flags`` (clipped to
    ``size - 1``); and for each path, how many columns have them."""
    c = np.zeros(flags.size + 1, dtype=np.int32 if flags.size < 1 << 31 else np.int64)
    np.cumsum(flags.view(np.uint8), out=c[1:], dtype=c.dtype)
    at = c[bounds].astype(np.int64)
    pos = (first - at[:-1])[seg]
    pos += c[:-1]
    np.minimum(pos, max(size - 1, 0), out=pos)
    return pos, np.diff(at)


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
    seg = np.repeat(np.arange(n, dtype=np.int32 if n < 1 << 31 else np.int64), counts)
    starts = off[:-1] - off[0]
    is_pair, uses_q, uses_t = ops == 0, ops != 2, ops != 1
    qtext, qcodes, qbase = _concat_text(queries)
    ttext, tcodes, tbase = _concat_text(targets)
    bounds = np.append(starts, ops.size)
    qs = np.asarray(query_starts, dtype=np.int64)
    ts = np.asarray(target_starts, dtype=np.int64)
    # the letter of each column: its path's first letter plus the letters its path used before it
    qpos, q_used = _positions(uses_q, seg, bounds, qbase[:-1] + qs, qtext.size)
    tpos, t_used = _positions(uses_t, seg, bounds, tbase[:-1] + ts, ttext.size)
    gap = np.uint8(ord("-"))
    qa = np.where(uses_q, qtext[qpos] if qtext.size else gap, gap)
    ta = np.where(uses_t, ttext[tpos] if ttext.size else gap, gap)
    qc = qcodes[qpos] if qcodes.size else np.zeros_like(ops)
    tc = tcodes[tpos] if tcodes.size else np.zeros_like(ops)
    unknown = queries[0].alphabet.unknown_code if n else 0
    same = is_pair & (qc == tc) & (qc != unknown)
    ml = np.full(ops.size, ord(" "), dtype=np.uint8)
    ml[same] = ord("|")
    other = np.flatnonzero(is_pair & ~same)  # mismatches (few): ':' when they score above 0
    positive = scoring.matrix.values[qc[other], tc[other]] > 0
    ml[other] = np.where(positive, np.uint8(ord(":")), np.uint8(ord(".")))
    kind = np.where(is_pair, (~same).view(np.uint8), ops + np.uint8(1))
    letters = _RESOLVED[kind]
    new_op = np.ones(ops.size, dtype=bool)
    np.not_equal(ops[1:], ops[:-1], out=new_op[1:])
    new_op[starts[counts > 0]] = True
    new_run = np.ones(ops.size, dtype=bool)
    np.not_equal(letters[1:], letters[:-1], out=new_run[1:])
    new_run[starts[counts > 0]] = True
    run_at = np.flatnonzero(new_run)
    run_len = np.diff(np.append(run_at, ops.size))
    cigars, cig_off = _cigar_text(run_len, letters[run_at])
    cig_off = cig_off[np.searchsorted(run_at, np.append(starts, ops.size))].tolist()
    n_same = _per_path(same, bounds)
    n_pair = _per_path(is_pair, bounds)
    n_opens = _per_path(~is_pair & new_op, bounds)
    qa_s, ta_s, ml_s = (x.tobytes().decode("latin-1") for x in (qa, ta, ml))
    # plain Python numbers for the loop (one conversion per array, not per field)
    cols = zip(starts.tolist(), (starts + counts).tolist(), np.asarray(scores, dtype=np.int64).tolist(),
               np.diff(qbase).tolist(), np.diff(tbase).tolist(),
               qs.tolist(), (qs + q_used).tolist(), ts.tolist(), (ts + t_used).tolist(), cig_off[:-1], cig_off[1:],
               n_same.tolist(), (n_pair - n_same).tolist(), n_opens.tolist(), (counts - n_pair).tolist())
    return [Alignment(q.name, t.name, score, lq, lt, q0, q1, t0, t1, cigars[r0:r1], qa_s[a:b], ta_s[a:b], ml_s[a:b],
                      same_k, mism, opens, gaps)
            for q, t, (a, b, score, lq, lt, q0, q1, t0, t1, r0, r1, same_k, mism, opens, gaps)
            in zip(queries, targets, cols)]


def _per_path(flags: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """How many columns of each path (``bounds``, ending at ``flags.size``) have ``flags``."""
    out = np.zeros(bounds.size - 1, dtype=np.int64)
    full = bounds[1:] > bounds[:-1]
    if full.any():
        out[full] = np.add.reduceat(flags.view(np.uint8), bounds[:-1][full], dtype=np.int64)
    return out


def _cigar_text(run_len: np.ndarray, run_letter: np.ndarray) -> tuple[str, np.ndarray]:
    """All runs as one CIGAR text (``12=1X...``) and where each run starts in it
    (one more entry: the end), built with array operations instead of one
    string per run."""
    n = run_len.size
    if n == 0:
        return "", np.zeros(1, dtype=np.int64)
    digits = np.ones(n, dtype=np.int64)
    for k in range(1, 19):  # decimal digits of each length
        more = run_len >= 10 ** k
        if not more.any():
            break
        digits += more
    width = int(digits.max()) + 1
    cell = np.zeros((n, width), dtype=np.uint8)  # right-aligned digits, then the letter
    rest = run_len.copy()
    for col in range(width - 2, -1, -1):
        cell[:, col] = 48 + rest % 10
        rest //= 10
    cell[:, width - 1] = run_letter
    keep = np.arange(width) >= (width - 1 - digits)[:, None]
    off = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(digits + 1, out=off[1:])
    return cell[keep].tobytes().decode("ascii"), off
