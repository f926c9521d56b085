"""Shared fixtures for the test suite: seeded random play-outs and a snapshot of everything a state shows."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from updown.bots.base import RandomBot
from updown.core.driver import play_game
from updown.core.protocol import Game, State
from updown.core.records import Record

# No example database on disk (the tree is shared) and no per-example deadline (a whole game is
# played per example, and the machine is small and busy).
settings.register_profile("updown", deadline=None, database=None, print_blob=True)
settings.load_profile("updown")

# CI's compiled step (after `make fast`) sets UPDOWN_TEST_COMPILED=1: the engines must then really be
# the extension modules, not the .py files beside them.
if os.environ.get("UPDOWN_TEST_COMPILED") == "1":
    import updown.games

    _pure = [m for m in ("euchre", "up_or_down", "updown", "updown_sueca")
             if not str(sys.modules[f"updown.games.{m}"].__file__).endswith(".so")]
    if _pure:
        raise pytest.UsageError(f"UPDOWN_TEST_COMPILED=1 but not compiled: {', '.join(_pure)} (run `make fast`)")


# -- services ------------------------------------------------------------------------------------
# PostgreSQL and Redis (the server tests) and Chromium (tests/test_web.py) are named by these
# variables, which `make test` sets itself (`.ci/services run`, where it can start them) and
# `eval "$(.ci/services start)"` sets in a shell. A test whose service is missing skips with a reason
# naming its variable. In CI (CI=true, set by .ci/run) that skip is a failure: a service that did not
# start must not turn its tests into silent skips. Either way pytest's last line names the tests and
# the one command that gives them their service (`.ci/services hint` knows which).
# Under pytest-xdist the skip becomes a failure on the worker that ran the test; the counting and
# the last line happen where reports arrive and the summary is written (the controller).
SERVICES = {"UPDOWN_TEST_POSTGRES": "PostgreSQL", "UPDOWN_TEST_REDIS": "Redis", "UPDOWN_TEST_CHROMIUM": "Chromium"}
START_SERVICES = 'eval "$(.ci/services start)"'
SERVICES_SCRIPT = Path(__file__).resolve().parent.parent / ".ci" / "services"
IN_CI = os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")
CI_FAILS = "CI=true: a missing service fails instead of skipping: "
_missing: dict[str, list[str]] = {}  # variable -> node ids of the tests (or modules) skipped for it


def _service_vars(report: pytest.CollectReport | pytest.TestReport) -> list[str]:
    """The service variables a skip (or a skip CI turned into a failure) names in its reason."""
    if hasattr(report, "wasxfail"):
        return []
    longrepr = report.longrepr
    if report.skipped:
        # (path, line, "Skipped: reason"); a list once it crossed from an xdist worker
        reason = str(longrepr[2]) if isinstance(longrepr, (tuple, list)) and len(longrepr) == 3 else str(longrepr)
    elif report.failed and isinstance(longrepr, str) and longrepr.startswith(CI_FAILS):
        reason = longrepr
    else:
        return []
    return [var for var in SERVICES if var in reason]


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    outcome = yield
    _fail_in_ci(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Any:
    outcome = yield
    _fail_in_ci(outcome.get_result())


def _fail_in_ci(report: pytest.CollectReport | pytest.TestReport) -> None:
    if IN_CI and report.skipped and _service_vars(report):
        longrepr = report.longrepr
        reason = str(longrepr[2]) if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
        report.outcome = "failed"
        report.longrepr = CI_FAILS + reason.removeprefix("Skipped: ")


def _count(report: pytest.CollectReport | pytest.TestReport) -> None:
    for var in _service_vars(report):
        if report.nodeid not in _missing.setdefault(var, []):
            _missing[var].append(report.nodeid)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _count(report)


def pytest_collectreport(report: pytest.CollectReport) -> None:
    _count(report)


def _enable_command(variables: list[str]) -> str:
    """The one command that gives these variables' tests their services, from .ci/services."""
    try:
        out = subprocess.run(["bash", str(SERVICES_SCRIPT), "hint", *variables], capture_output=True, text=True,
                             timeout=30, cwd=SERVICES_SCRIPT.parent.parent)
        return out.stdout.strip() or START_SERVICES
    except (OSError, subprocess.SubprocessError):
        return START_SERVICES


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """After pytest's own last line: one more naming the tests that a missing service skipped (each
    listed above it) and the command that enables them. Not on an xdist worker (nothing shows)."""
    if not _missing or hasattr(config, "workerinput"):
        return
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if reporter is None:
        return
    verb = "failed (CI=true needs every service)" if IN_CI else "skipped"
    for var, nodeids in _missing.items():
        reporter.write_line(f"{SERVICES[var]} missing ({var} not set), {verb}:")
        for nodeid in nodeids:
            reporter.write_line(f"  {nodeid}")
    parts = []
    for var, nodeids in _missing.items():
        files = Counter(nodeid.split("::", 1)[0] for nodeid in nodeids)
        where = f"in {next(iter(files))}" if len(files) == 1 else f"({', '.join(f'{n} in {f}' for f, n in files.items())})"
        parts.append(f"{SERVICES[var]}: {len(nodeids)} test{'s' if len(nodeids) > 1 else ''} {where}")
    reporter.write_line(f"services missing, tests {verb}: {'; '.join(parts)}. "
                        f"Enable them with: {_enable_command(list(_missing))}", yellow=not IN_CI, red=IN_CI, bold=True)


def random_agents(game: Game[Any], players: int, seed: int) -> list[RandomBot]:
    """One uniformly random bot per seat, each with its own generator derived from ``seed``."""
    return [RandomBot(game, s, random.Random(f"agent {seed} {s}")) for s in range(players)]


def random_playout(
    game: Game[Any],
    players: int,
    seed: int,
    options: dict[str, Any] | None = None,
    observer: Callable[[State, int | None, int], None] | None = None,
) -> tuple[State, Record]:
    """Play a whole match with random bots; chance from ``Random(seed)``. Deterministic in ``seed``."""
    return play_game(
        game, players, random_agents(game, players, seed), random.Random(seed),
        options=game.options(options), seed=seed, observer=observer,
    )


def snapshot(state: State) -> str:
    """Everything observable about ``state`` from outside: every view, who acts, what is legal."""
    n = state.players
    data: dict[str, Any] = {
        "views": [state.view(None), *(state.view(s) for s in range(n))],
        "terminal": state.is_terminal(),
        "chance": state.is_chance(),
        "actors": list(state.actors()),
        "legal": [state.legal_actions(s) for s in range(n)],
        "log": state.log,
    }
    if state.is_chance():
        data["label"] = state.chance_label()
        data["outcomes"] = state.chance_outcomes()
    if state.is_terminal():
        data["result"] = state.result().to_dict()
    return json.dumps(data, sort_keys=True)


@pytest.fixture(scope="session")
def playout() -> Callable[..., tuple[State, Record]]:
    return random_playout


@pytest.fixture(scope="session")
def snap() -> Callable[[State], str]:
    return snapshot
