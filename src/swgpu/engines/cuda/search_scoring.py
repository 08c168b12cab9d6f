"""Scoring batches of queries on the GPU: profiles, launches, the 16-bit
results and the exact 32-bit re-run of the scores that may have overflowed.

:class:`BatchScoring` is the scoring half of
:class:`~swgpu.engines.cuda.search.CudaSearchEngine` (which holds the
kernels, the database parts and the cost model it uses).
"""

from __future__ import annotations

import time

import numpy as np

from .search_layout import query_schedule
from .search_tiling import wide_variant

__all__ = ["BatchScoring"]


class BatchScoring:
    """Methods of :class:`~swgpu.engines.cuda.search.CudaSearchEngine` that score queries."""

    def _profile16(self, q: np.ndarray, T: int):
        """int16 profile of one query (letters x rows padded to ``T``), built on the GPU."""
        cp = self._cp
        Q = int(q.size)
        qpad = max(1, -(-Q // T)) * T
        prof = cp.empty(self.nlet * qpad, dtype=np.int16)
        n_el = self.nlet * qpad
        self._helper("swp_build_profile")(
            (min(-(-n_el // 256), 4096),), (256,),
            (self._d_matrix, np.int32(self.K), cp.asarray(q), np.int32(Q), np.int64(qpad), prof))
        return prof, qpad

    def _launch_single(self, part, prof, qpad: int, tile: tuple[int, int], d_scores, lay=None, wide: bool = False):
        """Enqueue one query (its int16 profile) on the sequence-pair layout
        ``lay`` of ``part`` (default: all its sequences)."""
        lay = self._pair_db(part) if lay is None else lay
        G, R = tile
        npass = qpad // (G * R)
        words = (4 if wide else 2) * lay.total_cols
        bnd = (self._cp.empty(max(words, 4), dtype=np.uint32) if wide else self._bnd(words)) \
            if npass > 1 else self._dummy
        self._launch(G, R, wide, False, lay.npairs, prof=prof, nlet=self.nlet, qstride=qpad // 8, npass=npass,
                     codes=lay.codes, pair_off=lay.poff, pair_len=lay.plen, orig=lay.porig, bnd=bnd,
                     scores=d_scores)

    def _query_pair_profile(self, qs: list, G: int, R: int):
        """Profile, segment flags and query slots of a batch on the query-pair kernel."""
        P, halves = query_schedule([q.size for q in qs], G, R)
        T = G * R
        nseg = P * G
        info = np.zeros(nseg, dtype=np.int32)
        sq = np.zeros(2 * nseg, dtype=np.int32)
        lane_codes = np.full((2, P * T), self.K, dtype=np.uint8)
        for h in (0, 1):
            busy = np.zeros(nseg, dtype=bool)
            for i, s0, n in halves[h]:
                q = qs[i]
                lane_codes[h, s0 * R: s0 * R + q.size] = q
                segs = np.arange(s0, s0 + n)
                busy[segs] = True
                sq[2 * segs + h] = i
                info[s0] |= 1 << h                  # starts a query: nothing from above
                info[segs] |= 4 << h                # holds a query: scores folded in
            info[~busy] |= 1 << h                   # idle: zero input, never folded
        mxT = np.ascontiguousarray(self._mx.T, dtype=np.int64) & 0xFFFF  # (letter, query code)
        mxT = np.vstack([mxT, mxT[self.K], mxT[self.K]])  # the closing letters score as the pad
        prof = np.ascontiguousarray((mxT[:, lane_codes[0]] | (mxT[:, lane_codes[1]] << 16)).astype(np.uint32))
        return P, prof, info, sq

    def _launch_batch(self, part, plan: tuple, d_scores):
        """Enqueue a batch on the query-pair kernel for ``part``;
        ``plan`` = (tile, passes, device profile, segment flags, slots)."""
        (G, R), P, d_prof, d_info, d_sq = plan
        bnd = self._bnd(2 * part.units.total_cols) if P > 1 else self._dummy
        cranges, cfirst, _ = self._chunks(part)
        self._launch(G, R, False, True, int(cfirst.size), prof=d_prof, nlet=self._letters(True),
                     qstride=P * G * R // 4, npass=P, codes=part.codes, chunk_cols=cranges, chunk_first=cfirst,
                     orig=part.uorig, bnd=bnd, seg=d_info, slot=d_sq, nunits=self.n, scores=d_scores)

    def _batch_size(self) -> int:
        """Queries scored together: up to 64, fewer when their score arrays
        (4 bytes per query and sequence, on the GPU and in pinned host memory)
        would take more than a quarter of the memory limit."""
        from .search import BATCH_QUERIES

        limit = self.memory_limit if self.memory_limit is not None else self._limit_at_load
        return max(1, min(BATCH_QUERIES, (limit // 4) // max(1, 4 * self.n)))

    def _host_buffer(self, count: int) -> np.ndarray:
        if self._pinned_len < count:
            self._pinned = self._cp.cuda.alloc_pinned_memory(4 * max(count, 1))
            self._pinned_len = count
        return np.frombuffer(self._pinned, dtype=np.int32, count=count)

    def scores(self, query: np.ndarray) -> np.ndarray:
        """``int32`` scores of ``query`` against every database sequence, original order."""
        return self.scores_many([query])[0]

    def scores_many(self, queries) -> list:
        """Scores of several queries (a list of arrays, one per query).

        Batches of up to 64 queries (fewer for databases of very many
        sequences) run on the query-pair kernel (or one by one on sequence
        pairs where the cost model says so), enqueued back to back over every
        part of the database; the results come back with one synchronisation
        per batch (more when a score overflowed 16 bits)."""
        if self._db is None:
            raise RuntimeError("load_database() first")
        cp = self._cp
        t_start = time.perf_counter()
        qs = [self._check_query(q) for q in queries]
        out = [np.zeros(self.n, dtype=np.int32) for _ in qs]
        timing = {"kernel": 0.0, "overflow_rerun": 0.0, "d2h": 0.0, "total": 0.0}
        configs, reruns = [], 0
        with cp.cuda.Device(self.device_id), self._stream:
            per_batch = self._batch_size()
            for b0 in range(0, len(qs), per_batch):
                batch = [(i, q) for i, q in enumerate(qs[b0:b0 + per_batch], start=b0) if q.size and self.n]
                if batch:
                    reruns += self._score_batch(batch, out, timing, configs)
        timing["total"] = time.perf_counter() - t_start
        self.last_timing = timing
        self.last_config = {"tiles": configs, "rerun_pairs": reruns, "parts": len(self._db)}
        return out

    def _enqueue(self, batch: list, d_scores, configs: list):
        """Profiles of ``batch`` and its kernels over every database part;
        returns the profiles (kept until the kernels have run)."""
        cp = self._cp
        mode, tile = self._batch_plan([q.size for _, q in batch])
        if mode == "queries":
            P, prof, info, sq = self._query_pair_profile([q for _, q in batch], *tile)
            plan = (tile, P, cp.asarray(prof), cp.asarray(info), cp.asarray(sq))
            configs.append(("queries", tile))
        else:
            plan = []
            for i, q in batch:
                T = self._single_tile(int(q.size))
                plan.append((T,) + self._profile16(q, T[0] * T[1]))
                configs.append(("pairs", T))
        for pi in range(len(self._db)):
            part = self._db.activate(pi)
            if mode == "queries":
                self._launch_batch(part, plan, d_scores)
            else:
                for slot, (T, prof, qpad) in enumerate(plan):
                    self._launch_single(part, prof, qpad, T, d_scores[slot])
            self._db.release(pi)
        return plan

    def _score_batch(self, batch: list, out: list, timing: dict, configs: list) -> int:
        """Scores of one batch into ``out``; returns the re-scored pairs."""
        cp, n, nb = self._cp, self.n, len(batch)
        if nb * (n + 1) >= 2**31:
            raise ValueError("too many queries x sequences for one batch")
        d_scores = cp.zeros((nb, n), dtype=np.int32)
        ev = [cp.cuda.Event() for _ in range(5)]
        ev[0].record()
        plan = self._enqueue(batch, d_scores, configs)
        ev[1].record()
        # (pinned while the kernels run: a first batch's 4 bytes a score take a while to pin)
        host_scores = self._host_buffer(nb * n).reshape(nb, n)
        d_scores.get(stream=self._stream, out=host_scores)
        ev[2].record()
        ev[2].synchronize()
        del plan
        # each query's best on the host: a reduction on the GPU is a CuPy-made kernel, whose
        # first use in a process runs NVRTC (30-70 ms) after the scoring
        host_best = host_scores.max(axis=1)
        timing["kernel"] += cp.cuda.get_elapsed_time(ev[0], ev[1]) / 1e3
        timing["d2h"] += cp.cuda.get_elapsed_time(ev[1], ev[2]) / 1e3
        for slot, (i, q) in enumerate(batch):
            out[i][:] = host_scores[slot]
        # scores that may have wrapped in 16 bits: exact 32-bit re-run
        over = {int(slot): self.overflow.suspects(out[batch[slot][0]])
                for slot in self.overflow.suspects(host_best)}
        if not over:
            return 0
        ev[3].record()
        count = self._rerun_all(batch, over, d_scores)
        ev[4].record()
        fixed = sorted(over)
        h_fixed = d_scores[fixed].get(stream=self._stream)
        ev[2].record()
        ev[2].synchronize()
        timing["overflow_rerun"] += cp.cuda.get_elapsed_time(ev[3], ev[4]) / 1e3
        timing["d2h"] += cp.cuda.get_elapsed_time(ev[4], ev[2]) / 1e3
        for row, slot in enumerate(fixed):
            out[batch[slot][0]][:] = h_fixed[row]
        return count

    def _rerun_all(self, batch: list, over: dict, d_scores) -> int:
        """32-bit re-score of the listed (slot: original sequence indices),
        part by part; returns the number of (query, sequence) pairs."""
        order = self._units.order
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        G, R = wide_variant()
        count = 0
        per_part: dict[int, list] = {}
        for slot, seqs in over.items():
            r = rank[seqs]
            part = np.searchsorted(self._db.starts, r, side="right") - 1
            for pi in np.unique(part):
                per_part.setdefault(int(pi), []).append((slot, r[part == pi] - self._db.starts[pi]))
            count += int(seqs.size)
        for pi, items in sorted(per_part.items()):
            part = self._db.activate(pi)
            for slot, local in items:
                prof, qpad = self._profile16(batch[slot][1], G * R)
                self._launch_single(part, prof, qpad, (G, R), d_scores[slot], lay=self._pair_db(part, local),
                                    wide=True)
            self._db.release(pi)
        return count
