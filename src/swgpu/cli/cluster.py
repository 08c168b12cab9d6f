"""The Dask cluster options (``--scheduler``, ``--workers``, ``--verbose``)
and the executor they ask for; :mod:`.options` exports both with the other
option groups.

Dask's own log lines are shown only with ``--verbose`` (from INFO up, in this
process and in the workers of a local cluster); without it a failure is the
one line of the error policy. An interrupt (Ctrl-C, SIGTERM) stops the
workers of a local cluster at once, without waiting for the tasks they run.

>>> import argparse
>>> p = argparse.ArgumentParser()
>>> add_cluster(p)
>>> p.parse_args(["--workers", "2"]).workers, p.parse_args(["--verbose"]).verbose
(2, True)
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import os

from ..exceptions import InputError
from ..parallel import SCHEDULER_ENV
from .checks import positive_int

__all__ = ["add_cluster", "executor_from", "cluster_of", "local_devices", "gpus_to_start"]


def add_cluster(p: argparse.ArgumentParser) -> None:
    """``--scheduler``, ``--workers`` and ``--verbose``: run on a Dask cluster (:func:`executor_from`)."""
    g = p.add_argument_group("Dask cluster (needs swgpu[dist]; see docs/search.md)")
    g.add_argument("--scheduler", metavar="ADDRESS",
                   help="run on the Dask cluster of this scheduler, e.g. tcp://host:8786, or tls://host:8786 with "
                        "the certificates of the Dask configuration "
                        "(default: $SWGPU_SCHEDULER when set, unless --workers is given)")
    g.add_argument("--workers", type=positive_int, default=None,
                   help="run on a local Dask cluster of this many worker processes, >= 1: CPU workers "
                        "(--threads threads each), or with a GPU one worker per GPU, the first N of --gpus; "
                        "they listen on 127.0.0.1 only")
    g.add_argument("--verbose", action="store_true",
                   help="show Dask's own log lines (INFO and above) on standard error")


def wants_cluster(args) -> bool:
    """Whether the options (or ``$SWGPU_SCHEDULER``) ask for a Dask cluster."""
    return (getattr(args, "scheduler", None) is not None or getattr(args, "workers", None) is not None
            or bool(os.environ.get(SCHEDULER_ENV, "").strip()))


def gpus_to_start(args):
    """The GPUs a command will use in this process, to start early
    (``--gpus``: ids, or ``"all"``); None for the first only: no ``--gpus``
    (or ``align`` without ``--ends``, which uses one GPU), a bad one (said
    where it is used), or a Dask cluster's run (its workers hold the GPUs)."""
    from .options import gpu_ids

    text = getattr(args, "gpus", None)
    if not isinstance(text, str) or (hasattr(args, "ends") and not args.ends) or wants_cluster(args):
        return None
    try:
        ids = gpu_ids(text)
    except InputError:
        return None
    return "all" if ids is None else ids


def executor_from(args):
    """The Dask executor the options ask for (``--scheduler``, else
    ``$SWGPU_SCHEDULER`` unless ``--workers`` is given, or ``--workers``), or
    None to run in this process. With ``--workers N`` and a GPU in use
    (``--device cuda``, or ``auto`` with a GPU), the local cluster has one
    worker per GPU: the first N ids of ``--gpus``. Close it when done."""
    if not wants_cluster(args):
        return None
    scheduler, workers = getattr(args, "scheduler", None), getattr(args, "workers", None)
    from ..parallel.dask_executor import QUIET, executor_for

    if scheduler is not None and workers is not None:
        raise InputError(f"a local cluster of {workers} workers, or the cluster of --scheduler {scheduler}: "
                         f"give one of the two", param="workers")
    gpus = None
    found = _gpus(args) if workers is not None and scheduler is None else None
    if found is not None:
        ids, count = found
        if workers > len(ids):
            raise InputError(f"{workers} GPU workers, but --gpus gives {len(ids)} GPU(s) "
                             f"({','.join(map(str, ids))}): one worker per GPU", param="workers")
        _check_ids(ids, count)
        gpus, workers = ids[:workers], None
    level = logging.INFO if getattr(args, "verbose", False) else QUIET
    return executor_for(scheduler, gpus=gpus, workers=workers, threads=getattr(args, "threads", None), log_level=level)


def _gpus(args) -> tuple[list[int], int] | None:
    """The GPU ids of ``--gpus`` (``all``: every GPU) and the machine's number
    of GPUs, when the device is an accelerator; else None."""
    if getattr(args, "device", "cpu") == "cpu":
        return None
    from ..engines.base import gpu_count, resolve_device
    from ..engines.registry import is_accelerator
    from .options import gpu_ids

    name = resolve_device(args.device)
    if not is_accelerator(name):
        return None
    count = gpu_count(name)
    ids = gpu_ids(getattr(args, "gpus", "all"))
    return (list(range(count)) if ids is None else ids), count


def _check_ids(ids: list[int], count: int) -> None:
    if ids and max(ids) >= count:
        raise InputError(f"{','.join(map(str, ids))}: this machine has {count} GPU(s)", param="gpus")


def accelerator_gpus(args) -> list[int] | None:
    """The GPU ids of ``--gpus`` (default: every GPU; each once, checked against
    the machine's) when the device is an accelerator, else None."""
    found = _gpus(args)
    if found is None:
        return None
    ids, count = found
    _check_ids(ids, count)
    return list(dict.fromkeys(ids))  # (a GPU named twice: once)


def local_gpus(args) -> list[int] | None:
    """:func:`accelerator_gpus` when they are more than GPU 0 alone, else None
    (GPU 0, as the engines take by default)."""
    ids = accelerator_gpus(args)
    return None if ids is None or ids == [0] else ids


def local_devices(args):
    """Without a Dask cluster: a :class:`~swgpu.parallel.device_executor.DeviceExecutor`
    over :func:`local_gpus`, or None."""
    ids = local_gpus(args)
    if ids is None:
        return None
    from ..parallel.device_executor import DeviceExecutor

    return DeviceExecutor(ids, threads=getattr(args, "threads", None))


@contextlib.contextmanager
def cluster_of(args, devices: bool = False):
    """``with cluster_of(args) as executor``: :func:`executor_from`, closed
    at the end of the block, at once when the block raised (None: run in this
    process). ``devices``: without a cluster, the GPUs of ``--gpus`` as its
    workers when they are several, or another than GPU 0 (:func:`local_devices`)."""
    executor = executor_from(args)
    if executor is None:
        yield local_devices(args) if devices else None
        return
    with executor:
        yield executor
