"""CPU engine: Numba kernels with explicit int32 arithmetic."""
