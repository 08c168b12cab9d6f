"""The one-time compile of the CPU kernels, said once on standard error
(:func:`swgpu.io.compiled.announce_compile`, shared with the io layer's kernels)."""

from __future__ import annotations

from ...io.compiled import announce_compile, will_compile

__all__ = ["announce_compile", "will_compile"]
