"""Number formatting shared by the formats: E-values and bit scores as BLAST prints them."""

from __future__ import annotations

import bisect
import math
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import numpy as np

__all__ = ["finite_or_none", "format_evalue", "format_bitscore", "format_evalues", "format_bitscores"]


def finite_or_none(x) -> float | None:
    """``x`` as a float, or ``None`` when it is missing or not finite.

    >>> finite_or_none(3), finite_or_none(None), finite_or_none(float("inf"))
    (3.0, None, None)
    """
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def format_evalue(x: float | None) -> str:
    """An E-value as BLAST's tabular output prints it; ``NA`` when unknown.

    The rules are BLAST's: below 1e-180 is ``0.0``; below 0.0009 one significant
    digit in exponent form; below 0.1 three decimals; below 1 two; below 10 one;
    otherwise no decimals. ``None`` and NaN give ``NA``.

    >>> [format_evalue(x) for x in (0.0, 1e-200, 2.3e-45, 3e-150, 4.4e-4, 0.00123, 0.5, 2.54, 123.4)]
    ['0.0', '0.0', '2e-45', '3e-150', '4e-04', '0.001', '0.50', '2.5', '123']
    >>> format_evalue(None), format_evalue(float("nan")), format_evalue(float("inf"))
    ('NA', 'NA', 'inf')
    """
    if x is None:
        return "NA"
    x = float(x)
    if math.isnan(x):
        return "NA"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    fmt = _EVALUE_FORMATS[bisect.bisect_right(_EVALUE_BELOW, x)]
    return fmt % x if "%" in fmt else fmt


#: BLAST's E-value rules: below each bound (from the smallest), its format.
_EVALUE_BELOW = (1.0e-180, 0.0009, 0.1, 1.0, 10.0)
_EVALUE_FORMATS = ("0.0", "%.0e", "%.3f", "%.2f", "%.1f", "%.0f")


def format_evalues(values: np.ndarray) -> list[str]:
    """:func:`format_evalue` of many finite values, each rule's values formatted together.

    >>> import numpy as np
    >>> format_evalues(np.array([0.0, 2.3e-45, 0.00123, 0.5, 2.54, 123.4]))
    ['0.0', '2e-45', '0.001', '0.50', '2.5', '123']
    """
    import numpy as np  # (here: the command line imports this module before NumPy)

    values = np.asarray(values, dtype=np.float64)
    rule = np.searchsorted(np.array(_EVALUE_BELOW), values, side="right")
    out = np.full(values.size, _EVALUE_FORMATS[0], dtype=object)  # (below the first bound: that text)
    for r, fmt in enumerate(_EVALUE_FORMATS[1:], 1):
        where = rule == r
        out[where] = [fmt % x for x in values[where].tolist()]
    return out.tolist()


def format_bitscores(values: np.ndarray) -> list[str]:
    """:func:`format_bitscore` of many finite values (an array)."""
    return ["%.1f" % x for x in values.tolist()]


def format_bitscore(x: float | None) -> str:
    """A bit score with one decimal; ``NA`` when missing or not finite.

    >>> format_bitscore(15.04), format_bitscore(None), format_bitscore(float("nan"))
    ('15.0', 'NA', 'NA')
    """
    x = finite_or_none(x)
    return "NA" if x is None else "%.1f" % x
