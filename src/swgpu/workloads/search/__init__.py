"""The ``search`` workload: queries against a database (:mod:`.searcher`);
the database split over GPUs (:mod:`.placement`) or over the workers of a
Dask cluster (:mod:`.cluster`, host side; :mod:`.tasks`, what the workers run)."""

from .placement import partition_by_residues
from .searcher import HitBatch, Searcher, SearchResult, rank_hits, rank_strand_hits

__all__ = ["Searcher", "SearchResult", "HitBatch", "rank_hits", "rank_strand_hits", "partition_by_residues"]
