"""The optional compiled engines (``make fast``): a stale one refuses to load, playing needs no mypy.

The rules tests themselves run against whatever engines are importable; CI runs a set of them once
more after ``make fast`` with ``UPDOWN_TEST_COMPILED=1`` (``tests/conftest.py`` then requires the
extension modules to be the ones loaded).
"""

from __future__ import annotations

import importlib.machinery
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from updown.core.compiled import MANIFEST, check_compiled, compiled_modules, engines_label, source_hash

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


def test_the_default_targets_do_not_compile() -> None:
    makefile = (ROOT / "Makefile").read_text()
    for target in ("test", "serve", "play", "bench"):
        recipe = re.search(rf"^{target}:.*?(?=^\S|\Z)", makefile, re.S | re.M)
        assert recipe is not None and "mypyc" not in recipe.group(0) and "fast" not in recipe.group(0), target
    assert re.search(r"^fast: .*\n\t\$\(BIN\)/python tools/mypyc_build\.py$", makefile, re.M)
    assert re.search(r"^pure:\n\trm -rf \$\(COMPILED\)$", makefile, re.M)


def test_the_engines_label_says_what_runs() -> None:
    label = engines_label()
    if os.environ.get("UPDOWN_TEST_COMPILED") == "1":
        assert label == "engines: compiled (mypyc): euchre, up_or_down, updown, updown_sueca"
    else:
        assert label in ("engines: pure Python", "engines: compiled (mypyc): euchre, up_or_down, updown, updown_sueca")
