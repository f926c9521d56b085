"""Views built with the engines' caches (the phase names' table, the options' view kept on the
state, each seat's visible events kept and extended) are exactly the views of the first
construction, kept here as the reference: the same JSON text (keys in the same order), events
read-only and shared, every other part fresh, so that nothing done to a view changes a later view
or the game. Whole random games of every game under several options, every seat and the
spectator at every step, through clones and worlds; pure and compiled engines alike."""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from updown.core.frozen import FrozenDict, FrozenList, freeze
from updown.core.protocol import State, View
from updown.core.registry import get_game
from updown.games import euchre as eu
from updown.games import up_or_down as uod
from updown.games import updown as ud
from updown.games import updown_sueca as su


# -- the first construction of each view (before the caches), the reference --------------------
def ref_log(state: State, seat: int | None) -> list[dict[str, Any]]:
    return [e for e in state.log if "to" not in e or (seat is not None and seat in e["to"])]


def ref_options(state: Any) -> Any:
    return freeze(state.options.to_dict())


def ref_euchre(s: Any, seat: int | None) -> View:
    phase = s.phase
    in_deal = phase > 2 and phase != 8
    v: View = {
        "game": "euchre", "players": 4, "seat": seat,
        "phase": eu.Phase(phase).name.lower(),
        "deal": s.deal_no,
        "dealer": s.dealer if s.dealer >= 0 else None,
        "upcard": eu.CARD_STR[s.upcard] if s.upcard >= 0 else None,
        "up_taken": s.up_taken,
        "trump": eu.SUIT_LETTERS[s.trump] if s.trump >= 0 else None,
        "maker": s.maker if s.maker >= 0 else None,
        "alone": s.alone,
        "defender": s.defender if s.defender >= 0 else None,
        "out": [x for x in range(4) if not s._active(x)] if in_deal else [],
        "leader": s.leader if s.leader >= 0 else None,
        "table": [[x, eu.CARD_STR[c]] for x, c in zip(s.trick_seats, s.trick_cards)],
        "trick": min(s.trick + 1, s.hand_size),
        "tricks": list(s.won),
        "team_tricks": [s.won[0] + s.won[2], s.won[1] + s.won[3]],
        "hand_sizes": [len(h) for h in s.hands],
        "to_act": list(s.actors()),
        "totals": list(s.totals),
        "target": s.options.target,
        "options": ref_options(s),
        "log": ref_log(s, seat),
    }
    if seat is not None:
        v["hand"] = [eu.CARD_STR[c] for c in sorted(s.hands[seat])]
        v["discard"] = eu.CARD_STR[s.discarded] if seat == s.dealer and s.discarded >= 0 else None
    if phase == 8:
        v["result"] = s.result().to_dict()
    return v


def ref_updown(s: Any, seat: int | None) -> View:
    n = s.players
    v: View = {
        "game": "updown", "players": n, "seat": seat,
        "phase": ud.Phase(s.phase).name.lower(),
        "round": s.round + 1,
        "rounds": s.rounds,
        "trick": min(s.trick + 1, s.hand_size),
        "tricks_per_round": s.hand_size,
        "up": s.up,
        "trump": s.trump,
        "dice": list(s.dice) if s.dice else None,
        "suits": s._letters() or None,
        "leader": s.leader if s.leader >= 0 else None,
        "pot": s.pot,
        "hand_sizes": [len(h) for h in s.hands],
        "submitted": [x for x in range(n) if s.pending[x] is not None],
        "to_act": list(s.actors()),
        "tricks": list(s.tricks),
        "totals": list(s.totals),
        "discarded": s.discarded,
        "options": ref_options(s),
        "log": ref_log(s, seat),
    }
    if seat is not None:
        v["hand"] = [ud.CARD_STR[c] for c in sorted(s.hands[seat])]
        mine = s.pending[seat]
        v["choice"] = ud.CARD_STR[mine] if mine is not None else None
    if s.phase == ud.Phase.OVER:
        v["result"] = s.result().to_dict()
    return v


def ref_up_or_down(s: Any, seat: int | None) -> View:
    discards = [len(p) for p in s.piles]
    points = [[uod.column_score(c) for c in cols] for cols in s.cols]
    names = {1: "up", -1: "down", 0: None}
    columns = [[{"cards": list(c), "direction": names[uod.direction_of(c)], "score": x} if c else None
                for c, x in zip(cols, xs)] for cols, xs in zip(s.cols, points)]
    v: View = {
        "game": "up-or-down", "players": s.players, "seat": seat,
        "phase": uod.Phase(s.phase).name.lower(),
        "length": s.options.length,
        "highest": s.top,
        "turn": s.turn,
        "to_act": list(s.actors()),
        "display": list(s.ring),
        "played": s.played or None,
        "taken": s.taken or None,
        "columns": columns,
        "discards": discards,
        "scores": [sum(xs) + d for xs, d in zip(points, discards)],
        "hand_sizes": [len(h) for h in s.hands],
        "known": [sorted(k) for k in s.known],
        "down": s.down,
        "up": s.up_hidden + (1 if s.up_top else 0),
        "up_top": s.up_top or None,
        "options": ref_options(s),
        "log": ref_log(s, seat),
    }
    if seat is not None:
        v["hand"] = sorted(s.hands[seat])
    if s.phase == uod.Phase.OVER:
        v["result"] = s.result().to_dict()
    return v


def ref_updown_sueca(s: Any, seat: int | None) -> View:
    decision = {None: None, su.PLAY: "play", su.SIT_OUT: "sit out"}
    v: View = {
        "game": "updown-sueca", "players": 4, "seat": seat,
        "phase": su.Phase(s.phase).name.lower(),
        "deal": s.deal_no,
        "dealer": s.dealer,
        "chooser": s.chooser,
        "trump": "CDHS"[s.trump] if s.trump >= 0 else None,
        "turned": su.CARD_STR[s.turned] if s.turned >= 0 else None,
        "trick_value": 2 if s.trump == s.double_suit else 1,
        "scores": list(s.scores),
        "sat_out": list(s.sat_out),
        "decisions": [decision[d] for d in s.decision],
        "forced": list(s.forced),
        "discarded": [len(d) for d in s.discards],
        "exchanged": list(s.exchanged),
        "hand_sizes": [len(h) for h in s.hands],
        "stock": len(s.deck),
        "trick": s.trick_no,
        "leader": s.leader if s.leader >= 0 else None,
        "table": [[x, su.CARD_STR[c]] for x, c in s.table],
        "tricks": list(s.tricks),
        "to_act": list(s.actors()),
        "left": [x for x in range(4) if s.left[x]],
        "options": ref_options(s),
        "log": ref_log(s, seat),
    }
    if seat is not None:
        v["hand"] = [su.CARD_STR[c] for c in sorted(s.hands[seat])]
        v["my_discards"] = [su.CARD_STR[c] for c in s.discards[seat]]
    if s.phase == su.Phase.OVER:
        v["result"] = s.result().to_dict()
    return v


REFERENCE: dict[str, Callable[[Any, int | None], View]] = {
    "euchre": ref_euchre, "updown": ref_updown, "up-or-down": ref_up_or_down, "updown-sueca": ref_updown_sueca,
}

SETUPS: list[tuple[str, int, dict[str, Any]]] = [
    ("euchre", 4, {"deals": 2}),
    ("euchre", 4, {"target": 3, "lone_defender": True, "stick_the_dealer": False}),
    ("updown", 2, {"rounds": 1}),
    ("updown", 3, {"rounds": 2, "tiebreak_rounds": 1}),
    ("updown", 4, {"rounds": 1}),
    ("updown-sueca", 4, {"deals": 2}),
    ("updown-sueca", 4, {"deals": 1, "exchange_limit": 2, "regional": True}),
    ("up-or-down", 2, {}),
    ("up-or-down", 4, {}),
    ("up-or-down", 6, {"length": "full"}),
]


# -- checks ---------------------------------------------------------------------------------------
def same_view(got: View, want: View) -> None:
    """The same JSON text, keys in the same order; events read-only, the rest plain and fresh."""
    assert json.dumps(got) == json.dumps(want)
    assert type(got["log"]) is list
    assert all(type(e) is FrozenDict for e in got["log"])
    assert type(got["options"]) is FrozenDict
    for key, value in got.items():
        if key not in ("log", "options") and isinstance(value, (dict, list)):
            assert not isinstance(value, (FrozenDict, FrozenList)), key


def vandalise(view: View) -> None:
    """Change everything in ``view`` that may be changed, all the way down; what is shared must refuse."""
    for event in view["log"][:3]:
        with pytest.raises(TypeError):
            event["type"] = "changed"
    with pytest.raises(TypeError):
        view["options"]["x"] = 1
    view["log"].append({"type": "changed"})
    for key in list(view):
        if key not in ("log", "options"):
            wreck(view[key])
        view[key] = "changed"


def wreck(value: Any) -> None:
    if isinstance(value, list):
        for item in value:
            wreck(item)
        value.append(99)
    elif isinstance(value, dict):
        for key in list(value):
            wreck(value[key])
            value[key] = "changed"


def play(game_id: str, players: int, options: dict[str, Any], seed: int, clone_at: float) -> None:
    game = get_game(game_id)
    reference = REFERENCE[game_id]
    rng = random.Random(seed)
    state = game.new_state(players, game.Options.from_dict(options))
    shadow = game.new_state(players, game.Options.from_dict(options))  # never viewed: no caches
    seats: list[int | None] = [None, *range(players)]
    steps = 0
    while not state.is_terminal():
        asked = rng.sample(seats, rng.randint(1, len(seats)))
        for seat in asked:
            view = state.view(seat)
            same_view(view, reference(state, seat))
            if rng.random() < 0.5:
                vandalise(view)
        for seat in asked:  # again: nothing done to the first views shows
            same_view(state.view(seat), reference(state, seat))
        if rng.random() < clone_at:  # a clone starts from its original's caches
            state = state.clone()
            seat = rng.choice(seats)
            same_view(state.view(seat), reference(state, seat))
        if state.is_chance():
            action = state.sample_chance(rng)
            state.apply(action)
            shadow.apply(action)
        else:
            seat = rng.choice(state.actors())
            action = rng.choice(state.legal_actions(seat))
            state.apply(action, seat)
            shadow.apply(action, seat)
        steps += 1
        assert state.log == shadow.log  # viewing and vandalising changed nothing in the game
    assert steps > 10
    for seat in seats:
        same_view(state.view(seat), reference(state, seat))
        assert json.dumps(state.view(seat)) == json.dumps(shadow.view(seat))
    assert state.result() == shadow.result()


@settings(max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 2**32 - 1), clone_at=st.sampled_from([0.0, 0.05, 0.3]))
def test_views_equal_the_first_construction(setup: tuple[str, int, dict[str, Any]], seed: int, clone_at: float) -> None:
    play(*setup, seed=seed, clone_at=clone_at)


@pytest.mark.parametrize(("game_id", "players", "options"), SETUPS)
def test_every_setup_once(game_id: str, players: int, options: dict[str, Any]) -> None:
    play(game_id, players, options, seed=7, clone_at=0.1)


@pytest.mark.parametrize(("game_id", "players", "options"), SETUPS[::3])
def test_worlds_views_equal_the_first_construction(game_id: str, players: int, options: dict[str, Any]) -> None:
    """A world's state (built empty, then filled from a view) shows the same views too."""
    game = get_game(game_id)
    rng = random.Random(3)
    state = game.new_state(players, game.Options.from_dict(options))
    worlds = 0
    while not state.is_terminal():
        if state.is_chance():
            state.apply(state.sample_chance(rng))
            continue
        seat = rng.choice(state.actors())
        if worlds < 4 or rng.random() < 0.3:
            view = state.view(seat)
            world = game.sample_world(copy.deepcopy(view), rng)
            same_view(world.view(seat), REFERENCE[game_id](world, seat))
            assert json.dumps(world.view(seat)) == json.dumps(view)
            worlds += 1
        state.apply(rng.choice(state.legal_actions(seat)), seat)
    assert worlds > 3


@settings(max_examples=25, suppress_health_check=[HealthCheck.too_slow])
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 2**32 - 1))
def test_encoded_views_equal_the_reference_encoders(setup: tuple[str, int, dict[str, Any]], seed: int) -> None:
    """Every seat's vector at every step of a random game, from the cached views, is the reference
    encoder's (the encoders of 6bf338c, kept in tests/test_encoder_identity.py) bit for bit."""
    import numpy as np

    from test_encoder_identity import REFERENCE as ENCODERS  # noqa: I001

    from updown.adapters.observations import encoder_for

    game_id, players, options = setup
    game = get_game(game_id)
    enc = encoder_for(game, players, options)
    ref = ENCODERS[game_id](game, players, enc.options)
    rng = random.Random(seed)
    state = game.new_state(players, enc.options)
    vectors = 0
    while not state.is_terminal():
        if state.is_chance():
            state.apply(state.sample_chance(rng))
            continue
        for seat in range(players):
            view = state.view(seat)
            want = ref.encode(view)
            assert enc.encode(view).tobytes() == want.tobytes()
            assert enc.encode_list(view) == want.astype(np.float32).tolist()
            vectors += 1
        seat = rng.choice(state.actors())
        state.apply(rng.choice(state.legal_actions(seat)), seat)
    assert vectors > 10


# -- freeze: the first version, the reference ------------------------------------------------------
def ref_freeze(value: Any) -> Any:
    kind = type(value)
    atoms = (str, int, bool, float, type(None))
    if kind is FrozenDict or kind is FrozenList or kind in atoms:
        return value
    if isinstance(value, dict):
        return FrozenDict({k: v if type(v) in atoms else ref_freeze(v) for k, v in value.items()})
    if isinstance(value, list):
        return FrozenList([v if type(v) in atoms else ref_freeze(v) for v in value])
    if isinstance(value, tuple):
        return tuple(ref_freeze(v) for v in value)
    return value


def shape(value: Any) -> Any:
    """``value`` with each container's exact type beside its contents (key order kept)."""
    if isinstance(value, dict):
        return (type(value).__name__, [(k, shape(v)) for k, v in value.items()])
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [shape(v) for v in value])
    return (type(value).__name__, value)


class _Sub(dict[str, Any]):
    pass


_atoms = st.one_of(st.none(), st.booleans(), st.integers(-5, 60), st.floats(allow_nan=False), st.text(max_size=3))
_values = st.recursive(_atoms, lambda inner: st.one_of(
    st.lists(inner, max_size=4),
    st.dictionaries(st.text(max_size=3), inner, max_size=4),
    st.lists(inner, max_size=3).map(tuple),
    st.lists(inner, max_size=3).map(FrozenList),
    st.dictionaries(st.text(max_size=3), inner, max_size=3).map(FrozenDict),
    st.dictionaries(st.text(max_size=3), inner, max_size=3).map(_Sub),
    st.sets(st.integers(0, 9), max_size=3),
), max_leaves=20)


@settings(max_examples=400)
@given(value=_values)
def test_freeze_equals_the_first_version(value: Any) -> None:
    """The same value, container types and key order as the first freeze, and shares what that
    shared (frozen parts and atoms), for any JSON-like value with frozen parts, tuples, a dict
    subclass and sets in it; the input is left as it was."""
    before = shape(value)
    got, want = freeze(value), ref_freeze(value)
    assert shape(got) == shape(want)
    assert shape(value) == before
    if type(value) in (FrozenDict, FrozenList):
        assert got is value


def test_freeze_of_logged_events_equals_the_first_version() -> None:
    """Every event of random games of every game (what views freeze), the same as the first freeze."""
    for game_id, players, options in SETUPS[::2]:
        game = get_game(game_id)
        rng = random.Random(5)
        state = game.new_state(players, game.Options.from_dict(options))
        while not state.is_terminal():
            if state.is_chance():
                state.apply(state.sample_chance(rng))
                continue
            seat = rng.choice(state.actors())
            state.apply(rng.choice(state.legal_actions(seat)), seat)
        plain = [e for e in state.log if type(e) is dict]
        assert plain
        for event in state.log:
            assert shape(freeze(event)) == shape(ref_freeze(event))
