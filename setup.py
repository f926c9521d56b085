"""Build hook: the package's rules engines compiled with mypyc where this machine can, else pure.

``pyproject.toml`` holds everything else; setuptools runs this file for every build. Building a
wheel (``pip install .``, ``pip wheel .``, ``python -m build``) compiles ``ENGINES`` of
``updown/core/compiled.py`` into extension modules, with the manifest of their sources' hashes
beside them (which ``updown.games`` checks on import), when ``build_problem()`` finds mypyc, a C
compiler and the Python headers. When not, or with ``UPDOWN_PURE=1``, the wheel holds the pure
engines only (``py3-none-any``) and this prints one line saying so and why (pip shows a build's
output with ``-v``). mypy is a build requirement (``[build-system]``), so it is there in pip's
isolated build environment. An editable install (``pip install -e .``, ``make test``) compiles
nothing: a checkout keeps its pure sources (``make play``, ``make serve`` and ``make fast`` compile
them in place with ``tools/mypyc_build.py``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
GAMES = Path("updown", "games")
# Commands that build the package's files; metadata (egg_info, dist_info), sdist and editable
# installs (editable_wheel, develop) run this file too, and compile nothing.
BUILDS = {"bdist_wheel", "build", "build_ext", "install", "bdist"}


def _compiled_module() -> Any:
    """``updown/core/compiled.py`` by its path: importing ``updown`` would need its dependencies."""
    spec = importlib.util.spec_from_file_location("_updown_compiled", HERE / "updown" / "core" / "compiled.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


compiled = _compiled_module()


class BuildExt(build_ext):
    """After compiling, write the manifest (the compiled sources' sha256) beside the modules."""

    hashes: dict[str, str] = {}

    def run(self) -> None:
        super().run()
        if not self.extensions:
            return
        now = {name: compiled.source_hash(HERE / GAMES / f"{name}.py") for name in compiled.ENGINES}
        if now != self.hashes:
            sys.exit(f"updown: {', '.join(n for n in now if now[n] != self.hashes.get(n))} changed during the build")
        target = (HERE if self.inplace else Path(self.build_lib)) / GAMES / compiled.MANIFEST
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(self.hashes, indent=1, sort_keys=True) + "\n")


def engine_extensions(argv: list[str]) -> list[Any]:
    """mypyc's extension modules for a build command that can have them, else none (with one line)."""
    commands = set(argv[1:])
    if not commands & BUILDS:
        return []
    problem = compiled.build_problem()
    if problem is not None:
        print(compiled.pure_line(problem), file=sys.stderr, flush=True)
        return []
    from mypyc.build import mypycify

    os.chdir(HERE)  # mypyc names the modules from these paths; its C goes to build/
    BuildExt.hashes = {name: compiled.source_hash(GAMES / f"{name}.py") for name in compiled.ENGINES}
    print(f"updown: compiling the rules engines with mypyc ({', '.join(compiled.ENGINES)})", file=sys.stderr, flush=True)
    files = [str(GAMES / f"{name}.py") for name in compiled.ENGINES]
    return list(mypycify(files, opt_level="3", debug_level="1", group_name=compiled.GROUP))


if __name__ == "__main__":
    setup(ext_modules=engine_extensions(sys.argv), cmdclass={"build_ext": BuildExt})
