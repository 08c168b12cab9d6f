"""The traceback's kernel parts (``TW_PART``): every kernel of
``sw_traceback.cu`` is in exactly one part, the one its ``#if TW_IN(n)``
block names -- read from the source, without a GPU."""

from __future__ import annotations

import re

from swgpu.engines.cuda import runtime
from swgpu.engines.cuda.traceback_kernels import KERNEL_FILE, PARTS, part_jobs

_SHAPED = {"TW_END_KERNEL": "tw_sw_end", "TW_START_KERNEL": "tw_sw_start", "TW_LAST_KERNEL": "tw_nw_last",
           "TW_PATH_KERNEL": "tw_nw_path"}


def _kernels_by_part(source: str) -> dict[int, set[str]]:
    found: dict[int, set[str]] = {}
    part, depth = None, 0
    for line in source.splitlines():
        stripped = line.strip()
        if stripped.startswith("#if"):
            depth += 1
            m = re.match(r"#if TW_IN\((\d+)\)", stripped)
            if m:
                part = int(m.group(1))
            continue
        if stripped.startswith("#endif"):
            depth -= 1
            if depth == 0:
                part = None
            continue
        if stripped.startswith("#define"):
            continue
        names = {f"{_SHAPED[m.group(1)]}_{m.group(2)}" for m in re.finditer(r"(TW_\w+_KERNEL)\((\d)\)", line)
                 if m.group(1) in _SHAPED}
        names |= {m.group(1) for m in re.finditer(r"TW_TALL_KERNEL\((\w+),", line)}
        names |= {m.group(1) for m in re.finditer(r"^(tw_\w+)\(", line)}  # a kernel's name opening its line
        if names:
            assert part is not None, f"kernel(s) {sorted(names)} outside every TW_IN block"
            found.setdefault(part, set()).update(names)
    return found


def test_every_kernel_in_the_part_that_names_it():
    found = _kernels_by_part(runtime.kernel_source(KERNEL_FILE))
    assert found == {part: set(names) for part, names in PARTS.items()}


def test_one_module_a_part():
    jobs = part_jobs()
    assert [job[1] for job in jobs] == [(f"-DTW_PART={part}",) for part in PARTS]
    assert {job[0] for job in jobs} == {KERNEL_FILE}
