"""The page's JavaScript type-checked by TypeScript (``tsc --checkJs``), with no build step: the
modules are served as they are, and their types are JSDoc comments that tsc reads.

TypeScript is installed with npm into ``test-output/tsc/`` on first use (as axe-core is for the
accessibility checks, web_util.py), at a pinned version. The settings are in
``updown/web/static/jsconfig.json`` (a dev file: the wheel ships only the static html, css and js):
``checkJs`` with ``strict`` except ``noImplicitAny`` (an untyped parameter is ``any`` for now);
the vendored snabbdom is read from its own type declarations (``vendor/snabbdom/*.d.ts``). The
second test shows the check can fail: a copy of the page with one wrong line makes tsc say so. The
third checks that the vendored snabbdom is the published package, unchanged.
"""

from __future__ import annotations

import fcntl
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "updown" / "web" / "static"
CONFIG = STATIC / "jsconfig.json"
TS_VERSION = "6.0.3"
TS_DIR = ROOT / "test-output" / "tsc"
UNCHECKED: set[str] = set()
"""Modules the config leaves out (its exclude): none, every module of the page is checked."""


def tsc() -> Path:
    """TypeScript's tsc, installed with npm into test-output/tsc/ on first use. Under a file lock:
    the tests run on several workers, and one must not read the install another is writing (a fresh
    clone's CI once found node_modules/typescript there without its package.json yet)."""
    path = TS_DIR / "node_modules" / "typescript" / "bin" / "tsc"
    version = TS_DIR / "node_modules" / "typescript" / "package.json"
    TS_DIR.mkdir(parents=True, exist_ok=True)
    with open(TS_DIR / ".install.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (path.exists() and version.exists()
                and f'"version": "{TS_VERSION}"' in version.read_text(encoding="utf-8")):
            npm = shutil.which("npm")
            if npm is None:
                pytest.fail("npm is needed to install TypeScript for the type check (it comes with Node)")
            subprocess.run([npm, "install", "--no-save", "--no-audit", "--no-fund", "--prefix", str(TS_DIR),
                            f"typescript@{TS_VERSION}"], check=True, capture_output=True, timeout=300)
    return path


def run_tsc(config: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    assert node is not None, "node is needed to run tsc"
    return subprocess.run([node, str(tsc()), "--noEmit", "-p", str(config), "--pretty", "false", *extra],
                          capture_output=True, text=True, timeout=600)


def test_page_scripts_type_check() -> None:
    """tsc finds no type error in the page's modules, and it checked every one of them but those
    the config leaves out (an include that matched nothing would pass silently)."""
    listed = run_tsc(CONFIG, "--listFilesOnly")
    assert listed.returncode == 0, listed.stdout + listed.stderr
    checked = {Path(line).resolve().relative_to(STATIC).as_posix() for line in listed.stdout.splitlines()
               if line.strip() and Path(line).resolve().is_relative_to(STATIC)}
    vendored = {p for p in checked if p.startswith("vendor/")}  # snabbdom's own type declarations
    assert vendored and all(p.endswith(".d.ts") for p in vendored), sorted(vendored)
    checked -= vendored
    present = {p.relative_to(STATIC).as_posix() for p in (STATIC / "js").rglob("*.js")}
    assert checked == present - UNCHECKED, (sorted(present - UNCHECKED - checked), sorted(checked - present))
    assert "js/board.js" in checked and "js/table.js" in checked
    result = run_tsc(CONFIG)
    assert result.returncode == 0, "tsc --checkJs found type errors:\n" + result.stdout + result.stderr


def test_type_check_catches_a_wrong_line(tmp_path: Path) -> None:
    """The same check on a copy of the page where one line is wrong (a method the element does not
    have, on a query that may find nothing) fails, naming the file and the line."""
    copy = tmp_path / "static"
    shutil.copytree(STATIC, copy, ignore=shutil.ignore_patterns("__pycache__"))
    motion = copy / "js" / "motion.js"
    lines = motion.read_text(encoding="utf-8").splitlines()
    lines.append("export function wrong() { return document.querySelector('.board').notAMethod(); }")
    motion.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = run_tsc(copy / "jsconfig.json")
    assert result.returncode != 0
    out = result.stdout
    assert f"js/motion.js({len(lines)}," in out, out
    assert "notAMethod" in out and "possibly 'null'" in out, out


SNABBDOM_VERSION = "3.6.4"
VENDOR = STATIC / "vendor" / "snabbdom"


def test_vendored_snabbdom_is_the_published_package() -> None:
    """Every file in vendor/snabbdom but its README is byte for byte the one in snabbdom's npm
    package of the version the README names (``npm pack``, into test-output/ on first use), and every
    module the page loads from it imports only files that are there."""
    import re
    import tarfile

    assert f"snabbdom {SNABBDOM_VERSION}" in (VENDOR / "README.md").read_text(encoding="utf-8")
    tgz = ROOT / "test-output" / "snabbdom" / f"snabbdom-{SNABBDOM_VERSION}.tgz"
    if not tgz.exists():
        npm = shutil.which("npm")
        if npm is None:
            pytest.fail("npm is needed to fetch snabbdom's package for the comparison")
        tgz.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run([npm, "pack", f"snabbdom@{SNABBDOM_VERSION}", "--pack-destination", str(tgz.parent)],
                       check=True, capture_output=True, timeout=300)
    with tarfile.open(tgz) as tar:
        published = {m.name.removeprefix("package/").removeprefix("build/"): m for m in tar.getmembers() if m.isfile()}
        files = [p for p in VENDOR.rglob("*") if p.is_file() and p.name != "README.md"]
        assert len(files) >= 12, files
        for path in files:
            name = path.relative_to(VENDOR).as_posix()
            assert name in published, f"{name} is not in snabbdom {SNABBDOM_VERSION}'s package"
            source = tar.extractfile(published[name])
            assert source is not None and source.read() == path.read_bytes(), f"{name} differs from the package's"
    for path in VENDOR.rglob("*.js"):
        for target in re.findall(r'^import .* from "(\.[^"]+)";', path.read_text(encoding="utf-8"), re.M):
            assert (path.parent / target).resolve().is_file(), f"{path.name} imports {target}, which is not vendored"
