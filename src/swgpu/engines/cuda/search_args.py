"""The ``sw_search`` kernel's argument struct, read from its C++ definition.

``kernels/sw_search_args.cuh`` declares ``struct SwpArgs``; this module parses
its field list (between the ``FIELDS BEGIN`` / ``FIELDS END`` markers) into a
NumPy structured type with the same C layout, and fills it by field name, so
the kernel is called with one named struct instead of a long positional list.
Pointers take CuPy arrays (or None for a null pointer).

>>> [f.name for f in struct_fields()][:3]
['prof', 'codes', 'pair_off']
>>> args_dtype().itemsize
128
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

import numpy as np

from .runtime import kernel_source

__all__ = ["ArgField", "struct_fields", "args_dtype", "pack_args"]

HEADER = "sw_search_args.cuh"
_FIELD = re.compile(r"^\s*(?:const\s+)?(unsigned char|unsigned int|long long|int|uint4)\s*(\*?)\s*(\w+)\s*;")
_SCALARS = {"int": np.int32, "long long": np.int64}


@dataclass(frozen=True)
class ArgField:
    name: str
    ctype: str
    pointer: bool


@functools.lru_cache(maxsize=None)
def struct_fields() -> tuple[ArgField, ...]:
    """The fields of ``SwpArgs`` in declaration order."""
    lines = kernel_source(HEADER).splitlines()
    begin = next(i for i, line in enumerate(lines) if "FIELDS BEGIN" in line)
    end = next(i for i, line in enumerate(lines) if "FIELDS END" in line)
    body = lines[begin + 1: end]
    fields = []
    for line in body:
        m = _FIELD.match(line)
        if m is None:
            raise ValueError(f"{HEADER}: cannot read field line {line.strip()!r}")
        ctype, star, name = m.groups()
        if not star and ctype not in _SCALARS:
            raise ValueError(f"{HEADER}: field {name}: by-value type {ctype} not supported")
        fields.append(ArgField(name, ctype, bool(star)))
    return tuple(fields)


@functools.lru_cache(maxsize=None)
def args_dtype() -> np.dtype:
    """Structured type laid out as the C struct (natural alignment)."""
    return np.dtype([(f.name, np.uintp if f.pointer else _SCALARS[f.ctype]) for f in struct_fields()], align=True)


def pack_args(**values) -> np.void:
    """One ``SwpArgs`` value: CuPy arrays (or None) for pointers, ints for scalars;
    fields not given are null / 0."""
    names = {f.name: f for f in struct_fields()}
    unknown = set(values) - set(names)
    if unknown:
        raise TypeError(f"SwpArgs has no field {', '.join(sorted(unknown))}")
    rec = np.zeros((), dtype=args_dtype())
    for name, v in values.items():
        if names[name].pointer:
            rec[name] = 0 if v is None else v.data.ptr
        else:
            rec[name] = int(v)
    return rec[()]
