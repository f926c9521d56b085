"""The compiled engines: a stale one refuses to load, playing needs no mypy, the build check, the
Makefile's targets, and which package the tests are running against.

The rules tests themselves run against whatever engines are importable. CI runs a set of them once
more against a wheel built and installed in a fresh virtual environment (``.ci/run``), with
``UPDOWN_TEST_COMPILED=1`` (``tests/conftest.py`` then requires the extension modules to be the ones
loaded) and ``UPDOWN_TEST_WHEEL=1`` (``test_the_package_under_test``: the installed wheel's, not
the checkout's). Building the wheel itself: ``tests/test_wheel.py``.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

import updown
import updown.games
from updown.core.compiled import (ENGINES, MANIFEST, PURE, check_compiled, compiled_modules, engines_label,
                                  source_hash)

ROOT = Path(__file__).resolve().parent.parent
SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]  # .cpython-311-x86_64-linux-gnu.so


def _folder(tmp_path: Path, manifest: dict[str, str] | None) -> Path:
    """A games folder with euchre.py, a (fake) compiled euchre and, if given, a manifest."""
    (tmp_path / "euchre.py").write_text("GAME = None\n")
    (tmp_path / f"euchre{SUFFIX}").write_bytes(b"not really an extension module")
    (tmp_path / "updown.py").write_text("GAME = None\n")  # not compiled: not checked
    if manifest is not None:
        (tmp_path / MANIFEST).write_text(json.dumps(manifest))
    return tmp_path


def test_a_matching_manifest_passes(tmp_path: Path) -> None:
    folder = _folder(tmp_path, {})
    (folder / MANIFEST).write_text(json.dumps({"euchre": source_hash(folder / "euchre.py")}))
    assert compiled_modules(folder) == ["euchre"]
    assert check_compiled(folder) == ["euchre"]


def test_no_compiled_module_needs_no_manifest(tmp_path: Path) -> None:
    (tmp_path / "euchre.py").write_text("GAME = None\n")
    assert check_compiled(tmp_path) == []


@pytest.mark.parametrize("manifest", [None, {}, {"euchre": "0" * 64}, ["euchre"]])
def test_a_stale_or_unlisted_compiled_module_refuses_to_load(tmp_path: Path, manifest: object) -> None:
    folder = _folder(tmp_path, None)
    if manifest is not None:
        (folder / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(ImportError, match="euchre") as raised:
        check_compiled(folder)
    assert "make fast" in str(raised.value) and "make pure" in str(raised.value)


def test_an_edited_source_refuses_to_load(tmp_path: Path) -> None:
    folder = _folder(tmp_path, None)
    (folder / MANIFEST).write_text(json.dumps({"euchre": source_hash(folder / "euchre.py")}))
    check_compiled(folder)
    (folder / "euchre.py").write_text("GAME = None  # edited\n")
    with pytest.raises(ImportError, match=r"updown\.games\.euchre .*make fast"):
        check_compiled(folder)


def _copy_of_updown(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "updown", tmp_path / "updown",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", MANIFEST, "web", "i18n", "server"))
    return tmp_path


def _python(cwd: Path, code: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_importing_the_games_checks_the_compiled_modules(tmp_path: Path) -> None:
    """The check runs when ``updown.games`` loads, before any game module is imported."""
    copy = _copy_of_updown(tmp_path)
    games = copy / "updown" / "games"
    (games / f"euchre{SUFFIX}").write_bytes(b"stale")
    (games / MANIFEST).write_text(json.dumps({"euchre": "0" * 64}))
    result = _python(copy, "import updown.games.euchre")
    assert result.returncode != 0
    assert "ImportError: the compiled engine updown.games.euchre" in result.stderr, result.stderr
    assert "make fast" in result.stderr
    (games / MANIFEST).unlink()
    result = _python(copy, "import updown.games")
    assert f"have no readable {MANIFEST}" in result.stderr, result.stderr


def test_playing_needs_no_mypy(tmp_path: Path) -> None:
    """Without mypy_extensions (a play-only install) the engines load, and mypyc_attr does nothing."""
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('mypy_extensions', 'mypy', 'mypyc'):\n"
        "            raise ImportError(name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "from updown.core.registry import all_games\n"
        "import updown.games\n"
        "from updown.games.euchre import EuchreOptions\n"
        "print(sorted(g.id for g in all_games()), EuchreOptions(deals=1).deals)\n"
    )
    result = _python(ROOT, code)
    assert result.returncode == 0, result.stderr
    assert "'euchre'" in result.stdout and result.stdout.strip().endswith(" 1")


def _make_n(*args: str, env: dict[str, str] | None = None) -> list[str]:
    """The commands ``make -n`` would run here (as if every engine's source had just changed)."""
    what_if = [f"--what-if=updown/games/{name}.py" for name in ENGINES]
    env = {k: v for k, v in {**os.environ, **(env or {})}.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    # Under `make test` this make is a sub-make: without --no-print-directory it adds "Entering/Leaving".
    result = subprocess.run(["make", "--no-print-directory", "-n", *what_if, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_play_and_serve_compile_where_they_can_and_test_does_not() -> None:
    """`make play`/`make serve` check, then compile in place (or say one line); `make test`/`bench` do not."""
    for target, last in (("play", ".venv/bin/updown play updown"), ("serve", ".venv/bin/updown serve")):
        lines = _make_n(target, env={PURE: "0"})
        check = lines.index(next(line for line in lines if "-m updown.core.compiled check" in line))
        build = lines.index(next(line for line in lines if "tools/mypyc_build.py" in line))
        assert check <= build < lines.index(last), lines
        assert lines[-1] == last
    for target in ("test", "bench"):
        lines = _make_n(target)
        assert not [line for line in lines if re.search("mypyc|compiled check|rm -rf", line)], (target, lines)
    pure = _make_n("play", env={PURE: "1"})
    assert not [line for line in pure if "mypyc_build" in line or "pip install" in line and "fast" in line], pure
    assert pure[-3:] == ["rm -rf updown/games/*.so updown/_engines__mypyc*.so updown/games/_mypyc_manifest.json build",
                         ".venv/bin/python -m updown.core.compiled check || true", ".venv/bin/updown play updown"]
    assert _make_n("fast")[-1] == ".venv/bin/python tools/mypyc_build.py"
    assert _make_n("pure") == [pure[-3]]


@pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")
def test_make_serve_passes_port_and_host_when_given() -> None:
    assert _make_n("serve", "PORT=8080", "HOST=0.0.0.0")[-1] == ".venv/bin/updown serve --port 8080 --host 0.0.0.0"
    assert _make_n("serve", "PORT=0")[-1] == ".venv/bin/updown serve --port 0"
    # HOST and PORT in the environment are not make's to pass (a shell may export HOST as its own
    # name); `updown serve` reads UPDOWN_HOST and UPDOWN_PORT from there itself.
    assert _make_n("serve", env={"HOST": "box", "PORT": "1"})[-1] == ".venv/bin/updown serve"


def test_the_compiled_modules_are_the_same_everywhere() -> None:
    """setup.py, `make fast` (tools/mypyc_build.py) and the Makefile name the same four engines."""
    spec = importlib.util.spec_from_file_location("mypyc_build", ROOT / "tools" / "mypyc_build.py")
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    assert tuple(tool.ENGINES) == ENGINES
    sources = re.search(r"^ENGINE_SOURCES := \$\(addprefix updown/games/,(.*)\)$", (ROOT / "Makefile").read_text(), re.M)
    assert sources is not None and sources.group(1).split() == [f"{name}.py" for name in ENGINES]
    assert all((ROOT / "updown" / "games" / f"{name}.py").exists() for name in ENGINES)


def _check(**env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k not in ("CC", PURE)}
    return subprocess.run([sys.executable, "-m", "updown.core.compiled", "check"], cwd=ROOT,
                          env={**environ, **env}, capture_output=True, text=True, timeout=120)


needs_mypyc = pytest.mark.skipif(importlib.util.find_spec("mypyc") is None,
                                 reason="no mypy here: the check would stop there (a wheel's test venv)")


@needs_mypyc
def test_the_build_check_says_in_one_line_why_the_engines_stay_pure() -> None:
    no_compiler = _check(CC="/bin/false")
    assert no_compiler.returncode == 1 and no_compiler.stderr == "", no_compiler
    assert no_compiler.stdout.startswith("updown: the rules engines stay pure Python, not compiled: no C compiler")
    assert "/bin/false" in no_compiler.stdout and no_compiler.stdout.count("\n") == 1
    asked = _check(UPDOWN_PURE="1")
    assert (asked.returncode, asked.stdout) == (1, "updown: the rules engines stay pure Python (UPDOWN_PURE=1 is set)\n")


_CC = shlex.split(os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc")[0]


@needs_mypyc
@pytest.mark.skipif(shutil.which(_CC) is None, reason=f"no C compiler ({_CC}) here")
def test_the_build_check_passes_with_a_compiler() -> None:
    for pure in ("0", ""):
        result = _check(UPDOWN_PURE=pure)
        assert (result.returncode, result.stdout, result.stderr) == (0, "", ""), result


def test_the_package_under_test() -> None:
    """`make test`: the checkout's sources (an editable install). CI's wheel step (UPDOWN_TEST_WHEEL=1):
    the wheel installed in a fresh virtual environment, all four engines compiled, with their manifest."""
    package = Path(updown.__file__).resolve().parent
    if os.environ.get("UPDOWN_TEST_WHEEL") == "1":
        assert package != ROOT / "updown" and ROOT not in package.parents, package
        assert "site-packages" in package.parts, package
        assert updown.games.COMPILED == list(ENGINES)
        assert check_compiled(package / "games") == list(ENGINES)  # the manifest matches the installed sources
    else:
        assert package == ROOT / "updown"


def test_the_engines_label_says_what_runs() -> None:
    label = engines_label()
    if os.environ.get("UPDOWN_TEST_COMPILED") == "1":
        assert label == "engines: compiled (mypyc): euchre, up_or_down, updown, updown_sueca"
    else:
        assert label in ("engines: pure Python", "engines: compiled (mypyc): euchre, up_or_down, updown, updown_sueca")
