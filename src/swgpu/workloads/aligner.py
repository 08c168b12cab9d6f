"""The :class:`Aligner`: optimal local alignment of one pair, with traceback.

>>> from swgpu import Scoring
>>> aligner = Aligner(Scoring.default("protein"))
>>> a = aligner.align("MKTAYIAKQRQISFVKSHFSRQ", "MKTAYIAKQRQISFVKSHFSRQ")
>>> a.score, a.cigar, a.identity
(109, '22=', 1.0)
>>> aligner.score("HEAGAWGHEE", "PAWHEAE")
17
"""

from __future__ import annotations

from ..align.alignment import Alignment
from ..io.alphabet import Alphabet
from ..exceptions import EngineError, InputError
from ..scoring import Scoring
from ..io.sequence import Sequence
from ..align.traceback import local_align

__all__ = ["Aligner"]


class Aligner:
    """Aligns pairs of sequences with one scoring scheme on one engine.

    Traceback runs in linear memory (Myers-Miller divide and conquer), so a
    pair of two 100 kbp sequences aligns in well under 2 GB.

    Parameters
    ----------
    scoring:
        Matrix and gap penalties; defaults to :meth:`Scoring.default` for the
        alphabet of the first pair aligned.
    device:
        ``cpu`` or ``auto``. Pairwise traceback runs on the CPU engine.
    """

    def __init__(self, scoring: Scoring | None = None, device: str = "auto"):
        if (device or "auto").lower() not in ("auto", "cpu"):
            raise EngineError(f"device {device!r}: pairwise traceback runs on the CPU engine; use 'cpu' or 'auto'")
        self.scoring = scoring
        self.device = "cpu"
        from ..engines.cpu import pairwise

        self._kernels = pairwise

    def _prepare(self, query: Sequence | str, target: Sequence | str) -> tuple[Sequence, Sequence, Scoring]:
        alphabet: Alphabet | None = self.scoring.alphabet if self.scoring is not None else None
        if isinstance(query, str):
            query = Sequence.from_text("query", query, alphabet)
        if isinstance(target, str):
            target = Sequence.from_text("target", target, alphabet or query.alphabet)
        scoring = self.scoring or Scoring.default(query.alphabet)
        for s in (query, target):
            if s.alphabet is not scoring.alphabet:
                raise InputError(
                    f"{s.name!r} is {s.alphabet.name} but the scoring is for {scoring.alphabet.name}; "
                    "give --alphabet or a matching matrix"
                )
        return query, target, scoring

    def align(self, query: Sequence | str, target: Sequence | str) -> Alignment:
        """The optimal local alignment (score 0 and an empty alignment if none scores > 0)."""
        query, target, scoring = self._prepare(query, target)
        return local_align(self._kernels, query, target, scoring)

    def score(self, query: Sequence | str, target: Sequence | str) -> int:
        """The optimal local score only (one O(n)-memory pass)."""
        query, target, scoring = self._prepare(query, target)
        m = scoring.matrix.values
        return int(self._kernels.sw_end(query.codes, target.codes, m, scoring.gap_open, scoring.gap_extend)[0])
