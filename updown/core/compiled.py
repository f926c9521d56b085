"""The compiled engines: what the game modules need of mypyc, whether this machine can compile
them, and the check that a compiled engine matches its source.

:data:`ENGINES`, the rules engines in ``updown/games/``, are compiled with mypyc into extension
modules next to their sources, which Python then imports in place of the ``.py`` files, with
:data:`MANIFEST` beside them: the sha256 of each compiled source. Two builds make them: building
the package (``setup.py``: ``pip install .``, ``pip wheel .``), and in place in a checkout
(``tools/mypyc_build.py``: ``make fast``, and ``make play`` / ``make serve`` after their editable
install). Both compile only where :func:`build_problem` finds nothing missing, and otherwise leave
the pure engines with :func:`pure_line` said once. ``make pure`` removes the in-place build.
Playing needs neither mypy nor a compiler: without ``mypy_extensions``, :func:`mypyc_attr` is a
decorator that does nothing.

``python -m updown.core.compiled`` prints which engines this Python loads; ``... check`` prints
:func:`pure_line` and exits 1 where the engines cannot be compiled, else exits 0 silently.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.machinery
import json
import os
import sys
import tempfile
from pathlib import Path
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mypy_extensions import mypyc_attr as mypyc_attr
else:
    try:
        from mypy_extensions import mypyc_attr
    except ImportError:  # playing installs no mypy: the decorator only speaks to the compiler

        def mypyc_attr(*attrs: str, **kwattrs: object) -> Any:
            return lambda cls: cls


ENGINES = ("euchre", "up_or_down", "updown", "updown_sueca")
"""The modules of ``updown/games/`` that are compiled (``tools/mypyc_build.py`` has the same list)."""

GROUP = "updown._engines"
"""mypyc's group: its shared library is ``updown/_engines__mypyc.<suffix>``."""

MYPY = "2.4.1"
"""The mypy that compiles the engines (pinned in ``pyproject.toml``: build requirement, fast extra)."""


PURE = "UPDOWN_PURE"
"""The environment variable that asks for the pure engines: ``UPDOWN_PURE=1 pip install .``."""

MANIFEST = "_mypyc_manifest.json"
"""Written next to the compiled modules by both builds: ``{"module": sha256, ...}``."""

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


def build_problem() -> str | None:
    """Why the engines cannot be compiled here; None when they can.

    In this order: :data:`PURE` set (to anything but ``0`` or nothing); mypyc (mypy) or setuptools not
    importable; no C compiler that builds an extension module against this Python's headers. The
    last is tried, not guessed: a C file that includes ``Python.h`` is compiled and linked as a
    shared object by the compiler setuptools will use for the engines (``CC``, ``CFLAGS``,
    ``LDSHARED`` from the environment, else from this Python's build), its output kept from the
    terminal. Costs about a second (importing mypyc, one small compile).
    """
    if os.environ.get(PURE, "0") not in ("", "0"):
        return f"{PURE}={os.environ[PURE]} is set"
    try:
        import mypyc.build  # noqa: F401  (imports setuptools, which provides distutils)
    except ImportError as error:
        return f"{error.name or 'mypyc'} is not installed (mypy=={MYPY} and setuptools compile the engines)"
    from distutils.ccompiler import new_compiler
    from distutils.errors import CCompilerError, DistutilsError
    from distutils.sysconfig import customize_compiler, get_python_inc

    compiler = new_compiler()
    customize_compiler(compiler)  # type: ignore[no-untyped-call, unused-ignore]
    with tempfile.TemporaryDirectory(prefix="updown-cc-") as tmp, _quiet(Path(tmp) / "out") as out:
        source = Path(tmp) / "probe.c"
        source.write_text("#include <Python.h>\nint updown_probe(void) { return Py_IsInitialized(); }\n")
        try:
            objects = compiler.compile([str(source)], output_dir=tmp, include_dirs=[get_python_inc()])
            compiler.link_shared_object(objects, str(Path(tmp) / "probe.so"))
        except (CCompilerError, DistutilsError, OSError) as error:
            said = [line.strip() for line in out.read_text(errors="replace").splitlines() if "error" in line.lower()]
            command = getattr(compiler, "compiler_so", None) or [getattr(compiler, "compiler_type", "cc")]
            missing = "No such file or directory" in str(error) and not said
            detail = said[0] if said else f"{command[0]}: {'not found' if missing else 'failed'}"
            return f"no C compiler builds against this Python's headers ({detail})"
    return None


@contextlib.contextmanager
def _quiet(path: Path) -> Iterator[Path]:
    """File descriptors 1 and 2 (a child process's output, too) go to ``path`` meanwhile."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = [os.dup(1), os.dup(2)]
    try:
        with open(path, "wb") as sink:
            os.dup2(sink.fileno(), 1)
            os.dup2(sink.fileno(), 2)
        yield path
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        for fd, old in zip((1, 2), saved):
            os.dup2(old, fd)
            os.close(old)


def pure_line(problem: str) -> str:
    """The one line a build says when it leaves the engines pure Python."""
    if problem.startswith(f"{PURE}="):
        return f"updown: the rules engines stay pure Python ({problem})"
    return (f"updown: the rules engines stay pure Python, not compiled: {problem}; the compiled ones "
            "(mypyc, about 1.5 times as fast) need a C compiler and the Python headers: "
            "apt-get install gcc python3-dev")


def engines_label() -> str:
    """``engines: compiled (mypyc): euchre, ...`` or ``engines: pure Python``, from the loaded modules."""
    import updown.games  # noqa: F401  (loads and registers every game module)

    compiled = sorted(
        name.rsplit(".", 1)[1]
        for name, module in list(sys.modules.items())
        if name.startswith("updown.games.")
        and str(getattr(module, "__file__", "")).endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))
    )
    return f"engines: compiled (mypyc): {', '.join(compiled)}" if compiled else "engines: pure Python"


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(prog="python -m updown.core.compiled", description=__doc__.split("\n\n")[0])
    parser.add_argument("command", nargs="?", choices=["label", "check"], default="label",
                        help="label: which engines load here (default); check: can they be compiled here")
    args = parser.parse_args(argv)
    if args.command == "check":
        problem = build_problem()
        if problem is not None:
            print(pure_line(problem))
            return 1
        return 0
    print(engines_label())
    return 0


if __name__ == "__main__":
    sys.exit(main())
