"""Placement: which part of the work runs on which device.

A database is split over GPUs by residues (:func:`partition_by_residues`), each
part scored by its own engine (:class:`Shard`); the scores come back into
database order (:func:`gather_scores`).

>>> partition_by_residues(np.array([5, 1, 4, 2]), 2)
[array([0, 1]), array([2, 3])]
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...engines.base import DatabaseScorer, Engine, get_engine, gpu_count, resolve_device
from ...engines.registry import is_accelerator
from ...exceptions import EngineError
from ...io.database import Database

__all__ = ["devices", "partition_by_residues", "Shard", "gather_scores", "new_scores", "BLOCK"]


def devices(device: str = "auto", gpus: list[int] | None = None, threads: int | None = None) -> list[Engine]:
    """The engines a job runs on: the CPU engine, or one engine of the
    accelerator (CUDA) per GPU id in ``gpus`` (None: every visible GPU)."""
    name = resolve_device(device)
    if not is_accelerator(name):
        return [get_engine(name, threads=threads)]
    count = gpu_count(name)
    ids = list(range(count)) if gpus is None else list(gpus)
    if not ids or any(not 0 <= g < count for g in ids):
        raise EngineError(f"{','.join(map(str, ids))}: this machine has {count} GPU(s)", param="gpus")
    return [get_engine(name, g, threads=threads) for g in ids]


#: Consecutive sequences dealt to a part together when the database is large
#: (:func:`partition_by_residues`): its scores come back as slices, not one by one.
BLOCK = 1024


def partition_by_residues(lengths: np.ndarray, parts: int, block: int | None = None) -> list[np.ndarray]:
    """Split sequence indices into ``parts`` groups of nearly equal total length:
    longest first, dealt to the groups in snake order (0, 1, ..., p - 1,
    p - 1, ..., 0, ...), so the totals differ by at most the longest length;
    array operations, for databases of millions. Each group is sorted.

    A database of at least 16 blocks a part is dealt in blocks of ``block``
    (:data:`BLOCK`) consecutive sequences instead, the totals then within a
    block's residues: every part gets blocks of every size, and
    :func:`gather_scores` puts each part's scores back a block at a time."""
    lengths = np.asarray(lengths)
    block = BLOCK if block is None else int(block)
    n = lengths.size
    if block > 1 and n >= 16 * parts * block:
        firsts = np.arange(0, n, block)
        groups = _snake(np.add.reduceat(lengths.astype(np.int64), firsts), parts)
        return [np.concatenate([np.arange(b * block, min(n, (b + 1) * block), dtype=np.int64) for b in g.tolist()])
                for g in groups]
    return _snake(lengths, parts)


def _snake(lengths: np.ndarray, parts: int) -> list[np.ndarray]:
    order = np.argsort(-lengths, kind="stable")
    rank = np.arange(order.size, dtype=np.int64)
    lane = rank % parts
    group = np.where((rank // parts) % 2 == 0, lane, parts - 1 - lane)
    return [np.sort(order[group == g]).astype(np.int64) for g in range(parts)]


@dataclass
class Shard:
    """A scorer holding the database sequences ``members`` (database positions, sorted)."""

    scorer: DatabaseScorer
    members: np.ndarray
    _layout: tuple | None = field(default=None, repr=False, compare=False)

    @classmethod
    def load(cls, scorer: DatabaseScorer, db: Database, members: np.ndarray | None = None) -> "Shard":
        """Load ``members`` of ``db`` (all when None: no copy) into ``scorer``."""
        if members is None or len(members) == len(db):
            scorer.load_database(db.residues, db.offsets)
            return cls(scorer, np.arange(len(db), dtype=np.int64))
        scorer.load_database(*db.select(members))
        return cls(scorer, members)

    def layout(self, n: int) -> tuple:
        """How the part's scores go back into ``n`` (worked out once): ``("all",)``;
        ``("blocks", rows, tail start, tail size)``: whole blocks of :data:`BLOCK`
        consecutive sequences (and the database's last, shorter one);
        ``("runs", [(at, first, size), ...])``: long runs of consecutive members;
        ``("scatter",)``: one by one."""
        if self._layout is None or self._layout[0] != n:
            self._layout = (n, _layout(np.asarray(self.members), n))
        return self._layout[1]

    def place(self, out: list[np.ndarray], per_query: list[np.ndarray]) -> None:
        """Put this part's scores of each query (``per_query``, in member order)
        into the database-order arrays ``out``."""
        n = out[0].size if out else 0
        kind = self.layout(n)
        if kind[0] == "all":
            for o, sc in zip(out, per_query):
                o[:] = sc
        elif kind[0] == "blocks":
            _, rows, tail_at, tail = kind
            full, whole = rows.size * BLOCK, (n // BLOCK) * BLOCK
            for o, sc in zip(out, per_query):
                o[:whole].reshape(-1, BLOCK)[rows] = np.asarray(sc)[:full].reshape(-1, BLOCK)
                if tail:
                    o[tail_at:tail_at + tail] = sc[full:]
        elif kind[0] == "runs":
            for o, sc in zip(out, per_query):
                for at, first, size in kind[1]:
                    o[first:first + size] = sc[at:at + size]
        else:
            members = np.asarray(self.members)
            for o, sc in zip(out, per_query):
                o[members] = sc


def _layout(members: np.ndarray, n: int) -> tuple:
    m = members.size
    if m == n:
        return ("all",)  # (sorted and distinct: every position once)
    full = (m // BLOCK) * BLOCK
    if full:
        head = members[:full].reshape(-1, BLOCK)
        firsts = head[:, 0]
        rest = members[full:]
        aligned = bool((firsts % BLOCK == 0).all() and (head == firsts[:, None] + np.arange(BLOCK)).all())
        if aligned and (rest.size == 0 or (int(rest[0]) % BLOCK == 0 and int(rest[-1]) == n - 1
                                           and int(rest[-1]) - int(rest[0]) == rest.size - 1)):
            return ("blocks", firsts // BLOCK, int(rest[0]) if rest.size else 0, int(rest.size))
    cut = np.flatnonzero(np.diff(members) != 1) + 1  # where runs of consecutive members start
    if m and (cut.size + 1) * 64 <= m:
        starts = np.concatenate([[0], cut]).tolist()
        return ("runs", list(zip(starts, members[starts].tolist(), np.diff(starts + [m]).tolist())))
    return ("scatter",)


def new_scores(n: int, count: int, shards: list["Shard"]) -> list[np.ndarray]:
    """The database-order score arrays of ``count`` queries that ``shards``
    fill (:meth:`Shard.place`); zeros where no shard has a sequence."""
    covered = sum(np.asarray(shard.members).size for shard in shards) == n  # (parts of one partition)
    return [(np.empty if covered else np.zeros)(n, dtype=np.int32) for _ in range(count)]


def gather_scores(n: int, count: int, shard_scores: list[tuple["Shard", list[np.ndarray]]]) -> list[np.ndarray]:
    """Per query, the scores of all ``n`` sequences from the shards' parts
    (:meth:`Shard.place`: whole blocks, long runs, or one by one)."""
    if len(shard_scores) == 1 and shard_scores[0][0].members.size == n:
        return [np.asarray(sc, dtype=np.int32) for sc in shard_scores[0][1]]
    out = new_scores(n, count, [shard for shard, _ in shard_scores])
    for shard, per_query in shard_scores:
        shard.place(out, per_query)
    return out
