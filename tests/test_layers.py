"""The layer rules of docs/architecture.md as a test (no external tool).

Every ``src/swgpu/**/*.py`` is parsed with :mod:`ast`; every import is
resolved to an absolute ``swgpu...`` module: top-level and nested imports,
imports inside functions and under ``if TYPE_CHECKING``, relative imports, and
lazy imports by name (any string that is exactly a ``swgpu.pkg.module`` name,
as passed to ``importlib.import_module``, or ``"swgpu.pkg.module:Class"`` as in
the engine registry).

Rules:

* layers ``io < scoring < align < engines < parallel < workloads < cli``: no
  module imports a module of a higher layer (top-level modules --
  ``exceptions``, ``_version``, ``__init__``, ``__main__`` -- are outside the
  layers, but names taken from the ``swgpu`` package itself count as the
  highest layer ``swgpu/__init__.py`` re-exports from);
* ``engines/cpu`` and ``engines/cuda`` never import each other;
* no module imports a private module (``_name``, except ``__init__`` and
  ``_version``) of another package;
* no file over 450 lines;
* ``swgpu.io``, ``swgpu.scoring`` and ``swgpu.align`` import nothing from
  ``swgpu.engines``, not even lazily.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

LAYERS = ("io", "scoring", "align", "engines", "parallel", "workloads", "cli")
RANK = {name: k for k, name in enumerate(LAYERS)}
MAX_LINES = 450
#: Numba/CUDA kernel files allowed past MAX_LINES (relative to src/swgpu); none today.
KERNEL_FILES_EXEMPT: frozenset[str] = frozenset()
PUBLIC_UNDERSCORE = ("__init__", "_version")
_LAZY_NAME = re.compile(r"swgpu(?:\.\w+)+(?::\w+)?")


def _src() -> Path:
    here = Path(__file__).resolve().parents[1] / "src" / "swgpu"
    if here.is_dir():
        return here
    import swgpu

    return Path(swgpu.__file__).resolve().parent


SRC = _src()
FILES = sorted(SRC.rglob("*.py"))


@dataclass(frozen=True)
class Import:
    file: str  # path relative to src/swgpu
    line: int
    target: tuple[str, ...]  # ("swgpu", "engines", "base"), or ("swgpu",) for the package itself
    names: tuple[str, ...] = ()  # for a target of ("swgpu",): the names taken from it
    lazy_string: bool = False

    def where(self) -> str:
        return f"src/swgpu/{self.file}:{self.line}"


def _module_of(rel: tuple[str, ...]) -> tuple[tuple[str, ...], bool]:
    """(module parts, is_package) of a file path relative to src/swgpu."""
    if rel[-1] == "__init__.py":
        return ("swgpu",) + rel[:-1], True
    return ("swgpu",) + rel[:-1] + (rel[-1][:-3],), False


def _package_of(rel: tuple[str, ...]) -> tuple[str, ...]:
    mod, is_pkg = _module_of(rel)
    return mod if is_pkg else mod[:-1]


def _is_module(parts: tuple[str, ...], root: Path = SRC) -> bool:
    if not parts or parts[0] != "swgpu":
        return False
    p = root.joinpath(*parts[1:]) if len(parts) > 1 else root
    return p.with_suffix(".py").is_file() or (p / "__init__.py").is_file()


def imports_of(rel: tuple[str, ...], source: str, root: Path = SRC) -> list[Import]:
    """Every swgpu import of the file ``rel`` (path parts under src/swgpu) with text ``source``."""
    tree = ast.parse(source)
    name = "/".join(rel)
    package = _package_of(rel)
    out: list[Import] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                parts = tuple(alias.name.split("."))
                if parts[0] == "swgpu":
                    out.append(Import(name, node.lineno, parts))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                up = node.level - 1
                assert up < len(package), f"src/swgpu/{name}:{node.lineno}: relative import beyond swgpu"
                base = package[: len(package) - up]
            else:
                base = ()
            mod = base + (tuple(node.module.split(".")) if node.module else ())
            if not mod or mod[0] != "swgpu":
                continue
            plain = []
            for alias in node.names:
                sub = mod + (alias.name,)
                if alias.name != "*" and _is_module(sub, root):
                    out.append(Import(name, node.lineno, sub))
                else:
                    plain.append(alias.name)
            if plain:
                out.append(Import(name, node.lineno, mod, tuple(plain)))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _LAZY_NAME.fullmatch(node.value):
            out.append(Import(name, node.lineno, tuple(node.value.split(":")[0].split(".")), lazy_string=True))
    return out


def _rel(path: Path) -> tuple[str, ...]:
    return path.relative_to(SRC).parts


@pytest.fixture(scope="module")
def all_imports() -> list[Import]:
    out = []
    for path in FILES:
        out += imports_of(_rel(path), path.read_text(encoding="utf-8"))
    return out


def _layer_of_file(rel: tuple[str, ...]) -> str | None:
    return rel[0] if len(rel) > 1 and rel[0] in RANK else None


def _layer_of_target(target: tuple[str, ...]) -> str | None:
    return target[1] if len(target) > 1 and target[1] in RANK else None


def _package_layer(all_imports: list[Import]) -> int:
    """The rank that names taken from ``swgpu`` itself count as: the highest layer
    ``swgpu/__init__.py`` imports from."""
    ranks = [RANK[lay] for imp in all_imports if imp.file == "__init__.py"
             for lay in [_layer_of_target(imp.target)] if lay is not None]
    return max(ranks, default=-1)


def upward_imports(imports: list[Import], package_rank: int) -> list[str]:
    bad = []
    for imp in imports:
        layer = _layer_of_file(tuple(imp.file.split("/")))
        if layer is None:
            continue
        target_layer = _layer_of_target(imp.target)
        if target_layer is not None and RANK[target_layer] > RANK[layer]:
            bad.append(f"{imp.where()}: {layer} imports {'.'.join(imp.target)} ({target_layer})")
        elif imp.target == ("swgpu",):
            names = [n for n in imp.names if not (n.startswith("__") and n.endswith("__"))]
            if names and package_rank > RANK[layer]:
                bad.append(f"{imp.where()}: {layer} imports {', '.join(names)} from the swgpu package "
                           f"(re-exports up to {LAYERS[package_rank]})")
    return bad


def test_sources_found_and_parsed(all_imports):
    rels = {"/".join(_rel(p)) for p in FILES}
    for expected in ("engines/base.py", "engines/cpu/engine.py", "align/overflow.py", "parallel/executors.py",
                     "cli/main.py", "exceptions.py"):
        assert expected in rels
    for layer in LAYERS:
        assert (SRC / layer / "__init__.py").is_file(), f"no package swgpu.{layer}"
    found = {(i.file, ".".join(i.target)) for i in all_imports}
    # relative `from . import x`, lazy imports inside functions, TYPE_CHECKING imports, registry strings
    assert ("engines/cpu/engine.py", "swgpu.engines.cpu.bitsliced") in found
    assert ("engines/registry.py", "swgpu.engines.cuda.runtime") in found
    assert ("scoring/karlin.py", "swgpu.scoring.scoring") in found
    assert ("engines/registry.py", "swgpu.engines.cpu.engine") in found
    assert ("cli/info.py", "swgpu.engines.registry") in found
    assert ("engines/base.py", "swgpu.exceptions") in found


def test_no_upward_imports(all_imports):
    bad = upward_imports(all_imports, _package_layer(all_imports))
    assert not bad, "imports of a higher layer:\n" + "\n".join(bad)


def test_engines_do_not_import_each_other(all_imports):
    bad = []
    for imp in all_imports:
        rel = imp.file.split("/")
        if len(rel) > 2 and rel[0] == "engines" and rel[1] in ("cpu", "cuda"):
            other = "cuda" if rel[1] == "cpu" else "cpu"
            if imp.target[1:3] == ("engines", other):
                bad.append(f"{imp.where()}: engines/{rel[1]} imports {'.'.join(imp.target)}")
    assert not bad, "one engine imports the other:\n" + "\n".join(bad)


def private_imports(imports: list[Import]) -> list[str]:
    bad = []
    for imp in imports:
        importer_pkg = _package_of(tuple(imp.file.split("/")))
        for k, part in enumerate(imp.target[1:], start=1):
            if part.startswith("_") and part not in PUBLIC_UNDERSCORE:
                owner = imp.target[:k]
                if importer_pkg[: len(owner)] != owner:
                    bad.append(f"{imp.where()}: imports private module {'.'.join(imp.target[:k + 1])} "
                               f"of package {'.'.join(owner)}")
                break
    return bad


def test_no_private_modules_of_other_packages(all_imports):
    bad = private_imports(all_imports)
    assert not bad, "private modules imported from another package:\n" + "\n".join(bad)


def test_file_length_limit():
    long_files = []
    for path in FILES:
        rel = "/".join(_rel(path))
        with path.open(encoding="utf-8") as fh:
            n = sum(1 for _ in fh)
        if n > MAX_LINES and rel not in KERNEL_FILES_EXEMPT:
            long_files.append(f"src/swgpu/{rel}:{n}: {n} lines (limit {MAX_LINES})")
    assert not long_files, "files over the limit:\n" + "\n".join(long_files)


def test_lower_layers_never_touch_engines(all_imports):
    bad = [f"{imp.where()}: imports {'.'.join(imp.target)}" + (" (by name)" if imp.lazy_string else "")
           for imp in all_imports
           if imp.file.split("/")[0] in ("io", "scoring", "align") and imp.target[1:2] == ("engines",)]
    assert not bad, "io/scoring/align use swgpu.engines:\n" + "\n".join(bad)


# --- the checker itself catches what it should -----------------------------------------------

def test_checker_finds_violations_in_synthetic_sources():
    src = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n"
        "    from ..engines.base import Engine\n"           # line 3: upward, type-only
        "def f():\n"
        "    from swgpu.workloads import search\n"          # line 5: upward, lazy, absolute
        "    import importlib\n"
        "    return importlib.import_module('swgpu.engines.cpu.engine')\n"  # line 7: by name
        "from .. import Aligner\n"                           # line 8: the package's re-export
        "from ..engines.cuda import _private\n"              # line 9: private module elsewhere
    )
    imports = imports_of(("align", "x.py"), src)
    bad = upward_imports(imports, RANK["workloads"])
    lines = sorted(int(b.split(":")[1]) for b in bad)
    assert lines == [3, 5, 7, 8, 9], bad
    assert all(b.startswith("src/swgpu/align/x.py:") for b in bad)
    priv = private_imports([Import("align/x.py", 9, ("swgpu", "engines", "cuda", "_private"))])
    assert priv and "src/swgpu/align/x.py:9" in priv[0]
    # the same private module from its own package is fine
    assert not private_imports([Import("engines/cuda/search.py", 1, ("swgpu", "engines", "cuda", "_private"))])


def test_relative_imports_resolve():
    imps = imports_of(("engines", "cpu", "__init__.py"), "from . import engine\nfrom ..base import Engine\n"
                                                         "from ...io import database\n")
    assert [i.target for i in imps] == [("swgpu", "engines", "cpu", "engine"), ("swgpu", "engines", "base"),
                                        ("swgpu", "io", "database")]
    cross = imports_of(("engines", "cuda", "x.py"), "def g():\n    from ..cpu import pairwise\n")
    assert cross[0].target == ("swgpu", "engines", "cpu", "pairwise") and cross[0].line == 2
