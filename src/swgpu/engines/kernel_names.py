"""The names of the bulk pair kernels (``screen``), written once.

Imports nothing (but the exceptions, when a name is refused), so that the
command line lists them without loading NumPy.

>>> KERNEL_CHOICES
('auto', 'bitwise', 'wordwise', 'group')
>>> check_kernel("bitwise")
>>> check_kernel("fast")
Traceback (most recent call last):
    ...
swgpu.exceptions.InputError: kernel: unknown kernel 'fast': use auto, bitwise, wordwise, group
"""

__all__ = ["PAIR_KERNELS", "KERNEL_CHOICES", "GPU_ONLY_KERNELS", "check_kernel"]

#: Bit-sliced BPBC, a pair per thread (the scalar kernel on the CPU), and threads sharing a pair.
PAIR_KERNELS = ("bitwise", "wordwise", "group")
#: What ``kernel`` may be: one of them, or ``auto`` (the fastest for the batch).
KERNEL_CHOICES = ("auto",) + PAIR_KERNELS
#: The kernels only the GPU runs.
GPU_ONLY_KERNELS = ("group",)


def check_kernel(kernel: str, error: type | None = None) -> None:
    """An ``error`` (default :class:`~swgpu.exceptions.InputError`, ``param="kernel"``)
    unless ``kernel`` is one of :data:`KERNEL_CHOICES`."""
    if kernel not in KERNEL_CHOICES:
        from ..exceptions import InputError

        raise (error or InputError)(f"unknown kernel {kernel!r}: use {', '.join(KERNEL_CHOICES)}", param="kernel")
