"""UP&DOWN games walked decision by decision, for the tests of its bots and batched rule."""

from __future__ import annotations

import random
from collections.abc import Iterator

from updown.bots.updown_greedy import UpDownGreedy
from updown.core.protocol import State
from updown.core.registry import get_game

GAME = get_game("updown")


def walk(players: int, games: int, seed: int, rounds: int = 1, random_share: float = 0.0,
         random_seat: int | None = None) -> Iterator[tuple[State, int, list[int], int]]:
    """``(state, seat, legal, greedy's choice)`` before every decision of ``games`` games of greedy
    bots; then the move is played: greedy's choice, or a random legal action ``random_share`` of
    the time, or always for ``random_seat``. The state is the live one: copy it to keep it."""
    rng = random.Random(seed)
    bots = [UpDownGreedy(GAME, s, random.Random(s)) for s in range(players)]
    for _ in range(games):
        st = GAME.new_state(players, GAME.options({"rounds": rounds}))
        while not st.is_terminal():
            if st.is_chance():
                st.apply(st.sample_chance(rng))
                continue
            seat = st.actors()[0]
            legal = st.legal_actions(seat)
            want = bots[seat].act(st.view(seat), legal)
            yield st, seat, legal, want
            by_chance = seat == random_seat or rng.random() < random_share
            st.apply(rng.choice(legal) if by_chance else want, seat)
