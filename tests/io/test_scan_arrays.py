"""The array scan of FASTA text gives the compiled scan's fields, letters and codes, or sends the text to it."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from swgpu.io import kernels as K
from swgpu.io.alphabet import DNA, PROTEIN
from swgpu.io.scan_arrays import RECHECK, REJECT, scan_part
from swgpu.io.scanner import _CLASS

from fasta_texts import HEADER_PARTS, LINE_PARTS, fasta_texts

_FASTA = fasta_texts(HEADER_PARTS + ["\x01", ">"], LINE_PARTS + ["\x7f", "é", "\xff"], latin1=True)


def _compiled(data: np.ndarray, lut: np.ndarray, exact: bool):
    letters = np.empty(data.size, dtype=np.uint8)
    codes = np.empty(data.size, dtype=np.uint8)
    fields, loff, used, bad = K.scan(data, _CLASS, lut.copy(), letters, codes, exact)
    return bad, fields, loff, letters[:used], codes[:used]


@settings(max_examples=400, deadline=None)
@given(text=_FASTA, table=st.sampled_from([DNA.table, PROTEIN.table, None]))
def test_array_scan_equals_the_compiled_scan(text, table):
    data = np.frombuffer(text, dtype=np.uint8)
    lut = np.frombuffer(table, dtype=np.uint8) if table is not None else np.arange(256, dtype=np.uint8)
    got = scan_part(data, lut)
    exact = _compiled(data, lut, True)
    if got is REJECT:
        assert exact[0]  # the byte-by-byte scan finds a problem too
        return
    if got is RECHECK:  # something among the letters: the byte-by-byte scan decides
        if table is not None:
            assert _compiled(data, lut, False)[0]  # the compiled whole-line scan would not take it either
        return
    bad, fields, loff, letters, codes = exact
    assert not bad
    assert got[0].tolist() == fields.tolist() and got[1].tolist() == loff.tolist()
    assert bytes(got[2]) == bytes(letters) and bytes(got[3]) == bytes(codes)


@settings(max_examples=150, deadline=None)
@given(text=_FASTA, least=st.integers(1, 64))
def test_parts_on_threads_and_compiled_parts_equal_one_part(text, least):
    from swgpu.io.scanner import _scan_parts

    data = np.frombuffer(text, dtype=np.uint8)
    lut = np.frombuffer(DNA.table, dtype=np.uint8)
    one = scan_part(data, lut)
    for other in (_scan_parts(data, lut, 4, least), _scan_parts(data, lut, 4, least, compiled=True)):
        if isinstance(one, str) or isinstance(other, str):
            # a part's problem: the exact scan decides either way; a rejection is one
            assert isinstance(one, str) and isinstance(other, str)
            assert one == other or RECHECK in (one, other)
            continue
        for a, b in zip(one, other):
            assert a.tolist() == b.tolist()


def test_reading_takes_no_compiled_code():
    import subprocess
    import sys

    code = ("import sys, numpy as np; from swgpu.io.scanner import scan_fasta; from swgpu.io.alphabet import DNA; "
            "f = scan_fasta(np.frombuffer(b'>a x\\nACGT\\n>b\\nGG\\n', dtype=np.uint8), DNA.table); "
            "print(f[0].strings(), 'numba' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['a', 'b'] False"


@settings(max_examples=30, deadline=None)
@given(names=st.lists(st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=1,
                              max_size=8), min_size=1, max_size=30),
       described=st.booleans())
def test_columns_gathered_in_compiled_code_equal_the_array_gather(names, described):
    from swgpu.io.scanner import scan_fasta

    records = [(names[k % len(names)] + str(k), f"desc {k} x" if described and k % 3 else "") for k in range(1500)]
    text = "".join(f">{n}{' ' + d if d else ''}\nACGT\n" for n, d in records).encode()
    data = np.frombuffer(text, dtype=np.uint8)
    slow, fast = scan_fasta(data, DNA.table, compiled=False), scan_fasta(data, DNA.table, compiled=True)
    assert (slow is None) == (fast is None)
    if slow is None:  # (not the common case: read record by record)
        return
    for a, b in zip(slow[:2], fast[:2]):
        assert a.buffer.tolist() == b.buffer.tolist() and a.offsets.tolist() == b.offsets.tolist()
    assert fast[0].strings() == [n for n, _ in records]
