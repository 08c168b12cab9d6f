"""The names of the bulk pair kernels (``screen``), written once.

Imports nothing, so that the command line lists them without loading NumPy.

>>> KERNEL_CHOICES
('auto', 'bitwise', 'wordwise', 'group')
"""

__all__ = ["PAIR_KERNELS", "KERNEL_CHOICES", "GPU_ONLY_KERNELS"]

#: Bit-sliced BPBC, a pair per thread (the scalar kernel on the CPU), and threads sharing a pair.
PAIR_KERNELS = ("bitwise", "wordwise", "group")
#: What ``kernel`` may be: one of them, or ``auto`` (the fastest for the batch).
KERNEL_CHOICES = ("auto",) + PAIR_KERNELS
#: The kernels only the GPU runs.
GPU_ONLY_KERNELS = ("group",)
