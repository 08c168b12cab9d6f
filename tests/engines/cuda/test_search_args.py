"""The ``sw_search`` argument struct and tile list, read from the kernel
sources: runs without CuPy or a GPU (only the package's ``.cu``/``.cuh`` text)."""

from __future__ import annotations

import re
import subprocess
import sys
from importlib import resources

import numpy as np
import pytest

from swgpu.engines.cuda import search_tiling
from swgpu.engines.cuda.search_args import args_dtype, pack_args, struct_fields

_KERNELS = resources.files("swgpu.engines.cuda") / "kernels"
_SIZES = {"int": 4, "long long": 8}  # scalars; every pointer is 8 bytes


def _header_fields():
    """(name, ctype, pointer) of each ``SwpArgs`` field, read here with a regex of our own."""
    text = (_KERNELS / "sw_search_args.cuh").read_text()
    body = re.search(r"struct\s+SwpArgs\s*\{(.*?)\};", text, re.DOTALL).group(1)
    fields = []
    for line in body.splitlines():
        line = line.split("//")[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"(?:const\s+)?([A-Za-z_][\w ]*?)\s*(\*?)\s*(\w+)\s*;", line)
        assert m, f"cannot read field line {line!r}"
        fields.append((m.group(3), m.group(1), bool(m.group(2))))
    return fields


def _natural_layout(fields):
    """C natural alignment on a 64-bit target: offsets and the struct size."""
    offsets, pos, align = {}, 0, 1
    for name, ctype, pointer in fields:
        size = 8 if pointer else _SIZES[ctype]
        pos = -(-pos // size) * size
        offsets[name] = pos
        pos += size
        align = max(align, size)
    return offsets, -(-pos // align) * align


def test_struct_fields_match_header():
    fields = struct_fields()
    want = _header_fields()
    assert len(want) >= 10
    assert [f.name for f in fields] == [n for n, _, _ in want]
    assert [(f.ctype, f.pointer) for f in fields] == [(c, p) for _, c, p in want]
    assert fields[0].name == "prof" and fields[0].pointer


def test_args_dtype_natural_alignment():
    dt = args_dtype()
    fields = struct_fields()
    offsets, size = _natural_layout([(f.name, f.ctype, f.pointer) for f in fields])
    assert list(dt.names) == [f.name for f in fields]
    for f in fields:
        sub, off = dt.fields[f.name][:2]
        assert off == offsets[f.name], f"{f.name}: offset {off}, C puts it at {offsets[f.name]}"
        if f.pointer:
            assert sub.itemsize == 8
        else:
            assert sub == np.dtype(np.int32 if f.ctype == "int" else np.int64)
    assert dt.itemsize == size
    assert dt.itemsize % 8 == 0
    assert dt.isalignedstruct


class _FakeArray:
    """Stands in for a CuPy array: only ``.data.ptr`` is read."""

    class _Mem:
        def __init__(self, ptr):
            self.ptr = ptr

    def __init__(self, ptr):
        self.data = self._Mem(ptr)


def test_pack_args_fills_fields_by_name():
    rec = pack_args(prof=_FakeArray(0x7F0000001000), codes=_FakeArray(0xDEADBEEF00), bnd=None,
                    qstride=(1 << 40) + 3, nlet=25, gap_open=11, gap_ext=1, pad=np.int64(24), first=0)
    assert rec.dtype == args_dtype()
    assert int(rec["prof"]) == 0x7F0000001000
    assert int(rec["codes"]) == 0xDEADBEEF00
    assert int(rec["bnd"]) == 0
    assert int(rec["qstride"]) == (1 << 40) + 3
    assert (int(rec["nlet"]), int(rec["gap_open"]), int(rec["gap_ext"]), int(rec["pad"])) == (25, 11, 1, 24)
    given = {"prof", "codes", "bnd", "qstride", "nlet", "gap_open", "gap_ext", "pad", "first"}
    for f in struct_fields():
        if f.name not in given:
            assert int(rec[f.name]) == 0, f"{f.name} not given but {int(rec[f.name])}"
    # the bytes are those of the C struct: a pointer read at its offset
    raw = rec.tobytes()
    assert len(raw) == args_dtype().itemsize
    off = args_dtype().fields["codes"][1]
    assert int.from_bytes(raw[off:off + 8], "little") == 0xDEADBEEF00


def test_pack_args_empty_is_all_zero():
    assert pack_args().tobytes() == bytes(args_dtype().itemsize)


def test_pack_args_rejects_unknown_fields():
    with pytest.raises(TypeError, match="no_such_field"):
        pack_args(nlet=3, no_such_field=1)
    with pytest.raises(TypeError):
        pack_args(Prof=None)


def _kernel_variants():
    text = (_KERNELS / "sw_search.cu").read_text()
    m = re.search(r"#define SWP_VARIANTS\(X\)((?:[^\n]*\\\n)*[^\n]*)", text)
    assert m, "no SWP_VARIANTS in sw_search.cu"
    return [(int(g), int(r), bp == "true") for g, r, bp in re.findall(r"X\((\d+),\s*(\d+),\s*(true|false)\)", m.group(1))]


def test_variants_equal_the_kernel_list():
    want = _kernel_variants()
    assert want
    assert list(search_tiling.variants()) == [(g, r) for g, r, _ in want]
    for g, r, bp in want:
        assert search_tiling.block_shared(g, r) is bp


def test_every_variant_has_a_speed():
    for shape in search_tiling.variants():
        assert search_tiling._SPEED[shape] > 0
        assert search_tiling._SPEED_QP[shape] > 0


def test_wide_variant_is_known():
    g, r = search_tiling.wide_variant()
    assert isinstance(search_tiling.block_shared(g, r), bool)


@pytest.mark.parametrize("shape", [(7, 16), (16, 17), (0, 0), (64, 64)])
def test_block_shared_unknown_shape(shape):
    with pytest.raises(ValueError):
        search_tiling.block_shared(*shape)


def test_choose_tile_picks_a_variant():
    for q in (1, 100, 1000, 5000):
        assert search_tiling.choose_tile(q, 100_000, 300) in search_tiling.variants()


def test_no_cupy_needed():
    """These modules read the kernel text only: importing and using them loads no CuPy."""
    code = ("import sys; from swgpu.engines.cuda import search_args, search_tiling; "
            "search_args.pack_args(nlet=1); search_tiling.variants(); "
            "assert 'cupy' not in sys.modules, 'cupy imported'")
    proc = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
