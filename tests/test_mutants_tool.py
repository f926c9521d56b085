"""tools/mutants.py --check: every mutant's code must be found exactly once in its file, or the
run stops before playing any mutant (a rewritten line would otherwise leave its guard unguarded)."""

from __future__ import annotations

import dataclasses
import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture()
def mutants(monkeypatch):
    spec = importlib.util.spec_from_file_location("mutants_tool", ROOT / "tools" / "mutants.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "mutants_tool", module)  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module


def run(module, monkeypatch, *args: str) -> int:
    monkeypatch.setattr(sys, "argv", ["mutants.py", *args])
    return module.main()


def test_every_mutant_applies_and_nothing_runs(mutants, monkeypatch, capsys):
    monkeypatch.setattr(mutants, "run_tests", lambda *a, **k: pytest.fail("--check ran tests"))
    assert run(mutants, monkeypatch, "--check") == 0
    assert f"all {len(mutants.MUTANTS)} mutants apply" in capsys.readouterr().out


def test_a_mutant_whose_code_is_gone_or_doubled_is_named(mutants, monkeypatch, capsys):
    first = mutants.MUTANTS[0]
    gone = dataclasses.replace(first, name="gone-code", old=first.old + "\n# no such line in the file\n")
    text = (ROOT / first.path).read_text()
    line = next(ln for ln in text.splitlines() if text.count(ln) > 1 and ln.strip())
    twice = dataclasses.replace(first, name="twice-code", old=line)
    monkeypatch.setattr(mutants, "MUTANTS", [first, gone, twice])
    monkeypatch.setattr(mutants, "run_tests", lambda *a, **k: pytest.fail("--check ran tests"))
    assert run(mutants, monkeypatch, "--check") == 1
    out = capsys.readouterr().out
    assert "gone-code: its code is found 0 times" in out
    assert "twice-code: its code is found" in out and "not once" in out
    assert first.name + ":" not in out
    # Chosen by name, only the named ones are checked.
    assert run(mutants, monkeypatch, "--check", first.name) == 0
    assert "all 1 mutants apply" in capsys.readouterr().out
