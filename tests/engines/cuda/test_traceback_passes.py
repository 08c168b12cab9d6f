"""The GPU traceback's host driver (level-by-level divide and
conquer over many pairs) gives the CPU engine's alignments when its device
passes are replaced by the CPU kernels of the same names -- runs without a GPU."""

from __future__ import annotations

import numpy as np
import pytest

from swgpu import Scoring, Sequence
from swgpu.align.traceback import global_ops, local_align
from swgpu.engines.cpu import pairwise
from swgpu.engines.cuda.traceback_passes import TracebackPasses, _batches


class CpuStandIn(TracebackPasses):
    """``TracebackPasses`` whose passes run the CPU kernels, problem by problem."""

    def __init__(self, scoring: Scoring, base_cells: int):
        self.cp = np
        self.M = np.ascontiguousarray(scoring.matrix.values, dtype=np.int32)
        self.go, self.ge = scoring.gap_open, scoring.gap_extend
        self.base_cells = base_cells
        self.slack = abs(self.go) + abs(self.ge)

    @staticmethod
    def _side(X, start, length, rev):
        return np.ascontiguousarray(X[start - length + 1:start + 1][::-1] if rev else X[start:start + length])

    def _rows_pass(self, name, A, B, desc, ncols, width):
        out = np.zeros((desc.shape[0], width), dtype=np.int32)
        for r, d in enumerate(desc):
            a = self._side(A, d[0], d[1], d[4])
            b = self._side(B, d[2], d[3], d[4])
            if name == "tw_sw_end":
                out[r] = pairwise.sw_end(a, b, self.M, self.go, self.ge)
            else:
                out[r] = pairwise.sw_start(a, b, self.M, self.go, self.ge, d[8])
        return out

    def _split_level(self, A, B, qbase, tbase, pk, pieces):
        cuts = []
        go, ge = self.go, self.ge
        for k, (s0, s1, t0, t1, lead, tail, bound) in zip(pk, pieces):
            a, b = A[qbase[k] + s0:qbase[k] + s1], B[tbase[k] + t0:tbase[k] + t1]
            mid = (s1 - s0) // 2
            cc, dd = pairwise.nw_last_row(np.ascontiguousarray(a[:mid]), b, self.M, go, ge, lead)
            rr, ss = pairwise.nw_last_row(np.ascontiguousarray(a[mid:][::-1]), np.ascontiguousarray(b[::-1]),
                                          self.M, go, ge, tail)
            join = cc.astype(np.int64) + rr[::-1]
            gap = dd.astype(np.int64) + ss[::-1] + (go - ge)
            j1, j2 = int(np.argmax(join)), int(np.argmax(gap))
            # the bound the passes' bands take for the piece is at most its optimal score
            assert bound <= max(join[j1], gap[j2]), (bound, join[j1], gap[j2])
            if join[j1] >= gap[j2]:
                cuts.append((0, j1, int(cc[j1]), int(rr[::-1][j1])))
            else:
                cuts.append((1, j2, int(dd[j2]), int(ss[::-1][j2])))
        return cuts

    def _base_paths(self, A, B, qbase, tbase, s0, s1, t0, t1, lead, tail, unknown=None):
        ops = [pairwise.nw_path(A[qb + a:qb + b], B[tb + c:tb + d], self.M, self.go, self.ge, int(lo), int(hi))[0]
               for qb, tb, a, b, c, d, lo, hi in zip(qbase, tbase, s0, s1, t0, t1, lead, tail)]
        off = np.zeros(len(ops) + 1, np.int64)
        np.cumsum([o.size for o in ops], out=off[1:])
        return (np.concatenate(ops) if ops else np.zeros(0, np.uint8)), off, None


def _mutate(rng, text, rate):
    s = list(text)
    for _ in range(int(len(s) * rate)):
        k = int(rng.integers(len(s)))
        r = rng.random()
        if r < 0.6:
            s[k] = "ACGT"[int(rng.integers(4))]
        elif r < 0.8:
            s[k] = ""
        else:
            s[k] += "ACGT"[int(rng.integers(4))] * int(rng.integers(1, 6))
    return "".join(s)


@pytest.mark.parametrize("base_cells", [4, 64, 2000])
@pytest.mark.parametrize("params", [(2, -3, 5, 2), (1, -1, 1, 1), (5, -4, 9, 1)])
def test_driver_matches_local_align(base_cells, params):
    match, mismatch, go, ge = params
    scoring = Scoring.build("dna", match=match, mismatch=mismatch, gap_open=go, gap_extend=ge)
    rng = np.random.default_rng(base_cells + go)
    pairs = []
    for i in range(12):
        q = "".join(rng.choice(list("ACGT"), int(rng.integers(1, 300))))
        t = _mutate(rng, q, 0.15) if i % 2 else "".join(rng.choice(list("ACGT"), int(rng.integers(1, 300))))
        t = "".join(rng.choice(list("ACGT"), int(rng.integers(0, 40)))) + t
        pairs.append((Sequence.from_text(f"q{i}", q, "dna"), Sequence.from_text(f"t{i}", t or "A", "dna")))
    pairs.append((Sequence.from_text("n", "N" * 30, "dna"), Sequence.from_text("n", "N" * 30, "dna")))
    pairs.append((Sequence.from_text("a", "A", "dna"), Sequence.from_text("a", "A", "dna")))
    tracer = CpuStandIn(scoring, base_cells)
    got = tracer.trace([q.codes for q, _ in pairs], [t.codes for _, t in pairs])
    for k, (q, t) in enumerate(pairs):
        want = local_align(pairwise, q, t, scoring, base_cells)
        assert got.best[k] == want.score
        path = got.ops[got.off[k]:got.off[k + 1]]
        if want.score:
            assert (got.i0[k], got.j0[k]) == (want.query_start, want.target_start)
            ops = global_ops(pairwise, q.codes[got.i0[k]:want.query_end], t.codes[got.j0[k]:want.target_end],
                             scoring.matrix.values, scoring.gap_open, scoring.gap_extend, base_cells)
            assert np.array_equal(path, ops)
        else:
            assert path.size == 0


def test_batches_keep_order_and_budget():
    assert list(_batches([3, 3, 3], 6)) == [(0, 2), (2, 3)]
    assert list(_batches([10, 1], 4)) == [(0, 1), (1, 2)]
    assert list(_batches([], 4)) == []
