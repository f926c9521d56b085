"""Up or Down?'s research variants (issue 34): not built yet. What is here is the first step: the
rulebook's game hashed before any research option exists, so that the change which adds one can
show the game itself unchanged byte for byte (as ``tests/test_research_variants_sueca.py`` and
``tests/test_research_variants_euchre.py`` do for theirs).
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

GAME = get_game("up-or-down")


def _digest(players: int, options: dict[str, Any], games: int = 3) -> str:
    """Random games (random bots, chance from Random(seed)): their records, every view and legal
    actions at every fifth step, a world drawn there for the seat to act, the final views."""
    h = hashlib.sha256()
    for seed in range(games):
        steps = [0]

        def visit(state: Any, *_: Any) -> None:
            steps[0] += 1
            if steps[0] % 5:
                return
            for s in [None, *range(players)]:
                h.update(json.dumps(state.view(s), sort_keys=True).encode())
            h.update(repr([state.legal_actions(s) for s in range(players)]).encode())
            if state.actors():
                world = state.resample(state.actors()[0], random.Random(steps[0]))
                h.update(json.dumps([world.view(s) for s in range(players)], sort_keys=True).encode())

        agents = [RandomBot(GAME, s, random.Random(100 * seed + s)) for s in range(players)]
        state, record = play_game(GAME, players, agents, random.Random(seed), options=GAME.options(options),
                                  seed=seed, observer=visit)
        h.update(record.to_json().encode())
        for s in [None, *range(players)]:
            h.update(json.dumps(state.view(s), sort_keys=True).encode())
    return h.hexdigest()[:16]


SETTINGS = {
    (2, "short"): {}, (2, "full"): {"length": "full"},
    (3, "short"): {}, (4, "full"): {"length": "full"}, (6, "short"): {},
}
# Computed with the engine as it was before any research option existed (up_or_down.py of commit b6f47fe).
BEFORE = {
    (2, "full"): "94c664ea51a18058", (2, "short"): "079961c958e33a14", (3, "short"): "581b55d941e6a012",
    (4, "full"): "966c0498c2830bd4", (6, "short"): "5c7ea645cc97f20e",
}


@pytest.mark.parametrize(("players", "length"), sorted(SETTINGS))
def test_the_rulebook_game_plays_exactly_as_before(players: int, length: str) -> None:
    assert _digest(players, SETTINGS[(players, length)]) == BEFORE[(players, length)]
