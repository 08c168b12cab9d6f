"""Exceptions raised by swgpu.

Every error a user can cause (a bad file, a bad letter, a bad parameter) is a
:class:`SwgpuError`; the command line prints its message on one line and exits
with status 2. Anything else is a bug.
"""

from __future__ import annotations

__all__ = ["SwgpuError", "InputError", "ScoringError", "EngineError"]


class SwgpuError(Exception):
    """Base class of the errors a user can cause; the message says what to do.

    ``param`` names the library parameter at fault (``"gap_open"``,
    ``"alphabet"``, ...), when there is one; the message then starts with it.
    The command line shows the matching option instead (``--gap-open``).

    >>> str(ScoringError("must be >= 0, got -1", param="gap_open"))
    'gap_open: must be >= 0, got -1'
    >>> ScoringError("must be >= 0, got -1", param="gap_open").message
    'must be >= 0, got -1'
    """

    def __init__(self, message: str = "", *, param: str | None = None):
        super().__init__(f"{param}: {message}" if param else message)
        self.message = message
        self.param = param


class InputError(SwgpuError, ValueError):
    """A sequence file or sequence cannot be used (format, letters, emptiness)."""


class ScoringError(SwgpuError, ValueError):
    """Scoring parameters or a substitution matrix are invalid."""


class EngineError(SwgpuError, RuntimeError):
    """The requested compute engine is not available on this machine."""
