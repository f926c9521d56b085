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


def _filtered(log: list[Any], seat: int | None) -> list[Any]:
    return [e for e in log if "to" not in e or (seat is not None and seat in e["to"])]


@pytest.mark.parametrize("game", all_games(), ids=lambda g: g.id)
def test_visible_log_is_the_log_filtered_for_the_seat_as_states_grow_clone_and_are_drawn(game: Game[Any]) -> None:
    """Views keep each seat's visible events between calls (clones start from their original's);
    they must always equal a fresh filter of the log, on the state itself, on clones going their
    own way after the original has gone on, and on worlds drawn from a view."""
    state = game.new_state(game.max_players)
    rng = random.Random(11)
    seats: list[int | None] = [None, *range(state.players)]
    clones = []
    for step in range(300):
        if state.is_terminal():
            break
        for s in seats:
            assert state.visible_log(s) == _filtered(state.log, s)
        if step % 40 == 5:
            clones.append(state.clone())  # starts from the original's filtered events
            clones.append(clones[-1].clone())  # a clone of a clone that never showed a view
            seat = state.actors()[0] if not state.is_chance() else 0
            world = game.sample_world(state.view(seat), rng)
            world.view(seat)  # fill the world's cache, then check it against its own log
            for s in seats:
                assert world.visible_log(s) == _filtered(world.log, s)
        if state.is_chance():
            state.apply(state.sample_chance(rng))
        else:
            state.apply(rng.choice(state.legal_actions(state.actors()[0])), state.actors()[0])
    assert clones
    for c in clones:  # a clone taken mid-way, then moved on differently from the original
        for _ in range(30):
            if c.is_terminal():
                break
            if c.is_chance():
                c.apply(c.sample_chance(rng))
            else:
                c.apply(rng.choice(c.legal_actions(c.actors()[0])), c.actors()[0])
            for s in seats:
                assert c.visible_log(s) == _filtered(c.log, s)
    returned = state.visible_log(0)
    returned.clear()  # the caller's list is its own
    assert state.visible_log(0) == _filtered(state.log, 0)


def test_cards_parse_the_canonical_text_and_the_other_spellings_alike() -> None:
    from updown.core.cards import Card, Suit

    for rank in range(2, 15):
        for suit in Suit:
            card = Card(rank, suit)
            assert Card.parse(str(card)) == card
            assert Card.parse(" " + str(card).lower() + " ") == card
            assert Card.parse(card.pretty) == card
    with pytest.raises(Exception, match="not a card"):
        Card.parse("1H")
