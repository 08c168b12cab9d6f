"""The disk cache of simulated Karlin-Altschul parameters.

A simulation (:mod:`.simulation`) takes seconds; its result is kept in one
small JSON file per scoring system in ``$SWGPU_CACHE_DIR/karlin``, else
``$XDG_CACHE_HOME/swgpu/karlin``, else ``~/.cache/swgpu/karlin``. The file's
name is a hash of everything the result depends on (:func:`cache_key`): the
scores among the letters of positive background probability (with those
letters), the gap costs, the background composition, the method's version
and its budget. Files are written to a temporary name and renamed, so
processes may share the folder; a file that cannot be read or does not hold
sound numbers is ignored (and replaced by a fresh estimate), never an error,
and a folder that cannot be written only means estimating again next time.

>>> import numpy as np
>>> key = cache_key(np.array([[2, -3], [-3, 2]]), "AC", 5, 2, np.array([0.5, 0.5]), 1, 10)
>>> len(key), key == cache_key(np.array([[2, -3], [-3, 2]]), "AC", 5, 2, np.array([0.5, 0.5]), 1, 10)
(40, True)
>>> key == cache_key(np.array([[2, -3], [-3, 2]]), "AC", 6, 2, np.array([0.5, 0.5]), 1, 10)
False
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["cache_dir", "cache_key", "load", "store", "FIELDS"]

_FORMAT = 1  # bump when what is stored changes
#: The numbers a cache file must hold (finite; lambda, K, H and alpha positive).
FIELDS = ("lambda", "K", "H", "alpha", "beta")


def cache_dir() -> Path:
    """Where simulated parameters are kept (see the module text)."""
    explicit = os.environ.get("SWGPU_CACHE_DIR")
    if explicit:
        return Path(explicit) / "karlin"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "swgpu" / "karlin"


def cache_key(values: np.ndarray, letters: str, gap_open: int, gap_extend: int, probs: np.ndarray,
              version: int, cells: int) -> str:
    """Hex digest naming one estimate: ``values`` are the scores among
    ``letters`` (those of positive probability ``probs``)."""
    h = hashlib.sha256()
    material = {
        "format": _FORMAT, "version": int(version), "cells": int(cells), "letters": letters,
        "gap_open": int(gap_open), "gap_extend": int(gap_extend),
        "probs": [float(x).hex() for x in np.asarray(probs, dtype=np.float64).ravel()],
    }
    h.update(json.dumps(material, sort_keys=True).encode())
    h.update(b"\0")
    h.update(np.ascontiguousarray(values, dtype=np.int64).tobytes())
    return h.hexdigest()[:40]


def _path(key: str) -> Path:
    return cache_dir() / f"{key}.json"


def _sound(record: Any) -> bool:
    if not isinstance(record, dict):
        return False
    try:
        numbers = [float(record[f]) for f in FIELDS]
    except (KeyError, TypeError, ValueError):
        return False
    if not all(math.isfinite(x) for x in numbers):
        return False
    lam, K, H, alpha, _ = numbers
    return lam > 0 and K > 0 and H > 0 and alpha > 0


def load(key: str) -> dict | None:
    """The record stored under ``key``, or None (absent, unreadable, or not
    sound numbers)."""
    try:
        record = json.loads(_path(key).read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return None
    if not _sound(record) or record.get("key") != key:
        return None
    return record


def store(key: str, record: dict) -> bool:
    """Write ``record`` under ``key`` (temporary file, then rename); False
    when the folder cannot be written."""
    record = dict(record, key=key)
    folder = cache_dir()
    tmp = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".karlin-", suffix=".tmp", dir=folder)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(record, fh, indent=1, sort_keys=True)
        os.chmod(tmp, 0o644)
        os.replace(tmp, _path(key))
        return True
    except OSError:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        return False
