"""End points of the GPU scan's batches, gathered and chosen: the host side
of :class:`~swgpu.engines.cuda.scan.CudaGenomeScanner` after ``sc_points``."""

from __future__ import annotations

import numpy as np

__all__ = ["HOST_SORT", "best_end_points", "collect"]

#: End points at most this many are ordered on the host (:func:`best_end_points`).
HOST_SORT = 1 << 18


def _ranked_below(slots: np.ndarray, keep: int) -> np.ndarray:
    """Positions in sorted ``slots`` of the first ``keep`` of each slot: one
    pass over ``slots`` for the starts of its runs, then the kept positions
    run by run (few runs: one a query)."""
    n, keep = slots.size, max(int(keep), 0)
    if n == 0 or keep == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.flatnonzero(slots[1:] != slots[:-1]) + 1
    starts = np.concatenate(([0], starts)).astype(np.int64)
    take = np.minimum(np.diff(np.append(starts, n)), keep)
    ends = np.cumsum(take)
    return np.arange(int(ends[-1]), dtype=np.int64) + np.repeat(starts - (ends - take), take)


def collect(cp, pending, host_upto: int = 0) -> tuple[list, bool]:
    """The end points each pending batch found (waits for them), copied
    out of the batches' buffers so that those can be freed: to the host
    when they number at most ``host_upto`` in all, else on the device; and
    whether they went to the host."""
    if not pending:
        return [], False
    counts = cp.concatenate([p[3] for p in pending]).get().tolist()
    host = host_upto > 0 and sum(counts) <= host_upto  # never after some went to the device
    out = []
    for (c, sco, sl, _, cap), got in zip(pending, counts):
        if got > cap:
            raise RuntimeError(f"{got} end points in room for {cap}; this is a bug")
        if host:
            out.append((c[:got].get(), sco[:got].get(), sl[:got].get()))
        else:
            out.append((c[:got].copy(), sco[:got].copy(), sl[:got].copy()))
    return out, host


def best_end_points(cp, parts, keep: int, on_host: bool = False):
    """The ``keep`` best end points of each query (slot) among the
    batches' ``parts``, ordered by slot, then score (highest first), then
    column -- the order of :func:`~swgpu.align.scan_rule.best_end_points`.
    ``on_host``: the parts are NumPy arrays (:func:`collect` put them there).
    Chosen on the GPU when there are more than ``HOST_SORT`` end points
    (below that, sorting on the host costs less than the GPU sort's first
    use in a process)."""
    total = sum(int(p[0].size) for p in parts)
    if total == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int32), np.zeros(0, np.int32)
    cols, scores, slots = ((np if on_host else cp).concatenate([p[k] for p in parts]) for k in range(3))
    if total <= HOST_SORT or on_host:
        if not on_host:
            cols, scores, slots = cols.get(), scores.get(), slots.get()
        order = np.lexsort((cols, -scores.astype(np.int64), slots))
        kept = _ranked_below(slots[order], keep)
        return cols[order[kept]], scores[order[kept]], slots[order[kept]]
    order = cp.lexsort(cp.stack([cols, -scores.astype(cp.int64), slots.astype(cp.int64)]))
    # the ranks within each slot on the host (4 bytes an end point; no
    # boolean indexing on the GPU, whose first use in a process is slow)
    slots = slots[order].get()
    kept = _ranked_below(slots, keep)
    at = order[cp.asarray(kept)]
    return cols[at].get(), scores[at].get(), slots[kept]
