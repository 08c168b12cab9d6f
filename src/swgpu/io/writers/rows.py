"""Text lines of many records at once, in compiled code.

A line is a list of *fields* written one after the other: an integer column
(decimal), a text column (each record's bytes, a slice of a byte pool), or a
constant (tabs, tag names, line ends are constants). :class:`Rows` collects
the fields; :meth:`Rows.render` sizes every line and writes them all into one
``bytes`` in two compiled passes (Numba, without the interpreter's lock),
on several threads for large batches; below
:data:`~swgpu.io.compiled.COMPILED_RECORDS` lines, one array operation per
field (:mod:`.arrays`), the same bytes.

:class:`~swgpu.io.texts.Texts` is a column of byte strings: one buffer and
the offsets of each string in it.

>>> names = Texts.from_strings(["r1", "read2"])
>>> rows = Rows(2)
>>> rows.text(names, np.array([1, 0])); rows.const("\\t"); rows.int(np.array([-5, 120])); rows.const("\\n")
>>> rows.render()
b'read2\\t-5\\nr1\\t120\\n'
"""

from __future__ import annotations

import numpy as np
from ..compiled import read_only, worth
from ..ranges import ranges, run_ranges
from ..texts import Texts

__all__ = ["Texts", "Rows", "use_device", "small_lines"]

_POOLS = 4  # byte pools of one render (a fixed count: one compiled kernel)
_device = None  # what makes the lines of batches too small for the compiled kernels, where not the array passes


def use_device(renderer):
    """Make the lines of batches below :data:`~swgpu.io.compiled.COMPILED_RECORDS`
    with ``renderer`` -- an object with the ``render_rows`` and ``cigar_column`` of
    :mod:`.arrays`, same arguments and bytes (a GPU engine's, once it traces
    alignments) -- instead of the array passes; ``None``: the array passes again.
    Returns the renderer it replaces."""
    global _device
    before, _device = _device, renderer
    return before


def small_lines():
    """What makes the lines of a batch too small for the compiled kernels: the
    renderer of :func:`use_device`, else the array passes (:mod:`.arrays`)."""
    if _device is not None:
        return _device
    from . import arrays

    return arrays


class Rows:
    """The fields of ``n`` lines, added in order (see the module notes)."""

    def __init__(self, n: int):
        self.n = int(n)
        self._kinds: list[int] = []  # 0 int, 1 text, 2 constant
        self._args: list[int] = []
        self._ints: list[np.ndarray] = []
        self._starts: list[np.ndarray] = []
        self._ends: list[np.ndarray] = []
        self._pool_of: list[int] = []
        self._pools: list[np.ndarray] = []
        self._consts: list[bytes] = []

    def int(self, values: np.ndarray) -> None:
        """An integer column (one value a line)."""
        self._kinds.append(0)
        self._args.append(len(self._ints))
        self._ints.append(np.asarray(values, dtype=np.int64))

    def text(self, texts: Texts, index: np.ndarray | None = None) -> None:
        """String ``index[k]`` of ``texts`` on line ``k`` (``texts`` in order without ``index``)."""
        for p, pool in enumerate(self._pools):
            if pool is texts.buffer:
                break
        else:
            p = len(self._pools)
            self._pools.append(texts.buffer)
        idx = np.arange(self.n) if index is None else np.asarray(index, dtype=np.int64)
        self._kinds.append(1)
        self._args.append(len(self._starts))
        self._starts.append(texts.offsets[idx])
        self._ends.append(texts.offsets[idx + 1])
        self._pool_of.append(p)

    def const(self, text: str | bytes) -> None:
        """The same text on every line."""
        data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
        if self._kinds and self._kinds[-1] == 2:  # constants next to each other: one
            self._consts[self._args[-1]] += data
            return
        self._kinds.append(2)
        self._args.append(len(self._consts))
        self._consts.append(data)

    def render(self, threads: int | None = None) -> bytes:
        """Every line's fields, in order, as one ``bytes``."""
        return self.render_array(threads).tobytes()

    def render_array(self, threads: int | None = None) -> np.ndarray:
        """:meth:`render` as a ``uint8`` array (no copy into ``bytes``: write it as it is)."""
        if self.n == 0:
            return np.zeros(0, dtype=np.uint8)
        if not worth(self.n):  # array operations (or a GPU's): no Numba to load for a few lines
            return small_lines().render_rows(self.n, self._kinds, self._args, self._ints, self._starts, self._ends,
                                             self._pool_of, self._pools, b"".join(self._consts),
                                             np.cumsum([0] + [len(c) for c in self._consts]))
        from .. import kernels as K

        kinds = np.array(self._kinds, dtype=np.int64)
        args = np.array(self._args, dtype=np.int64)
        ints = np.stack(self._ints) if self._ints else np.zeros((1, self.n), np.int64)
        starts = np.stack(self._starts) if self._starts else np.zeros((1, self.n), np.int64)
        ends = np.stack(self._ends) if self._ends else np.zeros((1, self.n), np.int64)
        pool_of = np.array(self._pool_of or [0], dtype=np.int64)
        pools = self._pools
        if len(pools) > _POOLS:  # the last ones end to end in one
            shift = np.zeros(len(pools), dtype=np.int64)
            shift[_POOLS - 1:] = np.cumsum([0] + [p.size for p in pools[_POOLS - 1:-1]])
            moved = pool_of >= _POOLS - 1
            starts[moved] += shift[pool_of[moved]][:, None]
            ends[moved] += shift[pool_of[moved]][:, None]
            pool_of[moved] = _POOLS - 1
            pools = pools[:_POOLS - 1] + [np.concatenate(pools[_POOLS - 1:])]
        pools = tuple(map(read_only, list(pools) + [np.zeros(0, np.uint8)] * (_POOLS - len(pools))))
        const = np.frombuffer(b"".join(self._consts) or b"\0", dtype=np.uint8)
        coff = np.zeros(len(self._consts) + 1, dtype=np.int64)
        np.cumsum([len(c) for c in self._consts], out=coff[1:])
        sizes = np.empty(self.n, dtype=np.int64)
        spec = (kinds, args, ints, starts, ends, pool_of, const, coff)
        parts = ranges(self.n, threads)
        run_ranges(lambda a, b: K.sizes(*spec, a, b, sizes), parts)
        at = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(sizes, out=at[1:])
        out = np.empty(int(at[-1]), dtype=np.uint8)
        run_ranges(lambda a, b: K.fill(*spec, pools, a, b, at, out), parts)
        return out

