"""UP&DOWN worlds read from the cards the others played (``ReadWorlds``, the levels' ``read``).

A card is kept out of a seat's hidden cards when greedy would have played it instead of the card
the seat played this round. Against greedy players the real deal must stay possible (nearly
always: the rule's scores are worked out without the seat's unknown cards, within a margin), the
worlds must agree with the view, and the cards kept out must be really kept out of every world.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Iterator

import pytest

pytest.importorskip("numpy")

from updown.bots.updown_greedy import ReadWorlds  # noqa: E402
from updown.core.protocol import State  # noqa: E402
from updown.games.updown import card_id  # noqa: E402
from updown_walk import walk  # noqa: E402



def _hidden_of(state: State, seat: int) -> set[int]:
    view = state.view(seat)
    cards = {card_id(c) for c in view["hand"]}
    if view["choice"] is not None:
        cards.add(card_id(view["choice"]))
    return cards


def _positions(players: int, games: int, seed: int, random_seat: int | None = None) -> Iterator[tuple[State, int]]:
    """(state, seat) at every choice of a card, along games of greedy bots (one seat random)."""
    for st, seat, _, _ in walk(players, games, seed, random_seat=random_seat):
        if st.view(seat)["phase"] == "choose":
            yield st, seat


@pytest.mark.parametrize("players", [3, 4])
def test_against_greedy_the_real_hands_stay_possible_and_cards_are_ruled_out(players: int) -> None:
    positions = wrong = 0
    ruled: list[int] = []
    for st, seat in _positions(players, 12, seed=players):
        worlds = ReadWorlds(st.view(seat))
        for j in range(players):
            if j != seat:
                out = worlds.excluded[j]
                ruled.append(len(out))
                wrong += bool(out & _hidden_of(st, j))
        positions += 1
    assert positions > 200
    assert statistics.fmean(ruled) > 0.5  # the rule's choices do tell something
    assert wrong / len(ruled) < 0.05, f"{wrong} of {len(ruled)} seats had a real card ruled out"


def test_worlds_agree_with_the_view_and_keep_the_ruled_out_cards_away() -> None:
    checked = 0
    for st, seat in _positions(4, 4, seed=11):
        view = st.view(seat)
        worlds = ReadWorlds(view)
        if worlds.deal is None:
            continue
        rng = random.Random(checked)
        for _ in range(20):
            world = worlds.draw(rng)
            assert world.view(seat) == view
            for j in range(4):
                if j != seat:
                    assert not (_hidden_of(world, j) & worlds.excluded[j])
        checked += 1
    assert checked > 20


def test_a_seat_that_does_not_play_by_the_rule_still_gets_worlds() -> None:
    # A random player contradicts the rule; where no world would fit, the worlds are uniform.
    fallbacks = 0
    for st, seat in _positions(4, 6, seed=3, random_seat=1):
        if seat == 1:
            continue
        view = st.view(seat)
        worlds = ReadWorlds(view)
        fallbacks += worlds.deal is None and any(worlds.excluded[j] for j in range(4) if j != seat)
        assert worlds.draw(random.Random(0)).view(seat) == view
    assert fallbacks > 0
