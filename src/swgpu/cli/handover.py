"""Bytes handed from one process to another through a pipe: a length, then
the bytes (:mod:`.detach`: what the waiting parent prepared for the child)."""

from __future__ import annotations

import os
from collections.abc import Callable

__all__ = ["pipe", "receive", "send"]

#: A larger pipe buffer, where Linux allows it: fewer switches while handing data over.
PIPE_BYTES = 1 << 20


def pipe() -> tuple[int, int]:
    """``(read end, write end)`` of a new pipe, with a larger buffer where allowed."""
    readable, writable = os.pipe()
    try:
        import fcntl

        fcntl.fcntl(writable, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except (ImportError, AttributeError, OSError):  # not Linux, or over the system's limit: the default size
        pass
    return readable, writable


def send(fd: int, prepare: Callable[[], bytes]) -> None:
    """Send what ``prepare()`` returns on ``fd`` and close it: nothing when it
    fails, and no error when the other end is gone (SIGPIPE is ignored in Python)."""
    try:
        data = bytes(prepare() or b"")
    except BaseException:  # noqa: BLE001 - whatever went wrong, the child does the work itself
        data = b""
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(len(data).to_bytes(8, "little"))
            out.write(data)
    except OSError:  # the child has ended or closed its end: its end is what the parent waits for next
        pass


def receive(fd: int) -> bytearray | None:
    """What :func:`send` sent on ``fd`` (closed after); None for nothing, or
    when the sender ended early."""
    with os.fdopen(fd, "rb", buffering=0) as src:
        size = int.from_bytes(_read_exactly(src, 8) or bytes(8), "little")
        return _read_exactly(src, size) if size else None


def _read_exactly(src, size: int) -> bytearray | None:
    buf = bytearray(size)
    view, got = memoryview(buf), 0
    while got < size:
        n = src.readinto(view[got:])
        if not n:  # the sender ended early
            return None
        got += n
    return buf
