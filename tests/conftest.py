"""Shared fixtures for the test suite: seeded random play-outs and a snapshot of everything a state shows."""

from __future__ import annotations

import json
import os
import random
import sys
from collections.abc import Callable
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
# PostgreSQL and Redis (tests/test_server.py) and Chromium (tests/test_web.py) are named by these
# variables, which `eval "$(.ci/services start)"` sets. A test whose service is missing skips with
# a reason naming its variable. In CI (CI=true, set by the runner of .ci/run) that skip is a
# failure: a service that did not start must not turn its tests into silent skips. Elsewhere the
# tests skip and the summary ends with one line naming what was missing and how to start it.
SERVICES = {"UPDOWN_TEST_POSTGRES": "PostgreSQL", "UPDOWN_TEST_REDIS": "Redis", "UPDOWN_TEST_CHROMIUM": "Chromium"}
START_SERVICES = 'eval "$(.ci/services start)"'
IN_CI = os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")
_missing: dict[str, int] = {}  # variable -> how many tests (or modules) skipped for it


def _skip_reason(report: pytest.CollectReport | pytest.TestReport) -> str:
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # (path, line, "Skipped: reason")
        return str(longrepr[2])
    return str(longrepr)


def _check_service_skip(report: pytest.CollectReport | pytest.TestReport) -> None:
    """Count a skip for a missing service; in CI, turn it into a failure that says so."""
    if not report.skipped or hasattr(report, "wasxfail"):
        return
    reason = _skip_reason(report)
    missing = [var for var in SERVICES if var in reason]
    if not missing:
        return
    for var in missing:
        _missing[var] = _missing.get(var, 0) + 1
    if IN_CI:
        report.outcome = "failed"
        report.longrepr = f"CI=true: a missing service fails instead of skipping: {reason.removeprefix('Skipped: ')}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    outcome = yield
    _check_service_skip(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Any:
    outcome = yield
    _check_service_skip(outcome.get_result())


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not _missing:
        return
    what = ", ".join(f"{SERVICES[v]} ({v}: {n} skip{'s' if n > 1 else ''})" for v, n in _missing.items())
    verb = "failed: CI=true needs every service" if IN_CI else "their tests were skipped"
    terminalreporter.write_line(f"services missing: {what}; {verb}. Start them with: {START_SERVICES}",
                                yellow=not IN_CI, red=IN_CI, bold=True)


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
