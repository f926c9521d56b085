"""Observation encodings: fixed size, in [0, 1], built from the view only (the same in every world
the seat cannot tell apart), with masks that are exactly the legal actions, documented field by field."""

from __future__ import annotations

import random
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from updown.adapters.observations import (
    action_space_size, draw_chance, encoder_for, encoder_ids, placing_utility,
)
from updown.core.errors import UpdownError
from updown.core.protocol import Result
from updown.core.registry import all_games, get_game

SHORT = {"updown": {"rounds": 1}, "euchre": {"deals": 1}}
"""Short settings so that a test plays many games."""

SETTINGS = [(g.id, n) for g in all_games() for n in range(g.min_players, g.max_players + 1)]


def decisions(game_id: str, players: int, seed: int, options: dict[str, Any] | None = None):
    """Yield (state, seat) at every decision of a random game, then the terminal state with None."""
    game = get_game(game_id)
    rng = random.Random(seed)
    state = game.new_state(players, game.options(SHORT.get(game_id) if options is None else options))
    while not state.is_terminal():
        if state.is_chance():
            state.apply(draw_chance(state.chance_outcomes(), rng))
            continue
        seat = state.actors()[0]
        yield state, seat
        state.apply(rng.choice(state.legal_actions(seat)), seat)
    yield state, None


def test_every_game_has_an_encoder() -> None:
    assert encoder_ids() == sorted(g.id for g in all_games())


@pytest.mark.parametrize("game_id,players", SETTINGS)
def test_fixed_size_bounded_and_masks_are_the_legal_actions(game_id: str, players: int) -> None:
    game = get_game(game_id)
    enc = encoder_for(game, players, SHORT.get(game_id))
    distinct = set()
    for state, seat in decisions(game_id, players, seed=players):
        for s in range(players):
            vec = enc.encode(state.view(s))
            assert vec.shape == (enc.size,) and vec.dtype == np.float32
            assert vec.min() >= 0.0 and vec.max() <= 1.0
            fields = enc.layout.split(vec)
            assert fields["to_act"][0] == (1.0 if s in state.actors() else 0.0)
            hand = state.view(s)["hand"]
            assert int(fields["hand"].sum()) == len(hand)
            distinct.add(vec.tobytes())
        if seat is not None:
            mask = enc.mask(state.legal_actions(seat))
            assert mask.shape == (action_space_size(game),)
            assert sorted(np.flatnonzero(mask).tolist()) == sorted(state.legal_actions(seat))
    assert len(distinct) > 20  # the encoding follows the game


@pytest.mark.parametrize("game_id,players", SETTINGS)
def test_the_observation_is_the_same_in_every_resampled_world(game_id: str, players: int) -> None:
    """Nothing hidden leaks through the tensor: worlds the seat cannot tell apart encode alike."""
    enc = encoder_for(get_game(game_id), players, SHORT.get(game_id))
    rng = random.Random(5)
    for i, (state, seat) in enumerate(decisions(game_id, players, seed=11 + players)):
        if seat is None or i % 7:
            continue
        for s in range(players):
            mine = enc.encode(state.view(s))
            for _ in range(2):
                world = state.resample(s, rng)
                assert np.array_equal(enc.encode(world.view(s)), mine)


def test_hidden_cards_do_not_change_the_observation_but_own_cards_do() -> None:
    """UP&DOWN, mid-trick: another seat's pending card is invisible; the seat's own is not."""
    game = get_game("updown")
    enc = encoder_for(game, 4, {"rounds": 1})
    for state, seat in decisions("updown", 4, seed=3):
        if seat is not None and state.view(seat)["phase"] == "choose" and seat == 0:
            before = [enc.encode(state.view(s)) for s in range(4)]
            state.apply(state.legal_actions(0)[0], 0)
            after = [enc.encode(state.view(s)) for s in range(4)]
            assert not np.array_equal(before[0], after[0])  # seat 0 sees its own choice
            for s in (1, 2, 3):  # the others see only that seat 0 has submitted
                diff = np.flatnonzero(before[s] != after[s])
                fields = {f.name for f in enc.layout.fields for i in diff if f.start <= i < f.stop}
                assert fields == {"submitted", "to_act", "hand_sizes"}
            return
    raise AssertionError("no choice found")


def test_unknown_game_and_bad_settings_are_clear_errors() -> None:
    game = get_game("updown")
    with pytest.raises(UpdownError, match="2 to 4"):
        encoder_for(game, 7)
    with pytest.raises(UpdownError, match="rounds"):
        encoder_for(game, 4, {"rounds": 0})
    with pytest.raises(ValueError, match="spectator"):
        encoder_for(game, 4).encode(game.new_state(4).view(None))


def test_placing_utility_is_zero_sum_and_shares_ties() -> None:
    assert placing_utility(Result.from_scores([3, 1, 2])) == [1.0, -1.0, 0.0]
    assert placing_utility(Result.from_scores([5, 5, 1, 0])) == [pytest.approx(2 / 3)] * 2 + [0.0 - 1 / 3, -1.0]
    assert sum(placing_utility(Result.from_scores([5, 5, 1, 0]))) == pytest.approx(0.0)


def test_draw_chance_follows_the_probabilities() -> None:
    rng = random.Random(0)
    draws = [draw_chance([(7, 0.75), (3, 0.25)], rng) for _ in range(4000)]
    assert abs(draws.count(7) / 4000 - 0.75) < 0.03


def test_docs_list_every_field_with_its_size() -> None:
    """docs/observations.md has a table per game; each row is `name` | size | meaning."""
    text = (Path(__file__).parent.parent / "docs" / "observations.md").read_text()
    for game in all_games():
        n = game.bench_players
        enc = encoder_for(game, n, SHORT.get(game.id))
        section = text.split(f"## `{game.id}`", 1)[1].split("\n## ", 1)[0]
        rows = dict(re.findall(r"^\| `(\w+)` \| ([^|]+) \|", section, re.M))
        assert list(rows) == [f.name for f in enc.layout.fields], game.id
        for f in enc.layout.fields:
            size = rows[f.name].strip()
            # sizes are written in terms of n (players) and, for Up or Down?, H (highest card)
            value = eval(size.replace("×", "*"), {"n": n, "H": getattr(enc, "highest", 0)})
            assert value == f.size, (game.id, f.name, size, f.size)
