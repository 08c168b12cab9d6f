"""Number formatting shared by the formats: E-values and bit scores as BLAST prints them."""

from __future__ import annotations

import math

__all__ = ["finite_or_none", "format_evalue", "format_bitscore"]


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
    if x < 1.0e-180:
        return "0.0"
    if x < 0.0009:
        return "%.0e" % x
    if x < 0.1:
        return "%.3f" % x
    if x < 1.0:
        return "%.2f" % x
    if x < 10.0:
        return "%.1f" % x
    return "%.0f" % x


def format_bitscore(x: float | None) -> str:
    """A bit score with one decimal; ``NA`` when missing or not finite.

    >>> format_bitscore(15.04), format_bitscore(None), format_bitscore(float("nan"))
    ('15.0', 'NA', 'NA')
    """
    x = finite_or_none(x)
    return "NA" if x is None else "%.1f" % x
