"""Alignments: the result type, the reference implementation every engine is
tested against, and the host-side traceback assembly shared by the engines."""

from .alignment import Alignment, cigar_to_ops, ops_to_cigar, score_ops

__all__ = ["Alignment", "cigar_to_ops", "ops_to_cigar", "score_ops"]
