"""Explicit SIMD vectors for the Numba kernels.

A :class:`Vec` is one 64-byte vector of integer lanes -- 64 ``uint8``, 32
``uint16`` or ``int16``, 16 ``uint32`` or ``int32`` -- held in registers (an LLVM vector value), so a
kernel written with these functions keeps its DP state in registers instead
of the memory round trips of loops over lanes. LLVM lowers each operation to
the host's instructions (one AVX-512 instruction, two AVX2 ones, four SSE or
NEON ones) when Numba compiles the kernel for the machine, and the compiled
kernel is cached per CPU model and feature set (Numba's cache key).

Local-alignment lanes are unsigned and saturating (``adds``/``subs``), as in
the SIMD Smith-Waterman kernels of Farrar, SWIPE and Opal: values clamp at 0
(the local-alignment floor) and at the lane maximum (detected by the caller).
Global-alignment lanes are signed (``vadd``/``vsub``, ``vmax`` signed).

>>> import numba as nb
>>> import numpy as np
>>> @nb.njit
... def demo(a):
...     v = vload(a, 0)
...     return vhmax(subs(adds(v, vfill(a, 250)), vfill(a, 3)))
>>> demo(np.arange(64, dtype=np.uint8))
252
"""

from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, models, register_model

from .lanes import VEC_BYTES, lanes_of

__all__ = ["VEC_BYTES", "lanes_of", "vload", "vstore", "vfill", "adds", "subs", "vmax", "vadd", "vsub", "vhmax",
           "any_gt", "carry_scan_signed",
           "any_ge", "select_eq", "select_gt", "shift_in", "carry_scan", "vlast", "vlookup", "atomic_next", "atomic_read",
           "zip_lo", "zip_hi"]

class Vec(types.Type):
    """A 64-byte vector of integer lanes."""

    def __init__(self, dtype):
        self.dtype = dtype
        self.lanes = VEC_BYTES * 8 // dtype.bitwidth
        super().__init__(name=f"Vec({dtype}x{self.lanes})")


@register_model(Vec)
class _VecModel(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, ir.VectorType(ir.IntType(fe_type.dtype.bitwidth), fe_type.lanes))


_I32 = ir.IntType(32)


def _check(dtype):
    if not isinstance(dtype, types.Integer) or dtype.bitwidth not in (8, 16, 32) or (dtype.signed and
                                                                                    dtype.bitwidth == 8):
        raise TypeError(f"SIMD lanes must be uint8, uint16, uint32, int16 or int32, not {dtype}")
    return Vec(dtype)


def _ptr(context, builder, arrty, arr, idx, vty):
    a = context.make_array(arrty)(context, builder, arr)
    return builder.bitcast(builder.gep(a.data, [idx]), context.get_value_type(vty).as_pointer())


def _call(builder, name, ret, args):
    fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ret, [a.type for a in args]), name)
    return builder.call(fn, args)


def _suffix(ty) -> str:
    return f"v{ty.count}i{ty.element.width}"


@intrinsic
def vload(typingctx, arr, idx):
    """The vector at ``arr.flat[idx:idx + lanes]`` (any alignment)."""
    vty = _check(arr.dtype)

    def codegen(context, builder, sig, args):
        return builder.load(_ptr(context, builder, arr, args[0], args[1], vty), align=1)

    return vty(arr, idx), codegen


@intrinsic
def vstore(typingctx, arr, idx, v):
    """Store ``v`` at ``arr.flat[idx:idx + lanes]``."""

    def codegen(context, builder, sig, args):
        builder.store(args[2], _ptr(context, builder, arr, args[0], args[1], v), align=1)
        return context.get_dummy_value()

    return types.none(arr, idx, v), codegen


@intrinsic
def vfill(typingctx, arr, x):
    """A vector of ``arr``'s lane type with every lane ``x`` (truncated)."""
    vty = _check(arr.dtype)

    def codegen(context, builder, sig, args):
        ty = context.get_value_type(vty)
        s = args[1]
        if s.type.width > ty.element.width:
            s = builder.trunc(s, ty.element)
        elif s.type.width < ty.element.width:
            s = builder.sext(s, ty.element) if vty.dtype.signed else builder.zext(s, ty.element)
        v = builder.insert_element(ir.Constant(ty, ir.Undefined), s, ir.Constant(_I32, 0))
        return builder.shuffle_vector(v, v, ir.Constant(ir.VectorType(_I32, ty.count), [0] * ty.count))

    return vty(arr, x), codegen


def _binary(unsigned_name, signed_name=None):
    @intrinsic
    def op(typingctx, a, b):
        if not isinstance(a, Vec) or a != b or (a.dtype.signed and signed_name is None):
            return None

        def codegen(context, builder, sig, args):
            ty = args[0].type
            name = signed_name if a.dtype.signed else unsigned_name
            if name in ("add", "sub"):
                return getattr(builder, name)(args[0], args[1])
            return _call(builder, f"llvm.{name}.{_suffix(ty)}", ty, args)

        return a(a, b), codegen

    return op


adds = _binary("uadd.sat")
adds.__doc__ = "Lane-wise ``min(a + b, max)`` (unsigned lanes)."
subs = _binary("usub.sat")
subs.__doc__ = "Lane-wise ``max(a - b, 0)`` (unsigned lanes)."
vmax = _binary("umax", "smax")
vmax.__doc__ = "Lane-wise maximum (signed for signed lanes)."
vadd = _binary("add", "add")
vadd.__doc__ = "Lane-wise ``a + b`` (wrapping)."
vsub = _binary("sub", "sub")
vsub.__doc__ = "Lane-wise ``a - b`` (wrapping)."


@intrinsic
def vhmax(typingctx, a):
    """The largest lane, as an int64."""
    if not isinstance(a, Vec):
        return None

    def codegen(context, builder, sig, args):
        ty = args[0].type
        kind = "smax" if a.dtype.signed else "umax"
        r = _call(builder, f"llvm.vector.reduce.{kind}.{_suffix(ty)}", ty.element, args)
        return builder.sext(r, ir.IntType(64)) if a.dtype.signed else builder.zext(r, ir.IntType(64))

    return types.int64(a), codegen


@intrinsic
def vlast(typingctx, a):
    """The last lane, as an int64."""
    if not isinstance(a, Vec):
        return None

    def codegen(context, builder, sig, args):
        ty = args[0].type
        last = builder.extract_element(args[0], ir.Constant(_I32, ty.count - 1))
        return builder.sext(last, ir.IntType(64)) if a.dtype.signed else builder.zext(last, ir.IntType(64))

    return types.int64(a), codegen


def _any(pred):
    @intrinsic
    def op(typingctx, a, b):
        if not isinstance(a, Vec) or a != b:
            return None

        def codegen(context, builder, sig, args):
            ty = args[0].type
            cmp = builder.icmp_signed if a.dtype.signed else builder.icmp_unsigned
            mask = cmp(pred, args[0], args[1])
            bits = builder.bitcast(mask, ir.IntType(ty.count))
            return builder.icmp_unsigned("!=", bits, ir.Constant(ir.IntType(ty.count), 0))

        return types.boolean(a, b), codegen

    return op


any_gt = _any(">")
any_gt.__doc__ = "True when some lane of ``a`` is greater than that of ``b``."
any_ge = _any(">=")
any_ge.__doc__ = "True when some lane of ``a`` is at least that of ``b``."


@intrinsic
def select_eq(typingctx, a, b, x, y):
    """Lane-wise ``x if a == b else y``."""
    if not (isinstance(a, Vec) and a == b and isinstance(x, Vec) and x == y and a.lanes == x.lanes):
        return None

    def codegen(context, builder, sig, args):
        return builder.select(builder.icmp_unsigned("==", args[0], args[1]), args[2], args[3])

    return x(a, b, x, y), codegen


@intrinsic
def select_gt(typingctx, a, b, x, y):
    """Lane-wise ``x if a > b else y``."""
    if not (isinstance(a, Vec) and a == b and isinstance(x, Vec) and x == y and a.lanes == x.lanes):
        return None

    def codegen(context, builder, sig, args):
        cmp = builder.icmp_signed if a.dtype.signed else builder.icmp_unsigned
        return builder.select(cmp(">", args[0], args[1]), args[2], args[3])

    return x(a, b, x, y), codegen


def _zip(half):
    @intrinsic
    def op(typingctx, a, b):
        if not isinstance(a, Vec) or a != b:
            return None

        def codegen(context, builder, sig, args):
            n = args[0].type.count
            lanes = [x for k in range(n // 2) for x in (half * n // 2 + k, n + half * n // 2 + k)]
            return builder.shuffle_vector(args[0], args[1], ir.Constant(ir.VectorType(_I32, n), lanes))

        return a(a, b), codegen

    return op


zip_lo = _zip(0)
zip_lo.__doc__ = "Lanes of the first halves of ``a`` and ``b``, interleaved: ``a[0], b[0], a[1], b[1], ...``."
zip_hi = _zip(1)
zip_hi.__doc__ = "Lanes of the second halves of ``a`` and ``b``, interleaved (six rounds transpose 64 x 64 bytes)."


@intrinsic
def shift_in(typingctx, v, s):
    """Lanes moved up by one (lane ``k`` gets lane ``k - 1``); lane 0 gets the lane 0 of ``s``."""
    if not isinstance(v, Vec) or v != s:
        return None

    def codegen(context, builder, sig, args):
        n = args[0].type.count
        # shufflevector over (v, s): index n is lane 0 of s
        mask = ir.Constant(ir.VectorType(_I32, n), [n] + list(range(n - 1)))
        return builder.shuffle_vector(args[0], args[1], mask)

    return v(v, s), codegen


@intrinsic
def carry_scan(typingctx, v, decay):
    """Lane ``l`` gets ``max(v[l'] - (l - 1 - l') * decay for l' < l)`` (0 in
    lane 0; saturating): what lane ``l`` inherits from the lanes before it when
    each lane boundary costs ``decay`` -- a prefix maximum in log2(lanes) steps."""
    if not isinstance(v, Vec) or not isinstance(decay, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        ty = args[0].type
        n, width = ty.count, ty.element.width
        zero = ir.Constant(ty, None)
        i64 = ir.IntType(64)
        d = builder.sext(args[1], i64) if args[1].type.width < 64 else args[1]
        top = ir.Constant(i64, (1 << width) - 1)
        w = builder.shuffle_vector(args[0], zero, ir.Constant(ir.VectorType(_I32, n), [n] + list(range(n - 1))))
        s = 1
        while s < n:
            amount = builder.mul(d, ir.Constant(i64, s))
            amount = builder.select(builder.icmp_unsigned(">", amount, top), top, amount)
            a = builder.trunc(amount, ty.element)
            splat = builder.insert_element(ir.Constant(ty, ir.Undefined), a, ir.Constant(_I32, 0))
            splat = builder.shuffle_vector(splat, splat, ir.Constant(ir.VectorType(_I32, n), [0] * n))
            moved = builder.shuffle_vector(w, zero, ir.Constant(ir.VectorType(_I32, n),
                                                                [n] * s + list(range(n - s))))
            moved = _call(builder, f"llvm.usub.sat.{_suffix(ty)}", ty, [moved, splat])
            w = _call(builder, f"llvm.umax.{_suffix(ty)}", ty, [w, moved])
            s *= 2
        return w

    return v(v, decay), codegen


@intrinsic
def carry_scan_signed(typingctx, v, decay, floor):
    """:func:`carry_scan` for signed lanes: lane 0 gets ``floor`` (minus
    infinity), no saturation (the caller keeps values far from the ends)."""
    if not isinstance(v, Vec) or not v.dtype.signed or not isinstance(decay, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        ty = args[0].type
        n = ty.count
        i64 = ir.IntType(64)
        d = builder.sext(args[1], i64) if args[1].type.width < 64 else args[1]
        fl = builder.trunc(args[2], ty.element) if args[2].type.width > ty.element.width else args[2]
        fv = builder.insert_element(ir.Constant(ty, ir.Undefined), fl, ir.Constant(_I32, 0))
        fv = builder.shuffle_vector(fv, fv, ir.Constant(ir.VectorType(_I32, n), [0] * n))
        w = builder.shuffle_vector(args[0], fv, ir.Constant(ir.VectorType(_I32, n), [n] + list(range(n - 1))))
        s = 1
        while s < n:
            a = builder.trunc(builder.mul(d, ir.Constant(i64, s)), ty.element)
            splat = builder.insert_element(ir.Constant(ty, ir.Undefined), a, ir.Constant(_I32, 0))
            splat = builder.shuffle_vector(splat, splat, ir.Constant(ir.VectorType(_I32, n), [0] * n))
            moved = builder.shuffle_vector(w, fv, ir.Constant(ir.VectorType(_I32, n), [n] * s + list(range(n - s))))
            w = _call(builder, f"llvm.smax.{_suffix(ty)}", ty, [w, builder.sub(moved, splat)])
            s *= 2
        return w

    return v(v, decay, floor), codegen


def _target_features(context) -> set[str]:
    """The CPU features Numba compiles for (``+avx512vbmi``, ...)."""
    feats = getattr(context.codegen(), "_tm_features", "") or ""
    return {f[1:] for f in feats.split(",") if f.startswith("+")}


@intrinsic
def vlookup(typingctx, table, off, idx):
    """Lane-wise ``table.flat[off + idx[lane]]`` for a table of at most ``lanes``
    entries of the vector's type (``idx`` of the same type): one permute
    instruction on AVX-512 (VBMI for bytes, BW for 16-bit lanes), else one
    load per lane."""
    if not isinstance(idx, Vec) or table.dtype != idx.dtype:
        return None

    def codegen(context, builder, sig, args):
        arr, base, ivec = args
        ty = ivec.type
        n, width = ty.count, ty.element.width
        feats = _target_features(context)
        permute = {8: ("avx512vbmi", "llvm.x86.avx512.permvar.qi.512"),
                   16: ("avx512bw", "llvm.x86.avx512.permvar.hi.512"),
                   32: ("avx512f", "llvm.x86.avx512.permvar.si.512")}[width]
        if permute[0] in feats:
            tvec = builder.load(_ptr(context, builder, table, arr, base, idx), align=1)
            return _call(builder, permute[1], ty, [tvec, ivec])
        a = context.make_array(table)(context, builder, arr)
        start = builder.gep(a.data, [base])
        out = ir.Constant(ty, ir.Undefined)
        for lane in range(n):
            k = builder.extract_element(ivec, ir.Constant(_I32, lane))
            val = builder.load(builder.gep(start, [builder.zext(k, ir.IntType(64))]))
            out = builder.insert_element(out, val, ir.Constant(_I32, lane))
        return out

    return idx(table, off, idx), codegen


@intrinsic
def atomic_next(typingctx, counter):
    """Atomically ``counter[0] += 1``; returns the old value (a work queue
    shared by threads: each takes the next item)."""
    if not (isinstance(counter, types.Array) and counter.dtype == types.int64):
        return None

    def codegen(context, builder, sig, args):
        a = context.make_array(counter)(context, builder, args[0])
        return builder.atomic_rmw("add", a.data, ir.Constant(ir.IntType(64), 1), "monotonic")

    return types.int64(counter), codegen


@intrinsic
def atomic_read(typingctx, counter):
    """``counter[0]``, loaded anew at each call (another thread may change it:
    :func:`~.threads.run_shared` stops a kernel this way)."""
    if not (isinstance(counter, types.Array) and counter.dtype == types.int64):
        return None

    def codegen(context, builder, sig, args):
        a = context.make_array(counter)(context, builder, args[0])
        return builder.load_atomic(a.data, "monotonic", 8)

    return types.int64(counter), codegen
