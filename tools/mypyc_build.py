"""Compile the rules engines with mypyc, in place (``make fast``; ``make pure`` removes them).

    .venv/bin/python tools/mypyc_build.py

Builds ``ENGINES`` (the four modules in ``updown/games/``) into extension modules next to their
sources, which Python imports instead of the ``.py`` files, and writes
``updown/games/_mypyc_manifest.json``: each compiled source's sha256. ``updown.games`` refuses to
load (ImportError) when a compiled module's source no longer matches it (see
``updown/core/compiled.py``), so an edited engine must be rebuilt or removed.

Needs mypy (the test extra, or ``pip install -e .[fast]``), setuptools, a C compiler and the
Python headers (``python3-dev``). The shared library mypyc makes for the group goes to
``updown/`` (``updown/_engines__mypyc.*.so``), not to the repository root nor to ``updown/games/``,
whose ``__init__`` imports every module it finds. C sources and objects go to ``build/``.

What ``mypyc FILES`` does, except that the setuptools ``Distribution`` is built by hand: ``mypyc``
writes ``build/setup.py`` and runs ``setup()``, which reads the repository's ``pyproject.toml``,
and the virtualenv's setuptools (65.5) rejects its ``license = "MIT"`` string (the build backend
pins setuptools 84, which accepts it).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = ROOT / "updown" / "games"
ENGINES = ("euchre", "up_or_down", "updown", "updown_sueca")
GROUP = "updown._engines"  # the shared library: updown/_engines__mypyc.<suffix>


def build() -> None:
    from mypyc.build import mypycify
    from setuptools import Distribution  # type: ignore[import-untyped, unused-ignore]

    sys.path.insert(0, str(ROOT))
    from updown.core.compiled import MANIFEST, source_hash

    os.chdir(ROOT)  # mypyc names modules from the paths, relative to here; build/ goes here too
    files = [f"updown/games/{name}.py" for name in ENGINES]
    manifest = GAMES / MANIFEST
    if manifest.exists():
        manifest.unlink()  # no manifest while the modules are being replaced: they refuse to load
    hashes = {name: source_hash(GAMES / f"{name}.py") for name in ENGINES}
    start = time.perf_counter()
    extensions = mypycify(files, opt_level="3", debug_level="1", group_name=GROUP)
    dist = Distribution({"name": "updown_mypyc", "ext_modules": extensions})
    dist.script_args = ["build_ext", "--inplace"]
    dist.parse_command_line()
    dist.run_commands()
    changed = [name for name in ENGINES if source_hash(GAMES / f"{name}.py") != hashes[name]]
    if changed:
        sys.exit(f"{', '.join(changed)} changed during the build; run `make fast` again")
    manifest.write_text(json.dumps(hashes, indent=1, sort_keys=True) + "\n")
    print(f"compiled {len(files)} modules in {time.perf_counter() - start:.1f} s; wrote {manifest.relative_to(ROOT)}")


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n", 1)[0]).parse_args()
    build()


if __name__ == "__main__":
    main()
