"""CUDA engine: kernels in ``kernels/*.cu`` compiled at first use through CuPy (NVRTC)."""
