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


def test_the_unchanged_check_is_split_with_each_files_selections_together(mutants):
    tests = ("a.py::x", "b.py::y", "a.py::z", "c.py::w", "b.py::v", "d.py::u")
    parts = mutants.chunks(tests, 3)
    assert sorted(t for part in parts for t in part) == sorted(tests)
    assert len(parts) == 3 and {len(p) for p in parts} == {2}
    for part in parts:
        assert len({t.split("::")[0] for t in part}) == (1 if part[0].startswith(("a", "b")) else 2), parts
    assert mutants.chunks(tests[:1], 3) == [("a.py::x",)]  # no empty parts


def test_jobs_run_side_by_side_each_in_a_slot_of_its_own(mutants):
    import threading
    import time

    running: dict[int, int] = {}
    most = [0]
    lock = threading.Lock()

    def one(item: int, slot: int) -> tuple[int, int]:
        with lock:
            assert slot not in running, "two jobs in one slot at once"
            running[slot] = item
            most[0] = max(most[0], len(running))
        time.sleep(0.02)
        with lock:
            del running[slot]
        return item * 10, slot

    got = mutants.run_all(list(range(12)), 3, one)
    assert [g[0] for g in got] == [k * 10 for k in range(12)]  # in the items' order
    assert {g[1] for g in got} == {0, 1, 2}
    assert most[0] == 3


def test_a_test_process_takes_the_slot_it_is_given(monkeypatch):
    from server_util import free_port, slot
    import zlib

    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    monkeypatch.delenv("PYTEST_XDIST_WORKER_COUNT", raising=False)
    monkeypatch.delenv("UPDOWN_TEST_SLOT", raising=False)
    assert slot() == (0, 1)
    monkeypatch.setenv("UPDOWN_TEST_SLOT", "2/3")
    assert slot() == (2, 3)
    for _ in range(5):
        assert zlib.crc32(str(free_port()).encode()) % 3 == 2
    monkeypatch.setenv("UPDOWN_TEST_SLOT", "junk")
    assert slot() == (0, 1)
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "4")
    monkeypatch.setenv("UPDOWN_TEST_SLOT", "2/3")
    assert slot() == (1, 4)  # xdist's worker first
