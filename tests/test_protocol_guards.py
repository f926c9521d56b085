"""Input that is not an action id at all is refused by every game without touching its state."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from updown.core import IllegalAction, all_games
from updown.core.protocol import Game


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.id)
@pytest.mark.parametrize("bad", [2.0, None, "5", True, 1 + 0j])
def test_non_integer_actions_are_refused_at_every_kind_of_node(game: Game[Any], bad: object) -> None:
    state = game.new_state(game.max_players)
    rng = random.Random(7)
    checked = {"chance": 0, "decision": 0}
    for _ in range(400):
        if state.is_terminal():
            break
        before = json.dumps([state.view(s) for s in range(state.players)] + [state.view(None)])
        seat = None if state.is_chance() else state.actors()[0]
        with pytest.raises(IllegalAction, match="whole-number id"):
            state.apply(bad, seat)  # type: ignore[arg-type]
        after = json.dumps([state.view(s) for s in range(state.players)] + [state.view(None)])
        assert before == after
        checked["chance" if seat is None else "decision"] += 1
        if state.is_chance():
            state.apply(state.sample_chance(rng))
        else:
            state.apply(rng.choice(state.legal_actions(seat)), seat)  # type: ignore[arg-type]
    assert checked["chance"] and checked["decision"]
