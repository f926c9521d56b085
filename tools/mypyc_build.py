"""Experiment (branch s9-mypyc): compile some modules with mypyc, in place, next to their sources.

    .venv/bin/python tools/mypyc_build.py updown/games/euchre.py [more.py ...]

What ``mypyc FILES`` does, except that the setuptools ``Distribution`` is built by hand: ``mypyc``
writes ``build/setup.py`` and runs ``setup()``, which reads the repository's ``pyproject.toml``,
and the virtualenv's setuptools (65.5) rejects its ``license = "MIT"`` string (the build backend
pins setuptools 84, which accepts it). ``.so`` files land next to the sources (``--inplace``);
delete them (``git clean -fX updown``, or ``rm updown/**/*.so``) to get the pure-Python modules back.
"""

from __future__ import annotations

import sys
import time

from mypyc.build import mypycify
from setuptools import Distribution


def main() -> None:
    files = sys.argv[1:]
    start = time.perf_counter()
    extensions = mypycify(files, opt_level="3", debug_level="1")
    dist = Distribution({"name": "updown_mypyc", "ext_modules": extensions})
    dist.script_args = ["build_ext", "--inplace"]
    dist.parse_command_line()
    dist.run_commands()
    print(f"compiled {len(files)} modules in {time.perf_counter() - start:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
