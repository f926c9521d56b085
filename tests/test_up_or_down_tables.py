"""Up or Down?'s tables kept for speed (``rows`` and ``choices``) agree with the position they are
kept for, along random games, their clones and worlds drawn from their views."""

from __future__ import annotations

import random

import pytest

from updown.games.up_or_down import GAME, Phase, UpOrDownState, column_row


def check(state: UpOrDownState) -> None:
    assert state.rows == [column_row(col, k) for cols in state.cols for k, col in enumerate(cols)]
    if state.phase in (Phase.TAKE, Phase.PLACE, Phase.DRAW):
        assert state.choices == state._choices()


@pytest.mark.parametrize("players, length", [(2, "short"), (4, "short"), (6, "full")])
def test_rows_and_choices_follow_the_position(players: int, length: str) -> None:
    rng = random.Random(players)
    state = GAME.new_state(players, GAME.options({"length": length}))
    assert isinstance(state, UpOrDownState)
    step = 0
    while not state.is_terminal():
        check(state)
        if step % 23 == 0:
            check(state.clone())  # type: ignore[arg-type]
            if state.actors():
                world = state.resample(state.actors()[0], rng)
                assert isinstance(world, UpOrDownState)
                check(world)
                assert world.legal_actions(state.actors()[0]) == state.legal_actions(state.actors()[0])
        if state.is_chance():
            state.apply(state.sample_chance(rng))
        else:
            seat = state.actors()[0]
            state.apply(rng.choice(state.legal_actions(seat)), seat)
        step += 1
    check(state)
