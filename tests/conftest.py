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
