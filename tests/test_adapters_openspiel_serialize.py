"""OpenSpiel games and states that pickle, deep-copy and serialise: OpenSpiel's random simulation
checks with serialisation on every registration and setting, a pickle round trip in the middle of
a game of each registration that then plays on identically (here and in another process), deep
copies, and resampled worlds, whose serialisation holds nothing but the seat's view."""

from __future__ import annotations

import copy
import json
import os
import pickle
import random
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from updown.adapters import openspiel as uo  # noqa: E402
from updown.core.registry import get_game  # noqa: E402

SETTINGS = [
    ("python_updown", {"players": 2, "rounds": 1}, 2),
    ("python_updown", {"players": 3, "rounds": 1}, 2),
    ("python_updown", {"players": 4}, 1),  # four rounds
    ("python_updown", {"players": 2, "rounds": 2, "tiebreak_rounds": 2}, 1),
    ("python_updown_turns", {"players": 2, "rounds": 1}, 2),
    ("python_updown_turns", {"players": 3, "rounds": 1}, 2),
    ("python_updown_turns", {"players": 4, "rounds": 1}, 2),
    ("python_updown_turns", {"players": 2, "rounds": 2, "tiebreak_rounds": 2}, 1),
    ("python_euchre", {"deals": 1}, 3),
    ("python_euchre", {"stick_the_dealer": False, "lone_defender": True, "deals": 3}, 1),
    ("python_euchre", {}, 1),
    ("python_up_or_down", {"players": 2}, 2),
    ("python_up_or_down", {"players": 3}, 1),
    ("python_up_or_down", {"players": 4}, 1),
    ("python_up_or_down", {"players": 5}, 1),
    ("python_up_or_down", {"players": 6}, 1),
    ("python_up_or_down", {"players": 3, "length": "full"}, 1),
    ("python_updown_sueca", {}, 1),
    ("python_updown_sueca", {"regional": True, "exchange_limit": 2}, 1),
]

# One short setting per registration, for the round trips.
SHORT = {
    "python_updown": {"players": 3, "rounds": 1},
    "python_updown_turns": {"players": 3, "rounds": 1},
    "python_euchre": {"deals": 1},
    "python_up_or_down": {"players": 3},
    "python_updown_sueca": {},
}


def test_the_settings_cover_every_registration_and_player_count() -> None:
    assert {name for name, _p, _s in SETTINGS} == set(uo.GAMES) == set(SHORT)
    for name in uo.GAMES:
        engine = pyspiel.load_game(name).engine_game
        counts = {pyspiel.load_game(n, p).num_players() for n, p, _s in SETTINGS if n == name}
        assert counts == set(range(engine.min_players, engine.max_players + 1)), name


@pytest.mark.parametrize("name,params,sims", SETTINGS)
def test_openspiel_random_simulation_checks_with_serialisation(name: str, params: dict[str, Any], sims: int) -> None:
    game = pyspiel.load_game(name, params)
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)


# -- helpers --------------------------------------------------------------------------------------
def snapshot(state: Any) -> dict[str, Any]:
    """Everything the state shows: every seat's and the spectator's engine view, OpenSpiel's
    history, who acts and what they may do, every seat's information and observation."""
    n = state.num_players()
    snap: dict[str, Any] = {
        "views": [json.dumps(state.engine.view(p), sort_keys=True) for p in [*range(n), None]],
        "str": str(state), "history": state.history(), "move_number": state.move_number(),
        "current": state.current_player(), "terminal": state.is_terminal(), "returns": state.returns(),
        "info": [state.information_state_string(p) for p in range(n)],
        "obs": [state.observation_string(p) for p in range(n)],
        "tensors": [np.asarray(state.observation_tensor(p), np.float32).tobytes() for p in range(n)],
        "info_tensors": [np.asarray(state.information_state_tensor(p), np.float32).tobytes() for p in range(n)],
    }
    if state.is_chance_node():
        snap["chance"] = state.chance_outcomes()
    elif not state.is_terminal():
        snap["legal"] = [state.legal_actions(p) for p in range(n)]
        snap["flat"] = len(state.legal_actions())
    return snap


def step(states: list[Any], rng: random.Random) -> None:
    """One step chosen from the first state, applied to every state."""
    s = states[0]
    if s.is_chance_node():
        actions, probs = zip(*s.chance_outcomes())
        choice = rng.choices(actions, weights=probs)[0]
        for t in states:
            t.apply_action(choice)
    elif s.is_simultaneous_node():
        joint = [rng.choice(s.legal_actions(p) or [0]) for p in range(s.num_players())]
        for t in states:
            t.apply_actions(joint)
    else:
        choice = rng.choice(s.legal_actions())
        for t in states:
            t.apply_action(choice)


def mid_game(name: str, seed: int = 7, part: float = 0.5) -> tuple[Any, Any]:
    """A game of ``name`` and a state ``part`` of the way through the game that ``seed`` plays (for
    python_updown: at the first simultaneous node from there, so that the round trip is at one)."""
    game = pyspiel.load_game(name, SHORT[name])
    whole = game.new_initial_state()
    rng = random.Random(seed)
    length = 0
    while not whole.is_terminal():
        step([whole], rng)
        length += 1
    state = game.new_initial_state()
    rng = random.Random(seed)
    done = 0
    while done < int(length * part) or (name == "python_updown" and not state.is_simultaneous_node()):
        step([state], rng)
        done += 1
    assert not state.is_terminal() and state.history()
    return game, state


def play_on_together(a: Any, b: Any, seed: int) -> None:
    """Play both states to the end with the same choices: the same actor, legal actions and chance
    outcomes at every step, everything the same every tenth step and at the end, same returns."""
    rng = random.Random(seed)
    moves = 0
    while not a.is_terminal():
        if moves % 10 == 0:
            assert snapshot(a) == snapshot(b)
        assert a.current_player() == b.current_player() and a.history() == b.history()
        assert (a.chance_outcomes() == b.chance_outcomes() if a.is_chance_node()
                else [a.legal_actions(p) for p in range(a.num_players())]
                == [b.legal_actions(p) for p in range(b.num_players())])
        step([a, b], rng)
        moves += 1
    assert b.is_terminal() and snapshot(a) == snapshot(b)
    assert a.returns() == b.returns() and sum(a.returns()) == pytest.approx(0.0)


# -- round trips ----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(SHORT))
def test_a_pickled_state_plays_on_exactly_as_the_original(name: str) -> None:
    game, state = mid_game(name)
    back = pickle.loads(pickle.dumps(state))
    assert type(back) is type(state)
    assert str(back.get_game()) == str(game)
    if name == "python_updown":
        assert back.is_simultaneous_node()
    play_on_together(state, back, seed=11)


@pytest.mark.parametrize("name", sorted(SHORT))
def test_serialize_game_and_state_and_serialize_round_trip(name: str) -> None:
    game, state = mid_game(name, seed=3, part=0.3)
    text = pyspiel.serialize_game_and_state(game, state)
    game2, state2 = pyspiel.deserialize_game_and_state(text)
    assert str(game2) == str(game) and type(state2) is type(state)
    assert snapshot(state2) == snapshot(state)
    # the state's own text, read back by the game (OpenSpiel's history line comes first)
    ser = state.serialize()
    assert ser.startswith("history=" + ",".join(f"{pa.player}:{pa.action}" for pa in state.full_history()))
    state3 = game.deserialize_state(ser)
    assert snapshot(state3) == snapshot(state)
    play_on_together(state2, state3, seed=5)


@pytest.mark.parametrize("name", sorted(SHORT))
def test_games_pickle_and_deep_copy(name: str) -> None:
    game = pyspiel.load_game(name, SHORT[name])
    for other in (pickle.loads(pickle.dumps(game)), copy.deepcopy(game)):
        assert str(other) == str(game) and type(other) is type(game)
        assert other.engine_options == game.engine_options
        a, b = game.new_initial_state(), other.new_initial_state()
        rng = random.Random(2)
        for _ in range(30):
            step([a, b], rng)
        assert snapshot(a) == snapshot(b)


@pytest.mark.parametrize("name", sorted(SHORT))
def test_deep_copy_is_the_same_state_and_independent(name: str) -> None:
    _game, state = mid_game(name, seed=9, part=0.7)
    before = snapshot(state)
    twin = copy.deepcopy(state)
    assert type(twin) is type(state) and snapshot(twin) == before
    step([twin], random.Random(1))
    assert snapshot(state) == before  # the copy moved on alone
    play_on_together(state, copy.deepcopy(state), seed=4)


def test_a_pickled_state_plays_on_in_another_process() -> None:
    """States of every registration, pickled here, unpickled in a fresh interpreter that never
    imports the adapter itself (unpickling does), then played to the end with seeded choices."""
    states = [mid_game(name, seed=13)[1] for name in sorted(SHORT)]
    expected = []
    for s in states:
        t = s.clone()
        rng = random.Random(17)
        while not t.is_terminal():
            step([t], rng)
        expected.append({"history": t.history(), "returns": t.returns()})
    program = (
        "import json, pickle, random, sys\n"
        "states = pickle.loads(sys.stdin.buffer.read())\n"
        "assert 'updown.adapters.openspiel' in sys.modules  # imported by unpickling\n"
        "out = []\n"
        "for t in states:\n"
        "    rng = random.Random(17)\n"
        "    while not t.is_terminal():\n"
        "        if t.is_chance_node():\n"
        "            actions, probs = zip(*t.chance_outcomes())\n"
        "            t.apply_action(rng.choices(actions, weights=probs)[0])\n"
        "        elif t.is_simultaneous_node():\n"
        "            t.apply_actions([rng.choice(t.legal_actions(p) or [0]) for p in range(t.num_players())])\n"
        "        else:\n"
        "            t.apply_action(rng.choice(t.legal_actions()))\n"
        "    out.append({'history': t.history(), 'returns': t.returns()})\n"
        "print(json.dumps(out))\n"
    )
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    done = subprocess.run([sys.executable, "-c", program], input=pickle.dumps(states), cwd=root,
                          capture_output=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert json.loads(done.stdout) == expected


# -- worlds ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["python_updown_turns", "python_euchre", "python_up_or_down", "python_updown_sueca"])
def test_a_resampled_world_round_trips_and_holds_only_the_seats_view(name: str) -> None:
    _game, state = mid_game(name, seed=5, part=0.6)
    while state.is_chance_node():
        step([state], random.Random(0))
    seat = state.current_player()
    world = state.resample_from_infostate(seat, lambda: 0.375)
    assert world.history() == []
    rng = random.Random(8)
    for _ in range(3):  # a few moves in the world, part of its record
        if not world.is_terminal():
            step([world], rng)
    for back in (pickle.loads(pickle.dumps(world)), copy.deepcopy(world),
                 pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(world.get_game(), world))[1]):
        assert snapshot(back) == snapshot(world)
    play_on_together(world, pickle.loads(pickle.dumps(world)), seed=6)
    # A world is serialised from the seat's view and the seed alone: drawn from another state
    # that the seat cannot tell from the real one, with the same seed, it serialises the same.
    other = state.resample_from_infostate(seat, lambda: 0.625)
    assert other.information_state_string(seat) == state.information_state_string(seat)
    a = state.resample_from_infostate(seat, lambda: 0.375)
    b = other.resample_from_infostate(seat, lambda: 0.375)
    assert a.serialize() == b.serialize()
    assert pickle.dumps(a) == pickle.dumps(b)


def test_the_record_rebuilds_through_the_engine_and_rejects_an_illegal_move() -> None:
    """What a state serialises is its record of moves from the initial state, chance outcomes
    included; reading it replays them through the rules."""
    _game, state = mid_game("python_euchre", seed=2)
    replay, (game_id, players, options, start, moves) = state._engine.__reduce__()
    assert (game_id, players, start) == ("euchre", 4, None)
    assert [a for _seat, a in moves] == state.history()
    assert [-1 if seat is None else seat for seat, _a in moves] == [pa.player for pa in state.full_history()]
    engine = replay(game_id, players, options, start, moves).state
    assert engine.view(None) == state.engine.view(None)
    seat, _action = moves[-1]
    with pytest.raises(Exception, match="illegal|not|cannot"):
        replay(game_id, players, options, start, (*moves[:-1], (seat, 10**6)))
