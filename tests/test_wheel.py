"""Building the package: setup.py compiles the rules engines where it can, else says so in one line.

The compiled path (minutes of mypyc and gcc) is CI's: ``.ci/run`` builds the wheel in a fresh
virtual environment, installs it and runs the engines' tests against it. Here: which setuptools
commands compile at all (none of the metadata and editable ones), and a whole ``pip wheel`` with no
working C compiler (``CC=/bin/false``), which must give a pure wheel, say one line, and install
engines that load from their ``.py`` files. pip builds it in its isolated environment, installing
the ``[build-system]`` requirements (setuptools, mypy) there: about half a minute.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import pytest

from updown.core.compiled import ENGINES, GROUP, MANIFEST, PURE

ROOT = Path(__file__).resolve().parent.parent
PURE_LINE = "updown: the rules engines stay pure Python"


def _setup_module() -> Any:
    """The repository's setup.py as a module (its ``setup()`` runs only as ``__main__``)."""
    spec = importlib.util.spec_from_file_location("updown_setup_py", ROOT / "setup.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("argv", [
    ["setup.py", "egg_info"],  # pip asks for the build requirements this way
    ["setup.py", "dist_info", "--output-dir", "x"],  # the metadata
    ["setup.py", "editable_wheel", "--dist-dir", "x"],  # pip install -e . (make test)
    ["setup.py", "sdist"],
])
def test_metadata_sdist_and_editable_installs_compile_nothing(
    argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    setup_py = _setup_module()
    monkeypatch.setattr(setup_py.compiled, "build_problem", lambda: pytest.fail("probed the compiler"))
    assert setup_py.engine_extensions(argv) == []
    assert capsys.readouterr() == ("", "")


def test_a_wheel_asked_to_be_pure_says_so_in_one_line(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    setup_py = _setup_module()
    monkeypatch.setenv(PURE, "1")
    assert setup_py.engine_extensions(["setup.py", "bdist_wheel", "--dist-dir", "x"]) == []
    out, err = capsys.readouterr()
    assert out == "" and err == f"{PURE_LINE} ({PURE}=1 is set)\n"


def _source_copy(tmp_path: Path) -> Path:
    """What a build reads (an sdist's files), without the checkout's build/, compiled modules or caches."""
    src = tmp_path / "src"
    src.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(ROOT / name, src / name)
    shutil.copytree(ROOT / "updown", src / "updown",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", MANIFEST, "*.egg-info"))
    return src


def test_a_wheel_built_without_a_c_compiler_holds_the_pure_engines(tmp_path: Path) -> None:
    src = _source_copy(tmp_path)
    env = {**os.environ, "CC": "/bin/false", "PIP_NO_INPUT": "1"}
    env.pop(PURE, None)
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-v", "--no-deps", "--wheel-dir", str(tmp_path / "dist"), str(src)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900,
    )
    output = built.stdout + built.stderr
    assert built.returncode == 0, output[-4000:]
    said = [line.strip() for line in output.splitlines() if PURE_LINE in line]
    assert len(said) == 1, output[-4000:]
    assert "/bin/false" in said[0] and "apt-get install gcc python3-dev" in said[0]
    assert "compiling the rules engines" not in output
    (wheel,) = (tmp_path / "dist").glob("updown-*.whl")
    assert wheel.name.endswith("-py3-none-any.whl")  # no extension module: not tied to this Python
    names = zipfile.ZipFile(wheel).namelist()
    assert {f"updown/games/{name}.py" for name in ENGINES} <= set(names)
    assert not [n for n in names if re.search(r"\.(so|pyd)$|_mypyc|\.c$", n)], names

    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(site), str(wheel)],
                   check=True, capture_output=True, timeout=300)
    code = ("import updown, updown.games.euchre as e\n"
            "from updown.core.compiled import engines_label\n"
            "print(updown.__file__); print(e.__file__); print(engines_label())\n")
    ran = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(site)},
                         capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    package, euchre, label = ran.stdout.splitlines()
    assert package == str(site / "updown" / "__init__.py")  # the installed wheel, not the checkout
    assert euchre == str(site / "updown" / "games" / "euchre.py")
    assert label == "engines: pure Python"
    assert not list(site.glob(f"updown/{GROUP.rsplit('.', 1)[1]}__mypyc*"))


def test_one_mypy_compiles_the_engines_everywhere() -> None:
    """The build requirement, the fast extra (in place) and the test extra pin the mypy the code names."""
    from updown.core.compiled import MYPY

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    extras = pyproject["project"]["optional-dependencies"]
    for requirements in (pyproject["build-system"]["requires"], extras["fast"], extras["test"]):
        assert f"mypy=={MYPY}" in requirements
