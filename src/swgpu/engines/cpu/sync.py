"""Ordered loads and stores of ``int64`` array elements, for kernels whose
threads hand work to each other (:mod:`.striped_threads`): a store with
release order publishes everything the thread wrote before it to a thread
that reads it with acquire order.

>>> import numba as nb
>>> import numpy as np
>>> @nb.njit
... def demo(a):
...     store_release(a, 1, 7)
...     return load_acquire(a, 1)
>>> demo(np.zeros(2, dtype=np.int64))
7
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

__all__ = ["load_acquire", "store_release"]


def _elem(context, builder, arrty, arr, idx):
    a = context.make_array(arrty)(context, builder, arr)
    return builder.gep(a.data, [idx])


@intrinsic
def load_acquire(typingctx, arr, idx):
    """``arr[idx]`` loaded with acquire order (``arr`` a C-contiguous int64 array)."""
    if not (isinstance(arr, types.Array) and arr.dtype == types.int64 and isinstance(idx, types.Integer)):
        return None

    def codegen(context, builder, sig, args):
        return builder.load_atomic(_elem(context, builder, arr, args[0], args[1]), "acquire", 8)

    return types.int64(arr, idx), codegen


@intrinsic
def store_release(typingctx, arr, idx, value):
    """``arr[idx] = value`` stored with release order."""
    if not (isinstance(arr, types.Array) and arr.dtype == types.int64 and isinstance(idx, types.Integer)
            and isinstance(value, types.Integer)):
        return None

    def codegen(context, builder, sig, args):
        v = args[2]
        if v.type.width < 64:
            v = builder.sext(v, ir.IntType(64))
        builder.store_atomic(v, _elem(context, builder, arr, args[0], args[1]), "release", 8)
        return context.get_dummy_value()

    return types.none(arr, idx, value), codegen
