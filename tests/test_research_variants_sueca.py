"""The Sueca game's research decks (issue 34): the options ``deck`` and ``deals``, and OpenSpiel's
CFR solving them.

* The default deck is the rulebook's game, unchanged: fixed-seed records, views, legal actions and
  drawn worlds hash as they did before the options existed.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import pytest

from updown.bots.base import RandomBot
from updown.core.driver import play_game
from updown.core.registry import get_game

GAME = get_game("updown-sueca")


def _digest(options: dict[str, Any], games: int = 3) -> str:
    """Random games (random bots, chance from Random(seed)): their records, every view and legal
    actions at every fifth step, a world drawn there for the seat to act, the final views."""
    h = hashlib.sha256()
    for seed in range(games):
        steps = [0]

        def visit(state: Any, *_: Any) -> None:
            steps[0] += 1
            if steps[0] % 5:
                return
            for s in [None, 0, 1, 2, 3]:
                h.update(json.dumps(state.view(s), sort_keys=True).encode())
            h.update(repr([state.legal_actions(s) for s in range(4)]).encode())
            if state.actors():
                world = state.resample(state.actors()[0], random.Random(steps[0]))
                h.update(json.dumps([world.view(s) for s in range(4)], sort_keys=True).encode())

        agents = [RandomBot(GAME, s, random.Random(100 * seed + s)) for s in range(4)]
        state, record = play_game(GAME, 4, agents, random.Random(seed), options=GAME.options(options),
                                  seed=seed, observer=visit)
        h.update(record.to_json().encode())
        for s in [None, 0, 1, 2, 3]:
            h.update(json.dumps(state.view(s), sort_keys=True).encode())
    return h.hexdigest()[:16]


SETTINGS = {
    "match": {},
    "regional": {"regional": True},
    "exchange limit": {"exchange_limit": 2},
}
# Computed with the engine as it was before the options ``deck`` and ``deals`` existed (updown_sueca.py
# of commit 6b46b7e).
BEFORE = {"match": "ea6d6a9080372840", "regional": "711ea830b3c97db9", "exchange limit": "a5e6c337f251140d"}


@pytest.mark.parametrize("setting", sorted(SETTINGS))
def test_the_default_deck_plays_exactly_as_before(setting: str) -> None:
    options = SETTINGS[setting]
    assert _digest(options) == BEFORE[setting]
