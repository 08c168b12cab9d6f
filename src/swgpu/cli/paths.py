"""The files of a command, checked before any work: every output can be
written (:func:`~swgpu.io.writers.output.check_output`), no output is one of
the inputs (the same file, through links too) and no two outputs are one file.

A command names the options that hold its paths with :func:`declare`; ``main``
calls :func:`check_files` before the command runs.
"""

from __future__ import annotations

import os
import stat

from ..exceptions import InputError
from ..io.writers.output import check_output, output_target, probe_folder

__all__ = ["declare", "check_files", "check_folder", "large_inputs"]


def declare(p, inputs: tuple[str, ...] = (), outputs: tuple[str, ...] = ()) -> None:
    """The ``dest`` of the options (or positionals) of ``p`` that name input and output files."""
    p.set_defaults(input_paths=tuple(inputs), output_paths=tuple(outputs))


def _label(args, dest: str, path: str) -> str:
    """``-o 'x.tsv'``, or ``'x.tsv'`` for a positional; ``standard input`` for ``-``."""
    if path == "-":
        return "standard input"
    flag = (getattr(args, "param_flags", None) or {}).get(dest)
    return f"{flag} {path!r}" if flag else repr(path)


def _identity(path: str) -> tuple[int, int] | None:
    """``(device, inode)`` of the file at ``path`` (``-``: of standard input), or None."""
    try:
        st = os.fstat(0) if path == "-" else os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


def _stdout_identity() -> tuple[int, int] | None:
    """``(device, inode)`` of standard output when it is a regular file (``>> q.fa``), else None."""
    try:
        st = os.fstat(1)
    except OSError:
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISREG(st.st_mode) else None


def _file_identity(path: str) -> tuple[int, int] | None:
    """``(device, inode)`` of the regular file that ``path`` leads to (through
    ``/dev/stdout`` or ``/dev/fd/N`` too), else None."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISREG(st.st_mode) else None


def check_files(args) -> None:
    """Refuse an output that cannot be written, that is an input (standard
    output too, when it is a file), or that is another output (only files
    count: a device, FIFO or descriptor may be named twice)."""
    flags = getattr(args, "param_flags", None) or {}
    inputs = [(d, p) for d in getattr(args, "input_paths", ()) if (p := getattr(args, d, None)) is not None]
    files = []  # (dest, path, file it replaces, its identity)
    for dest in getattr(args, "output_paths", ()):
        path = getattr(args, dest, None)
        if path == "-" or (path is None and dest == "output"):  # standard output
            files.append((dest, None, None, _stdout_identity()))
            continue
        if path is None:
            continue
        try:
            check_output(path)
            atomic, target = output_target(path)
        except InputError as exc:
            raise InputError(exc.message, param=dest if dest in flags else exc.param) from None
        if atomic:
            files.append((dest, path, target, _identity(target)))
        else:  # a descriptor or device: an input only when it leads to a regular file (/dev/stdout >> q.fa)
            files.append((dest, path, None, _file_identity(path)))
    for k, (dest, path, target, ident) in enumerate(files):
        label = "standard output" if path is None else _label(args, dest, path)
        for in_dest, in_path in inputs:
            if ident is not None and ident == _identity(in_path):
                raise InputError(f"{label} is the input {_label(args, in_dest, in_path)}: an output must not "
                                 "replace an input; write it to another file")
        for other, other_path, other_target, other_ident in files[:k]:
            if target is not None and other_target is not None and (
                    target == other_target or (ident is not None and ident == other_ident)):
                raise InputError(f"{_label(args, other, other_path)} and {label} are one file: "
                                 "give each output its own file")


def large_inputs(args, least: int) -> bool:
    """Whether a sequence file (FASTA or FASTQ, plain or gzip) the command
    reads holds ``least`` bytes or more (compressed: four times its size)."""
    for dest in getattr(args, "input_paths", ()):
        path = getattr(args, dest, None)
        if isinstance(path, str) and path != "-":
            try:
                st = os.stat(path)
                if not stat.S_ISREG(st.st_mode):  # (a pipe: nothing may be read from it here)
                    continue
                size = st.st_size
                with open(path, "rb") as fh:
                    head = fh.read(2)
            except OSError:
                continue
            if head[:1] in (b">", b"@") and size >= least or head == b"\x1f\x8b" and 4 * size >= least:
                return True
    return False


def check_folder(path: str, flag: str) -> None:
    """Refuse, before any work, an output folder that is a file or cannot be
    made or written in (a file is made in it and removed to find out)."""
    if os.path.exists(path) and not os.path.isdir(path):
        raise InputError(f"{path!r} is a file, not a folder: give a folder (made when missing)", param=flag)
    folder = os.path.abspath(path)
    while not os.path.isdir(folder):  # the nearest folder that exists: where the missing ones are made
        parent = os.path.dirname(folder)
        if os.path.exists(folder) or parent == folder:
            raise InputError(f"{path!r}: {folder!r} is not a folder", param=flag)
        folder = parent
    try:
        probe_folder(folder)
    except OSError as exc:
        raise InputError(f"cannot write in {path!r}: {exc.strerror or exc} (in {folder!r})", param=flag) from None
