"""NCBI BLAST's tables of Karlin-Altschul parameters, read from the data file.

The numbers live in ``swgpu/data/blast_karlin_altschul.json`` (its header
says where they come from and what each column means); they are read once,
on first use.

* Protein: for each matrix, rows ``(existence, extension, lambda, K, H,
  alpha, beta)`` with the gap costs in BLAST's convention (a gap of length k
  costs ``existence + k * extension``). The first row is the ungapped one; its
  gap costs are :data:`INT2_MAX`, BLAST's "infinite" cost, written
  ``"INT2_MAX"`` in the file.
* Nucleotide: for each blastn (reward, penalty) pair in lowest terms, a
  :class:`NucleotideTable`.

>>> tables = blast_tables()
>>> tables.protein["BLOSUM62"][0][:3]
(32767, 32767, 0.3176)
>>> tables.nucleotide[(2, -3)].round_down
True
>>> "BLOSUM62" in protein_matrices(), (1, -2) in nucleotide_pairs()
(True, True)
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from types import MappingProxyType
from typing import Mapping

__all__ = [
    "INT2_MAX",
    "DATA_FILE",
    "NucleotideTable",
    "BlastTables",
    "blast_tables",
    "protein_matrices",
    "nucleotide_pairs",
]

#: BLAST's sentinel for "infinite" gap costs: the ungapped row of each table.
INT2_MAX = 32767

#: The data file, in the package's ``data`` folder.
DATA_FILE = "blast_karlin_altschul.json"

_SENTINEL = "INT2_MAX"

#: A table row: numbers as in the file (ints stay ints), the sentinel as INT2_MAX.
Row = tuple[float, ...]


@dataclass(frozen=True)
class NucleotideTable:
    """blastn's parameters of one (reward, penalty) pair in lowest terms.

    ``rows``: ``(existence, extension, lambda, K, H, alpha, beta)`` per
    tabulated gap cost pair. ``linear``: ``(lambda, K, H, alpha, beta)`` for
    BLAST's greedy non-affine gap cost, or None. Gap costs at or above
    ``existence_max`` *and* ``extension_max`` use the ungapped parameters.
    ``round_down``: odd scores are rounded down to even before E-values.
    """

    rows: tuple[Row, ...]
    linear: Row | None
    existence_max: int
    extension_max: int
    round_down: bool


@dataclass(frozen=True)
class BlastTables:
    """All tables: ``protein`` by matrix name (upper case), ``nucleotide`` by
    ``(reward, penalty)``; both read-only, in the file's order."""

    protein: Mapping[str, tuple[Row, ...]]
    nucleotide: Mapping[tuple[int, int], NucleotideTable]
    source: str


def _number(value):
    """A table entry: the sentinel's name becomes :data:`INT2_MAX`."""
    return INT2_MAX if value == _SENTINEL else value


def _row(values) -> Row:
    return tuple(_number(v) for v in values)


@lru_cache(maxsize=1)
def blast_tables() -> BlastTables:
    """The tables of the data file, read on the first call."""
    text = resources.files("swgpu").joinpath("data", DATA_FILE).read_text(encoding="utf-8")
    data = json.loads(text)
    protein = {name.upper(): tuple(_row(r) for r in rows) for name, rows in data["protein"]["matrices"].items()}
    nucleotide = {}
    for pair in data["nucleotide"]["pairs"]:
        nucleotide[(int(pair["reward"]), int(pair["penalty"]))] = NucleotideTable(
            rows=tuple(_row(r) for r in pair["rows"]),
            linear=None if pair["linear"] is None else _row(pair["linear"]),
            existence_max=int(pair["existence_max"]),
            extension_max=int(pair["extension_max"]),
            round_down=bool(pair["round_down"]),
        )
    return BlastTables(MappingProxyType(protein), MappingProxyType(nucleotide), data["source"])


def protein_matrices() -> tuple[str, ...]:
    """The protein matrices with tabulated parameters."""
    return tuple(blast_tables().protein)


def nucleotide_pairs() -> tuple[tuple[int, int], ...]:
    """The blastn (reward, penalty) pairs in lowest terms; any positive
    multiple of a pair (e.g. 2/-4 of 1/-2) is accepted too, as in BLAST."""
    return tuple(blast_tables().nucleotide)
