"""CIGAR strings of many alignments at once, from their runs of equal operations.

A batched assembly (:mod:`swgpu.align.assembly`) has the runs of all its
alignments end to end -- each run's length and letter (``=``, ``X``, ``I``,
``D``), each alignment's runs followed by a *mark* run (letter ``\\0``).
:func:`cigar_texts` turns them into one CIGAR string per alignment with array
operations: every run's text (``12=``) comes from a table of all the texts
its length can have, and one ``split`` cuts the alignments apart.

>>> lengths = np.array([3, 1, 4, 1, 12, 1])
>>> letters = np.frombuffer(b"=I=\\0X\\0", dtype=np.uint8)
>>> cigar_texts(lengths, letters)
['3=1I4=', '12X']
"""

from __future__ import annotations

import functools

import numpy as np

__all__ = ["MARK", "RUN_KIND", "cigar_texts"]

#: The letter of the run that ends each alignment's runs.
MARK = 0

#: The kind of each run letter: ``=``, ``X``, ``I``, ``D`` 0-3, the mark 4 (its
#: block of rows in the table of texts).
RUN_KIND = np.zeros(256, dtype=np.uint8)
RUN_KIND[np.frombuffer(b"=XID", dtype=np.uint8)] = [0, 1, 2, 3]
RUN_KIND[MARK] = 4
_RUN_KIND_BYTES = RUN_KIND.tobytes()
_LETTERS = np.frombuffer(b"=XID", dtype=np.uint8)
_LONG = 1 << 16  # runs this long or longer: texts made digit by digit


@functools.lru_cache(maxsize=8)
def _table(top: int) -> tuple[np.ndarray, int]:
    """The text of every run of length ``0 .. top``: row ``kind * (top + 1) +
    length`` holds its digits and letter (a mark: a line end alone), padded
    with zero bytes to a width of 2, 4 or 8; and that width."""
    width = len(str(top)) + 1
    width = 2 if width <= 2 else 4 if width <= 4 else 8
    lengths = np.arange(top + 1)
    digits = np.ones(top + 1, dtype=np.int64)
    for k in range(1, width):
        digits += lengths >= 10 ** k
    rows = np.zeros((5, top + 1, width), dtype=np.uint8)
    for col in range(width - 1):  # the digits of each length, most significant first
        here = col < digits
        rows[:4, here, col] = 48 + (lengths[here] // 10 ** (digits[here] - 1 - col)) % 10
    rows[:4, lengths, digits] = _LETTERS[:, None]
    rows[4, :, 0] = ord("\n")
    table = rows.reshape(5 * (top + 1), width)
    table.flags.writeable = False  # kept for the next call (lru_cache)
    return table, width


def cigar_texts(run_len: np.ndarray, run_letter: np.ndarray) -> list[str]:
    """The CIGAR of each alignment from its runs (see the module notes)."""
    if not run_len.size:
        return []
    top = int(run_len.max())
    if top >= _LONG:
        text = _digit_by_digit(run_len, run_letter)
    else:
        top = min(10 ** len(str(top)) - 1, _LONG - 1)  # tables of a few sizes, kept and reused
        rows, width = _table(top)
        kind = np.frombuffer(run_letter.tobytes().translate(_RUN_KIND_BYTES), dtype=np.uint8)
        cells = rows.view(f"<u{width}").ravel()[kind.astype(np.int64) * (top + 1) + run_len]
        text = cells.tobytes().translate(None, b"\0")  # the padding dropped
    out = text.decode("ascii").split("\n")
    out.pop()
    return out


def _digit_by_digit(run_len: np.ndarray, run_letter: np.ndarray) -> bytes:
    """The texts of all runs (a mark run: a line end), digit by digit."""
    mark = run_letter == MARK
    digits = np.ones(run_len.size, dtype=np.int64)
    for k in range(1, 19):  # decimal digits of each length
        more = run_len >= 10 ** k
        if not more.any():
            break
        digits += more
    digits[mark] = 0
    width = int(digits.max()) + 1
    cell = np.empty((run_len.size, width), dtype=np.uint8)  # right-aligned digits, then the letter
    rest = run_len.copy()
    for col in range(width - 2, -1, -1):
        cell[:, col] = 48 + rest % 10
        rest //= 10
    cell[:, width - 1] = np.where(mark, ord("\n"), run_letter)
    return cell[np.arange(width) >= (width - 1 - digits)[:, None]].tobytes()
