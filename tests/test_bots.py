"""Bots: legal, deterministic for a seed, and the greedy UP&DOWN player is sensible."""

from __future__ import annotations

import random

import pytest

from updown.bots import bot_names, make_bot
from updown.core import UpdownError, get_game
from updown.core.records import Record, replay
from updown.games.updown import card_id
from updown.simulate import play_seeded, simulate

GAME = get_game("updown")


def test_bot_registry():
    assert bot_names("updown") == ["easy", "greedy", "hard", "normal", "pimc", "random"]
    with pytest.raises(UpdownError, match="no bot 'wizard'"):
        make_bot("wizard", GAME, 0, random.Random(0))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_greedy_games_are_legal_and_reproducible(players):
    bots = ["greedy"] * players
    first, record = play_seeded(GAME, players, bots, seed=99)
    again, record2 = play_seeded(GAME, players, bots, seed=99)
    assert record.steps == record2.steps  # the driver also refuses any illegal bot action
    assert replay(Record.from_json(record.to_json())).result() == first.result()


def _state_at_choice(steps: list[str]):
    record = Record("updown", 4, {"rounds": 1}, ["a", "b", "c", "d"], steps)
    return replay(record)


DEAL = [
    "deal 0: 7C 2D 3D 4D 5D 6D 8D 9D 10D JD QD",
    "deal 1: 2C 3C 4C 5C 6C 8C 9C 10C JC QC 2H",
    "deal 2: 3H 4H 5H 6H 7H 8H 9H 10H JH QH 2S",
    "deal 3: 3S 4S 5S 6S 7S 8S 9S 10S JS QS 7D",
]


def test_greedy_plays_its_lone_trump_when_it_is_safe():
    # Trump 7; seat 0 (clubs, UP) holds 7C. The other 7s: 7H (seat 2), 7S and 7D (seat 3).
    # Seat 0 cannot see them, but the trump is its only card that can win at all.
    state = _state_at_choice([*DEAL, "dice: 3+4", "toss: UP", "orient: C", "0: flip"])
    # After the flip it is DOWN; seat 0's only eligible card is the trump 7C.
    bot = make_bot("greedy", GAME, 0, random.Random(1))
    assert bot.act(state.view(0), state.legal_actions(0)) == card_id("7C")


def test_greedy_throws_a_cheap_card_when_it_cannot_win():
    # Seat 1 faces diamonds and holds no diamond and no 7: nothing it holds can win, so it keeps its
    # extremes (2C, QC, 2H) and throws a middle card.
    state = _state_at_choice([*DEAL, "dice: 3+4", "toss: UP", "orient: C", "0: flip"])
    bot = make_bot("greedy", GAME, 1, random.Random(1))
    choice = GAME.action_to_str(bot.act(state.view(1), state.legal_actions(1)))
    assert choice in {"5C", "6C", "8C", "9C"}


def test_greedy_beats_random_players():
    sim = simulate(GAME, 4, 150, ["greedy", "random", "random", "random"], seed=5,
                   options=GAME.options({"rounds": 1}))
    greedy, *randoms = sim.seats
    assert greedy.wins / 150 > 0.6
    assert all(greedy.score_sum > 2 * r.score_sum for r in randoms)
