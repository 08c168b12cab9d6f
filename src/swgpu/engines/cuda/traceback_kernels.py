"""The traceback's kernels (``kernels/sw_traceback.cu``), compiled in parts.

The file's ``TW_PART`` option keeps the kernels of one part (:data:`PARTS`);
the parts compile side by side on a fresh machine (:func:`part_jobs` are
:func:`~.runtime.prefetch`'s jobs), and :class:`Kernels` loads a part when
one of its kernels is first launched, so that pairs below the tall shape's
size never wait for the tall kernels.
"""

from __future__ import annotations

from . import runtime

__all__ = ["KERNEL_FILE", "PARTS", "Kernels", "part_jobs"]

KERNEL_FILE = "sw_traceback.cu"
#: The kernels of each part of ``KERNEL_FILE`` (its ``TW_PART`` option).
PARTS = {1: ("tw_sw_end_1", "tw_sw_end_8"), 2: ("tw_sw_start_1", "tw_sw_start_8"),
         3: ("tw_nw_last_1", "tw_nw_last_8", "tw_split"),
         4: ("tw_nw_path_1", "tw_nw_path_8", "tw_forward_ops", "tw_path_runs_count", "tw_path_runs_fill"),
         5: ("tw_sw_end_T",), 6: ("tw_sw_start_T",), 7: ("tw_nw_last_T",)}
_PART_OF = {name: part for part, names in PARTS.items() for name in names}


def part_jobs() -> list[tuple[str, tuple[str, ...], None]]:
    """The modules of the traceback's kernels (:func:`~.runtime.prefetch`'s jobs), one a part."""
    return [(KERNEL_FILE, (f"-DTW_PART={part}",), None) for part in PARTS]


class Kernels(dict):
    """The traceback's kernels by name, each loaded with its part (:data:`PARTS`)
    when first launched."""

    def __missing__(self, name: str):
        part = _PART_OF[name]
        mod = runtime.get_module(KERNEL_FILE, (f"-DTW_PART={part}",))
        for k in PARTS[part]:
            self[k] = mod.get_function(k)
        return self[name]
