"""The optional compiled engines (``make fast``): what the game modules need of mypyc, and the
check that a compiled engine matches its source.

``make fast`` (``tools/mypyc_build.py``) compiles the rules engines in ``updown/games/`` with mypyc
into extension modules next to their sources, which Python then imports in place of the ``.py``
files, and writes :data:`MANIFEST` there: the sha256 of each compiled source. ``make pure``
removes them. Playing needs neither mypy nor a compiler: without ``mypy_extensions``,
:func:`mypyc_attr` is a decorator that does nothing.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mypy_extensions import mypyc_attr as mypyc_attr
else:
    try:
        from mypy_extensions import mypyc_attr
    except ImportError:  # playing installs no mypy: the decorator only speaks to the compiler

        def mypyc_attr(*attrs: str, **kwattrs: object) -> Any:
            return lambda cls: cls


MANIFEST = "_mypyc_manifest.json"
"""Written by ``tools/mypyc_build.py`` next to the compiled modules: ``{"module": sha256, ...}``."""

FIX = "run `make fast` again to rebuild the compiled engines, or `make pure` to remove them"


def source_hash(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def compiled_modules(folder: Path) -> list[str]:
    """The names of the modules in ``folder`` that exist as extension modules (``name.*.so``)."""
    suffixes = sorted(importlib.machinery.EXTENSION_SUFFIXES, key=len, reverse=True)  # .cpython-311-...so before .so
    names = set()
    for path in folder.iterdir():
        for suffix in suffixes:
            if path.name.endswith(suffix):
                names.add(path.name[: -len(suffix)])
                break
    return sorted(names)


def check_compiled(folder: Path, package: str = "updown.games") -> list[str]:
    """Refuse a compiled module in ``folder`` built from another source than the one beside it.

    Returns the compiled modules' names (none: the pure-Python engines). Raises ImportError naming
    the module and the fix if one's ``.py`` no longer hashes to the manifest's figure, or if there
    is no manifest (or no entry) for it: a stale engine would otherwise run silently instead of
    the edited source. Costs a directory listing, and a hash per compiled module.
    """
    names = compiled_modules(folder)
    if not names:
        return names
    try:
        manifest = json.loads((folder / MANIFEST).read_text())
    except (OSError, ValueError):
        raise ImportError(
            f"compiled engines ({', '.join(names)}) in {folder} have no readable {MANIFEST}; {FIX}"
        ) from None
    for name in names:
        source = folder / f"{name}.py"
        expected = manifest.get(name) if isinstance(manifest, dict) else None
        if expected is None or not source.exists() or source_hash(source) != expected:
            raise ImportError(
                f"the compiled engine {package}.{name} was built from another {name}.py "
                f"than the one in {folder} (edited since `make fast`?); {FIX}"
            )
    return names


def engines_label() -> str:
    """``engines: compiled (mypyc): euchre, ...`` or ``engines: pure Python``, from the loaded modules."""
    import sys

    import updown.games  # noqa: F401  (loads and registers every game module)

    compiled = sorted(
        name.rsplit(".", 1)[1]
        for name, module in list(sys.modules.items())
        if name.startswith("updown.games.")
        and str(getattr(module, "__file__", "")).endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))
    )
    return f"engines: compiled (mypyc): {', '.join(compiled)}" if compiled else "engines: pure Python"
